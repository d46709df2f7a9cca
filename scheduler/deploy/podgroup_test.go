package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservercel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celmodel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	celcommon "k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	pgv1alpha1 "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"
	"sigs.k8s.io/yaml"
)

const podGroupCRD = "podgroup-crd.yaml"

func loadCRD(t *testing.T) *apiextv1.CustomResourceDefinition {
	t.Helper()
	return loadCRDFile(t, podGroupCRD)
}

// loadCRDFile reads the CustomResourceDefinition of a one-document manifest.
func loadCRDFile(t *testing.T, path string) *apiextv1.CustomResourceDefinition {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
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
	compareSchema(t.Errorf, "PodGroup", reflect.TypeOf(pgv1alpha1.PodGroup{}), *v.Schema.OpenAPIV3Schema)

	// The CEL rules the issue asks for are there.
	spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
	if !hasRule(spec, "self == oldSelf") {
		t.Error("spec is not immutable (x-kubernetes-validations self == oldSelf)")
	}
	if !hasRule(spec.Properties["schedulingPolicy"], "has(self.gang) != has(self.basic)") {
		t.Error("schedulingPolicy does not require exactly one of gang and basic")
	}
	topo := spec.Properties["schedulingConstraints"].Properties["topology"]
	if topo.MaxItems == nil {
		t.Errorf("schedulingConstraints.topology has no maxItems, want MaxTopologyLevels (%d)", pgv1alpha1.MaxTopologyLevels)
	} else if *topo.MaxItems != pgv1alpha1.MaxTopologyLevels {
		t.Errorf("schedulingConstraints.topology has maxItems %d, want MaxTopologyLevels (%d)", *topo.MaxItems, pgv1alpha1.MaxTopologyLevels)
	}
	for _, rule := range []string{levelKeysDistinctRule, levelOneRequiredRule, levelRequiredFirstRule, levelZoneRegionRule, levelHostRegionRule, levelHostZoneRule} {
		if !hasRule(topo, rule) {
			t.Errorf("schedulingConstraints.topology has no rule %s", rule)
		}
	}
	// An empty mode is Required in Go (TopologyConstraint.IsPreferred), so
	// the API server must store a missing mode as Required.
	if mode := topo.Items.Schema.Properties["mode"]; mode.Default == nil || string(mode.Default.Raw) != `"`+string(pgv1alpha1.TopologyRequired)+`"` {
		t.Errorf("topology[].mode has default %v, want %q (what an empty mode means to the scheduler)", mode.Default, pgv1alpha1.TopologyRequired)
	}
	// Likewise an empty disruptionMode is Pod (PodGroupSpec.DisruptedWhole).
	// Its enum is compared with the Go constants by compareSchema above.
	dm := spec.Properties["disruptionMode"]
	if dm.Default == nil || string(dm.Default.Raw) != `"`+string(pgv1alpha1.DisruptionModePod)+`"` {
		t.Errorf("disruptionMode has default %v, want %q (what an empty mode means to the scheduler)", dm.Default, pgv1alpha1.DisruptionModePod)
	}
	if !hasRule(dm, "self == oldSelf") {
		t.Error("disruptionMode is not immutable (x-kubernetes-validations self == oldSelf)")
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
	// The rules of topology (the list of levels), which together check
	// what the scheduler's validateTopologyLevels checks besides the
	// number of levels (maxItems) and the modes (enum).
	levelKeysDistinctRule  = `self.all(l, self.exists_one(m, m.key == l.key))`
	levelOneRequiredRule   = `self.filter(l, !has(l.mode) || l.mode == 'Required').size() <= 1`
	levelRequiredFirstRule = `self.all(l, has(l.mode) && l.mode == 'Preferred') || !has(self[0].mode) || self[0].mode == 'Required'`
	levelZoneRegionRule    = `!self.exists(i, l, l.key == 'topology.kubernetes.io/zone' && self.exists(j, m, j > i && m.key == 'topology.kubernetes.io/region'))`
	levelHostRegionRule    = `!self.exists(i, l, l.key == 'kubernetes.io/hostname' && self.exists(j, m, j > i && m.key == 'topology.kubernetes.io/region'))`
	levelHostZoneRule      = `!self.exists(i, l, l.key == 'kubernetes.io/hostname' && self.exists(j, m, j > i && m.key == 'topology.kubernetes.io/zone'))`
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
	checkBounds(t, loadCRD(t))
}

// checkBounds fails for a number or string of the CRD's schema without
// explicit bounds (see TestPodGroupCRDBounds).
func checkBounds(t *testing.T, crd *apiextv1.CustomResourceDefinition) {
	t.Helper()
	var walk func(path string, s apiextv1.JSONSchemaProps)
	walk = func(path string, s apiextv1.JSONSchemaProps) {
		switch {
		case s.XIntOrString:
			// A quantity: a non-negative integer, or a string of the
			// quantity grammar.
			if s.Minimum == nil || s.MaxLength == nil || s.Pattern == "" {
				t.Errorf("%s (int-or-string): minimum %v, maxLength %v, pattern %q; want all three", path, deref(s.Minimum), s.MaxLength, s.Pattern)
			}
		case s.Type == "integer":
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
		case s.Type == "string":
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
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			if s.MaxProperties == nil {
				t.Errorf("%s: a map without maxProperties", path)
			}
			walk(path+"{}", *s.AdditionalProperties.Schema)
		}
	}
	walk("", *crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
}

// crdValidator returns a function that validates a PodGroup's create the
// way the API server does with the CRD: it applies the schema's defaults
// to the object, checks its OpenAPI schema, then its CEL rules unless a
// schema error blocks them (and then says so, as the API server does). It
// also checks that the API server would accept the CRD itself (the rules
// compile, within the CEL cost limits).
func crdValidator(t *testing.T) func(obj map[string]any) field.ErrorList {
	t.Helper()
	return crdValidatorOf(t, podGroupCRD)
}

// crdValidatorOf is crdValidator for the CRD of the manifest path.
func crdValidatorOf(t *testing.T, path string) func(obj map[string]any) field.ErrorList {
	t.Helper()
	v := newCRDValidationOf(t, path)
	return func(obj map[string]any) field.ErrorList {
		// The API server applies the schema's defaults (mode: Required)
		// when it decodes the object, before it validates it.
		structuraldefaulting.Default(obj, v.structural)
		errs := apiservervalidation.ValidateCustomResource(nil, obj, v.schema)
		if blocked, err := blockingErr(errs); blocked {
			// The API server's customresource strategy adds the same error.
			return append(errs, err)
		}
		celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		return append(errs, celErrs...)
	}
}

// crdUpdateValidator returns a function that validates the update of a
// stored PodGroup (old) to obj the way the API server's customresource
// strategy does (ValidateUpdate): both objects get the schema's defaults,
// old as the API server reads it from etcd (a field added to the CRD after
// the object was stored is defaulted then) and obj as it decodes the
// request; then the schema and the CEL rules, transition rules (oldSelf)
// included, run with ratcheting, as CRDValidationRatcheting (GA, locked
// on, in v1.33) has them.
func crdUpdateValidator(t *testing.T) func(obj, old map[string]any) field.ErrorList {
	t.Helper()
	v := newCRDValidation(t)
	return func(obj, old map[string]any) field.ErrorList {
		structuraldefaulting.Default(old, v.structural)
		structuraldefaulting.Default(obj, v.structural)
		correlated := celcommon.NewCorrelatedObject(obj, old, &celmodel.Structural{Structural: v.structural})
		errs := apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, v.schema, apiservervalidation.WithRatcheting(correlated))
		if blocked, err := blockingErr(errs); blocked {
			return append(errs, err)
		}
		celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, old, celconfig.RuntimeCELCostBudget, apiservercel.WithRatcheting(correlated))
		return append(errs, celErrs...)
	}
}

// crdValidation holds what the API server builds from the CRD to validate
// PodGroups.
type crdValidation struct {
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *apiservercel.Validator
}

func newCRDValidation(t *testing.T) crdValidation {
	t.Helper()
	return newCRDValidationOf(t, podGroupCRD)
}

func newCRDValidationOf(t *testing.T, path string) crdValidation {
	t.Helper()
	var crd apiext.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(loadCRDFile(t, path), &crd, nil); err != nil {
		t.Fatal(err)
	}
	// As the API server's create does before it validates.
	crd.Status.StoredVersions = []string{crd.Spec.Versions[0].Name}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &crd); len(errs) > 0 {
		t.Fatalf("the API server would reject %s: %v", path, errs.ToAggregate())
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
	return crdValidation{structural, schemaValidator, apiservercel.NewValidator(structural, true, celconfig.PerCallLimit)}
}

// blockingErr reports whether a schema error keeps the API server from
// checking the CEL rules, with the error it adds then (the customresource
// strategy's hasBlockingErr).
func blockingErr(errs field.ErrorList) (bool, *field.Error) {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true, field.Invalid(nil, nil, celSkipped)
		}
	}
	return false, nil
}

// celSkipped is the error the API server adds when a schema error keeps it
// from checking the CEL rules.
const celSkipped = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

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

// TestPodGroupCRDRuleCosts: every CEL rule and message expression of the
// CRD has an estimated worst-case cost far below the API server's limit
// for one rule (1% of it). crdValidator already fails on a CRD the API
// server would refuse; this catches a rule that grows toward the limit,
// such as one built on the lists library (indexOf, join, isSorted), whose
// estimated cost is unbounded.
func TestPodGroupCRDRuleCosts(t *testing.T) {
	if rules := checkRuleCosts(t, podGroupCRD); rules < 13 {
		t.Errorf("found %d rules, want the 13 of the CRD at least", rules)
	}
}

// checkRuleCosts fails for a CEL rule of the CRD in path whose estimated
// cost is above 1% of the API server's limit (see
// TestPodGroupCRDRuleCosts), and returns the number of rules.
func checkRuleCosts(t *testing.T, path string) int {
	t.Helper()
	var crd apiext.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(loadCRDFile(t, path), &crd, nil); err != nil {
		t.Fatal(err)
	}
	validationSpec := crd.Spec.Validation
	if validationSpec == nil {
		validationSpec = crd.Spec.Versions[0].Schema
	}
	root, err := structuralschema.NewStructural(validationSpec.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	const budget = crdvalidation.StaticEstimatedCostLimit / 100
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), true)
	rules := 0
	var walk func(path string, s *structuralschema.Structural, isRoot bool)
	walk = func(path string, s *structuralschema.Structural, isRoot bool) {
		results, err := apiservercel.Compile(s, celmodel.SchemaDeclType(s, isRoot), celconfig.PerCallLimit, envSet, apiservercel.NewExpressionsEnvLoader())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, r := range results {
			rules++
			if r.Error != nil || r.MessageExpressionError != nil {
				t.Errorf("%s: rule %q: %v %v", path, s.XValidations[i].Rule, r.Error, r.MessageExpressionError)
			}
			if r.MaxCost > budget || r.MessageExpressionMaxCost > budget {
				t.Errorf("%s: rule %q has an estimated cost of %d (message %d), above %d", path, s.XValidations[i].Rule, r.MaxCost, r.MessageExpressionMaxCost, budget)
			}
		}
		for name, p := range s.Properties {
			walk(path+"."+name, &p, false)
		}
		if s.Items != nil {
			walk(path+"[]", s.Items, false)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			walk(path+"{}", s.AdditionalProperties.Structural, false)
		}
	}
	walk("", root, true)
	return rules
}

// The keys of the topology-level tests.
const (
	region = "topology.kubernetes.io/region"
	zone   = "topology.kubernetes.io/zone"
	host   = "kubernetes.io/hostname"
	block  = "topology.kubernetes.io/block"
	rack   = "topology.kubernetes.io/rack"
)

// level is one entry of spec.schedulingConstraints.topology; an empty mode
// is left out of the object, as a client that does not set it sends it.
type level struct{ key, mode string }

func required(key string) level  { return level{key, string(pgv1alpha1.TopologyRequired)} }
func preferred(key string) level { return level{key, string(pgv1alpha1.TopologyPreferred)} }

func gangWithLevels(minCount int64, levels ...level) map[string]any {
	topology := []any{}
	for _, l := range levels {
		entry := map[string]any{"key": l.key}
		if l.mode != "" {
			entry["mode"] = l.mode
		}
		topology = append(topology, entry)
	}
	return map[string]any{
		"schedulingPolicy":      map[string]any{"gang": map[string]any{"minCount": minCount}},
		"schedulingConstraints": map[string]any{"topology": topology},
	}
}

// TestPodGroupCRDTopologyLevels runs the CRD's validation on lists of
// topology levels, one case per rule, and checks every message the API
// server returns: each bad list gets the one message that names its
// problem. docs/placement.md lists the same messages.
func TestPodGroupCRDTopologyLevels(t *testing.T) {
	validate := crdValidator(t)
	const (
		path        = "spec.schedulingConstraints.topology: Invalid value: \"array\": "
		widestFirst = "list the levels from widest to narrowest: topology.kubernetes.io/region, then topology.kubernetes.io/zone, then kubernetes.io/hostname"
		// A schema error (too many levels, a bad mode) stops the API
		// server before the CEL rules.
		skipped = `<nil>: Invalid value: "null": ` + celSkipped
	)
	for _, tc := range []struct {
		name   string
		levels []level
		want   []string // nil when valid
	}{
		{"single key without a mode, as before", []level{{key: rack}}, nil},
		{"single Required key", []level{required(rack)}, nil},
		{"Required block, Preferred rack", []level{required(block), preferred(rack)}, nil},
		{"block without a mode, Preferred rack", []level{{key: block}, preferred(rack)}, nil},
		{"Preferred rack only", []level{preferred(rack)}, nil},
		{"Preferred block and rack", []level{preferred(block), preferred(rack)}, nil},
		{"4 levels", []level{required(zone), preferred(block), preferred(rack), preferred(host)}, nil},
		{"region, zone and hostname in order", []level{required(region), preferred(zone), preferred(host)}, nil},
		{"no levels", nil, nil},

		{"5 levels", []level{required(region), preferred(zone), preferred(block), preferred(rack), preferred(host)},
			[]string{"spec.schedulingConstraints.topology: Too many: 5: must have at most 4 items", skipped}},
		{"two Required", []level{required(block), required(rack)},
			[]string{path + "at most one level may be Required (a level without a mode is Required): the first, with the Preferred levels below it"}},
		{"two keys without a mode", []level{{key: block}, {key: rack}},
			[]string{path + "at most one level may be Required (a level without a mode is Required): the first, with the Preferred levels below it"}},
		{"Required below Preferred", []level{preferred(block), required(rack)},
			[]string{path + "the Required level must be the first entry, with the Preferred levels below it"}},
		{"no mode below Preferred", []level{preferred(block), {key: rack}},
			[]string{path + "the Required level must be the first entry, with the Preferred levels below it"}},
		{"repeated key", []level{required(rack), preferred(rack)},
			[]string{path + "the key topology.kubernetes.io/rack is listed more than once; each level needs a key of its own"}},
		{"repeated Preferred key", []level{required(block), preferred(rack), preferred(host), preferred(rack)},
			[]string{path + "the key topology.kubernetes.io/rack is listed more than once; each level needs a key of its own"}},
		{"hostname above zone", []level{required(host), preferred(zone)},
			[]string{path + "kubernetes.io/hostname is listed above topology.kubernetes.io/zone; " + widestFirst}},
		{"hostname above region, with a rack between", []level{preferred(host), preferred(rack), preferred(region)},
			[]string{path + "kubernetes.io/hostname is listed above topology.kubernetes.io/region; " + widestFirst}},
		{"zone above region, with a rack between", []level{required(zone), preferred(rack), preferred(region)},
			[]string{path + "topology.kubernetes.io/zone is listed above topology.kubernetes.io/region; " + widestFirst}},
		{"hostname, zone, region", []level{required(host), preferred(zone), preferred(region)}, []string{
			path + "topology.kubernetes.io/zone is listed above topology.kubernetes.io/region; " + widestFirst,
			path + "kubernetes.io/hostname is listed above topology.kubernetes.io/region; " + widestFirst,
			path + "kubernetes.io/hostname is listed above topology.kubernetes.io/zone; " + widestFirst,
		}},
		{"bad mode", []level{required(block), {rack, "Sometimes"}},
			[]string{`spec.schedulingConstraints.topology[1].mode: Unsupported value: "Sometimes": supported values: "Required", "Preferred"`, skipped}},
		{"lower-case mode", []level{{block, "required"}},
			[]string{`spec.schedulingConstraints.topology[0].mode: Unsupported value: "required": supported values: "Required", "Preferred"`, skipped}},
		{"repeated key, Required below Preferred", []level{preferred(rack), required(rack)}, []string{
			path + "the key topology.kubernetes.io/rack is listed more than once; each level needs a key of its own",
			path + "the Required level must be the first entry, with the Preferred levels below it",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := podGroupObject("train", gangWithLevels(4, tc.levels...))
			var got []string
			for _, e := range validate(obj) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got errors\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			if tc.want != nil {
				return
			}
			// Stored as the API server stores it: every level has a mode.
			stored := obj["spec"].(map[string]any)["schedulingConstraints"].(map[string]any)["topology"].([]any)
			for i, l := range tc.levels {
				want := l.mode
				if want == "" {
					want = string(pgv1alpha1.TopologyRequired)
				}
				if got := stored[i].(map[string]any)["mode"]; got != want {
					t.Errorf("topology[%d].mode stored as %v, want %s", i, got, want)
				}
			}
		})
	}
}

// TestPodGroupCRDTopologyLevelsMatchScheduler: the CRD accepts a list of
// topology levels exactly when the scheduler's own check (podgroup.Validate,
// with PodGroupTopologyLevels on) does, for every list of up to three
// levels drawn from five keys and four modes (none, Required, Preferred and
// a bad one), and for random lists of four and five.
func TestPodGroupCRDTopologyLevelsMatchScheduler(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.PodGroupTopologyLevels, true)
	validate := crdValidator(t)
	var pool []level
	for _, key := range []string{region, zone, host, block, rack} {
		for _, mode := range []string{"", string(pgv1alpha1.TopologyRequired), string(pgv1alpha1.TopologyPreferred), "Sometimes"} {
			pool = append(pool, level{key, mode})
		}
	}
	lists := [][]level{nil}
	for n := 1; n <= 3; n++ {
		for _, prefix := range lists {
			if len(prefix) == n-1 {
				for _, l := range pool {
					lists = append(lists, append(slices.Clone(prefix), l))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(24, 4))
	for range 1500 {
		list := make([]level, 4+rng.IntN(2))
		for i := range list {
			list[i] = pool[rng.IntN(len(pool))]
		}
		lists = append(lists, list)
	}
	mismatches := 0
	for _, list := range lists {
		topology := make([]pgv1alpha1.TopologyConstraint, len(list))
		for i, l := range list {
			topology[i] = pgv1alpha1.TopologyConstraint{Key: l.key, Mode: pgv1alpha1.TopologyMode(l.mode)}
		}
		pg := &pgv1alpha1.PodGroup{Spec: pgv1alpha1.PodGroupSpec{
			SchedulingPolicy:      pgv1alpha1.PodGroupSchedulingPolicy{Gang: &pgv1alpha1.GangSchedulingPolicy{MinCount: 2}},
			SchedulingConstraints: &pgv1alpha1.PodGroupSchedulingConstraints{Topology: topology},
		}}
		schedulerErr := podgroup.Validate(pg)
		crdErrs := validate(podGroupObject("train", gangWithLevels(2, list...)))
		if (schedulerErr == nil) != (len(crdErrs) == 0) {
			t.Errorf("levels %v: the scheduler says %v, the CRD %v", list, schedulerErr, crdErrs.ToAggregate())
			if mismatches++; mismatches == 20 {
				t.Fatal("too many mismatches")
			}
		}
	}
	t.Logf("%d lists of levels compared", len(lists))
}

// withDisruptionMode returns a basic group's spec with disruptionMode set
// to mode, or without the field when mode is "" (what a Go client sends:
// the field is omitempty); sentEmpty sends the field as "".
func withDisruptionMode(mode string) map[string]any {
	spec := map[string]any{"schedulingPolicy": map[string]any{"basic": map[string]any{}}}
	switch mode {
	case "":
	case sentEmpty:
		spec["disruptionMode"] = ""
	default:
		spec["disruptionMode"] = mode
	}
	return spec
}

// sentEmpty stands, in the disruptionMode cases, for the field sent as the
// empty string (kubectl apply of a manifest with disruptionMode: "", or any
// client that does not leave empty fields out).
const sentEmpty = `""`

// TestPodGroupCRDDisruptionMode runs the CRD's validation on creates and
// updates of spec.disruptionMode and checks every message the API server
// returns, and the value it stores.
func TestPodGroupCRDDisruptionMode(t *testing.T) {
	const (
		// A schema error (a bad mode) stops the API server before the
		// CEL rules.
		skipped   = `<nil>: Invalid value: "null": ` + celSkipped
		immutable = `spec.disruptionMode: Invalid value: "string": spec.disruptionMode is immutable; delete and re-create the PodGroup to change it`
		// The rule on spec reports any change of it as well.
		specImmutable = `spec: Invalid value: "object": spec is immutable; delete and re-create the PodGroup to change it`
	)
	t.Run("create", func(t *testing.T) {
		validate := crdValidator(t)
		for _, tc := range []struct {
			name, mode string
			want       []string // nil when valid
			stored     string   // the value stored when valid
		}{
			{"Pod", "Pod", nil, "Pod"},
			{"PodGroup", "PodGroup", nil, "PodGroup"},
			{"missing: defaulted to Pod", "", nil, "Pod"},
			// docs/preemption.md: an empty mode is Pod, as in Go
			// (PodGroupSpec.DisruptedWhole). The default fills in a
			// missing field only: "" is stored as sent, and read as Pod.
			{"sent empty: accepted, stored as sent", sentEmpty, nil, ""},
			{"All", "All", []string{`spec.disruptionMode: Unsupported value: "All": supported values: "", "Pod", "PodGroup"`, skipped}, ""},
			{"lower-case pod", "pod", []string{`spec.disruptionMode: Unsupported value: "pod": supported values: "", "Pod", "PodGroup"`, skipped}, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				obj := podGroupObject("train", withDisruptionMode(tc.mode))
				checkErrors(t, validate(obj), tc.want)
				if got := obj["spec"].(map[string]any)["disruptionMode"]; tc.want == nil && got != tc.stored {
					t.Errorf("disruptionMode stored as %v, want %s", got, tc.stored)
				}
			})
		}
	})
	t.Run("update", func(t *testing.T) {
		validate := crdUpdateValidator(t)
		for _, tc := range []struct {
			name      string
			old, mode string // "": the field is not in the object
			want      []string
		}{
			{"Pod unchanged", "Pod", "Pod", nil},
			{"PodGroup unchanged", "PodGroup", "PodGroup", nil},
			// Stored before the CRD had the field: read back as Pod.
			{"stored without the field, updated without it", "", "", nil},
			{"stored without the field, updated with Pod", "", "Pod", nil},
			{"Pod to PodGroup", "Pod", "PodGroup", []string{specImmutable, immutable}},
			{"PodGroup to Pod", "PodGroup", "Pod", []string{specImmutable, immutable}},
			{"stored without the field, updated with PodGroup", "", "PodGroup", []string{specImmutable, immutable}},
			// Leaving the field out of an update is asking for the default.
			{"PodGroup, updated without the field", "PodGroup", "", []string{specImmutable, immutable}},
			{"Pod to All", "Pod", "All", []string{`spec.disruptionMode: Unsupported value: "All": supported values: "", "Pod", "PodGroup"`, skipped}},
			{"sent empty, unchanged", sentEmpty, sentEmpty, nil},
			// Stored as "", it stays "": like any change of spec, even
			// to the Pod it means.
			{"sent empty to PodGroup", sentEmpty, "PodGroup", []string{specImmutable, immutable}},
			{"sent empty to Pod", sentEmpty, "Pod", []string{specImmutable, immutable}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				old := podGroupObject("train", withDisruptionMode(tc.old))
				checkErrors(t, validate(podGroupObject("train", withDisruptionMode(tc.mode)), old), tc.want)
			})
		}
	})
}

func checkErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("got errors\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestPodGroupCRDDisruptionModeMatchesScheduler: the CRD accepts a
// disruptionMode exactly when the scheduler's own check (podgroup.Validate)
// does, sent as a Go client sends it (the empty mode is a missing field) or
// with the field always sent (the empty mode is ""); and what the API
// server stores means to the scheduler what was sent (an empty mode: Pod).
func TestPodGroupCRDDisruptionModeMatchesScheduler(t *testing.T) {
	validate := crdValidator(t)
	for _, mode := range []pgv1alpha1.DisruptionMode{"", pgv1alpha1.DisruptionModePod, pgv1alpha1.DisruptionModePodGroup, "All", "pod"} {
		for _, sendEmpty := range []bool{false, true} {
			pg := &pgv1alpha1.PodGroup{Spec: pgv1alpha1.PodGroupSpec{
				SchedulingPolicy: pgv1alpha1.PodGroupSchedulingPolicy{Gang: &pgv1alpha1.GangSchedulingPolicy{MinCount: 2}},
				DisruptionMode:   mode,
			}}
			spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&pg.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if sendEmpty {
				spec["disruptionMode"] = string(mode)
			}
			schedulerErr := podgroup.Validate(pg)
			obj := podGroupObject("train", spec)
			crdErrs := validate(obj)
			if (schedulerErr == nil) != (len(crdErrs) == 0) {
				t.Errorf("disruptionMode %q (field always sent: %v): the scheduler says %v, the CRD %v", mode, sendEmpty, schedulerErr, crdErrs.ToAggregate())
				continue
			}
			if len(crdErrs) > 0 {
				continue
			}
			var stored pgv1alpha1.PodGroupSpec
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj["spec"].(map[string]any), &stored); err != nil {
				t.Fatal(err)
			}
			if stored.DisruptedWhole() != pg.Spec.DisruptedWhole() {
				t.Errorf("disruptionMode %q (field always sent: %v): stored as %q, which the scheduler reads as preempted whole %v, want %v",
					mode, sendEmpty, stored.DisruptionMode, stored.DisruptedWhole(), pg.Spec.DisruptedWhole())
			}
		}
	}
}

// TestPodGroupCRDPrinterColumns: kubectl get podgroups shows the widest
// topology level (the Required one, when there is one) and the widest
// Preferred level, as the API server prints the stored, defaulted object.
func TestPodGroupCRDPrinterColumns(t *testing.T) {
	crd := loadCRD(t)
	convertor, err := tableconvertor.New(crd.Spec.Versions[0].AdditionalPrinterColumns)
	if err != nil {
		t.Fatal(err)
	}
	validate := crdValidator(t)
	for _, tc := range []struct {
		name                string
		levels              []level
		topology, preferred any // nil: an empty cell
	}{
		{"one key without a mode", []level{{key: rack}}, rack, nil},
		{"Required block, Preferred rack", []level{required(block), preferred(rack)}, block, rack},
		{"Required zone, Preferred rack and hostname", []level{required(zone), preferred(rack), preferred(host)}, zone, rack},
		{"Preferred rack only", []level{preferred(rack)}, rack, rack},
		{"no levels", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := podGroupObject("train", gangWithLevels(4, tc.levels...))
			if errs := validate(obj); len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			table, err := convertor.ConvertToTable(context.Background(), &unstructured.Unstructured{Object: obj}, nil)
			if err != nil {
				t.Fatal(err)
			}
			cells := map[string]any{}
			for i, col := range table.ColumnDefinitions {
				cells[col.Name] = table.Rows[0].Cells[i]
			}
			if cells["Topology"] != tc.topology || cells["Preferred"] != tc.preferred {
				t.Errorf("Topology %v, Preferred %v; want %v, %v", cells["Topology"], cells["Preferred"], tc.topology, tc.preferred)
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
	quantityType   = reflect.TypeOf(resource.Quantity{})
)

// compareSchema walks a Go type and its schema together and reports each
// difference with errorf: a Go field without a schema property or the
// reverse, a type, format or required mismatch, and a string whose schema
// enum is not exactly the constants Go declares of its type.
func compareSchema(errorf func(format string, args ...any), path string, typ reflect.Type, s apiextv1.JSONSchemaProps) {
	compareSchemaRequiring(errorf, path, typ, s, nil)
}

// compareSchemaRequiring is compareSchema for a schema that requires, on
// purpose, the fields at the paths of alsoRequired (e.g. "PodGroup.spec")
// which Go leaves optional (omitempty): the scheduler refuses an object
// without them, so the API server refuses it first. The reverse, a field
// Go requires and the schema does not, is always reported.
func compareSchemaRequiring(errorf func(format string, args ...any), path string, typ reflect.Type, s apiextv1.JSONSchemaProps, alsoRequired map[string]bool) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ == quantityType {
		// A resource.Quantity is a number or a string (controller-gen's
		// and the API server's int-or-string).
		if s.Type != "" || !s.XIntOrString {
			errorf("%s: schema type %q, x-kubernetes-int-or-string %v; Go type %s wants int-or-string", path, s.Type, s.XIntOrString, typ)
		}
		return
	}
	want := map[reflect.Kind]string{reflect.Struct: "object", reflect.Slice: "array", reflect.Map: "object", reflect.String: "string", reflect.Int32: "integer", reflect.Int64: "integer"}[typ.Kind()]
	if typ == timeType {
		want = "string"
	}
	if s.Type != want {
		errorf("%s: schema type %q, Go type %s (%q)", path, s.Type, typ, want)
		return
	}
	switch typ.Kind() {
	case reflect.Int32, reflect.Int64:
		if f := "int" + strings.TrimPrefix(typ.Kind().String(), "int"); s.Format != f {
			errorf("%s: format %q, want %s", path, s.Format, f)
		}
	case reflect.String:
		goValues, err := goEnumValues(typ)
		if err != nil {
			errorf("%s: the constants of %s: %v", path, typ, err)
			return
		}
		var schemaValues []string
		for _, e := range s.Enum {
			var v string
			if err := json.Unmarshal(e.Raw, &v); err != nil {
				errorf("%s: enum value %s is not a string", path, e.Raw)
			}
			schemaValues = append(schemaValues, v)
		}
		// The API server stores a sent "" as is (a default fills in a
		// missing field only), and Go reads an empty value as the
		// default: the enum may list "" for a field with a default.
		if i := slices.Index(schemaValues, ""); i >= 0 && s.Default != nil {
			schemaValues = slices.Delete(schemaValues, i, i+1)
		}
		slices.Sort(goValues)
		slices.Sort(schemaValues)
		if !slices.Equal(goValues, schemaValues) {
			errorf("%s: schema enum %q, Go constants of type %s %q", path, schemaValues, typ, goValues)
		}
		if s.Default != nil {
			var v string
			if err := json.Unmarshal(s.Default.Raw, &v); err != nil || (len(goValues) > 0 && !slices.Contains(goValues, v)) {
				errorf("%s: default %s is not one of the Go constants %q", path, s.Default.Raw, goValues)
			}
		}
	case reflect.Slice:
		if s.Items == nil || s.Items.Schema == nil {
			errorf("%s: array without items", path)
			return
		}
		compareSchemaRequiring(errorf, path+"[]", typ.Elem(), *s.Items.Schema, alsoRequired)
	case reflect.Map:
		if typ.Key().Kind() != reflect.String {
			errorf("%s: Go map with %s keys; JSON object keys are strings", path, typ.Key())
			return
		}
		if s.AdditionalProperties == nil || s.AdditionalProperties.Schema == nil || len(s.Properties) > 0 {
			errorf("%s: Go type %s wants an object with additionalProperties and no properties", path, typ)
			return
		}
		compareSchemaRequiring(errorf, path+"{}", typ.Elem(), *s.AdditionalProperties.Schema, alsoRequired)
	case reflect.Struct:
		if typ == objectMetaType || typ == timeType {
			return
		}
		fields := jsonFields(typ)
		for name, f := range fields {
			prop, ok := s.Properties[name]
			if !ok {
				errorf("%s: Go field %s (%s) is not in the schema", path, f.Name, name)
				continue
			}
			tag := f.Tag.Get("json")
			required := !strings.Contains(tag, "omitempty") && f.Type.Kind() != reflect.Pointer
			inSchema := slices.Contains(s.Required, name)
			if inSchema && !required && alsoRequired[path+"."+name] {
				required = true
			}
			if required != inSchema && typ != conditionType {
				errorf("%s.%s: required in Go %v, in the schema %v", path, name, required, inSchema)
			}
			compareSchemaRequiring(errorf, path+"."+name, f.Type, prop, alsoRequired)
		}
		for name := range s.Properties {
			if _, ok := fields[name]; !ok {
				errorf("%s: schema property %s has no Go field", path, name)
			}
		}
	}
}

// goEnumValues returns the values of the string constants that the package
// of a named string type declares of that type (TopologyMode: Required and
// Preferred; metav1.ConditionStatus: True, False and Unknown), read from
// the package's source; none for a plain string.
func goEnumValues(typ reflect.Type) ([]string, error) {
	if typ.PkgPath() == "" {
		return nil, nil
	}
	if values, ok := enumValuesCache[typ]; ok {
		return slices.Clone(values), nil
	}
	values, err := parseEnumValues(typ)
	if err == nil {
		enumValuesCache[typ] = values
	}
	return slices.Clone(values), err
}

// enumValuesCache holds goEnumValues' results; the tests that use it do not
// run in parallel.
var enumValuesCache = map[reflect.Type][]string{}

func parseEnumValues(typ reflect.Type) ([]string, error) {
	pkg, err := build.Import(typ.PkgPath(), ".", 0)
	if err != nil {
		return nil, err
	}
	var values []string
	fset := token.NewFileSet()
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ.Name() {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, fmt.Errorf("constant %s is not a string literal", vs.Names[0].Name)
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					values = append(values, s)
				}
			}
		}
	}
	return values, nil
}

// TestCompareSchemaCatchesDrift: compareSchema fails on each way the CRD
// can drift from the Go types in the topology levels and in
// spec.disruptionMode: a field missing on either side, a value missing
// from or added to an enum, a default that is not one of the constants.
func TestCompareSchemaCatchesDrift(t *testing.T) {
	// change gets the properties of spec and of a topology level; a
	// property's schema is a value, changed with withProperty.
	for _, tc := range []struct {
		name   string
		change func(spec, level map[string]apiextv1.JSONSchemaProps)
		want   string
	}{
		{"mode missing", func(_, level map[string]apiextv1.JSONSchemaProps) { delete(level, "mode") },
			"PodGroup.spec.schedulingConstraints.topology[]: Go field Mode (mode) is not in the schema"},
		{"a property Go lacks", func(_, level map[string]apiextv1.JSONSchemaProps) {
			level["weight"] = apiextv1.JSONSchemaProps{Type: "integer", Format: "int32"}
		}, "PodGroup.spec.schedulingConstraints.topology[]: schema property weight has no Go field"},
		{"Preferred missing from the enum", func(_, level map[string]apiextv1.JSONSchemaProps) {
			withProperty(level, "mode", func(mode *apiextv1.JSONSchemaProps) { mode.Enum = []apiextv1.JSON{{Raw: []byte(`"Required"`)}} })
		}, `PodGroup.spec.schedulingConstraints.topology[].mode: schema enum ["Required"], Go constants of type v1alpha1.TopologyMode ["Preferred" "Required"]`},
		{"a mode Go lacks", func(_, level map[string]apiextv1.JSONSchemaProps) {
			withProperty(level, "mode", func(mode *apiextv1.JSONSchemaProps) {
				mode.Enum = append(slices.Clone(mode.Enum), apiextv1.JSON{Raw: []byte(`"Spread"`)})
			})
		}, `PodGroup.spec.schedulingConstraints.topology[].mode: schema enum ["Preferred" "Required" "Spread"], Go constants of type v1alpha1.TopologyMode ["Preferred" "Required"]`},
		{"a default that is not a mode", func(_, level map[string]apiextv1.JSONSchemaProps) {
			withProperty(level, "mode", func(mode *apiextv1.JSONSchemaProps) { mode.Default = &apiextv1.JSON{Raw: []byte(`"Sometimes"`)} })
		}, `PodGroup.spec.schedulingConstraints.topology[].mode: default "Sometimes" is not one of the Go constants ["Preferred" "Required"]`},

		{"disruptionMode missing", func(spec, _ map[string]apiextv1.JSONSchemaProps) { delete(spec, "disruptionMode") },
			"PodGroup.spec: Go field DisruptionMode (disruptionMode) is not in the schema"},
		{"disruptionMode without an enum", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "disruptionMode", func(dm *apiextv1.JSONSchemaProps) { dm.Enum = nil })
		}, `PodGroup.spec.disruptionMode: schema enum [], Go constants of type v1alpha1.DisruptionMode ["Pod" "PodGroup"]`},
		{"PodGroup missing from the disruptionMode enum", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "disruptionMode", func(dm *apiextv1.JSONSchemaProps) { dm.Enum = []apiextv1.JSON{{Raw: []byte(`"Pod"`)}} })
		}, `PodGroup.spec.disruptionMode: schema enum ["Pod"], Go constants of type v1alpha1.DisruptionMode ["Pod" "PodGroup"]`},
		{"a disruption mode Go lacks", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "disruptionMode", func(dm *apiextv1.JSONSchemaProps) {
				dm.Enum = append(slices.Clone(dm.Enum), apiextv1.JSON{Raw: []byte(`"All"`)})
			})
		}, `PodGroup.spec.disruptionMode: schema enum ["All" "Pod" "PodGroup"], Go constants of type v1alpha1.DisruptionMode ["Pod" "PodGroup"]`},
		{"an empty disruption mode without a default to mean", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "disruptionMode", func(dm *apiextv1.JSONSchemaProps) { dm.Default = nil })
		}, `PodGroup.spec.disruptionMode: schema enum ["" "Pod" "PodGroup"], Go constants of type v1alpha1.DisruptionMode ["Pod" "PodGroup"]`},
		{"a default that is not a disruption mode", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "disruptionMode", func(dm *apiextv1.JSONSchemaProps) { dm.Default = &apiextv1.JSON{Raw: []byte(`"Never"`)} })
		}, `PodGroup.spec.disruptionMode: default "Never" is not one of the Go constants ["Pod" "PodGroup"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := loadCRD(t).Spec.Versions[0].Schema.OpenAPIV3Schema
			spec := schema.Properties["spec"]
			tc.change(spec.Properties, spec.Properties["schedulingConstraints"].Properties["topology"].Items.Schema.Properties)
			var got []string
			compareSchema(func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) },
				"PodGroup", reflect.TypeOf(pgv1alpha1.PodGroup{}), *schema)
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("compareSchema reported %q, want only %q", got, tc.want)
			}
		})
	}
}

// withProperty changes the schema of the property name in props.
func withProperty(props map[string]apiextv1.JSONSchemaProps, name string, change func(*apiextv1.JSONSchemaProps)) {
	p := props[name]
	change(&p)
	props[name] = p
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
