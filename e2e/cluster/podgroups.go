package cluster

import (
	"context"
	"fmt"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PodGroupResource is the PodGroup API the CRD serves.
var PodGroupResource = schema.GroupVersionResource{Group: "scheduling.kspatch.io", Version: "v1alpha1", Resource: "podgroups"}

// PodGroupLabel is the label by which a pod joins the PodGroup it names
// (in the pod's namespace).
const PodGroupLabel = "scheduling.kspatch.io/pod-group"

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

// GangSpec describes a gang for CreateGang: a PodGroup with a gang policy
// and the pods that join it.
type GangSpec struct {
	Namespace, Name string
	// MinCount is the gang policy's minCount.
	MinCount int
	// Pods is how many pods join the group: Name-0 … Name-(Pods-1).
	Pods int
	// TopologyKey, if set, is a topology constraint: the group's pods go
	// to nodes that share one value of this node label (e.g. RackLabel).
	// It is the one Required level Levels would give; set one or the
	// other.
	TopologyKey string
	// Levels are topology levels, widest first (gate
	// PodGroupTopologyLevels), e.g. a Required BlockLabel then a Preferred
	// RackLabel: the pods share a block and, if they fit, a rack.
	Levels []TopologyLevel
	// Pod describes each pod (see Pod); PodGroupLabel=Name is added to its
	// labels.
	Pod PodOptions
}

// CreateGang creates the PodGroup of spec, then its pods.
func (c *Cluster) CreateGang(ctx context.Context, spec GangSpec) error {
	levels := spec.Levels
	if spec.TopologyKey != "" {
		if len(levels) > 0 {
			return fmt.Errorf("gang %s/%s: TopologyKey and Levels are both set", spec.Namespace, spec.Name)
		}
		levels = keyLevel(spec.TopologyKey)
	}
	if err := c.CreateLevelsPodGroup(ctx, spec.Namespace, spec.Name, spec.MinCount, levels); err != nil {
		return err
	}
	labels := map[string]string{PodGroupLabel: spec.Name}
	maps.Copy(labels, spec.Pod.Labels)
	o := spec.Pod
	o.Labels = labels
	return c.CreatePods(ctx, spec.Namespace, spec.Name, spec.Pods, o)
}

// keyLevel is the one Required level on the node label key, none if key is
// empty.
func keyLevel(key string) []TopologyLevel {
	if key == "" {
		return nil
	}
	return []TopologyLevel{{Key: key}}
}

// CreatePodGroup creates a PodGroup with a gang policy of minCount and, if
// topologyKey is set, a topology constraint on that node label. Pods join
// it with the label PodGroupLabel=name.
func (c *Cluster) CreatePodGroup(ctx context.Context, namespace, name string, minCount int, topologyKey string) error {
	return c.CreateLevelsPodGroup(ctx, namespace, name, minCount, keyLevel(topologyKey))
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
