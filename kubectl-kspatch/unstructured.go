package main

import (
	"fmt"
	"sort"
	"strings"
)

// nested returns the value at path in obj, and whether every step of the
// path is there.
func nested(obj map[string]interface{}, path ...string) (interface{}, bool) {
	var v interface{} = obj
	for _, k := range path {
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// stringMap returns the map of strings at path in obj (labels,
// annotations), nil when it is absent or null. Anything else is an error.
func stringMap(obj map[string]interface{}, path ...string) (map[string]interface{}, error) {
	v, ok := nested(obj, path...)
	if !ok || v == nil {
		if len(path) > 1 {
			if parent, ok := nested(obj, path[:len(path)-1]...); ok && parent != nil {
				if _, isMap := parent.(map[string]interface{}); !isMap {
					return nil, fieldErr(strings.Join(path[:len(path)-1], "."), "not an object")
				}
			}
		}
		return nil, nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return nil, fieldErr(strings.Join(path, "."), "not an object")
	}
	for k, s := range m {
		if _, ok := s.(string); !ok {
			return nil, fieldErr(fmt.Sprintf("%s[%s]", strings.Join(path, "."), k), "not a string")
		}
	}
	return m, nil
}

// setLabels sets a pod's metadata.labels, adding metadata if needed.
func setLabels(pod map[string]interface{}, labels map[string]interface{}) {
	meta, _ := pod["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
		pod["metadata"] = meta
	}
	meta["labels"] = labels
}

// dropEmptyLabels removes a pod's empty metadata.labels, and then its
// metadata if nothing is left in it.
func dropEmptyLabels(pod map[string]interface{}) {
	meta, _ := pod["metadata"].(map[string]interface{})
	if labels, ok := meta["labels"].(map[string]interface{}); ok && len(labels) == 0 {
		delete(meta, "labels")
	}
	if meta != nil && len(meta) == 0 {
		delete(pod, "metadata")
	}
}

// specKeys returns m's keys but metadata and status, sorted: what a walk
// for pods or selectors looks into (labels and statuses hold neither).
func specKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "metadata" && k != "status" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
