package e2e

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kspatch.dev/e2e/cluster"
)

func podGroup(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.kspatch.io/v1alpha1", "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": "e2e"},
		"spec":     spec,
	}}
}

func gang(minCount int64) map[string]any {
	return map[string]any{"gang": map[string]any{"minCount": minCount}}
}

// podGroupValidation: the API server serves the PodGroup CRD from
// scheduler/deploy and rejects bad specs with a message that says what is
// wrong.
func podGroupValidation(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	groups := c.Dynamic.Resource(cluster.PodGroupResource).Namespace("e2e")
	good := podGroup("train", map[string]any{
		"schedulingPolicy":       gang(4),
		"schedulingConstraints":  map[string]any{"topology": []any{map[string]any{"key": "topology.kubernetes.io/rack"}}},
		"scheduleTimeoutSeconds": int64(120),
	})
	created, err := groups.Create(ctx, good, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a valid PodGroup is rejected: %v", err)
	}
	if _, err := groups.Create(ctx, podGroup("basic", map[string]any{"schedulingPolicy": map[string]any{"basic": map[string]any{}}}), metav1.CreateOptions{}); err != nil {
		t.Errorf("a valid basic PodGroup is rejected: %v", err)
	}

	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"gang and basic", map[string]any{"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": int64(2)}, "basic": map[string]any{}}},
			"exactly one of schedulingPolicy.gang or schedulingPolicy.basic must be set"},
		{"no policy", map[string]any{"schedulingPolicy": map[string]any{}},
			"exactly one of schedulingPolicy.gang or schedulingPolicy.basic must be set"},
		{"minCount 0", map[string]any{"schedulingPolicy": gang(0)},
			"spec.schedulingPolicy.gang.minCount: Invalid value: 0: spec.schedulingPolicy.gang.minCount in body should be greater than or equal to 1"},
		{"two topology keys", map[string]any{"schedulingPolicy": gang(2), "schedulingConstraints": map[string]any{"topology": []any{
			map[string]any{"key": "topology.kubernetes.io/rack"}, map[string]any{"key": "topology.kubernetes.io/zone"}}}},
			"spec.schedulingConstraints.topology: Too many: 2: must have at most 1 items"},
		{"bad label key", map[string]any{"schedulingPolicy": gang(2), "schedulingConstraints": map[string]any{"topology": []any{map[string]any{"key": "rack name"}}}},
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key such as topology.kubernetes.io/rack"},
		{"no spec", nil, "spec: Required value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := podGroup("bad", tc.spec)
			if tc.spec == nil {
				delete(obj.Object, "spec")
			}
			_, err := groups.Create(ctx, obj, metav1.CreateOptions{})
			if err == nil {
				t.Fatal("the API server accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			t.Logf("rejected: %v", err)
		})
	}

	t.Run("spec is immutable", func(t *testing.T) {
		if err := unstructured.SetNestedField(created.Object, int64(8), "spec", "schedulingPolicy", "gang", "minCount"); err != nil {
			t.Fatal(err)
		}
		_, err := groups.Update(ctx, created, metav1.UpdateOptions{})
		if err == nil || !strings.Contains(err.Error(), "spec is immutable; delete and re-create the PodGroup to change it") {
			t.Fatalf("changing spec: %v, want the immutability message", err)
		}
		t.Logf("rejected: %v", err)
	})
}
