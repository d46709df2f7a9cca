package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// The demo's preempting gang (gate WorkloadAwarePreemption,
// docs/preemption.md): once rack-train and block-train are bound, a batch
// of low-priority pods fills one rack of the block they left free, and the
// gang preempt-train, which needs that whole block, preempts the batch and
// binds there.

const (
	// batchClass is the batch's PriorityClass: below the default 0 of every
	// other demo pod, so the gang (priority 0) may preempt the batch and
	// nothing else.
	batchClass    = "demo-batch"
	batchPriority = -10
	// preemptGang is the preempting gang's PodGroup.
	preemptGang = "preempt-train"
	// demoPodMilli is the CPU of a batch pod and of a gang pod (12 CPUs,
	// as rack-train's and block-train's pods).
	demoPodMilli = 12000
)

// demoNode is a node as the preemption step sees it: its block and rack, and
// its CPU not requested by the pods bound to it.
type demoNode struct {
	Name, Block, Rack string
	FreeMilli         int64
}

// preemptPlan is the preemption step: the batch fills the free CPU of
// Rack (a rack of Block) in pods of demoPodMilli, Fill pods on FillNodes,
// BatchPerNode[i] on FillNodes[i]; the gang of Size such pods needs all of
// Block's room once the batch is gone, and no block has that room before.
type preemptPlan struct {
	Block, Rack  string
	FillNodes    []string
	BatchPerNode []int
	Fill, Size   int
}

// planPreemption picks the one block that holds none of the demo's gangs
// (taken), the first rack of it by name for the batch, and the gang's size;
// it says why when the layout has no such block, or when another block has
// the room for the gang without preemption.
func planPreemption(nodes []demoNode, taken map[string]bool) (preemptPlan, error) {
	slots := func(n demoNode) int { return int(max(n.FreeMilli, 0) / demoPodMilli) }
	var free []string
	for _, n := range nodes {
		if n.Block != "" && !taken[n.Block] && !slices.Contains(free, n.Block) {
			free = append(free, n.Block)
		}
	}
	if len(free) != 1 {
		return preemptPlan{}, fmt.Errorf("it needs exactly one block without the demo's gangs, and this layout leaves %d (%s)", len(free), strings.Join(free, ", "))
	}
	p := preemptPlan{Block: free[0]}
	for _, n := range nodes {
		if n.Block == p.Block && (p.Rack == "" || n.Rack < p.Rack) {
			p.Rack = n.Rack
		}
	}
	room := map[string]int{}
	for _, n := range nodes {
		if n.Block == p.Block && n.Rack == p.Rack {
			if s := slots(n); s > 0 {
				p.FillNodes = append(p.FillNodes, n.Name)
				p.BatchPerNode = append(p.BatchPerNode, s)
				p.Fill += s
			}
			continue
		}
		room[n.Block] += slots(n)
	}
	if p.Fill == 0 {
		return preemptPlan{}, fmt.Errorf("rack %s has no room for a batch pod of %d CPUs", p.Rack, demoPodMilli/1000)
	}
	p.Size = room[p.Block] + p.Fill
	for block, r := range room {
		if block != p.Block && r >= p.Size {
			return preemptPlan{}, fmt.Errorf("block %s has room for the %d pods without preemption", block, p.Size)
		}
	}
	return p, nil
}

// demoNodes lists the nodes with their free CPU.
func demoNodes(ctx context.Context, c *cluster.Cluster) ([]demoNode, error) {
	nodes, err := c.NodeCPU(ctx)
	if err != nil {
		return nil, err
	}
	var out []demoNode
	for _, n := range nodes {
		out = append(out, demoNode{Name: n.Node.Name, Block: n.Node.Labels[cluster.BlockLabel], Rack: n.Node.Labels[cluster.RackLabel],
			FreeMilli: n.Free()})
	}
	slices.SortFunc(out, func(a, b demoNode) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// loadPreemptionDemo runs the step: it waits for the demo's gangs (groups,
// with their sizes) to be bound, fills a rack with the batch, creates the
// gang and waits, briefly, for it to preempt the batch and bind. A layout
// where the step does not fit, or a wait that runs out, is reported and
// left at that: the rest of the demo goes on. With WorkloadAwarePreemption
// or GangScheduling off (gates, as -feature-gates has them) the gang is
// created and not waited for.
func loadPreemptionDemo(ctx context.Context, c *cluster.Cluster, ns string, groups map[string]int, gates string) error {
	for _, group := range slices.Sorted(maps.Keys(groups)) {
		if _, err := c.WaitBound(ctx, ns, group+"-", groups[group], time.Minute); err != nil {
			fmt.Printf("the demo has no preempting gang: %v\n", err)
			return nil
		}
	}
	nodes, err := demoNodes(ctx, c)
	if err != nil {
		return err
	}
	nodeBlock := map[string]string{}
	for _, n := range nodes {
		nodeBlock[n.Name] = n.Block
	}
	taken := map[string]bool{}
	for group := range groups {
		pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: cluster.PodGroupLabel + "=" + group})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			taken[nodeBlock[p.Spec.NodeName]] = true
		}
	}
	plan, err := planPreemption(nodes, taken)
	if err != nil {
		fmt.Printf("the demo has no preempting gang: %v\n", err)
		return nil
	}
	if err := c.CreatePriorityClass(ctx, batchClass, batchPriority, "kspatch demo: batch pods any other demo pod may preempt"); err != nil {
		return err
	}
	fmt.Printf("preempting gang: %d batch pods (priority %d) fill rack %s; PodGroup %s, %d pods that need all of block %s, preempts them\n",
		plan.Fill, batchPriority, plan.Rack, preemptGang, plan.Size, plan.Block)
	i := 0
	for k, node := range plan.FillNodes {
		for range plan.BatchPerNode[k] {
			pod := cluster.Pod(ns, fmt.Sprintf("batch-%d", i), cluster.PodOptions{CPU: fmt.Sprint(demoPodMilli / 1000), PriorityClassName: batchClass,
				NodeSelector: map[string]string{"kubernetes.io/hostname": node}})
			if _, err := c.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				return err
			}
			i++
		}
	}
	if _, err := c.WaitBound(ctx, ns, "batch-", plan.Fill, time.Minute); err != nil {
		fmt.Printf("the demo has no preempting gang: %v\n", err)
		return nil
	}
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: ns, Name: preemptGang, MinCount: plan.Size, Pods: plan.Size,
		TopologyKey: cluster.BlockLabel, Pod: cluster.PodOptions{CPU: fmt.Sprint(demoPodMilli / 1000)}}); err != nil {
		return err
	}
	if off := gatesOff(gates, "WorkloadAwarePreemption", "GangScheduling"); off != "" {
		fmt.Printf("%s is off: PodGroup %s does not preempt as a gang (see curl -s %s/debug/placements/%s/%s)\n", off, preemptGang, c.Admin, ns, preemptGang)
		return nil
	}
	if _, err := c.WaitBound(ctx, ns, preemptGang+"-", plan.Size, time.Minute); err != nil {
		fmt.Printf("PodGroup %s is not bound yet (%v): see curl -s %s/debug/placements/%s/%s\n", preemptGang, err, c.Admin, ns, preemptGang)
		return nil
	}
	fmt.Printf("PodGroup %s preempted the batch of rack %s and is bound in block %s\n", preemptGang, plan.Rack, plan.Block)
	return nil
}

// gatesOff returns the first of names that gates (a -feature-gates value,
// "A=true,B=false") turns off, "" if none.
func gatesOff(gates string, names ...string) string {
	for _, kv := range strings.Split(gates, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if k = strings.TrimSpace(k); strings.EqualFold(strings.TrimSpace(v), "false") && slices.Contains(names, k) {
			return k
		}
	}
	return ""
}
