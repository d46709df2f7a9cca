package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// The multi-level topology scenarios (gate PodGroupTopologyLevels, issue
// #24): gangs with a Required block level and a Preferred rack level, on the
// nodes startCluster lays out (e2eRacks racks of two nodes; racks 0 and 1
// make one block, rack 2 another). Pods of rackPodCPU: a rack holds four,
// the first block eight.

// blockThenRack is the levels of the scenarios' gangs: all pods in one
// block, and in one rack if they fit.
var blockThenRack = []cluster.TopologyLevel{
	{Key: cluster.BlockLabel, Mode: cluster.TopologyRequired},
	{Key: cluster.RackLabel, Mode: cluster.TopologyPreferred},
}

// Sizes of the scenarios' gangs, in pods of rackPodCPU: more than a rack
// holds and at most what two racks of a block hold; then, with that gang
// bound, more than any block has left though the cluster has the room.
const (
	spillGangSize   = 6
	blockTooBigGang = 5
)

// nodeDomains is a node's block and rack.
type nodeDomains struct{ block, rack string }

// nodeTopology maps every node to its block and rack (cluster.BlockLabel,
// cluster.RackLabel).
func nodeTopology(ctx context.Context, t *testing.T, c *cluster.Cluster) map[string]nodeDomains {
	t.Helper()
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]nodeDomains{}
	for _, n := range nodes.Items {
		out[n.Name] = nodeDomains{block: n.Labels[cluster.BlockLabel], rack: n.Labels[cluster.RackLabel]}
	}
	return out
}

// blockRoom sums rackRoom by block.
func blockRoom(topology map[string]nodeDomains, racks map[string]int) map[string]int {
	blockOf := map[string]string{}
	for _, d := range topology {
		blockOf[d.rack] = d.block
	}
	out := map[string]int{}
	for rack, room := range racks {
		out[blockOf[rack]] += room
	}
	return out
}

// fewestRacks is the least number of the block's racks whose room (rackRoom)
// adds up to n pods, 0 if all of them together do not.
func fewestRacks(topology map[string]nodeDomains, racks map[string]int, block string, n int) int {
	inBlock := map[string]bool{}
	for _, d := range topology {
		if d.block == block {
			inBlock[d.rack] = true
		}
	}
	var rooms []int
	for rack := range inBlock {
		rooms = append(rooms, racks[rack])
	}
	slices.Sort(rooms)
	slices.Reverse(rooms)
	sum := 0
	for i, r := range rooms {
		if sum += r; sum >= n {
			return i + 1
		}
	}
	return 0
}

// domainValue returns the value of key in a placement or domain name
// (key=value pairs joined by commas, widest first, as the scheduler names
// them), "" if the name has no such key.
func domainValue(name, key string) string {
	for _, kv := range strings.Split(name, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// decisionLevel returns the level of d with the key, nil if there is none.
func decisionLevel(d placementDecision, key string) *placementLevel {
	for i := range d.Levels {
		if d.Levels[i].Key == key {
			return &d.Levels[i]
		}
	}
	return nil
}

// waitGroupGone deletes the pods of group (namespace e2e) and waits until
// they are gone from the API, so that the scheduler no longer counts them.
func waitGroupGone(ctx context.Context, t *testing.T, c *cluster.Cluster, group string, timeout time.Duration) {
	t.Helper()
	deleteGroupPods(ctx, t, c, group)
	deadline := time.Now().Add(timeout)
	for {
		pods := groupPods(ctx, t, c, group)
		if len(pods) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pods of %s still exist %s after they were deleted", len(pods), group, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// blockGangSpills: a gang of spillGangSize pods with a Required block and a
// Preferred rack level fits in no rack but in two racks of the first block.
// Every pod is bound, all of them in one block and in as few of its racks as
// hold the gang (two). /debug/placements shows the levels: the rack level
// NoFit with why, the block level Chosen, and the chosen block's
// evaluation with the pods per rack; the pod-group route shows the levels
// of the spec; the scheduler counts the placements per level.
func blockGangSpills(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const group, n = "block-spill", spillGangSize
	// The rack gang of the scenarios before holds a rack of the first
	// block: it goes, so that the block has both racks free.
	waitGroupGone(ctx, t, c, "rack-gang", time.Minute)

	topology := nodeTopology(ctx, t, c)
	room := rackRoom(ctx, t, c, resource.MustParse(rackPodCPU))
	blocks := blockRoom(topology, room)
	t.Logf("room for %s-CPU pods per rack %v, per block %v", rackPodCPU, room, blocks)
	// What the scenario stands on: no rack holds the gang, a block does,
	// and only in two of its racks.
	if most := slices.Max(slices.Collect(maps.Values(room))); most >= n {
		t.Fatalf("room per rack %v: a rack holds the %d pods; want none to", room, n)
	}
	fits := 0
	for block, r := range blocks {
		if r >= n {
			fits++
			if k := fewestRacks(topology, room, block, n); k != 2 {
				t.Fatalf("block %s holds the %d pods in %d racks at least; want 2 (room per rack %v)", block, n, k, room)
			}
		}
	}
	if fits == 0 {
		t.Fatalf("room per block %v: no block holds the %d pods", blocks, n)
	}

	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n, Levels: blockThenRack,
		Pod: cluster.PodOptions{CPU: rackPodCPU}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", group+"-", n, time.Minute); err != nil {
		t.Fatal(err)
	}
	s := waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Scheduled == n && s.Status == "True"
	})
	t.Logf("PodGroup %s: %v", group, s)

	// Where the pods went: one block, the fewest racks of it.
	nodeOf := map[string]string{}
	inBlock := map[string]bool{}
	perRack := map[string]int{}
	for _, p := range groupPods(ctx, t, c, group) {
		nodeOf[p.Name] = p.Spec.NodeName
		d := topology[p.Spec.NodeName]
		inBlock[d.block] = true
		perRack[d.rack]++
	}
	if len(inBlock) != 1 || inBlock[""] {
		t.Fatalf("the pods of %s are in blocks %q, want one: %v", group, slices.Sorted(maps.Keys(inBlock)), nodeOf)
	}
	block := slices.Collect(maps.Keys(inBlock))[0]
	if want := fewestRacks(topology, room, block, n); len(perRack) != want {
		t.Errorf("the pods of %s use %d racks of %s (%v), want the fewest that hold them, %d", group, len(perRack), block, perRack, want)
	}
	t.Logf("%s: every pod in block %s, pods per rack %v: %v", group, block, perRack, nodeOf)

	// The decision.
	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
	if len(list.Items) == 0 || list.Items[0].Result != "Scheduled" {
		t.Fatalf("/debug/placements/e2e/%s: %+v, want the newest Scheduled", group, list.Items)
	}
	d := list.Items[0]
	if got := domainValue(d.Chosen, cluster.BlockLabel); got != block {
		t.Errorf("decision for %s: chosen %q, want a placement in the pods' block %s", group, d.Chosen, block)
	}
	if d.HeldAt != "" {
		t.Errorf("decision for %s: heldAt %q, want none (a placement was chosen)", group, d.HeldAt)
	}
	rack, blk := decisionLevel(d, cluster.RackLabel), decisionLevel(d, cluster.BlockLabel)
	switch {
	case rack == nil || blk == nil:
		t.Errorf("decision for %s: levels %+v, want %s and %s", group, d.Levels, cluster.RackLabel, cluster.BlockLabel)
	default:
		if !strings.EqualFold(rack.Mode, cluster.TopologyPreferred) || rack.Result != "NoFit" || rack.Feasible != 0 || !strings.Contains(rack.Reason, cluster.RackLabel) {
			t.Errorf("decision for %s: rack level %+v, want Preferred, NoFit, none feasible, with a reason naming %s", group, *rack, cluster.RackLabel)
		}
		if rack.Placements != len(room) {
			t.Errorf("decision for %s: %d placements at the rack level, want one per rack, %d", group, rack.Placements, len(room))
		}
		if !strings.EqualFold(blk.Mode, cluster.TopologyRequired) || blk.Result != "Chosen" || blk.Feasible < 1 || blk.Reason != "" {
			t.Errorf("decision for %s: block level %+v, want Required, Chosen, feasible, no reason", group, *blk)
		}
	}
	// The chosen block's evaluation says how many pods go to each rack.
	spill := -1
	for i, e := range d.Evaluations {
		if e.Level == cluster.BlockLabel && e.Feasible && domainValue(e.Placement, cluster.BlockLabel) == block {
			spill = i
		}
	}
	if spill < 0 {
		t.Errorf("decision for %s: no feasible evaluation of block %s at the %s level: %+v", group, block, cluster.BlockLabel, d.Evaluations)
	} else {
		e := d.Evaluations[spill]
		got := map[string]int{}
		for _, dp := range e.Domains {
			got[domainValue(dp.Domain, cluster.RackLabel)] += dp.Pods
		}
		if len(e.Domains) != 2 || !maps.Equal(got, perRack) {
			t.Errorf("decision for %s: %s has domains %+v, want 2, the pods per rack %v", group, e.Placement, e.Domains, perRack)
		}
	}
	for _, a := range d.Assignments {
		if a.Node == "" || a.Node != nodeOf[a.Pod] {
			t.Errorf("decision for %s assigns %s to %q (failure %q); the pod is bound to %q", group, a.Pod, a.Node, a.Failure, nodeOf[a.Pod])
		}
	}
	newest := placementDecisions(t, c, group)[0]
	for _, w := range []string{"Result: Scheduled", "NoFit", "Chosen"} {
		if !strings.Contains(newest, w) {
			t.Errorf("/debug/placements/e2e/%s: the newest decision does not show %q", group, w)
		}
	}

	// The pod-group route shows the spec's levels, widest first.
	var doc struct {
		Spec struct {
			Levels []struct {
				Key  string `json:"key"`
				Mode string `json:"mode"`
			} `json:"levels"`
		} `json:"spec"`
	}
	getJSON(t, c.Admin+"/debug/queue/podgroups/e2e/"+group+"?output=json", &doc)
	if l := doc.Spec.Levels; len(l) != 2 || l[0].Key != cluster.BlockLabel || !strings.EqualFold(l[0].Mode, cluster.TopologyRequired) ||
		l[1].Key != cluster.RackLabel || !strings.EqualFold(l[1].Mode, cluster.TopologyPreferred) {
		t.Errorf("/debug/queue/podgroups/e2e/%s: levels %+v, want %s Required, then %s Preferred", group, l, cluster.BlockLabel, cluster.RackLabel)
	}

	// The placements per level.
	metrics, err := c.SchedulerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{
		fmt.Sprintf(`scheduler_generated_placements_by_level_total{level=%q}`, cluster.RackLabel),
		fmt.Sprintf(`scheduler_generated_placements_by_level_total{level=%q}`, cluster.BlockLabel),
		// Every rack is too small: left out by the room check.
		fmt.Sprintf(`scheduler_placement_evaluations_by_level_total{level=%q,result="infeasible"}`, cluster.RackLabel),
		fmt.Sprintf(`scheduler_placement_evaluations_by_level_total{level=%q,result="feasible"}`, cluster.BlockLabel),
	} {
		if v, found := cluster.MetricValue(metrics, m); !found || v < 1 {
			t.Errorf("%s = %v (exported: %v), want 1 or more after %s", m, v, found, group)
		}
	}
}

// blockGangTooBig: with the gang of blockGangSpills bound, a gang of
// blockTooBigGang pods with the same levels fits in no block, though the
// cluster has the room across blocks. None of its pods is bound; each waits
// with PodScheduled=False; the PodGroup's condition says no block fits; the
// decision shows both levels NoFit and where the group is held, and so does
// the queue's page of its pods.
func blockGangTooBig(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const group, n = "block-too-big", blockTooBigGang
	topology := nodeTopology(ctx, t, c)
	room := rackRoom(ctx, t, c, resource.MustParse(rackPodCPU))
	blocks := blockRoom(topology, room)
	total := 0
	for _, r := range blocks {
		total += r
	}
	if most := slices.Max(slices.Collect(maps.Values(blocks))); most >= n || total < n {
		t.Fatalf("room for %s-CPU pods per block %v: want fewer than %d in every block and %d or more in all", rackPodCPU, blocks, n, n)
	}
	t.Logf("room for %s-CPU pods per rack %v, per block %v", rackPodCPU, room, blocks)

	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n, Levels: blockThenRack,
		Pod: cluster.PodOptions{CPU: rackPodCPU}}); err != nil {
		t.Fatal(err)
	}
	// The pods go when the checks are done: the scenarios that follow do
	// not run with a gang retried on every event.
	defer deleteGroupPods(ctx, t, c, group)
	waitGangUnschedulable(ctx, t, c, group, n, "block")
	s := waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Status == "False" && s.Reason == "Unschedulable"
	})
	t.Logf("PodGroup %s: %v", group, s)
	if want := "no " + cluster.BlockLabel + " domain fits"; !strings.Contains(s.Message, want) {
		t.Errorf("PodGroup %s: PodGroupScheduled message %q, want it to contain %q", group, s.Message, want)
	}

	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
	if len(list.Items) == 0 || list.Items[0].Result != "Unschedulable" {
		t.Fatalf("/debug/placements/e2e/%s: %+v, want the newest Unschedulable", group, list.Items)
	}
	d := list.Items[0]
	if d.Chosen != "" {
		t.Errorf("decision for %s: chosen %q, want none", group, d.Chosen)
	}
	if !strings.Contains(d.HeldAt, cluster.BlockLabel) {
		t.Errorf("decision for %s: heldAt %q, want the %s level", group, d.HeldAt, cluster.BlockLabel)
	}
	for _, key := range []string{cluster.RackLabel, cluster.BlockLabel} {
		if l := decisionLevel(d, key); l == nil || l.Result != "NoFit" || l.Feasible != 0 || l.Reason == "" {
			t.Errorf("decision for %s: level %s is %+v, want NoFit with a reason (levels %+v)", group, key, l, d.Levels)
		}
	}
	for _, a := range d.Assignments {
		if a.Node != "" || a.Failure == "" {
			t.Errorf("the unschedulable cycle assigns %s to %q with failure %q; want no node and a reason", a.Pod, a.Node, a.Failure)
		}
	}
	_, details := getText(t, c.Admin+"/debug/placements/e2e/"+group)
	t.Logf("/debug/placements/e2e/%s:\n%s", group, details)

	// A waiting member's page names the level its group is held at.
	pod := group + "-0"
	var queued struct {
		PlacementLevel string `json:"placementLevel"`
	}
	getJSON(t, c.Admin+"/debug/queue/pods/e2e/"+pod+"?output=json", &queued)
	if queued.PlacementLevel == "" || queued.PlacementLevel != d.HeldAt {
		t.Errorf("/debug/queue/pods/e2e/%s: placementLevel %q, want the decision's heldAt %q", pod, queued.PlacementLevel, d.HeldAt)
	}
	_, text := getText(t, c.Admin+"/debug/queue/pods/e2e/"+pod)
	t.Logf("/debug/queue/pods/e2e/%s:\n%s", pod, text)
}

// TestTopologyLevelsGateOff runs the scheduler with PodGroupTopologyLevels
// off and the other gates at their defaults: a PodGroup with a Preferred
// level, or with two levels, is refused (condition InvalidSpec, saying it
// needs the gate) and none of its pods is bound; a PodGroup with one
// Required level is placed as before the gate, in one block.
func TestTopologyLevelsGateOff(t *testing.T) {
	c := startCluster(t, "PodGroupTopologyLevels=false")
	ctx := t.Context()
	if err := c.CreateNamespace(ctx, "e2e"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, group string
		levels      []cluster.TopologyLevel
		want        string
	}{
		{"block then rack refused", "levels-off", blockThenRack, "PodGroupTopologyLevels feature gate"},
		{"preferred rack refused", "preferred-off", []cluster.TopologyLevel{{Key: cluster.RackLabel, Mode: cluster.TopologyPreferred}},
			"needs the PodGroupTopologyLevels feature gate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 2
			if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: tc.group, MinCount: n, Pods: n, Levels: tc.levels,
				Pod: cluster.PodOptions{CPU: "100m"}}); err != nil {
				t.Fatal(err)
			}
			defer deleteGroupPods(ctx, t, c, tc.group)
			s := waitPodGroupState(ctx, t, c, tc.group, time.Minute, func(s cluster.PodGroupState) bool {
				return s.Status == "False" && s.Reason == "InvalidSpec"
			})
			t.Logf("PodGroup %s: %v", tc.group, s)
			if !strings.Contains(s.Message, tc.want) {
				t.Errorf("PodGroup %s: PodGroupScheduled message %q, want it to contain %q", tc.group, s.Message, tc.want)
			}
			for _, p := range groupPods(ctx, t, c, tc.group) {
				if p.Spec.NodeName != "" {
					t.Errorf("pod %s of the refused PodGroup %s was bound to %s", p.Name, tc.group, p.Spec.NodeName)
				}
			}
		})
	}
	t.Run("one required block as before", func(t *testing.T) {
		const group, n = "block-off", spillGangSize
		if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n, TopologyKey: cluster.BlockLabel,
			Pod: cluster.PodOptions{CPU: rackPodCPU}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitBound(ctx, "e2e", group+"-", n, time.Minute); err != nil {
			t.Fatal(err)
		}
		topology := nodeTopology(ctx, t, c)
		inBlock := map[string]bool{}
		for _, p := range groupPods(ctx, t, c, group) {
			inBlock[topology[p.Spec.NodeName].block] = true
		}
		if len(inBlock) != 1 || inBlock[""] {
			t.Fatalf("the pods of %s are in blocks %q, want one", group, slices.Sorted(maps.Keys(inBlock)))
		}
		block := slices.Collect(maps.Keys(inBlock))[0]
		var list placementList
		getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
		if len(list.Items) == 0 || list.Items[0].Result != "Scheduled" {
			t.Fatalf("/debug/placements/e2e/%s: %+v, want the newest Scheduled", group, list.Items)
		}
		d := list.Items[0]
		if want := placementName(cluster.BlockLabel, block); d.Chosen != want || len(d.Levels) != 0 {
			t.Errorf("decision for %s: chosen %q, levels %+v; want %q and no levels", group, d.Chosen, d.Levels, want)
		}
		metrics, err := c.SchedulerMetrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, found := cluster.MetricValue(metrics, "scheduler_generated_placements_by_level_total"); found {
			t.Errorf("the gate is off, yet the scheduler exports scheduler_generated_placements_by_level_total")
		}
	})
}
