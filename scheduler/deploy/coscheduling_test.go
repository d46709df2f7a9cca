package deploy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	csv1alpha1 "k8s.io/kubernetes/pkg/scheduler/apis/coscheduling/v1alpha1"
	pgv1alpha1 "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"
)

const coschedulingCRD = "coscheduling-crd.yaml"

// coschedulingRequired are the fields the CRD requires although Go leaves
// them optional: the scheduler refuses a coscheduling PodGroup without
// minMember (podgroup.FromCoscheduling: at least 1), so the API server
// refuses it first.
var coschedulingRequired = map[string]bool{"PodGroup.spec": true, "PodGroup.spec.minMember": true}

// TestCoschedulingCRDMatchesGoTypes: the CRD serves exactly the Go types the
// scheduler reads (pkg/scheduler/apis/coscheduling/v1alpha1 in the patched
// tree): same group, version, resource and kind, a schema with the same
// fields, types and enums, the bounds the scheduler checks, and names that
// do not clash with kspatch's own PodGroup CRD.
func TestCoschedulingCRDMatchesGoTypes(t *testing.T) {
	crd := loadCRDFile(t, coschedulingCRD)
	gv := csv1alpha1.SchemeGroupVersion
	if crd.Spec.Group != gv.Group || crd.Spec.Names.Kind != "PodGroup" || crd.Spec.Names.Plural != csv1alpha1.Resource.Resource ||
		crd.Name != csv1alpha1.Resource.Resource+"."+gv.Group || crd.Spec.Scope != apiextv1.NamespaceScoped {
		t.Errorf("CRD %s names %s/%s %s (%s), want %s in %s, namespaced", crd.Name, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.Plural, crd.Spec.Scope, csv1alpha1.Resource.Resource, gv.Group)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != gv.Version || !crd.Spec.Versions[0].Storage || !crd.Spec.Versions[0].Served {
		t.Fatalf("CRD versions %+v, want only %s (served, storage)", crd.Spec.Versions, gv.Version)
	}
	v := crd.Spec.Versions[0]
	if v.Subresources == nil || v.Subresources.Status == nil {
		t.Error("the status subresource is not enabled: the scheduler writes status through it")
	}
	root := *v.Schema.OpenAPIV3Schema
	compareSchemaRequiring(t.Errorf, "PodGroup", reflect.TypeOf(csv1alpha1.PodGroup{}), root, coschedulingRequired)
	spec := root.Properties["spec"]
	if !slices.Contains(root.Required, "spec") || !slices.Contains(spec.Required, "minMember") {
		t.Errorf("required: %v at the root, %v in spec; want spec and spec.minMember", root.Required, spec.Required)
	}
	if mm := spec.Properties["minMember"]; mm.Minimum == nil || *mm.Minimum != 1 || mm.Maximum == nil || *mm.Maximum != math.MaxInt32 {
		t.Errorf("minMember is bounded by [%v, %v], want [1, %d]", deref(mm.Minimum), deref(mm.Maximum), math.MaxInt32)
	}
	if st := spec.Properties["scheduleTimeoutSeconds"]; st.Minimum == nil || *st.Minimum != 1 || st.Maximum == nil || *st.Maximum != podgroup.MaxScheduleTimeoutSeconds {
		t.Errorf("scheduleTimeoutSeconds is bounded by [%v, %v], want [1, %d] (the scheduler's podgroup.MaxScheduleTimeoutSeconds)",
			deref(st.Minimum), deref(st.Maximum), podgroup.MaxScheduleTimeoutSeconds)
	}
	if !hasRule(root, coschedulingNameRule) {
		t.Errorf("the PodGroup has no rule %s", coschedulingNameRule)
	}
	// Operators update the spec of a running job's group (minMember and
	// minResources when the job is resized): no immutability rule.
	for path, s := range map[string]apiextv1.JSONSchemaProps{"PodGroup": root, "PodGroup.spec": spec} {
		if hasRule(s, "self == oldSelf") {
			t.Errorf("%s is immutable; training operators update the spec", path)
		}
	}
	// Every printer column reads a field of the schema.
	for _, col := range v.AdditionalPrinterColumns {
		if col.JSONPath == ".metadata.creationTimestamp" {
			continue
		}
		s, ok := &root, true
		for _, name := range strings.Split(strings.TrimPrefix(col.JSONPath, "."), ".") {
			var p apiextv1.JSONSchemaProps
			if p, ok = s.Properties[name]; !ok {
				break
			}
			s = &p
		}
		if !ok || s.Type != col.Type {
			t.Errorf("printer column %s reads %s, which is not a field of type %s in the schema", col.Name, col.JSONPath, col.Type)
		}
	}
}

// TestCoschedulingCRDNames: the coscheduling CRD and kspatch's own PodGroup
// CRD have the same kind and plural (each its API's), so each short name
// must name one of them only: kubectl resolves a short name that two CRDs
// declare to one of them without saying which.
func TestCoschedulingCRDNames(t *testing.T) {
	cs, own := loadCRDFile(t, coschedulingCRD), loadCRDFile(t, podGroupCRD)
	if cs.Name == own.Name || cs.Spec.Group == own.Spec.Group {
		t.Fatalf("both CRDs are %s in %s", cs.Name, cs.Spec.Group)
	}
	for _, tc := range []struct {
		name      string
		crd       *apiextv1.CustomResourceDefinition
		wantShort []string
	}{
		// pgs: scheduler-plugins' users know it; pg is kspatch's.
		{coschedulingCRD, cs, []string{"pgs"}},
		{podGroupCRD, own, []string{"pg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !slices.Equal(tc.crd.Spec.Names.ShortNames, tc.wantShort) {
				t.Errorf("short names %q, want %q", tc.crd.Spec.Names.ShortNames, tc.wantShort)
			}
		})
	}
	for _, short := range cs.Spec.Names.ShortNames {
		if slices.Contains(own.Spec.Names.ShortNames, short) || short == own.Spec.Names.Plural || short == own.Spec.Names.Singular {
			t.Errorf("short name %s of %s is also a name of %s", short, coschedulingCRD, podGroupCRD)
		}
	}
}

// TestCoschedulingCRDBounds: every number, string and map of the schema
// has explicit bounds (see TestPodGroupCRDBounds).
func TestCoschedulingCRDBounds(t *testing.T) {
	checkBounds(t, loadCRDFile(t, coschedulingCRD))
}

// TestCoschedulingCRDRuleCosts: the CEL rules compile and cost far below
// the API server's limit (see TestPodGroupCRDRuleCosts).
func TestCoschedulingCRDRuleCosts(t *testing.T) {
	if rules := checkRuleCosts(t, coschedulingCRD); rules < 2 {
		t.Errorf("found %d rules, want the 2 of the CRD at least", rules)
	}
}

// The rules of the coscheduling CRD.
const coschedulingNameRule = `self.metadata.name.size() <= 63`

func coschedulingObject(name string, spec map[string]any) map[string]any {
	obj := map[string]any{
		"apiVersion": csv1alpha1.SchemeGroupVersion.String(), "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": "ml"},
	}
	if spec != nil {
		obj["spec"] = spec
	}
	return obj
}

// minMemberSpec is the spec of a group of minMember, with minResources if
// any.
func minMemberSpec(minMember any, minResources map[string]any) map[string]any {
	spec := map[string]any{"minMember": minMember}
	if minResources != nil {
		spec["minResources"] = minResources
	}
	return spec
}

// TestCoschedulingCRDValidation runs the CRD's validation on coscheduling
// PodGroups a training operator would create, and on bad ones, and checks
// the message the API server returns.
func TestCoschedulingCRDValidation(t *testing.T) {
	validate := crdValidatorOf(t, coschedulingCRD)
	const skipped = `<nil>: Invalid value: "null": ` + celSkipped
	keys32 := map[string]any{}
	for i := range 33 {
		keys32[fmt.Sprintf("example.com/r%d", i)] = "1"
	}
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want []string // nil when valid
	}{
		{"job of 4", coschedulingObject("pytorch-job", map[string]any{
			"minMember": int64(4), "scheduleTimeoutSeconds": int64(60),
			"minResources": map[string]any{"cpu": "14", "memory": "28Gi", "nvidia.com/gpu": int64(4)},
		}), nil},
		{"minMember only", coschedulingObject("g", minMemberSpec(int64(1), nil)), nil},
		{"minMember 2147483647", coschedulingObject("g", minMemberSpec(int64(math.MaxInt32), nil)), nil},
		{"quantities", coschedulingObject("g", minMemberSpec(int64(2), map[string]any{
			"cpu": "500m", "memory": "1.5Gi", "ephemeral-storage": "1e9", "pods": int64(0), "example.com/fpga": "+2", "hugepages-2Mi": "64Mi",
		})), nil},
		{"status as the scheduler writes it", map[string]any{
			"apiVersion": csv1alpha1.SchemeGroupVersion.String(), "kind": "PodGroup",
			"metadata": map[string]any{"name": "g", "namespace": "ml"},
			"spec":     minMemberSpec(int64(2), nil),
			"status": map[string]any{"phase": "Running", "scheduled": int64(2), "running": int64(2), "succeeded": int64(0), "failed": int64(0),
				"scheduleStartTime": "2026-01-02T03:04:05Z", "occupiedBy": "ml/pytorch-job"},
		}, nil},
		{"name of 63", coschedulingObject(strings.Repeat("g", 63), minMemberSpec(int64(1), nil)), nil},
		{"timeout 86400", coschedulingObject("g", map[string]any{"minMember": int64(1), "scheduleTimeoutSeconds": int64(86400)}), nil},

		{"no spec", coschedulingObject("g", nil), []string{"spec: Required value", skipped}},
		{"no minMember", coschedulingObject("g", map[string]any{"scheduleTimeoutSeconds": int64(60)}),
			[]string{"spec.minMember: Required value", skipped}},
		{"minMember 0", coschedulingObject("g", minMemberSpec(int64(0), nil)),
			[]string{"spec.minMember: Invalid value: 0: spec.minMember in body should be greater than or equal to 1"}},
		{"minMember 4294967298", coschedulingObject("g", minMemberSpec(int64(4294967298), nil)),
			[]string{"spec.minMember: Invalid value: 4294967298: spec.minMember in body should be less than or equal to 2147483647"}},
		{"minMember as a string", coschedulingObject("g", minMemberSpec("4", nil)),
			[]string{`spec.minMember: Invalid value: "string": spec.minMember in body must be of type integer: "string"`, skipped}},
		{"timeout 0", coschedulingObject("g", map[string]any{"minMember": int64(1), "scheduleTimeoutSeconds": int64(0)}),
			[]string{"spec.scheduleTimeoutSeconds: Invalid value: 0: spec.scheduleTimeoutSeconds in body should be greater than or equal to 1"}},
		{"timeout 86401", coschedulingObject("g", map[string]any{"minMember": int64(1), "scheduleTimeoutSeconds": int64(86401)}),
			[]string{"spec.scheduleTimeoutSeconds: Invalid value: 86401: spec.scheduleTimeoutSeconds in body should be less than or equal to 86400"}},
		{"negative quantity", coschedulingObject("g", minMemberSpec(int64(1), map[string]any{"cpu": "-1"})),
			[]string{`spec.minResources.cpu: Invalid value: "-1": spec.minResources.cpu in body should match '` + quantityPattern(t) + `'`}},
		{"negative integer", coschedulingObject("g", minMemberSpec(int64(1), map[string]any{"cpu": int64(-1)})),
			[]string{"spec.minResources.cpu: Invalid value: -1: spec.minResources.cpu in body should be greater than or equal to 0"}},
		{"not a quantity", coschedulingObject("g", minMemberSpec(int64(1), map[string]any{"memory": "1 GB"})),
			[]string{`spec.minResources.memory: Invalid value: "1 GB": spec.minResources.memory in body should match '` + quantityPattern(t) + `'`}},
		{"a resource name with a space", coschedulingObject("g", minMemberSpec(int64(1), map[string]any{"gpu count": "1"})),
			[]string{`spec.minResources: Invalid value: "object": each key must be a resource name such as cpu, memory or example.com/gpu (an optional DNS-subdomain prefix of at most 253 characters and '/', then at most 63 letters, digits, '-', '_' or '.')`}},
		{"a resource name without a name", coschedulingObject("g", minMemberSpec(int64(1), map[string]any{"example.com/": "1"})),
			[]string{`spec.minResources: Invalid value: "object": each key must be a resource name`}},
		{"33 resources", coschedulingObject("g", minMemberSpec(int64(1), keys32)),
			[]string{"spec.minResources: Too many: 33: must have at most 32 items", skipped}},
		{"unknown phase", map[string]any{
			"apiVersion": csv1alpha1.SchemeGroupVersion.String(), "kind": "PodGroup",
			"metadata": map[string]any{"name": "g", "namespace": "ml"},
			"spec":     minMemberSpec(int64(2), nil),
			"status":   map[string]any{"phase": "Waiting"},
		}, []string{`status.phase: Unsupported value: "Waiting": supported values: "Pending", "Scheduling", "Running", "Unknown", "Finished", "Failed"`, skipped}},
		{"name of 64", coschedulingObject(strings.Repeat("g", 64), minMemberSpec(int64(1), nil)),
			[]string{`<nil>: Invalid value: "object": a PodGroup name must be at most 63 characters, the longest label value (pods join it with the label scheduling.x-k8s.io/pod-group=<name>)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := validate(tc.obj)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got errors\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("error %d is\n\t%s\nwant it to start with\n\t%s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// quantityPattern is the pattern of minResources' values.
func quantityPattern(t *testing.T) string {
	t.Helper()
	return loadCRDFile(t, coschedulingCRD).Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["minResources"].AdditionalProperties.Schema.Pattern
}

// schedulerReads is what the scheduler makes of a coscheduling PodGroup the
// API server stored: its informer converts the object to the Go type (an
// object that does not convert is a malformed group), then
// podgroup.FromCoscheduling reads it as a gang (an error is a malformed
// group). nil when the scheduler can schedule the group.
func schedulerReads(obj map[string]any) error {
	var cs csv1alpha1.PodGroup
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &cs); err != nil {
		return err
	}
	_, err := podgroup.FromCoscheduling(&cs)
	return err
}

// TestCoschedulingCRDMatchesScheduler: whatever the CRD accepts, the
// scheduler reads as a gang (no group the API server stored is refused as
// malformed), and whatever the scheduler refuses, the CRD refuses. The CRD
// is stricter in one way, on purpose: a negative minResources quantity,
// which the scheduler reads as needing nothing, is refused.
func TestCoschedulingCRDMatchesScheduler(t *testing.T) {
	validate := crdValidatorOf(t, coschedulingCRD)
	var specs []map[string]any
	for _, minMember := range []any{nil, int64(-1), int64(0), int64(1), int64(7), int64(math.MaxInt32)} {
		for _, timeout := range []any{nil, int64(-5), int64(0), int64(1), int64(300), int64(86400), int64(86401)} {
			for _, minResources := range []map[string]any{
				nil, {}, {"cpu": "2", "memory": "4Gi"}, {"cpu": int64(3)}, {"cpu": "250m", "nvidia.com/gpu": "8"}, {"cpu": "-2"}, {"memory": "lots"},
			} {
				spec := map[string]any{}
				if minMember != nil {
					spec["minMember"] = minMember
				}
				if timeout != nil {
					spec["scheduleTimeoutSeconds"] = timeout
				}
				if minResources != nil {
					spec["minResources"] = minResources
				}
				specs = append(specs, spec)
			}
		}
	}
	stricter := 0
	for _, spec := range specs {
		obj := coschedulingObject("train", spec)
		crdErrs := validate(runtime.DeepCopyJSON(obj))
		schedErr := schedulerReads(obj)
		switch {
		case len(crdErrs) == 0 && schedErr != nil:
			t.Errorf("spec %v: the CRD accepts it, the scheduler refuses it: %v", spec, schedErr)
		case len(crdErrs) > 0 && schedErr == nil:
			if negativeQuantity(spec) {
				stricter++
				continue
			}
			t.Errorf("spec %v: the scheduler reads it, the CRD refuses it: %v", spec, crdErrs.ToAggregate())
		}
	}
	if stricter == 0 {
		t.Error("no spec with a negative quantity was compared")
	}
	t.Logf("%d specs compared (%d with a negative quantity, refused by the CRD only)", len(specs), stricter)
}

// negativeQuantity reports whether spec.minResources holds a negative
// quantity (and only such a problem: the rest is valid).
func negativeQuantity(spec map[string]any) bool {
	res, _ := spec["minResources"].(map[string]any)
	for _, v := range res {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "-") {
			return true
		}
	}
	return false
}

// TestCoschedulingCRDQuantities: every minResources value the CRD accepts
// is a quantity the scheduler parses (resource.ParseQuantity) and not
// negative, for strings built around the quantity grammar and random
// ones; and the forms pods' requests use are accepted.
func TestCoschedulingCRDQuantities(t *testing.T) {
	validate := crdValidatorOf(t, coschedulingCRD)
	accepts := func(q any) bool {
		return len(validate(coschedulingObject("g", minMemberSpec(int64(1), map[string]any{"example.com/r": q})))) == 0
	}
	for _, q := range []any{"1", "0", "500m", "0.5", ".5", "5.", "1.5Gi", "64Mi", "2Ki", "1Ei", "3k", "2M", "1G", "1T", "1P", "1E", "100n", "100u",
		"1e3", "1E3", "1e-3", "1e+3", "+1", "007", int64(0), int64(12), int64(math.MaxInt64)} {
		if !accepts(q) {
			t.Errorf("quantity %v is refused", q)
		}
	}
	var values []string
	parts := []string{"", "+", "-", "0", "1", "12", ".", ".5", "5.", "1.5", "Ki", "Mi", "Ei", "i", "m", "n", "u", "k", "K", "M", "G", "e", "E", "e3", "e-3", "E+3", " ", "x", "1"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				values = append(values, a+b+c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(47, 1))
	const alphabet = "0123456789.+-eEiKMGTPmnuk "
	for range 3000 {
		b := make([]byte, 1+rng.IntN(10))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		values = append(values, string(b))
	}
	values = append(values, strings.Repeat("9", 64), strings.Repeat("9", 65), "9"+strings.Repeat("0", 62)+"Ei")
	accepted := 0
	for _, v := range values {
		if v == "" || !accepts(v) {
			continue
		}
		accepted++
		q, err := resource.ParseQuantity(v)
		if err != nil {
			t.Errorf("quantity %q: the CRD accepts it, resource.ParseQuantity refuses it: %v", v, err)
		} else if q.Sign() < 0 {
			t.Errorf("quantity %q: the CRD accepts it, and it is negative (%s)", v, q.String())
		}
	}
	t.Logf("%d of %d strings accepted", accepted, len(values))
}

// TestCoschedulingCRDPrinterColumns: kubectl get podgroups.scheduling.x-k8s.io
// shows the phase, minMember and the counts the scheduler writes.
func TestCoschedulingCRDPrinterColumns(t *testing.T) {
	crd := loadCRDFile(t, coschedulingCRD)
	convertor, err := tableconvertor.New(crd.Spec.Versions[0].AdditionalPrinterColumns)
	if err != nil {
		t.Fatal(err)
	}
	obj := coschedulingObject("train", minMemberSpec(int64(4), map[string]any{"cpu": "14"}))
	obj["status"] = map[string]any{"phase": "Scheduling", "scheduled": int64(4), "running": int64(1)}
	table, err := convertor.ConvertToTable(context.Background(), &unstructured.Unstructured{Object: obj}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	cells := map[string]any{}
	for i, col := range table.ColumnDefinitions {
		names = append(names, col.Name)
		cells[col.Name] = table.Rows[0].Cells[i]
	}
	if want := []string{"Name", "Phase", "MinMember", "Scheduled", "Running", "Age"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
	for col, want := range map[string]any{"Phase": "Scheduling", "MinMember": int64(4), "Scheduled": int64(4), "Running": int64(1)} {
		if cells[col] != want {
			t.Errorf("column %s shows %v (%T), want %v", col, cells[col], cells[col], want)
		}
	}
}

// TestCompareCoschedulingSchemaCatchesDrift: compareSchema reports the
// differences between the coscheduling Go types and a schema that drifted
// from them: the test above would catch a change on either side.
func TestCompareCoschedulingSchemaCatchesDrift(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(spec, status map[string]apiextv1.JSONSchemaProps)
		want   string
	}{
		{"minResources missing", func(spec, _ map[string]apiextv1.JSONSchemaProps) { delete(spec, "minResources") },
			"PodGroup.spec: Go field MinResources (minResources) is not in the schema"},
		{"minResources of plain strings", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "minResources", func(mr *apiextv1.JSONSchemaProps) {
				mr.AdditionalProperties = &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextv1.JSONSchemaProps{Type: "string"}}
			})
		}, `PodGroup.spec.minResources{}: schema type "string", x-kubernetes-int-or-string false; Go type resource.Quantity wants int-or-string`},
		{"minResources as a list", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "minResources", func(mr *apiextv1.JSONSchemaProps) {
				*mr = apiextv1.JSONSchemaProps{Type: "array", Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "string"}}}
			})
		}, `PodGroup.spec.minResources: schema type "array", Go type v1.ResourceList ("object")`},
		{"minMember as int64", func(spec, _ map[string]apiextv1.JSONSchemaProps) {
			withProperty(spec, "minMember", func(mm *apiextv1.JSONSchemaProps) { mm.Format = "int64" })
		}, `PodGroup.spec.minMember: format "int64", want int32`},
		{"a phase Go lacks", func(_, status map[string]apiextv1.JSONSchemaProps) {
			withProperty(status, "phase", func(p *apiextv1.JSONSchemaProps) {
				p.Enum = append(slices.Clone(p.Enum), apiextv1.JSON{Raw: []byte(`"Inqueue"`)})
			})
		}, `PodGroup.status.phase: schema enum ["Failed" "Finished" "Inqueue" "Pending" "Running" "Scheduling" "Unknown"], Go constants of type v1alpha1.PodGroupPhase ["Failed" "Finished" "Pending" "Running" "Scheduling" "Unknown"]`},
		{"a status field Go lacks", func(_, status map[string]apiextv1.JSONSchemaProps) {
			status["preempted"] = apiextv1.JSONSchemaProps{Type: "integer", Format: "int32"}
		}, "PodGroup.status: schema property preempted has no Go field"},
		{"scheduleStartTime missing", func(_, status map[string]apiextv1.JSONSchemaProps) { delete(status, "scheduleStartTime") },
			"PodGroup.status: Go field ScheduleStartTime (scheduleStartTime) is not in the schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := loadCRDFile(t, coschedulingCRD).Spec.Versions[0].Schema.OpenAPIV3Schema
			tc.change(schema.Properties["spec"].Properties, schema.Properties["status"].Properties)
			var got []string
			compareSchemaRequiring(func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) },
				"PodGroup", reflect.TypeOf(csv1alpha1.PodGroup{}), *schema, coschedulingRequired)
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("compareSchema reported %q, want only %q", got, tc.want)
			}
		})
	}
	// Required on purpose only where listed: a schema that requires a
	// field Go leaves optional, not in the list, is reported.
	schema := loadCRDFile(t, coschedulingCRD).Spec.Versions[0].Schema.OpenAPIV3Schema
	status := schema.Properties["status"]
	status.Required = []string{"occupiedBy"}
	schema.Properties["status"] = status
	var got []string
	compareSchemaRequiring(func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) },
		"PodGroup", reflect.TypeOf(csv1alpha1.PodGroup{}), *schema, coschedulingRequired)
	if want := "PodGroup.status.occupiedBy: required in Go false, in the schema true"; len(got) != 1 || got[0] != want {
		t.Errorf("compareSchema reported %q, want only %q", got, want)
	}
}

// The two PodGroup APIs name their member label differently; the
// scheduler's constants are the ones the manifests' comments give.
func TestCoschedulingLabel(t *testing.T) {
	if csv1alpha1.PodGroupLabel == pgv1alpha1.PodGroupLabel {
		t.Fatalf("both APIs use the label %s", csv1alpha1.PodGroupLabel)
	}
	crd := loadCRDFile(t, coschedulingCRD)
	if rule := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.XValidations; len(rule) == 0 || !strings.Contains(rule[0].Message, csv1alpha1.PodGroupLabel+"=<name>") {
		t.Errorf("the name rule's message %+v does not name the label %s", rule, csv1alpha1.PodGroupLabel)
	}
}
