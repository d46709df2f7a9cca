package cluster

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CoschedulingPodGroupResource is the coscheduling PodGroup API
// (scheduler-plugins' scheduling.x-k8s.io), which CoschedulingCRDManifest
// serves and the scheduler reads as a second source of gangs
// (CoschedulingPodGroups).
var CoschedulingPodGroupResource = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

// CoschedulingPodGroupLabel is the label by which a pod joins the
// coscheduling PodGroup it names (in the pod's namespace).
const CoschedulingPodGroupLabel = "scheduling.x-k8s.io/pod-group"

// CoschedulingSpec describes a coscheduling PodGroup for
// CreateCoschedulingPodGroup.
type CoschedulingSpec struct {
	Namespace, Name string
	// MinMember is spec.minMember.
	MinMember int
	// MinResources is spec.minResources; left out when empty.
	MinResources v1.ResourceList
	// ScheduleTimeoutSeconds is spec.scheduleTimeoutSeconds; left out
	// when 0.
	ScheduleTimeoutSeconds int
}

// CreateCoschedulingPodGroup creates the coscheduling PodGroup of spec, as
// a training operator does (an unstructured object: the scheduler-plugins
// module is not a dependency of the suite).
func (c *Cluster) CreateCoschedulingPodGroup(ctx context.Context, spec CoschedulingSpec) error {
	s := map[string]any{"minMember": int64(spec.MinMember)}
	if len(spec.MinResources) > 0 {
		res := map[string]any{}
		for name, q := range spec.MinResources {
			res[string(name)] = q.String()
		}
		s["minResources"] = res
	}
	if spec.ScheduleTimeoutSeconds > 0 {
		s["scheduleTimeoutSeconds"] = int64(spec.ScheduleTimeoutSeconds)
	}
	pg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": CoschedulingPodGroupResource.GroupVersion().String(), "kind": "PodGroup",
		"metadata": map[string]any{"name": spec.Name, "namespace": spec.Namespace},
		"spec":     s,
	}}
	if _, err := c.Dynamic.Resource(CoschedulingPodGroupResource).Namespace(spec.Namespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating coscheduling PodGroup %s/%s: %w", spec.Namespace, spec.Name, err)
	}
	return nil
}

// CoschedulingState is the status the scheduler writes on a coscheduling
// PodGroup.
type CoschedulingState struct {
	Phase                                 string
	Scheduled, Running, Succeeded, Failed int64
	// ScheduleStartTime is as stored (RFC 3339), empty when unset.
	ScheduleStartTime string
}

func (s CoschedulingState) String() string {
	return fmt.Sprintf("phase %q, scheduled=%d running=%d succeeded=%d failed=%d, scheduleStartTime %q",
		s.Phase, s.Scheduled, s.Running, s.Succeeded, s.Failed, s.ScheduleStartTime)
}

// CoschedulingState reads the status of the coscheduling PodGroup
// namespace/name.
func (c *Cluster) CoschedulingState(ctx context.Context, namespace, name string) (CoschedulingState, error) {
	pg, err := c.Dynamic.Resource(CoschedulingPodGroupResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return CoschedulingState{}, err
	}
	var s CoschedulingState
	s.Phase, _, _ = unstructured.NestedString(pg.Object, "status", "phase")
	s.Scheduled, _, _ = unstructured.NestedInt64(pg.Object, "status", "scheduled")
	s.Running, _, _ = unstructured.NestedInt64(pg.Object, "status", "running")
	s.Succeeded, _, _ = unstructured.NestedInt64(pg.Object, "status", "succeeded")
	s.Failed, _, _ = unstructured.NestedInt64(pg.Object, "status", "failed")
	s.ScheduleStartTime, _, _ = unstructured.NestedString(pg.Object, "status", "scheduleStartTime")
	return s, nil
}

// WaitCoschedulingState polls the coscheduling PodGroup namespace/name
// every 250ms until ok accepts its status (the scheduler writes it
// asynchronously), and returns that status; after timeout, the last status
// read and an error that shows it.
func (c *Cluster) WaitCoschedulingState(ctx context.Context, namespace, name string, timeout time.Duration, ok func(CoschedulingState) bool) (CoschedulingState, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := c.CoschedulingState(ctx, namespace, name)
		if err == nil && ok(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("coscheduling PodGroup %s/%s after %s: %v (err %v)", namespace, name, timeout, s, err)
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
