package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// readObjects reads the input as kubectl apply -f does: JSON objects one
// after another, or else YAML documents separated by --- (a JSON object
// is a YAML document too, and a flow-style YAML document starts with {
// as well). Empty documents are skipped and not counted (the input may
// hold none); a document that
// does not parse, is not an object, or repeats a key is an error that
// says which one (counted from 1).
func readObjects(data []byte) ([]map[string]interface{}, error) {
	docs, err := documents(data)
	if err != nil {
		return nil, err
	}
	var objs []map[string]interface{}
	for _, doc := range docs {
		var v interface{}
		strict, err := kjson.UnmarshalStrict(doc, &v, kjson.DisallowDuplicateFields)
		if err == nil && len(strict) > 0 {
			err = strict[0]
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(objs)+1, err)
		}
		if v == nil {
			continue
		}
		obj, ok := v.(map[string]interface{})
		if !ok {
			return nil, fmt.Errorf("document %d: not an object (a %T)", len(objs)+1, v)
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// documents splits the input into JSON documents: a stream of JSON
// objects if the whole input is one, else its YAML documents.
func documents(data []byte) ([][]byte, error) {
	t := bytes.TrimSpace(data)
	if len(t) > 0 && t[0] == '[' {
		return nil, errors.New("the input is a JSON array, not an object: wrap the objects in a List (kind: List, items: [...])")
	}
	if len(t) > 0 && t[0] == '{' {
		if docs, err := jsonDocuments(t); err == nil {
			return docs, nil
		}
	}
	return yamlDocuments(data)
}

func jsonDocuments(data []byte) ([][]byte, error) {
	var docs [][]byte
	d := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		err := d.Decode(&raw)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		docs = append(docs, raw)
	}
}

func yamlDocuments(data []byte) ([][]byte, error) {
	var docs [][]byte
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading YAML: %w", err)
		}
		j, err := yaml.YAMLToJSONStrict(doc)
		if err != nil && onlyMergeOverrides(doc) {
			// The strict reading takes a key that overrides one a merge
			// key (<<: *anchor) brought in for a key given twice; it is
			// not one, and the lax reading, kubectl's, merges as YAML
			// says.
			j, err = yaml.YAMLToJSON(doc)
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		if !bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
			docs = append(docs, j)
		}
	}
}
