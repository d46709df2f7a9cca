package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// The topology-aware placement scenarios (gate TopologyAwareWorkloadScheduling,
// docs/design-placement.md). startCluster lays the nodes out in e2eRacks
// racks of two 32-CPU nodes (label cluster.RackLabel): a pod of rackPodCPU
// fits twice on a node and not three times, so a rack holds four of them.
const rackPodCPU = "12"

// placementName is the name TopologyPlacementGenerator gives the placement
// of the nodes whose label key has value.
func placementName(key, value string) string { return key + "=" + value }

// placementDecisions GETs the text of /debug/placements/e2e/<group>, logs
// it, and returns its decisions, newest first, each with the tables'
// alignment squashed to single spaces; an answer other than 200 fails the
// test.
func placementDecisions(t *testing.T, c *cluster.Cluster, group string) []string {
	t.Helper()
	code, text := getText(t, c.Admin+"/debug/placements/e2e/"+group)
	if code != http.StatusOK {
		t.Fatalf("/debug/placements/e2e/%s: HTTP %d: %s", group, code, text)
	}
	t.Logf("/debug/placements/e2e/%s:\n%s", group, text)
	decisions := strings.Split(text, "\n---\n")
	for i, d := range decisions {
		decisions[i] = strings.Join(strings.Fields(d), " ")
	}
	return decisions
}

// nodeRacks maps every node to its rack (cluster.RackLabel).
func nodeRacks(ctx context.Context, t *testing.T, c *cluster.Cluster) map[string]string {
	t.Helper()
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	racks := map[string]string{}
	for _, n := range nodes.Items {
		racks[n.Name] = n.Labels[cluster.RackLabel]
	}
	return racks
}

// rackPlacements returns the placements a rack constraint generates on an
// empty group: one per rack, named after it, with the rack's node count.
func rackPlacements(racks map[string]string) map[string]int {
	out := map[string]int{}
	for _, rack := range racks {
		if rack != "" {
			out[placementName(cluster.RackLabel, rack)]++
		}
	}
	return out
}

// rackRoom returns, per rack, how many more pods requesting cpu fit on its
// nodes: each node's allocatable CPU less the requests of the pods bound to
// it, divided by cpu and rounded down.
func rackRoom(ctx context.Context, t *testing.T, c *cluster.Cluster, cpu resource.Quantity) map[string]int {
	t.Helper()
	nodes, err := c.NodeCPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	room := map[string]int{}
	for _, n := range nodes {
		room[n.Node.Labels[cluster.RackLabel]] += int(max(n.Free(), 0) / cpu.MilliValue())
	}
	return room
}

// rackGangFits: a gang of 4 pods of rackPodCPU with a rack constraint is
// bound in one rack, two pods on each of its nodes (unconstrained, the
// scheduler would spread them over four nodes, so over two racks at least).
// The admin API shows the decision: one placement per rack, evaluations,
// and the chosen placement, the pods' rack.
func rackGangFits(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const group, n = "rack-gang", 4
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n, TopologyKey: cluster.RackLabel,
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

	racks := nodeRacks(ctx, t, c)
	nodeOf := map[string]string{}
	inRack := map[string]bool{}
	for _, p := range groupPods(ctx, t, c, group) {
		nodeOf[p.Name] = p.Spec.NodeName
		inRack[racks[p.Spec.NodeName]] = true
	}
	if len(inRack) != 1 || inRack[""] {
		t.Fatalf("the pods of %s are in racks %q, want one: %v", group, slices.Sorted(maps.Keys(inRack)), nodeOf)
	}
	rack := slices.Collect(maps.Keys(inRack))[0]
	chosen := placementName(cluster.RackLabel, rack)
	t.Logf("%s: every pod in %s: %v", group, chosen, nodeOf)

	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
	if len(list.Items) == 0 || list.Items[0].Result != "Scheduled" {
		t.Fatalf("/debug/placements/e2e/%s: %+v, want the newest Scheduled", group, list.Items)
	}
	d := list.Items[0]
	if d.Chosen != chosen {
		t.Errorf("decision for %s: chosen %q, want %q (the pods' rack)", group, d.Chosen, chosen)
	}
	generated := map[string]int{}
	for _, p := range d.Placements {
		generated[p.Name] = p.Nodes
	}
	if want := rackPlacements(racks); !maps.Equal(generated, want) {
		t.Errorf("decision for %s: placements (name: nodes) %v, want one per rack %v", group, generated, want)
	}
	if len(d.Evaluations) == 0 {
		t.Errorf("decision for %s lists no evaluations", group)
	}
	evaluatedChosen := false
	for _, e := range d.Evaluations {
		if _, ok := generated[e.Placement]; !ok {
			t.Errorf("decision for %s evaluates %q, which was not generated", group, e.Placement)
		}
		if !e.Feasible && e.Reason == "" {
			t.Errorf("decision for %s: %s is infeasible without a reason", group, e.Placement)
		}
		if e.Placement != chosen {
			continue
		}
		evaluatedChosen = true
		if !e.Feasible || e.PodsFit < n || len(e.Scores) == 0 {
			t.Errorf("decision for %s: the chosen %s has feasible=%v, %d pods fit, scores %v; want feasible, %d, scored",
				group, chosen, e.Feasible, e.PodsFit, e.Scores, n)
		}
	}
	if !evaluatedChosen {
		t.Errorf("decision for %s: the chosen %s is not among the evaluations %+v", group, chosen, d.Evaluations)
	}
	for _, a := range d.Assignments {
		if a.Node == "" || a.Node != nodeOf[a.Pod] {
			t.Errorf("decision for %s assigns %s to %q (failure %q); the pod is bound to %q", group, a.Pod, a.Node, a.Failure, nodeOf[a.Pod])
		}
	}

	// The list of every group's cycles shows the decision too.
	var all placementList
	getJSON(t, c.Admin+"/debug/placements?output=json", &all)
	if !slices.ContainsFunc(all.Items, func(it placementDecision) bool {
		return it.Namespace == "e2e" && it.PodGroup == group && it.Chosen == chosen && len(it.Evaluations) > 0
	}) {
		t.Errorf("/debug/placements lists no decision for e2e/%s with %s chosen and evaluations", group, chosen)
	}

	// The group's route, in text, marks the chosen placement.
	newest := placementDecisions(t, c, group)[0]
	for _, w := range []string{"Result: Scheduled", "Chosen placement: " + chosen, chosen + " *"} {
		if !strings.Contains(newest, w) {
			t.Errorf("/debug/placements/e2e/%s: the newest decision does not show %q", group, w)
		}
	}
}

// rackGangTooBig: a gang of 5 pods of rackPodCPU with a rack constraint fits
// in no rack (a rack holds four) though the cluster has room for it across
// racks. None of its pods is bound; each waits with PodScheduled=False, and
// the PodGroup's PodGroupScheduled=False condition says why in terms of the
// placements. The admin API shows every rack evaluated, none feasible,
// nothing chosen.
func rackGangTooBig(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const group, n = "rack-too-big", 5
	// What the scenario stands on: the cluster as the scenarios before left
	// it fits the gang across racks, and in no single one.
	room := rackRoom(ctx, t, c, resource.MustParse(rackPodCPU))
	total, most := 0, 0
	for _, r := range room {
		total += r
		most = max(most, r)
	}
	if most >= n || total < n {
		t.Fatalf("room for %s-CPU pods per rack %v: want fewer than %d in every rack and %d or more in all", rackPodCPU, room, n, n)
	}
	t.Logf("room for %s-CPU pods per rack: %v", rackPodCPU, room)

	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n, TopologyKey: cluster.RackLabel,
		Pod: cluster.PodOptions{CPU: rackPodCPU}}); err != nil {
		t.Fatal(err)
	}
	// The pods go when the checks are done: the scenarios that follow do
	// not run with a gang retried on every event.
	defer deleteGroupPods(ctx, t, c, group)
	waitGangUnschedulable(ctx, t, c, group, n, "rack")
	s := waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Status == "False" && s.Reason == "Unschedulable"
	})
	t.Logf("PodGroup %s: %v", group, s)
	if s.Scheduled != 0 {
		t.Errorf("PodGroup %s: status.scheduled %d, want 0", group, s.Scheduled)
	}
	// The message counts the placements evaluated and names the best one
	// (<key>=<value>).
	if !strings.Contains(strings.ToLower(s.Message), "placement") || !strings.Contains(s.Message, cluster.RackLabel+"=") {
		t.Errorf("PodGroup %s: PodGroupScheduled message %q does not mention the placements (%s=…)", group, s.Message, cluster.RackLabel)
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
	generated := map[string]int{}
	for _, p := range d.Placements {
		generated[p.Name] = p.Nodes
	}
	if want := rackPlacements(nodeRacks(ctx, t, c)); !maps.Equal(generated, want) {
		t.Errorf("decision for %s: placements (name: nodes) %v, want one per rack %v", group, generated, want)
	}
	// No rack has the room for the gang by CPU: the room check leaves every
	// placement out before any Filter runs, and the message counts them.
	if len(d.Evaluations) != 0 {
		t.Errorf("decision for %s evaluates %d placements, want none: every rack lacks the room (%v)", group, len(d.Evaluations), room)
	}
	if want := fmt.Sprintf("no placement fits (%d placements, 0 evaluated, %d lacked the room by CPU, memory or pod count", len(generated), len(generated)); !strings.Contains(d.Message, want) {
		t.Errorf("decision for %s: message %q, want it to contain %q", group, d.Message, want)
	}
	for _, a := range d.Assignments {
		if a.Node != "" || a.Failure == "" {
			t.Errorf("the unschedulable cycle assigns %s to %q with failure %q; want no node and a reason", a.Pod, a.Node, a.Failure)
		}
	}
	podGroupShortfall(t, c, group, n, most)
	kubectlWhyPodGroup(ctx, t, c, group, fmt.Sprintf("free %d × (cpu %s) in one %s", n-most, rackPodCPU, cluster.RackLabel))
}

// podGroupShortfall: the admin API's pod-group route says, for a gang of n
// pods that fits in no rack, which rack comes closest (room for most of
// them) and what would unblock it, from the scheduler's last cycle.
func podGroupShortfall(t *testing.T, c *cluster.Cluster, group string, n, most int) {
	t.Helper()
	var doc struct {
		Spec struct {
			Found    bool `json:"found"`
			MinCount int  `json:"minCount"`
			Levels   []struct {
				Key string `json:"key"`
			} `json:"levels"`
		} `json:"spec"`
		Members struct {
			Exist  int `json:"exist"`
			Queued struct {
				Total int `json:"total"`
			} `json:"queued"`
		} `json:"members"`
		Candidates []struct {
			Placement string `json:"placement"`
			PodsFit   int    `json:"podsFit"`
			Short     int    `json:"short"`
		} `json:"candidates"`
		Unblock string `json:"unblock"`
	}
	getJSON(t, c.Admin+"/debug/queue/podgroups/e2e/"+group+"?output=json", &doc)
	if !doc.Spec.Found || doc.Spec.MinCount != n || len(doc.Spec.Levels) != 1 || doc.Spec.Levels[0].Key != cluster.RackLabel {
		t.Errorf("/debug/queue/podgroups/e2e/%s: spec %+v, want the gang of %d with the %s level", group, doc.Spec, n, cluster.RackLabel)
	}
	if doc.Members.Exist != n || doc.Members.Queued.Total != n {
		t.Errorf("/debug/queue/podgroups/e2e/%s: members %+v, want %d existing and queued", group, doc.Members, n)
	}
	if len(doc.Candidates) == 0 || doc.Candidates[0].PodsFit != most || doc.Candidates[0].Short != n-most {
		t.Errorf("/debug/queue/podgroups/e2e/%s: candidates %+v, want the best with room for %d (short %d)", group, doc.Candidates, most, n-most)
	}
	// The pods request rackPodCPU CPUs and no memory: the room check
	// counted that per pod.
	if want := fmt.Sprintf("free %d × (cpu %s) in one %s", n-most, rackPodCPU, cluster.RackLabel); !strings.HasPrefix(doc.Unblock, want) {
		t.Errorf("/debug/queue/podgroups/e2e/%s: unblock %q, want it to start with %q", group, doc.Unblock, want)
	}
	_, text := getText(t, c.Admin+"/debug/queue/podgroups/e2e/"+group)
	t.Logf("/debug/queue/podgroups/e2e/%s:\n%s", group, text)
}

// placementMetrics: after the rack gangs, the scheduler exports the
// placement metrics: placements generated, evaluations feasible (rack-gang,
// with their duration) and infeasible (rack-too-big: left out by the room
// check, so without a duration), and no error.
func placementMetrics(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	metrics, err := c.SchedulerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{
		"scheduler_generated_placements_total",
		`scheduler_placement_evaluations_total{result="feasible"}`,
		`scheduler_placement_evaluations_total{result="infeasible"}`,
		`scheduler_placement_evaluation_duration_seconds_count{result="feasible"}`,
		// The rack gangs' decisions, and the too-big gang's (no rack has
		// the room).
		`scheduler_placement_decision_duration_seconds_count{result="feasible"}`,
		`scheduler_placement_decision_duration_seconds_count{result="infeasible"}`,
	} {
		if v, found := cluster.MetricValue(metrics, m); !found || v < 1 {
			t.Errorf("%s = %v (exported: %v), want 1 or more after the rack gangs", m, v, found)
		}
	}
	if v, _ := cluster.MetricValue(metrics, `scheduler_placement_evaluations_total{result="error"}`); v != 0 {
		t.Errorf(`scheduler_placement_evaluations_total{result="error"} = %v, want 0`, v)
	}
}

// waitGangUnschedulable waits up to a minute until all n pods of group
// exist, none bound, each with PodScheduled=False (Unschedulable); a bound
// pod fails the test at once. where names the domain the gang fits in
// none of, for the message.
func waitGangUnschedulable(ctx context.Context, t *testing.T, c *cluster.Cluster, group string, n int, where string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		pods := groupPods(ctx, t, c, group)
		failed := 0
		for i := range pods {
			if pods[i].Spec.NodeName != "" {
				t.Fatalf("pod %s of the gang that fits in no %s was bound to %s", pods[i].Name, where, pods[i].Spec.NodeName)
			}
			cond := podScheduledCondition(&pods[i])
			if cond != nil && cond.Status == v1.ConditionFalse && cond.Reason == v1.PodReasonUnschedulable {
				failed++
			}
		}
		if len(pods) == n && failed == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pods of %s have PodScheduled=False after a minute", failed, n, group)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
