package cluster

import (
	"maps"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// cpuPod is a pod on node (none: "") in phase, with a container for each
// of cpus.
func cpuPod(node string, phase v1.PodPhase, cpus ...string) v1.Pod {
	var p v1.Pod
	p.Spec.NodeName, p.Status.Phase = node, phase
	for _, cpu := range cpus {
		p.Spec.Containers = append(p.Spec.Containers, v1.Container{
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}},
		})
	}
	return p
}

// TestCPURequestsByNode: the requests of every container add up per node;
// with BoundAndNotDone unbound and finished pods do not count, with no
// filter every pod does; a node whose pods have no container is not
// listed.
func TestCPURequestsByNode(t *testing.T) {
	pods := []v1.Pod{
		cpuPod("a", v1.PodRunning, "1", "250m"),
		cpuPod("a", v1.PodPending, "500m"),
		cpuPod("b", v1.PodRunning, "2"),
		cpuPod("b", v1.PodSucceeded, "3"),
		cpuPod("b", v1.PodFailed, "4"),
		cpuPod("", v1.PodPending, "5"),
		cpuPod("c", v1.PodRunning),
	}
	for _, tc := range []struct {
		name string
		keep func(v1.Pod) bool
		want map[string]int64
	}{
		{"bound and not done", BoundAndNotDone, map[string]int64{"a": 1750, "b": 2000}},
		{"every pod", nil, map[string]int64{"a": 1750, "b": 9000, "": 5000}},
	} {
		if got := CPURequestsByNode(pods, tc.keep); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
