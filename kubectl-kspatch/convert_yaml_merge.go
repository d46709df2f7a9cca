package main

import (
	yamlv3 "go.yaml.in/yaml/v3"
)

// onlyMergeOverrides reports whether doc parses as YAML, has merge keys
// (<<), and repeats no key within a mapping: then the strict reading's
// "key already set" errors are keys that override merged ones, which
// YAML allows.
func onlyMergeOverrides(doc []byte) bool {
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(doc, &root); err != nil {
		return false
	}
	merges, dup := 0, false
	var walk func(n *yamlv3.Node)
	walk = func(n *yamlv3.Node) {
		if n.Kind == yamlv3.MappingNode {
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind == yamlv3.ScalarNode && k.Tag == "!!merge" {
					merges++
					continue
				}
				if seen[k.Value] {
					dup = true
				}
				seen[k.Value] = true
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	return merges > 0 && !dup
}
