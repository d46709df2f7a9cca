package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// The gang preemption scenarios (gate WorkloadAwarePreemption, issue #23,
// docs/preemption.md), on the nodes startCluster lays out: e2eRacks racks
// of two 32-CPU nodes. The API server runs its Priority admission plugin, so
// pods get their priority from a PriorityClass.

// The scenarios' priority classes.
const (
	// classLowest: a running gang preempted only whole (disruptionMode
	// PodGroup).
	classLowest = "e2e-lowest"
	// classLow: the pods a gang preempts; a running gang in Pod mode.
	classLow = "e2e-low"
	// classHigh: the preempting gang, and the single pod.
	classHigh = "e2e-high"
	// classGuard: pods nothing here may preempt, to keep the preemptors
	// away from their nodes.
	classGuard = "e2e-guard"
)

var e2eClasses = map[string]int32{classLowest: 50, classLow: 100, classHigh: 1000, classGuard: 100000}

// preemptionLabel marks the scenarios' pods, which go when the scenario ends.
const preemptionLabel = "e2e.kspatch.dev/scenario"

// smallCPU is how much CPU the scenarios before may have left on a node (in
// pods of a few hundred millicores, of priority 0): the sizes below hold
// with up to that much.
const smallCPU = 4000

func createPriorityClasses(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(e2eClasses)) {
		if err := c.CreatePriorityClass(ctx, name, e2eClasses[name], "e2e preemption scenarios"); err != nil {
			t.Fatal(err)
		}
	}
}

// rackNodes maps every rack (cluster.RackLabel) to its nodes, sorted.
func rackNodes(ctx context.Context, t *testing.T, c *cluster.Cluster) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for node, rack := range nodeRacks(ctx, t, c) {
		out[rack] = append(out[rack], node)
	}
	for rack := range out {
		slices.Sort(out[rack])
	}
	return out
}

// scenarioPod creates a pod of the scenario: cpu, priority class, bound to
// node at creation (o.NodeName) or pinned to it for the scheduler
// (o.NodeSelector), as o says.
func scenarioPod(ctx context.Context, t *testing.T, c *cluster.Cluster, name string, o cluster.PodOptions) {
	t.Helper()
	labels := map[string]string{preemptionLabel: "preemption"}
	maps.Copy(labels, o.Labels)
	o.Labels = labels
	if _, err := c.Client.CoreV1().Pods("e2e").Create(ctx, cluster.Pod("e2e", name, o), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
}

// runningGangSpec is a gang for runningGang: PodGroup group with the
// disruptionMode mode and a gang policy of minCount n, and its n pods of
// cpu and priority class, pinned to node.
type runningGangSpec struct {
	group, mode      string
	n                int
	cpu, class, node string
}

// runningGang creates the gang of g, which the scheduler binds to g.node.
func runningGang(ctx context.Context, t *testing.T, c *cluster.Cluster, g runningGangSpec) {
	t.Helper()
	spec := map[string]any{"schedulingPolicy": gang(int64(g.n)), "disruptionMode": g.mode}
	if _, err := c.Dynamic.Resource(cluster.PodGroupResource).Namespace("e2e").Create(ctx, podGroup(g.group, spec), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PodGroup %s (disruptionMode %s): %v", g.group, g.mode, err)
	}
	for i := range g.n {
		scenarioPod(ctx, t, c, fmt.Sprintf("%s-%d", g.group, i), cluster.PodOptions{CPU: g.cpu, PriorityClassName: g.class,
			Labels: map[string]string{cluster.PodGroupLabel: g.group}, NodeSelector: map[string]string{"kubernetes.io/hostname": g.node}})
	}
}

// podUIDs maps the pods of namespace e2e to their UIDs.
func podUIDs(ctx context.Context, t *testing.T, c *cluster.Cluster) map[string]string {
	t.Helper()
	pods, err := c.Client.CoreV1().Pods("e2e").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pods.Items {
		out[p.Name] = string(p.UID)
	}
	return out
}

// waitPodsGone waits until none of the pods is left in namespace e2e.
func waitPodsGone(ctx context.Context, t *testing.T, c *cluster.Cluster, names []string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		uids := podUIDs(ctx, t, c)
		var left []string
		for _, n := range names {
			if _, ok := uids[n]; ok {
				left = append(left, n)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods %v still exist after %s", left, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// expectPodsKept checks that every pod of before but those in gone still
// exists, the same pod (UID), and is not being deleted.
func expectPodsKept(ctx context.Context, t *testing.T, c *cluster.Cluster, before map[string]string, gone []string) {
	t.Helper()
	pods, err := c.Client.CoreV1().Pods("e2e").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := map[string]v1.Pod{}
	for _, p := range pods.Items {
		now[p.Name] = p
	}
	for name, uid := range before {
		if slices.Contains(gone, name) {
			continue
		}
		p, ok := now[name]
		switch {
		case !ok || string(p.UID) != uid:
			t.Errorf("pod %s was deleted; only %v should have been", name, gone)
		case p.DeletionTimestamp != nil:
			t.Errorf("pod %s is being deleted; only %v should have been", name, gone)
		}
	}
}

// waitEvent waits up to 30 seconds for an event in namespace e2e that
// matches m and returns its note; without one the test fails, not at once,
// and the note is "".
func waitEvent(ctx context.Context, t *testing.T, c *cluster.Cluster, m cluster.EventMatch) string {
	t.Helper()
	note, err := c.WaitEvent(ctx, "e2e", m, 30*time.Second)
	if err != nil {
		t.Error(err)
	}
	return note
}

// gangPreemption lays out pods of several priorities, then runs the two
// preemption checks on them (they share the layout, which the second
// builds on), and removes the scenario's pods at the end.
//
// Racks A, B and C are the first three racks by name, each of two nodes:
//   - A: the gang "whole" (disruptionMode PodGroup, classLowest, 2 pods of
//     12 CPUs) on A's first node, a guard (classGuard, 20 CPUs) on the other;
//   - B: the gang "single" (disruptionMode Pod, classLow, 2 × 12) on B's
//     first node, a guard on the other;
//   - C: the fill, two pods of 14 CPUs of classLow on each node.
//
// A gang of four 12-CPU pods of classHigh with a rack constraint then fits
// in no rack; with preemption only in C (in A and B a guard leaves room
// for one pod at most), where it must evict exactly the fill.
func gangPreemption(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	// The topology-levels gang holds two racks: it goes.
	waitGroupGone(ctx, t, c, "block-spill", time.Minute)
	createPriorityClasses(ctx, t, c)
	racks := rackNodes(ctx, t, c)
	names := slices.Sorted(maps.Keys(racks))
	if len(names) < 3 || len(racks[names[0]]) != 2 || len(racks[names[1]]) != 2 || len(racks[names[2]]) != 2 {
		t.Fatalf("racks %v: want three racks of two nodes", racks)
	}
	rackA, rackB, rackC := names[0], names[1], names[2]
	wholeNode, singleNode := racks[rackA][0], racks[rackB][0]
	// What the sizes stand on.
	nodes, err := c.NodeCPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Used > smallCPU {
			t.Fatalf("node %s has %dm CPU requested by the scenarios before; the layout needs %dm at most", n.Node.Name, n.Used, smallCPU)
		}
	}
	var all []string
	defer func() {
		// The scenarios that follow run without these pods.
		if err := c.Client.CoreV1().Pods("e2e").DeleteCollection(ctx, metav1.DeleteOptions{},
			metav1.ListOptions{LabelSelector: preemptionLabel}); err != nil {
			t.Errorf("deleting the scenario's pods: %v", err)
		}
		waitPodsGone(ctx, t, c, all, time.Minute)
	}()
	for i, node := range []string{racks[rackA][1], racks[rackB][1]} {
		name := fmt.Sprintf("guard-%d", i)
		scenarioPod(ctx, t, c, name, cluster.PodOptions{CPU: "20", PriorityClassName: classGuard, NodeName: node})
		all = append(all, name)
	}
	var fill []string
	for _, node := range racks[rackC] {
		for range 2 {
			name := fmt.Sprintf("fill-%d", len(fill))
			scenarioPod(ctx, t, c, name, cluster.PodOptions{CPU: "14", PriorityClassName: classLow, NodeName: node})
			fill = append(fill, name)
		}
	}
	all = append(all, fill...)
	runningGang(ctx, t, c, runningGangSpec{group: "whole", mode: "PodGroup", n: 2, cpu: "12", class: classLowest, node: wholeNode})
	runningGang(ctx, t, c, runningGangSpec{group: "single", mode: "Pod", n: 2, cpu: "12", class: classLow, node: singleNode})
	all = append(all, "whole-0", "whole-1", "single-0", "single-1", "preemptor-0", "preemptor-1", "preemptor-2", "preemptor-3", "lone")
	for _, prefix := range []string{"guard-", "fill-", "whole-", "single-"} {
		want := 2
		if prefix == "fill-" {
			want = len(fill)
		}
		if _, err := c.WaitBound(ctx, "e2e", prefix, want, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for _, group := range []string{"whole", "single"} {
		waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool { return s.Scheduled == 2 && s.Status == "True" })
	}

	ok := t.Run("gang preempts the low-priority pods of one rack", func(t *testing.T) {
		gangPreemptsOneRack(ctx, t, c, rackC, fill)
	})
	t.Run("single pod spares a gang preempted whole", func(t *testing.T) {
		if !ok {
			t.Skip("the layout is not as this check needs: the gang did not preempt")
		}
		singlePodSparesWholeGang(ctx, t, c, wholeNode, singleNode)
	})
}

// gangPreemptsOneRack: the gang "preemptor" (4 pods of 12 CPUs, classHigh,
// a rack constraint) fits in no rack; with the pods of lower priority gone
// only in rackC. Exactly the fill of rackC is deleted, the gang binds whole
// there, /debug/placements shows the preemption, and the victims and the
// PodGroup have their events.
func gangPreemptsOneRack(ctx context.Context, t *testing.T, c *cluster.Cluster, rackC string, fill []string) {
	const group, n = "preemptor", 4
	before := podUIDs(ctx, t, c)
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n, TopologyKey: cluster.RackLabel,
		Pod: cluster.PodOptions{CPU: rackPodCPU, PriorityClassName: classHigh, Labels: map[string]string{preemptionLabel: "preemption"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", group+"-", n, time.Minute); err != nil {
		t.Fatal(err)
	}
	racks := nodeRacks(ctx, t, c)
	for _, p := range groupPods(ctx, t, c, group) {
		if racks[p.Spec.NodeName] != rackC {
			t.Errorf("pod %s is bound to %s in rack %q, want rack %s", p.Name, p.Spec.NodeName, racks[p.Spec.NodeName], rackC)
		}
	}
	// The victims are gone (kwok, as the kubelet, ends a pod being
	// deleted at once); nothing else went.
	waitPodsGone(ctx, t, c, fill, 30*time.Second)
	expectPodsKept(ctx, t, c, before, fill)
	s := waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool { return s.Scheduled == n && s.Status == "True" })
	t.Logf("PodGroup %s: %v", group, s)

	// The decision of the cycle that preempted, and the newest, that bound
	// the gang.
	chosen := placementName(cluster.RackLabel, rackC)
	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
	var pre *placementPreemption
	for i := range list.Items {
		if p := list.Items[i].Preemption; p != nil && p.Result == "Preempting" {
			if pre != nil {
				t.Errorf("decision for %s: more than one cycle preempted", group)
			}
			pre = p
		}
	}
	if len(list.Items) == 0 || list.Items[0].Result != "Scheduled" || list.Items[0].Chosen != chosen {
		t.Errorf("/debug/placements/e2e/%s: the newest decision %+v, want Scheduled in %s", group, list.Items, chosen)
	}
	if pre == nil {
		t.Fatalf("/debug/placements/e2e/%s: no decision with a Preempting preemption: %+v", group, list.Items)
	}
	if pre.Priority != e2eClasses[classHigh] || pre.Chosen != chosen || pre.VictimCount != len(fill) {
		t.Errorf("preemption of %s: priority %d, chosen %q, %d victims; want %d, %s, %d", group, pre.Priority, pre.Chosen, pre.VictimCount,
			e2eClasses[classHigh], chosen, len(fill))
	}
	var victims []string
	for _, v := range pre.Victims {
		victims = append(victims, v.Pod)
		if racks[v.Node] != rackC || v.Priority != e2eClasses[classLow] || v.PodGroup != "" {
			t.Errorf("preemption of %s: victim %+v, want one on a node of %s, of priority %d, in no group", group, v, rackC, e2eClasses[classLow])
		}
	}
	slices.Sort(victims)
	var want []string
	for _, f := range fill {
		want = append(want, "e2e/"+f)
	}
	if !slices.Equal(victims, want) {
		t.Errorf("preemption of %s: victims %v, want the fill of %s %v", group, victims, rackC, want)
	}
	// Every rack was a candidate: only the chosen one fits.
	fits := 0
	for _, cand := range pre.Candidates {
		switch {
		case cand.Placement == chosen:
			if !cand.Fits || cand.VictimCount != len(fill) {
				t.Errorf("preemption of %s: the chosen %s %+v, want it to fit with %d victims", group, chosen, cand, len(fill))
			}
		case cand.Fits || cand.Reason == "":
			t.Errorf("preemption of %s: candidate %+v, want it not to fit, with a reason", group, cand)
		}
		if cand.Fits {
			fits++
		}
	}
	if len(pre.Candidates) != len(rackPlacements(racks)) || fits != 1 {
		t.Errorf("preemption of %s: %d candidates, %d fit; want one per rack (%d), one fitting", group, len(pre.Candidates), fits, len(rackPlacements(racks)))
	}
	preempting := ""
	for _, d := range placementDecisions(t, c, group) {
		if strings.Contains(d, "Preemption: Priority: 1000") {
			preempting = d
		}
	}
	for _, w := range []string{"Result: Preempting", "Chosen placement: " + chosen, fmt.Sprintf("Victims: %d", len(fill)), chosen + " *"} {
		if !strings.Contains(preempting, w) {
			t.Errorf("/debug/placements/e2e/%s: the preempting decision does not show %q", group, w)
		}
	}

	// Events: the PodGroup's, and each victim's, naming the group.
	note := waitEvent(ctx, t, c, cluster.EventMatch{Name: group, Reason: "Preempting", Note: fmt.Sprintf("Preempting %d pods of lower priority", len(fill))})
	t.Logf("PodGroup %s: Preempting: %s", group, note)
	for _, f := range fill {
		waitEvent(ctx, t, c, cluster.EventMatch{Kind: "Pod", Name: f, Reason: "Preempted", Note: "by pod group e2e/" + group})
	}

	metrics, err := c.SchedulerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`scheduler_podgroup_preemption_attempts_total{result="preempting"}`, "scheduler_podgroup_preemption_victims_count"} {
		if v, found := cluster.MetricValue(metrics, m); !found || v < 1 {
			t.Errorf("%s = %v (exported: %v), want 1 or more", m, v, found)
		}
	}
}

// singlePodSparesWholeGang: a single pod of classHigh and 14 CPUs fits on
// no node. Default preemption would rather evict a pod of "whole" (lower
// priority than "single"'s), but "whole" is preempted only whole: the pod
// takes one member of "single", whose PodGroup then says BelowMinCount,
// and "whole" keeps both pods.
func singlePodSparesWholeGang(ctx context.Context, t *testing.T, c *cluster.Cluster, wholeNode, singleNode string) {
	before := podUIDs(ctx, t, c)
	scenarioPod(ctx, t, c, "lone", cluster.PodOptions{CPU: "14", PriorityClassName: classHigh})
	if _, err := c.WaitBound(ctx, "e2e", "lone", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	lone, err := c.Client.CoreV1().Pods("e2e").Get(ctx, "lone", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lone.Spec.NodeName != singleNode {
		t.Errorf("pod lone is bound to %s, want %s (the node of the gang in Pod mode)", lone.Spec.NodeName, singleNode)
	}
	var victim string
	deadline := time.Now().Add(30 * time.Second)
	for victim == "" {
		uids := podUIDs(ctx, t, c)
		for _, p := range []string{"single-0", "single-1"} {
			if _, ok := uids[p]; !ok {
				victim = p
			}
		}
		if victim == "" && time.Now().After(deadline) {
			t.Fatalf("no pod of the gang single was deleted after 30s")
		}
		time.Sleep(250 * time.Millisecond)
	}
	expectPodsKept(ctx, t, c, before, []string{victim})
	s := waitPodGroupState(ctx, t, c, "single", 30*time.Second, func(s cluster.PodGroupState) bool { return s.Status == "False" && s.Reason == "BelowMinCount" })
	t.Logf("PodGroup single: %v", s)
	if !strings.Contains(s.Message, "1 of minCount 2 pods are bound") || !strings.Contains(s.Message, victim) {
		t.Errorf("PodGroup single: message %q, want it to say 1 of minCount 2 pods are bound and name %s", s.Message, victim)
	}
	if s, err := c.PodGroupState(ctx, "e2e", "whole"); err != nil || s.Status != "True" || s.Scheduled != 2 {
		t.Errorf("PodGroup whole: %v (err %v), want both pods scheduled, condition True", s, err)
	}
	t.Logf("pod lone took %s on %s; the gang whole kept both its pods on %s", victim, singleNode, wholeNode)
}

// TestWorkloadAwarePreemptionGateOff runs the scheduler with
// WorkloadAwarePreemption off and the other gates at their defaults. A gang
// that fits only if it preempts a running gang stays pending and preempts
// nothing (no preemption in its decision), and disruptionMode is accepted
// and ignored: a single pod then takes one member of a gang whose
// disruptionMode is PodGroup, as before the gate.
func TestWorkloadAwarePreemptionGateOff(t *testing.T) {
	c := startCluster(t, "WorkloadAwarePreemption=false")
	ctx := t.Context()
	if err := c.CreateNamespace(ctx, "e2e"); err != nil {
		t.Fatal(err)
	}
	createPriorityClasses(ctx, t, c)
	nodes := slices.Sorted(maps.Keys(nodeRacks(ctx, t, c)))
	wholeNode := nodes[0]
	// Every other node is full of pods nothing may preempt.
	for i, node := range nodes[1:] {
		scenarioPod(ctx, t, c, fmt.Sprintf("guard-%d", i), cluster.PodOptions{CPU: "28", PriorityClassName: classGuard, NodeName: node})
	}
	runningGang(ctx, t, c, runningGangSpec{group: "whole", mode: "PodGroup", n: 2, cpu: "14", class: classLowest, node: wholeNode})
	if _, err := c.WaitBound(ctx, "e2e", "whole-", 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	// With the gate on, this gang would evict "whole" and bind on its node.
	const group = "gang"
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: 2, Pods: 2,
		Pod: cluster.PodOptions{CPU: rackPodCPU, PriorityClassName: classHigh}}); err != nil {
		t.Fatal(err)
	}
	waitGangUnschedulable(ctx, t, c, group, 2, "node")
	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
	if len(list.Items) == 0 || list.Items[0].Result != "Unschedulable" || list.Items[0].Preemption != nil {
		t.Errorf("/debug/placements/e2e/%s: %+v, want the newest Unschedulable, without preemption", group, list.Items)
	}
	// No member of whole goes, meanwhile.
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		for _, p := range groupPods(ctx, t, c, "whole") {
			if p.DeletionTimestamp != nil {
				t.Fatalf("pod %s was preempted: with the gate off a gang member does not preempt", p.Name)
			}
		}
		if n := len(groupPods(ctx, t, c, "whole")); n != 2 {
			t.Fatalf("the gang whole has %d pods left, want 2: with the gate off a gang member does not preempt", n)
		}
	}

	scenarioPod(ctx, t, c, "lone", cluster.PodOptions{CPU: "14", PriorityClassName: classHigh})
	if _, err := c.WaitBound(ctx, "e2e", "lone", 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(groupPods(ctx, t, c, "whole")) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the single pod lone is bound, yet the gang whole has %d pods, want 1 (one preempted)", len(groupPods(ctx, t, c, "whole")))
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, p := range groupPods(ctx, t, c, group) {
		if p.Spec.NodeName != "" {
			t.Errorf("pod %s of the gang was bound to %s; the gang fits nowhere", p.Name, p.Spec.NodeName)
		}
	}
	metrics, err := c.SchedulerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, found := cluster.MetricValue(metrics, "scheduler_podgroup_preemption_attempts_total"); found {
		t.Errorf("the gate is off, yet the scheduler exports scheduler_podgroup_preemption_attempts_total")
	}
}
