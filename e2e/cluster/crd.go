package cluster

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// PodGroupResource is the PodGroup API the CRD serves.
var PodGroupResource = schema.GroupVersionResource{Group: "scheduling.kspatch.io", Version: "v1alpha1", Resource: "podgroups"}

// PodGroupLabel is the label by which a pod joins the PodGroup it names
// (in the pod's namespace).
const PodGroupLabel = "scheduling.kspatch.io/pod-group"

// CreateGang creates a PodGroup with a gang policy of minCount, then n pods
// name-0 … name-(n-1) (made by Pod from o) that join it.
func (c *Cluster) CreateGang(ctx context.Context, namespace, name string, minCount, n int, o PodOptions) error {
	return c.CreateLevelsGang(ctx, namespace, name, minCount, n, nil, o)
}

// CreateTopologyGang is CreateGang with a topology constraint: the group's
// pods go to nodes that share one value of the node label topologyKey
// (e.g. RackLabel).
func (c *Cluster) CreateTopologyGang(ctx context.Context, namespace, name string, minCount, n int, topologyKey string, o PodOptions) error {
	return c.CreateLevelsGang(ctx, namespace, name, minCount, n, []TopologyLevel{{Key: topologyKey}}, o)
}

// TopologyLevel is one entry of a PodGroup's
// spec.schedulingConstraints.topology.
type TopologyLevel struct {
	// Key is the node label key of the level (e.g. BlockLabel).
	Key string
	// Mode is TopologyRequired, TopologyPreferred or empty (the field is
	// left out: Required).
	Mode string
}

// Modes of a TopologyLevel, as the PodGroup API spells them.
const (
	TopologyRequired  = "Required"
	TopologyPreferred = "Preferred"
)

// CreateLevelsGang is CreateGang with topology levels, widest first (gate
// PodGroupTopologyLevels), e.g. a Required BlockLabel then a Preferred
// RackLabel: the pods share a block and, if they fit, a rack.
func (c *Cluster) CreateLevelsGang(ctx context.Context, namespace, name string, minCount, n int, levels []TopologyLevel, o PodOptions) error {
	if err := c.CreateLevelsPodGroup(ctx, namespace, name, minCount, levels); err != nil {
		return err
	}
	labels := map[string]string{PodGroupLabel: name}
	for k, v := range o.Labels {
		labels[k] = v
	}
	o.Labels = labels
	return c.CreatePods(ctx, namespace, name, n, o)
}

// CreatePodGroup creates a PodGroup with a gang policy of minCount and, if
// topologyKey is set, a topology constraint on that node label. Pods join
// it with the label PodGroupLabel=name.
func (c *Cluster) CreatePodGroup(ctx context.Context, namespace, name string, minCount int, topologyKey string) error {
	var levels []TopologyLevel
	if topologyKey != "" {
		levels = []TopologyLevel{{Key: topologyKey}}
	}
	return c.CreateLevelsPodGroup(ctx, namespace, name, minCount, levels)
}

// CreateLevelsPodGroup creates a PodGroup with a gang policy of minCount
// and the topology levels, if any.
func (c *Cluster) CreateLevelsPodGroup(ctx context.Context, namespace, name string, minCount int, levels []TopologyLevel) error {
	spec := map[string]any{"schedulingPolicy": map[string]any{
		"gang": map[string]any{"minCount": int64(minCount)},
	}}
	if len(levels) > 0 {
		topology := make([]any, len(levels))
		for i, l := range levels {
			entry := map[string]any{"key": l.Key}
			if l.Mode != "" {
				entry["mode"] = l.Mode
			}
			topology[i] = entry
		}
		spec["schedulingConstraints"] = map[string]any{"topology": topology}
	}
	pg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": PodGroupResource.GroupVersion().String(), "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec":     spec,
	}}
	if _, err := c.Dynamic.Resource(PodGroupResource).Namespace(namespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGroup %s/%s: %w", namespace, name, err)
	}
	return nil
}

// installCRD creates a CustomResourceDefinition from a one-document manifest
// and waits until the API server serves it.
func (c *Cluster) installCRD(ctx context.Context, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var obj map[string]any
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	crd := &unstructured.Unstructured{Object: obj}
	if _, err := c.Dynamic.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the CRD in %s: %w", path, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := c.Dynamic.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err == nil && established(got) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("CRD %s is not established after 30s (last error %v)", crd.GetName(), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
