package main

import (
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"
)

// writeObjects writes the converted objects as YAML documents separated
// by ---, or as indented JSON objects one after another (what
// kubectl apply -f reads either way).
func writeObjects(w io.Writer, objs []map[string]interface{}, asJSON bool) error {
	for i, obj := range objs {
		var data []byte
		var err error
		if asJSON {
			data, err = json.MarshalIndent(obj, "", "  ")
			data = append(data, '\n')
		} else {
			data, err = yaml.Marshal(obj)
			if i > 0 {
				data = append([]byte("---\n"), data...)
			}
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}
