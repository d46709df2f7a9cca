package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// KwokNodeAnnotation marks the nodes kwok manages.
const KwokNodeAnnotation = "kwok.x-k8s.io/node"

// Topology labels of the fake nodes, widest first: a zone holds blocks, a
// block holds whole racks (NodeSpec.RacksPerBlock of them), a rack holds
// nodes.
const (
	ZoneLabel  = "topology.kubernetes.io/zone"
	BlockLabel = "topology.kubernetes.io/block"
	RackLabel  = "topology.kubernetes.io/rack"
)

// DeviceDriver and DeviceClass are the fake DRA driver whose devices the
// fake nodes publish, and the class that selects them.
const (
	DeviceDriver = "gpu.kspatch.dev"
	DeviceClass  = "gpu.kspatch.dev"
)

// NodeSpec describes the fake nodes to create.
type NodeSpec struct {
	// Count nodes, spread round-robin over Zones zones and, within a zone,
	// over Racks racks.
	Count, Zones, Racks int
	// RacksPerBlock is how many racks of a zone make one block (0: 2):
	// racks 0 and 1 of zone a are block zone-a-block-0, racks 2 and 3
	// zone-a-block-1, and so on; the zone's last block may hold fewer.
	RacksPerBlock int
	// CPU and Memory are each node's allocatable resources.
	CPU, Memory string
	// Pods is each node's pod capacity (0: 110, the kubelet's default).
	Pods int
	// Devices is the number of DRA devices each node publishes (0: none).
	Devices int
	// Ready creates the nodes with a Ready condition already (kwok keeps
	// it up to date from then on) and removes the not-ready taint the API
	// server's NodeTaint admission puts on every new node. Otherwise the
	// node lifecycle controller removes that taint once the node is Ready,
	// at its rate limit: for thousands of nodes that takes many minutes,
	// and every removal sends the scheduler's unschedulable pods back to
	// the queue.
	Ready bool
	// Static creates Ready nodes that kwok does not manage: nothing
	// heartbeats them, so they stay as created only on a control plane
	// started with Options.NoNodeLifecycle. Pods bound to them never run.
	Static bool
	// Workers create the nodes (and their slices) in parallel (0: 1).
	Workers int
	// ReadyTimeout is how long CreateNodes waits for every node to be
	// Ready (0: 2 minutes).
	ReadyTimeout time.Duration
}

// withDefaults fills in the fields left zero.
func (spec NodeSpec) withDefaults() NodeSpec {
	if spec.Zones < 1 {
		spec.Zones = 1
	}
	if spec.Racks < 1 {
		spec.Racks = 1
	}
	if spec.RacksPerBlock < 1 {
		spec.RacksPerBlock = 2
	}
	return spec
}

// Topology returns the zone, block and rack (the values of ZoneLabel,
// BlockLabel and RackLabel) of node i of the spec, node-<i>.
func (spec NodeSpec) Topology(i int) (zone, block, rack string) {
	spec = spec.withDefaults()
	z := 'a' + rune(i%spec.Zones)
	r := (i / spec.Zones) % spec.Racks
	return fmt.Sprintf("zone-%c", z), fmt.Sprintf("zone-%c-block-%d", z, r/spec.RacksPerBlock), fmt.Sprintf("zone-%c-rack-%d", z, r)
}

// CreateNodes creates kwok-managed nodes with zone, block and rack labels
// (see NodeSpec.Topology) and, with spec.Devices, the DeviceClass and one
// ResourceSlice per node; then waits until kwok reports every node Ready.
func (c *Cluster) CreateNodes(ctx context.Context, spec NodeSpec) error {
	spec = spec.withDefaults()
	if spec.CPU == "" {
		spec.CPU = "32"
	}
	if spec.Memory == "" {
		spec.Memory = "256Gi"
	}
	if spec.Pods == 0 {
		spec.Pods = 110
	}
	if spec.Devices > 0 {
		class := &resourceapi.DeviceClass{
			ObjectMeta: metav1.ObjectMeta{Name: DeviceClass},
			Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
				CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", DeviceDriver)},
			}}},
		}
		if _, err := c.Client.ResourceV1beta1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating DeviceClass %s: %w", DeviceClass, err)
		}
	}
	if spec.Workers < 1 {
		spec.Workers = 1
	}
	if spec.ReadyTimeout <= 0 {
		spec.ReadyTimeout = 2 * time.Minute
	}
	indexes := make(chan int)
	errs := make(chan error, spec.Workers)
	var wg sync.WaitGroup
	for range spec.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range indexes {
				if err := c.createNode(ctx, spec, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
feed:
	for i := range spec.Count {
		select {
		case indexes <- i:
		case err := <-errs:
			errs <- err
			break feed
		}
	}
	close(indexes)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	return c.waitNodesReady(ctx, spec.Count, spec.ReadyTimeout)
}

// createNode creates node-<i> of spec and, with spec.Devices, its
// ResourceSlice.
func (c *Cluster) createNode(ctx context.Context, spec NodeSpec, i int) error {
	zone, block, rack := spec.Topology(i)
	name := fmt.Sprintf("node-%d", i)
	capacity := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse(spec.CPU),
		v1.ResourceMemory: resource.MustParse(spec.Memory),
		v1.ResourcePods:   *resource.NewQuantity(int64(spec.Pods), resource.DecimalSI),
	}
	annotations := map[string]string{KwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"}
	if spec.Static {
		delete(annotations, KwokNodeAnnotation)
	}
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: annotations,
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
				ZoneLabel:                zone,
				BlockLabel:               block,
				RackLabel:                rack,
			},
		},
		Status: v1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	if spec.Ready || spec.Static {
		now := metav1.Now()
		node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
			Message: "created Ready by the e2e harness", LastHeartbeatTime: now, LastTransitionTime: now}}
	}
	if _, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating node %s: %w", name, err)
	}
	if spec.Ready || spec.Static {
		// The node has no taint of its own: drop the admission's.
		if _, err := c.Client.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"taints":null}}`), metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("removing the not-ready taint of node %s: %w", name, err)
		}
	}
	if spec.Devices > 0 {
		if err := c.createSlice(ctx, name, spec.Devices); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) createSlice(ctx context.Context, node string, devices int) error {
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-" + "gpus"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   DeviceDriver,
			NodeName: node,
			Pool:     resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for d := range devices {
		slice.Spec.Devices = append(slice.Spec.Devices, resourceapi.Device{
			Name: fmt.Sprintf("gpu-%d", d),
			Basic: &resourceapi.BasicDevice{Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"index": {IntValue: ptr.To(int64(d))},
			}},
		})
	}
	if _, err := c.Client.ResourceV1beta1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating ResourceSlice for %s: %w", node, err)
	}
	return nil
}

func (c *Cluster) waitNodesReady(ctx context.Context, want int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := c.exited(); err != nil {
			return err
		}
		nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		ready := 0
		if err == nil {
			for _, n := range nodes.Items {
				for _, cond := range n.Status.Conditions {
					if cond.Type == v1.NodeReady && cond.Status == v1.ConditionTrue {
						ready++
					}
				}
			}
			if ready >= want {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d nodes Ready after %s (kwok log: %s)", ready, want, timeout, c.Logs("kwok"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
