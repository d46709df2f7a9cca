package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
)

// coschedulingManifests are what a training operator and its users write
// for coscheduling, with kspatch's annotations: converted to upstream,
// with losses.
const coschedulingManifests = `
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: pytorch
  namespace: ml
  annotations:
    scheduling.kspatch.io/topology-required: topology.kubernetes.io/block
    scheduling.kspatch.io/topology-preferred: topology.kubernetes.io/rack
    scheduling.kspatch.io/disruption-mode: PodGroup
spec: {minMember: 4, minResources: {cpu: "16", nvidia.com/gpu: "8"}, scheduleTimeoutSeconds: 120}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pytorch, namespace: ml}
spec:
  serviceName: pytorch
  replicas: 4
  selector: {matchLabels: {app: pytorch}}
  template:
    metadata: {labels: {app: pytorch, scheduling.x-k8s.io/pod-group: pytorch}}
    spec: {containers: [{name: w, image: trainer, resources: {limits: {nvidia.com/gpu: "2"}}}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: ml}
spec:
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs, scheduling.x-k8s.io/pod-group: pytorch}}
    spec: {containers: [{name: w, image: trainer}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: ml}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: agent, image: agent}]}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: pytorch-0, namespace: ml, labels: {scheduling.x-k8s.io/pod-group: pytorch}}
  spec: {containers: [{name: w, image: trainer}]}
`

// strictDecoder decodes the built-in kinds of Kubernetes v1.37 (k8s.io/api
// v0.37.2) and fails on a field their types do not have.
var strictDecoder = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// TestConvertOutputValidates: what convert writes for upstream decodes
// strictly into the published v0.37.2 API types, fits their OpenAPI
// schema, and passes the field validation the published modules carry.
func TestConvertOutputValidates(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		args     []string
		kinds    int // the objects checked, Lists' items included
	}{
		{name: "kspatch to upstream", in: kspatchManifests, args: []string{"--to", "upstream"}, kinds: 8},
		{name: "kspatch to upstream, labels removed", in: kspatchManifests, args: []string{"--to", "upstream", "--remove-labels"}, kinds: 8},
		{name: "coscheduling to upstream", in: coschedulingManifests, args: []string{"--to", "upstream"}, kinds: 5},
		{name: "upstream to kspatch", in: upstreamManifests, args: []string{"--to", "kspatch"}, kinds: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := convertText(tc.in, tc.args...)
			if code != 0 && code != exitLosses {
				t.Fatalf("exit status %d:\n%s", code, stderr)
			}
			checked := 0
			for _, obj := range flatten(objects(t, out)) {
				checked++
				if obj["apiVersion"] == kspatchAPIVersion {
					checkKspatchGroup(t, obj)
					continue
				}
				checkBuiltin(t, obj, tc.args[1] == "kspatch")
			}
			if checked != tc.kinds {
				t.Errorf("checked %d objects, want %d", checked, tc.kinds)
			}
		})
	}
}

// TestValidatorsFail: each check the output passes above fails on an
// object that breaks it, so that a converter writing such objects fails
// TestConvertOutputValidates.
func TestValidatorsFail(t *testing.T) {
	const pg = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{name: "unknown field", in: pg + "spec: {schedulingPolicy: {gang: {minCount: 2}}, timeout: 5}", want: `unknown field "spec.timeout"`},
		{name: "kspatch's mode in upstream's topology", in: pg + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: rack, mode: Required}]}}", want: `unknown field "spec.schedulingConstraints.topology[0].mode"`},
		{name: "kspatch's disruption mode string", in: pg + "spec: {schedulingPolicy: {basic: {}}, disruptionMode: PodGroup}", want: "cannot unmarshal"},
		{name: "two topology entries", in: pg + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: block}, {key: rack}]}}", want: "spec.schedulingConstraints.topology: Too many"},
		{name: "minCount 0", in: pg + "spec: {schedulingPolicy: {gang: {minCount: 0}}}", want: "spec.schedulingPolicy.gang.minCount: Required value"},
		{name: "both policies", in: pg + "spec: {schedulingPolicy: {gang: {minCount: 2}, basic: {}}}", want: "spec.schedulingPolicy"},
		{name: "no policy", in: pg + "spec: {schedulingPolicy: {}}", want: "spec.schedulingPolicy"},
		{name: "not a label key", in: pg + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: 'a b'}]}}", want: "spec.schedulingConstraints.topology[0].key"},
		{name: "minCount negative", in: pg + "spec: {schedulingPolicy: {gang: {minCount: -1}}}", want: "spec.schedulingPolicy.gang.minCount: Invalid value"},
		{name: "both disruption modes", in: pg + "spec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}, all: {}}}", want: "spec.disruptionMode"},
		{name: "a bad name", in: "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: Bad_Name, namespace: ml}\nspec: {schedulingPolicy: {basic: {}}}", want: "metadata.name"},
		{name: "a pod's bad podGroupName", in: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec: {containers: [{name: c, image: i}], schedulingGroup: {podGroupName: Bad_Name}}", want: "spec.schedulingGroup.podGroupName"},
		{name: "a Deployment's unknown template field", in: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ml}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [], podGroup: x}}}", want: `unknown field "spec.template.spec.podGroup"`},
		{name: "a Job's field of the wrong type", in: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ml}\nspec: {completions: four, template: {spec: {containers: []}}}", want: "completions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := builtinErrors(objects(t, tc.in)[0], false)
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q, want one containing %q", errs, tc.want)
			}
		})
	}
}

func flatten(objs []map[string]interface{}) []map[string]interface{} {
	var out []map[string]interface{}
	for _, o := range objs {
		if o["kind"] != "List" {
			out = append(out, o)
			continue
		}
		for _, it := range o["items"].([]interface{}) {
			out = append(out, it.(map[string]interface{}))
		}
	}
	return out
}

func checkBuiltin(t *testing.T, obj map[string]interface{}, forV133 bool) {
	t.Helper()
	for _, e := range builtinErrors(obj, forV133) {
		t.Errorf("%s %v: %s", obj["kind"], obj["metadata"], e)
	}
}

// builtinErrors checks an object of a built-in kind: strict decoding into
// the v0.37.2 types, their OpenAPI schema (client-go's, through
// structured-merge-diff), the metadata's validation, and by kind: a
// v1beta1 PodGroup's declarative validation, a pod's group name. forV133:
// the pods are for a v1.33 API server, which has no spec.schedulingGroup.
func builtinErrors(obj map[string]interface{}, forV133 bool) []string {
	data, err := json.Marshal(obj)
	if err != nil {
		return []string{err.Error()}
	}
	typed, _, err := strictDecoder.Decode(data, nil, nil)
	if err != nil {
		return []string{"strict decoding: " + err.Error()}
	}
	var errs []string
	if _, err := applyconfigurations.NewTypeConverter(scheme.Scheme).ObjectToTyped(&unstructured.Unstructured{Object: obj}); err != nil {
		errs = append(errs, "schema: "+err.Error())
	}
	accessor := typed.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	fe := apivalidation.ValidateObjectMeta(accessor, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if pg, ok := typed.(*schedulingv1beta1.PodGroup); ok {
		fe = append(fe, validatePodGroup(pg)...)
	}
	for _, p := range findPods(obj, "", nil) {
		fe = append(fe, validateMember(p, forV133)...)
	}
	for _, e := range fe {
		errs = append(errs, e.Error())
	}
	return errs
}

// validatePodGroup runs the declarative validation k8s.io/api v0.37.2
// publishes for the PodGroup. It ships none for v1beta1; v1alpha3's
// PodGroup has the same fields (its strict decoding below proves it for
// this object), and its generated rules are those of v1beta1's markers:
// one policy, minCount >= 1, at most one topology entry whose key is a
// label key, one disruption mode. The options are the feature gates of an
// API server that takes the converted groups: the topology's on, and the
// alpha ones the conversion never uses (parent groups, preemption policy)
// off, so that an output using them fails.
func validatePodGroup(pg *schedulingv1beta1.PodGroup) field.ErrorList {
	data, err := json.Marshal(pg)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	var alpha schedulingv1alpha3.PodGroup
	strict, err := kjson.UnmarshalStrict(data, &alpha)
	if err != nil || len(strict) > 0 {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("as v1alpha3: %v %v", err, strict))}
	}
	// The API server defaults before it validates: disruptionMode's
	// marker is +default={"single": {}} (so the rules take it as required).
	if alpha.Spec.DisruptionMode == nil {
		alpha.Spec.DisruptionMode = &schedulingv1alpha3.DisruptionMode{Single: &schedulingv1alpha3.SingleDisruptionMode{}}
	}
	op := operation.Operation{Type: operation.Create, Options: map[string]bool{
		"TopologyAwareWorkloadScheduling": true, "CompositePodGroup": false, "PodGroupPreemptionPolicy": false,
	}}
	return schedulingv1alpha3.Validate_PodGroup(context.Background(), op, nil, &alpha, nil)
}

// validateMember checks a pod or pod template's labels and group name.
func validateMember(p podAt, forV133 bool) field.ErrorList {
	var pod corev1.PodTemplateSpec
	data, _ := json.Marshal(p.obj)
	if err := json.Unmarshal(data, &pod); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath(p.path), err)}
	}
	path := field.NewPath("metadata")
	if p.path != "" {
		path = field.NewPath(p.path).Child("metadata")
	}
	errs := metav1validation.ValidateLabels(pod.Labels, path.Child("labels"))
	sg := pod.Spec.SchedulingGroup
	sgPath := field.NewPath(at(p.path, "spec.schedulingGroup"))
	switch {
	case sg != nil && forV133:
		errs = append(errs, field.Forbidden(sgPath, "a v1.33 API server has no such field"))
	case sg != nil && (sg.PodGroupName == nil || *sg.PodGroupName == ""):
		errs = append(errs, field.Required(sgPath.Child("podGroupName"), "exactly one member"))
	case sg != nil:
		for _, msg := range validation.IsDNS1123Subdomain(*sg.PodGroupName) {
			errs = append(errs, field.Invalid(sgPath.Child("podGroupName"), *sg.PodGroupName, msg))
		}
	}
	return errs
}

// checkKspatchGroup checks a kspatch PodGroup of the output: strict
// decoding into the types that mirror the CRD (TestKspatchTypesMatchCRD
// holds them to it), and the CRD's rules.
func checkKspatchGroup(t *testing.T, obj map[string]interface{}) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var pg kspatchPodGroup
	strict, err := kjson.UnmarshalStrict(data, &pg)
	if err != nil || len(strict) > 0 {
		t.Errorf("kspatch PodGroup %s: %v %v", data, err, strict)
		return
	}
	if err := validateKspatch(&pg); err != nil {
		t.Errorf("kspatch PodGroup %s: %v", pg.Name, err)
	}
	if errs := apivalidation.ValidateObjectMeta(&pg.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata")); len(errs) > 0 {
		t.Errorf("kspatch PodGroup %s: %v", pg.Name, errs)
	}
}

var _ runtime.Object = &schedulingv1beta1.PodGroup{}
