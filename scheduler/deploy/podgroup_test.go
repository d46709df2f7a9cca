package deploy

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pgv1alpha1 "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"sigs.k8s.io/yaml"
)

const podGroupCRD = "podgroup-crd.yaml"

func loadCRD(t *testing.T) *apiextv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(podGroupCRD)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatalf("%s: %v", podGroupCRD, err)
	}
	return &crd
}

// TestPodGroupCRDMatchesGoTypes: the CRD serves exactly the Go types the
// scheduler reads (pkg/scheduler/apis/podgroup/v1alpha1 in the patched
// tree): same group, version and resource, and a schema with the same fields,
// types and required fields.
func TestPodGroupCRDMatchesGoTypes(t *testing.T) {
	crd := loadCRD(t)
	gv := pgv1alpha1.SchemeGroupVersion
	if crd.Spec.Group != gv.Group || crd.Spec.Names.Kind != "PodGroup" || crd.Spec.Names.Plural != pgv1alpha1.Resource.Resource ||
		crd.Name != pgv1alpha1.Resource.Resource+"."+gv.Group || crd.Spec.Scope != apiextv1.NamespaceScoped {
		t.Errorf("CRD %s names %s/%s %s (%s), want %s in %s, namespaced", crd.Name, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.Plural, crd.Spec.Scope, pgv1alpha1.Resource.Resource, gv.Group)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != gv.Version || !crd.Spec.Versions[0].Storage {
		t.Fatalf("CRD versions %+v, want only %s (storage)", crd.Spec.Versions, gv.Version)
	}
	v := crd.Spec.Versions[0]
	if v.Subresources == nil || v.Subresources.Status == nil {
		t.Error("the status subresource is not enabled: the scheduler writes status through it")
	}
	compareSchema(t, "PodGroup", reflect.TypeOf(pgv1alpha1.PodGroup{}), *v.Schema.OpenAPIV3Schema)

	// The CEL rules the issue asks for are there.
	spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
	if !hasRule(spec, "self == oldSelf") {
		t.Error("spec is not immutable (x-kubernetes-validations self == oldSelf)")
	}
	if !hasRule(spec.Properties["schedulingPolicy"], "has(self.gang) != has(self.basic)") {
		t.Error("schedulingPolicy does not require exactly one of gang and basic")
	}
	if topo := spec.Properties["schedulingConstraints"].Properties["topology"]; topo.MaxItems == nil || *topo.MaxItems != 1 {
		t.Error("schedulingConstraints.topology is not limited to one entry")
	}
	if mc := spec.Properties["schedulingPolicy"].Properties["gang"].Properties["minCount"]; mc.Minimum == nil || *mc.Minimum != 1 {
		t.Error("gang.minCount has no minimum of 1")
	}
}

func hasRule(s apiextv1.JSONSchemaProps, rule string) bool {
	for _, r := range s.XValidations {
		if r.Rule == rule && r.Message != "" {
			return true
		}
	}
	return false
}

var (
	objectMetaType = reflect.TypeOf(metav1.ObjectMeta{})
	conditionType  = reflect.TypeOf(metav1.Condition{})
	timeType       = reflect.TypeOf(metav1.Time{})
)

// compareSchema walks a Go type and its schema together.
func compareSchema(t *testing.T, path string, typ reflect.Type, s apiextv1.JSONSchemaProps) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	want := map[reflect.Kind]string{reflect.Struct: "object", reflect.Slice: "array", reflect.String: "string", reflect.Int32: "integer", reflect.Int64: "integer"}[typ.Kind()]
	if typ == timeType {
		want = "string"
	}
	if s.Type != want {
		t.Errorf("%s: schema type %q, Go type %s (%q)", path, s.Type, typ, want)
		return
	}
	switch typ.Kind() {
	case reflect.Int32, reflect.Int64:
		if f := "int" + strings.TrimPrefix(typ.Kind().String(), "int"); s.Format != f {
			t.Errorf("%s: format %q, want %s", path, s.Format, f)
		}
	case reflect.Slice:
		if s.Items == nil || s.Items.Schema == nil {
			t.Errorf("%s: array without items", path)
			return
		}
		compareSchema(t, path+"[]", typ.Elem(), *s.Items.Schema)
	case reflect.Struct:
		if typ == objectMetaType || typ == timeType {
			return
		}
		fields := jsonFields(typ)
		for name, f := range fields {
			prop, ok := s.Properties[name]
			if !ok {
				t.Errorf("%s: Go field %s (%s) is not in the schema", path, f.Name, name)
				continue
			}
			tag := f.Tag.Get("json")
			required := !strings.Contains(tag, "omitempty") && f.Type.Kind() != reflect.Pointer
			if inSchema := slices.Contains(s.Required, name); required != inSchema && typ != conditionType {
				t.Errorf("%s.%s: required in Go %v, in the schema %v", path, name, required, inSchema)
			}
			compareSchema(t, path+"."+name, f.Type, prop)
		}
		for name := range s.Properties {
			if _, ok := fields[name]; !ok {
				t.Errorf("%s: schema property %s has no Go field", path, name)
			}
		}
	}
}

// jsonFields lists a struct's JSON fields by name, inlining embedded
// structs the way encoding/json does.
func jsonFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			for n, inner := range jsonFields(f.Type) {
				out[n] = inner
			}
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = f
	}
	return out
}
