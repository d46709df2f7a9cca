package cluster

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CPURequestsByNode sums, per node (spec.nodeName), the CPU requests of
// the containers of the pods keep accepts, in millicores; a nil keep counts
// every pod (an unbound one under the node name "").
func CPURequestsByNode(pods []v1.Pod, keep func(v1.Pod) bool) map[string]int64 {
	used := map[string]int64{}
	for _, p := range pods {
		if keep != nil && !keep(p) {
			continue
		}
		for _, ctr := range p.Spec.Containers {
			used[p.Spec.NodeName] += ctr.Resources.Requests.Cpu().MilliValue()
		}
	}
	return used
}

// BoundAndNotDone says whether the pod holds its node's resources: it is
// bound, and neither Succeeded nor Failed.
func BoundAndNotDone(p v1.Pod) bool {
	return p.Spec.NodeName != "" && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed
}

// NodeCPU is a node and its CPU in millicores: allocatable, and requested
// by the pods bound to it that are not done (BoundAndNotDone).
type NodeCPU struct {
	Node              v1.Node
	Allocatable, Used int64
}

// Free is the node's allocatable CPU not requested, in millicores;
// negative when its pods ask more than it has.
func (n NodeCPU) Free() int64 { return n.Allocatable - n.Used }

// NodeCPU lists the nodes, in the API server's order, each with its CPU:
// what it can allocate and what the pods bound to it that are not done
// request.
func (c *Cluster) NodeCPU(ctx context.Context) ([]NodeCPU, error) {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	used := CPURequestsByNode(pods.Items, BoundAndNotDone)
	out := make([]NodeCPU, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		out = append(out, NodeCPU{Node: n, Allocatable: n.Status.Allocatable.Cpu().MilliValue(), Used: used[n.Name]})
	}
	return out, nil
}
