package deploy

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservercel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
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
	if mc := spec.Properties["schedulingPolicy"].Properties["gang"].Properties["minCount"]; mc.Minimum == nil || *mc.Minimum != 1 ||
		mc.Maximum == nil || *mc.Maximum != math.MaxInt32 {
		t.Errorf("gang.minCount is bounded by [%v, %v], want [1, %d]", deref(mc.Minimum), deref(mc.Maximum), math.MaxInt32)
	}
	if st := spec.Properties["scheduleTimeoutSeconds"]; st.Minimum == nil || *st.Minimum != 1 || st.Maximum == nil || *st.Maximum != 86400 {
		t.Errorf("scheduleTimeoutSeconds is bounded by [%v, %v], want [1, 86400]", deref(st.Minimum), deref(st.Maximum))
	}
	key := spec.Properties["schedulingConstraints"].Properties["topology"].Items.Schema.Properties["key"]
	if key.MaxLength == nil {
		t.Errorf("topology[].key has no maxLength, want %d (the longest label key)", maxLabelKey)
	} else if *key.MaxLength != maxLabelKey {
		t.Errorf("topology[].key has maxLength %d, want %d (the longest label key)", *key.MaxLength, maxLabelKey)
	}
	for _, rule := range []string{labelKeySyntaxRule, labelKeyPrefixRule, labelKeyNameRule} {
		if !hasRule(key, rule) {
			t.Errorf("topology[].key has no rule %s", rule)
		}
	}
	if !hasRule(*v.Schema.OpenAPIV3Schema, podGroupNameRule) {
		t.Errorf("the PodGroup has no rule %s", podGroupNameRule)
	}
}

// The rules of topology[].key, which together check what
// validation.IsQualifiedName checks, and the bound on the PodGroup's name.
const (
	labelKeySyntaxRule = `self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$')`
	labelKeyPrefixRule = `self.indexOf('/') <= 253`
	labelKeyNameRule   = `self.size() - self.lastIndexOf('/') - 1 <= 63`
	podGroupNameRule   = `self.metadata.name.size() <= 63`
	// maxLabelKey is the longest valid label key: a 253-character prefix,
	// '/' and a 63-character name.
	maxLabelKey = int64(validation.DNS1123SubdomainMaxLength + 1 + validation.LabelValueMaxLength)
)

func deref(f *float64) any {
	if f == nil {
		return "none"
	}
	return *f
}

// TestPodGroupCRDBounds: every number and string in the schema has explicit
// bounds, so that no value the Go types cannot hold (an int32 above
// 2147483647) or no unbounded string (CEL cost, etcd size) gets stored.
func TestPodGroupCRDBounds(t *testing.T) {
	crd := loadCRD(t)
	var walk func(path string, s apiextv1.JSONSchemaProps)
	walk = func(path string, s apiextv1.JSONSchemaProps) {
		switch s.Type {
		case "integer":
			lo, hi := float64(math.MinInt64), float64(math.MaxInt64)
			if s.Format == "int32" {
				lo, hi = math.MinInt32, math.MaxInt32
			}
			if s.Minimum == nil || *s.Minimum < lo || *s.Minimum > hi {
				t.Errorf("%s (%s): minimum %v, want one within the format's range", path, s.Format, deref(s.Minimum))
			}
			// An int64 needs no maximum: the API server decodes a larger
			// number as a float and rejects it as not an integer.
			if s.Format != "int64" && (s.Maximum == nil || *s.Maximum < lo || *s.Maximum > hi) {
				t.Errorf("%s (%s): maximum %v, want one within the format's range", path, s.Format, deref(s.Maximum))
			}
		case "string":
			// apiVersion and kind are checked by the API server itself.
			if path != ".apiVersion" && path != ".kind" && s.MaxLength == nil && len(s.Enum) == 0 && s.Format != "date-time" {
				t.Errorf("%s: a string without maxLength, enum or date-time format", path)
			}
		}
		for name, p := range s.Properties {
			walk(path+"."+name, p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(path+"[]", *s.Items.Schema)
		}
	}
	walk("", *crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
}

// crdValidator returns a function that validates a PodGroup's create the
// way the API server does with the CRD: its OpenAPI schema first, then its
// CEL rules unless the schema errors block them. It also checks that the
// API server would accept the CRD itself (the rules compile, within the CEL
// cost limits).
func crdValidator(t *testing.T) func(obj map[string]any) field.ErrorList {
	t.Helper()
	var crd apiext.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(loadCRD(t), &crd, nil); err != nil {
		t.Fatal(err)
	}
	// As the API server's create does before it validates.
	crd.Status.StoredVersions = []string{crd.Spec.Versions[0].Name}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &crd); len(errs) > 0 {
		t.Fatalf("the API server would reject %s: %v", podGroupCRD, errs.ToAggregate())
	}
	// The conversion keeps a schema shared by every version (here the
	// only one) in spec.validation.
	validationSpec := crd.Spec.Validation
	if validationSpec == nil {
		validationSpec = crd.Spec.Versions[0].Schema
	}
	schema := validationSpec.OpenAPIV3Schema
	structural, err := structuralschema.NewStructural(schema)
	if err != nil {
		t.Fatal(err)
	}
	schemaValidator, _, err := apiservervalidation.NewSchemaValidator(schema)
	if err != nil {
		t.Fatal(err)
	}
	celValidator := apiservercel.NewValidator(structural, true, celconfig.PerCallLimit)
	return func(obj map[string]any) field.ErrorList {
		errs := apiservervalidation.ValidateCustomResource(nil, obj, schemaValidator)
		for _, e := range errs {
			switch e.Type {
			case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
				return errs
			}
		}
		celErrs, _ := celValidator.Validate(context.Background(), nil, structural, obj, nil, celconfig.RuntimeCELCostBudget)
		return append(errs, celErrs...)
	}
}

func podGroupObject(name string, spec map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "scheduling.kspatch.io/v1alpha1", "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": "ml"},
		"spec":     spec,
	}
}

func gangWithKey(minCount int64, key string) map[string]any {
	return map[string]any{
		"schedulingPolicy":      map[string]any{"gang": map[string]any{"minCount": minCount}},
		"schedulingConstraints": map[string]any{"topology": []any{map[string]any{"key": key}}},
	}
}

// TestPodGroupCRDValidation runs the CRD's validation on the PodGroups the
// e2e suite sends a real API server (e2e/podgroup_test.go), without one.
func TestPodGroupCRDValidation(t *testing.T) {
	validate := crdValidator(t)
	name63, prefix253 := strings.Repeat("n", 63), strings.Repeat("p", 249)+".com"
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want string // "" when valid
	}{
		{"gang", podGroupObject("train", gangWithKey(4, "topology.kubernetes.io/rack")), ""},
		{"minCount 2147483647", podGroupObject("train", gangWithKey(math.MaxInt32, "rack")), ""},
		{"longest key", podGroupObject("train", gangWithKey(4, prefix253+"/"+name63)), ""},
		{"name of 63", podGroupObject(strings.Repeat("g", 63), gangWithKey(4, "rack")), ""},
		{"minCount 4294967298", podGroupObject("train", gangWithKey(4294967298, "rack")),
			"spec.schedulingPolicy.gang.minCount: Invalid value: 4294967298: spec.schedulingPolicy.gang.minCount in body should be less than or equal to 2147483647"},
		{"minCount 2147483648", podGroupObject("train", gangWithKey(2147483648, "rack")),
			"should be less than or equal to 2147483647"},
		{"name part of 64", podGroupObject("train", gangWithKey(4, "example.com/"+name63+"x")),
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key, whose name (after the '/', or the whole key without one) is at most 63 characters"},
		{"key of 64 without a prefix", podGroupObject("train", gangWithKey(4, name63+"x")), "whose name (after the '/'"},
		{"prefix of 254", podGroupObject("train", gangWithKey(4, "a"+prefix253+"/rack")),
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key, whose prefix (before the '/') is at most 253 characters"},
		{"empty name", podGroupObject("train", gangWithKey(4, "example.com/")), "must be a node label key such as topology.kubernetes.io/rack"},
		{"key too long", podGroupObject("train", gangWithKey(4, prefix253+"/"+name63+"x")), "Too long: may not be more than 317 bytes"},
		{"timeout 0", podGroupObject("train", map[string]any{"schedulingPolicy": map[string]any{"basic": map[string]any{}}, "scheduleTimeoutSeconds": int64(0)}),
			"spec.scheduleTimeoutSeconds: Invalid value: 0: spec.scheduleTimeoutSeconds in body should be greater than or equal to 1"},
		{"timeout 86401", podGroupObject("train", map[string]any{"schedulingPolicy": map[string]any{"basic": map[string]any{}}, "scheduleTimeoutSeconds": int64(86401)}),
			"spec.scheduleTimeoutSeconds: Invalid value: 86401: spec.scheduleTimeoutSeconds in body should be less than or equal to 86400"},
		{"name of 64", podGroupObject(strings.Repeat("g", 64), gangWithKey(4, "rack")),
			"a PodGroup name must be at most 63 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := validate(tc.obj)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("rejected: %v", errs.ToAggregate())
			case tc.want != "" && len(errs) == 0:
				t.Errorf("accepted, want %q", tc.want)
			case tc.want != "" && !strings.Contains(errs.ToAggregate().Error(), tc.want):
				t.Errorf("rejected with %q, want %q", errs.ToAggregate(), tc.want)
			}
		})
	}
}

// TestPodGroupCRDTopologyKeyIsLabelKey: the CRD accepts a topology key
// exactly when validation.IsQualifiedName (Kubernetes' label-key check)
// does, for keys built around every limit and for random ones.
func TestPodGroupCRDTopologyKeyIsLabelKey(t *testing.T) {
	validate := crdValidator(t)
	var keys []string
	prefixes := []string{"", "/", "example.com/", "a/", "Example.com/", "-a.com/", "a-.com/", "a..b/", "a_b.com/", "1.2.3/",
		strings.Repeat("p", 253) + "/", strings.Repeat("p", 254) + "/", strings.Repeat("p", 63) + "." + strings.Repeat("q", 189) + "/",
		strings.Repeat("p", 63) + "." + strings.Repeat("q", 190) + "/", "a/b/"}
	names := []string{"", "a", "Rack", "rack-0", "rack_0", "rack.0", "-rack", "rack-", "_rack", "rack.", "ra ck", "räck", "rack\n",
		strings.Repeat("n", 62), strings.Repeat("n", 63), strings.Repeat("n", 64), "a" + strings.Repeat("-", 61) + "z", "a" + strings.Repeat("-", 62) + "z"}
	for _, p := range prefixes {
		for _, n := range names {
			keys = append(keys, p+n)
		}
	}
	rng := rand.New(rand.NewPCG(27, 2))
	const alphabet = "abAB09-_./"
	for range 2000 {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		keys = append(keys, string(b))
	}
	for _, key := range keys {
		if key == "" {
			continue // minLength; IsQualifiedName rejects it too
		}
		labelErrs := validation.IsQualifiedName(key)
		crdErrs := validate(podGroupObject("train", gangWithKey(2, key)))
		if (len(labelErrs) == 0) != (len(crdErrs) == 0) {
			t.Errorf("key %q (%d characters): IsQualifiedName says %q, the CRD %v", key, len(key), labelErrs, crdErrs.ToAggregate())
		}
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
