package main

import (
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// crdPath is the kspatch PodGroup's CRD, in the scheduler module.
const crdPath = "../scheduler/deploy/podgroup-crd.yaml"

// schemaNode is the part of an OpenAPI v3 schema the comparison reads.
type schemaNode struct {
	Type       string                `json:"type"`
	Properties map[string]schemaNode `json:"properties"`
	Items      *schemaNode           `json:"items"`
}

// TestKspatchTypesMatchCRD: the plugin's copy of the kspatch PodGroup's
// spec has exactly the CRD's fields, with the CRD's types, so that a
// strict decoding into it is one against the CRD.
func TestKspatchTypesMatchCRD(t *testing.T) {
	data, err := os.ReadFile(crdPath)
	if err != nil {
		t.Fatalf("reading the CRD: %v", err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema schemaNode `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != "v1alpha1" {
		t.Fatalf("the CRD serves %d versions; the plugin knows v1alpha1 only", len(crd.Spec.Versions))
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	compareSchema(t, "spec", reflect.TypeOf(kspatchSpec{}), spec)
}

func compareSchema(t *testing.T, path string, typ reflect.Type, s schemaNode) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Struct:
		if s.Type != "object" {
			t.Errorf("%s: a struct in Go, %q in the CRD", path, s.Type)
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < typ.NumField(); i++ {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			fields[name] = typ.Field(i).Type
		}
		if got, want := keys(fields), keys(s.Properties); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fields %v in Go, %v in the CRD", path, got, want)
		}
		for name, ft := range fields {
			if sub, ok := s.Properties[name]; ok {
				compareSchema(t, path+"."+name, ft, sub)
			}
		}
	case reflect.Slice:
		if s.Type != "array" || s.Items == nil {
			t.Errorf("%s: a slice in Go, %q in the CRD", path, s.Type)
			return
		}
		compareSchema(t, path+"[]", typ.Elem(), *s.Items)
	case reflect.String:
		if s.Type != "string" {
			t.Errorf("%s: a string in Go, %q in the CRD", path, s.Type)
		}
	case reflect.Int32:
		if s.Type != "integer" {
			t.Errorf("%s: an int32 in Go, %q in the CRD", path, s.Type)
		}
	default:
		t.Errorf("%s: Go type %s not compared", path, typ)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
