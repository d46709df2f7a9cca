package adminapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fakePodGroups is a PodGroupSource over fixed groups, by namespace/name.
type fakePodGroups map[string]PodGroupDetail

func (f fakePodGroups) PodGroup(_ context.Context, namespace, name string) (*PodGroupDetail, error) {
	d, ok := f[namespace+"/"+name]
	if !ok {
		return nil, nil
	}
	return &d, nil
}

func members(names ...string) []PodGroupMember {
	out := make([]PodGroupMember, len(names))
	for i, n := range names {
		out[i] = PodGroupMember{Name: n, UID: "uid-" + n}
	}
	return out
}

// podGroupOptions are fixtureOptions with a PodGroup source, and with the
// pods and cycles of two more groups: ml/gpt-train, a rack-constrained gang
// one pod short in its best rack, and ml/waiting, a gang whose members are
// not all created yet; ml/orphan's pods name a PodGroup that does not exist.
func podGroupOptions() Options {
	opts := fixtureOptions()
	q := opts.Queue.(*fakeQueue)
	for i, name := range []string{"gpt-0", "gpt-1", "gpt-2", "gpt-3"} {
		q.snap.Pods = append(q.snap.Pods, QueuedPod{Namespace: "ml", Name: name, UID: "uid-" + name, Queue: QueueUnschedulable, Attempts: 2,
			InitialAttemptTimestamp: ago(10 * time.Minute), Timestamp: ago(time.Duration(90+i) * time.Second),
			UnschedulablePlugins: []string{"TopologyPlacementGenerator", "NodeResourcesFit"}, PodGroup: "gpt-train"})
	}
	for _, name := range []string{"waiting-0", "waiting-1", "waiting-2"} {
		q.snap.Pods = append(q.snap.Pods, QueuedPod{Namespace: "ml", Name: name, UID: "uid-" + name, Queue: QueueGated,
			Timestamp: ago(time.Minute), GatingPlugin: "GangScheduling", UnschedulablePlugins: []string{"GangScheduling"}, PodGroup: "waiting"})
	}
	q.snap.Pods = append(q.snap.Pods, QueuedPod{Namespace: "ml", Name: "orphan-0", UID: "uid-orphan-0", Queue: QueueUnschedulable, Attempts: 1,
		Timestamp: ago(time.Minute), UnschedulablePlugins: []string{"GangScheduling"}, PodGroup: "orphan"})

	p := opts.Placements.(*fakePlacements)
	gpu := []ResourceAmount{{Name: "cpu", Quantity: "8"}, {Name: "memory", Quantity: "32Gi"}, {Name: "nvidia.com/gpu", Quantity: "1"}}
	p.snap.Decisions = append([]PlacementDecision{{
		Namespace: "ml", PodGroup: "gpt-train", Time: ago(90 * time.Second), Duration: 41 * time.Millisecond,
		Result: ResultUnschedulable, Pods: 4, Required: 4, PodsFit: 3,
		Message:    "no placement fits (3 placements, 2 evaluated, 1 lacked the room by CPU, memory or pod count (most: rack=r3, for 1 pods); best rack=r1: 3 of 4 pods fit, 4 needed; first pod that did not fit: ml/gpt-3: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu)",
		Placements: []GeneratedPlacement{{Name: "rack=r1", Nodes: 4}, {Name: "rack=r2", Nodes: 4}, {Name: "rack=r3", Nodes: 2}},
		Evaluations: []PlacementEvaluation{
			{Placement: "rack=r2", Reason: "2 of 4 pods fit, 4 needed", PodsFit: 2, Duration: 9 * time.Millisecond,
				FirstUnfit: &UnfitPod{Pod: "gpt-2", Requests: gpu, Rejections: []PluginDiagnosis{
					{Plugin: "NodeResourcesFit", Nodes: 3, Reasons: []ReasonCount{{Reason: "Insufficient nvidia.com/gpu", Count: 3}, {Reason: "Insufficient cpu", Count: 1}}},
					{Plugin: "TaintToleration", Nodes: 1, Reasons: []ReasonCount{{Reason: "node(s) had untolerated taint {maintenance: true}", Count: 1}}},
				}}},
			{Placement: "rack=r1", Reason: "3 of 4 pods fit, 4 needed", PodsFit: 3, Duration: 11 * time.Millisecond,
				FirstUnfit: &UnfitPod{Pod: "gpt-3", Requests: gpu, Rejections: []PluginDiagnosis{
					{Plugin: "NodeResourcesFit", Nodes: 4, Reasons: []ReasonCount{{Reason: "Insufficient nvidia.com/gpu", Count: 4}}},
				}}},
		},
		RoomLeftOut: []PlacementRoom{{Placement: "rack=r3", Pods: 1}}, RoomLeftOutCount: 1,
		RoomPerPod: []ResourceAmount{{Name: "cpu", Quantity: "8"}, {Name: "memory", Quantity: "32Gi"}},
		Assignments: []PodAssignment{
			{Pod: "gpt-0", Failure: "no placement fits"}, {Pod: "gpt-1", Failure: "no placement fits"},
			{Pod: "gpt-2", Failure: "no placement fits"}, {Pod: "gpt-3", Failure: "no placement fits"},
		},
	}}, p.snap.Decisions...)

	rack := []TopologyLevel{{Key: "topology.kspatch.io/rack", Mode: LevelRequired}}
	opts.PodGroups = fakePodGroups{
		"ml/gpt-train": {TakenAt: base(), Namespace: "ml", Name: "gpt-train", Found: true, Policy: PolicyGang, MinCount: 4, Levels: rack,
			Condition: &GroupCondition{Status: "False", Reason: "Unschedulable", Message: "no placement fits (3 placements, 2 evaluated, ...)", LastTransitionTime: ago(10 * time.Minute)},
			Members:   members("gpt-0", "gpt-1", "gpt-2", "gpt-3")},
		"ml/llama-train": {TakenAt: base(), Namespace: "ml", Name: "llama-train", Found: true, Policy: PolicyGang, MinCount: 4,
			Levels: []TopologyLevel{{Key: "rack", Mode: LevelRequired}}, Scheduled: 3,
			Condition: &GroupCondition{Status: "True", Reason: "Scheduled", Message: "4 of 4 pods fit", LastTransitionTime: ago(12 * time.Second)},
			Members: []PodGroupMember{{Name: "llama-worker-0", Node: "r1-n1"}, {Name: "llama-worker-1", Node: "r1-n2"},
				{Name: "llama-worker-2", Node: "r1-n3"}, {Name: "llama-worker-3"}}},
		"team-a/trainer": {TakenAt: base(), Namespace: "team-a", Name: "trainer", Found: true, Policy: PolicyGang, MinCount: 3,
			Condition: &GroupCondition{Status: "False", Reason: "Unschedulable", Message: "1 of 3 pods fit, gang minCount is 3"},
			Members:   members("trainer-0", "trainer-1", "trainer-2")},
		"ml/waiting": {TakenAt: base(), Namespace: "ml", Name: "waiting", Found: true, Policy: PolicyGang, MinCount: 8,
			Condition: &GroupCondition{Status: "False", Reason: "WaitingForMembers", Message: "waiting for minCount 8 pods to exist; 3 do"},
			Members:   members("waiting-0", "waiting-1", "waiting-2")},
		"ml/orphan": {TakenAt: base(), Namespace: "ml", Name: "orphan", Members: members("orphan-0")},
	}
	return opts
}

// TestPodGroupGolden renders the pod-group route as text and JSON and
// compares it with testdata/podgroup_*.golden.
func TestPodGroupGolden(t *testing.T) {
	runGolden(t, NewRouter(podGroupOptions()), []goldenCase{
		{"podgroup_rack_short", "/debug/queue/podgroups/ml/gpt-train", http.StatusOK},
		{"podgroup_no_topology", "/debug/queue/podgroups/team-a/trainer", http.StatusOK},
		{"podgroup_waiting_for_members", "/debug/queue/podgroups/ml/waiting", http.StatusOK},
		{"podgroup_missing", "/debug/queue/podgroups/ml/orphan", http.StatusOK},
		{"podgroup_scheduled", "/debug/queue/podgroups/ml/llama-train?limit=2&candidates=1", http.StatusOK},
		{"podgroup_not_found", "/debug/queue/podgroups/ml/nothing", http.StatusNotFound},
		{"podgroup_bad_candidates", "/debug/queue/podgroups/ml/gpt-train?candidates=0", http.StatusBadRequest},
	})
}

// TestPodGroupUnblock checks the line that says what would unblock a
// group, case by case, against expectations written here (not the
// goldens).
func TestPodGroupUnblock(t *testing.T) {
	h := NewRouter(podGroupOptions())
	for group, want := range map[string]string{
		"ml/gpt-train":   "free 1 × (cpu 8, memory 32Gi, nvidia.com/gpu 1) in one topology.kspatch.io/rack (best: rack=r1, 3 of 4 fit), or lower minCount to 3",
		"team-a/trainer": "free 2 × (cpu 4, nvidia.com/gpu 1) (1 of 3 fit), or lower minCount to 1",
		"ml/waiting":     "waiting for 5 more members to be created (3 of minCount 8 exist)",
		"ml/orphan":      "create PodGroup ml/orphan, or remove the label scheduling.kspatch.io/pod-group from its pods",
		// Three bound, the fourth queued again after the cycle.
		"ml/llama-train": "the last cycle scheduled 4 of 4 pods; 1 member is queued since (unschedulable): see /debug/queue/pods/ml/llama-worker-3",
	} {
		rec := get(h, "/debug/queue/podgroups/"+group, "application/json")
		var doc struct {
			Unblock    string `json:"unblock"`
			Candidates []struct {
				Placement string `json:"placement"`
				Short     int    `json:"short"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v: %s", group, err, rec.Body)
		}
		if doc.Unblock != want {
			t.Errorf("%s: unblock %q, want %q", group, doc.Unblock, want)
		}
		if group == "ml/gpt-train" {
			// r1 (3 fit) before r2 (2 fit) before r3 (room for 1, not
			// evaluated), although r2 was evaluated first.
			var got []string
			for _, c := range doc.Candidates {
				got = append(got, c.Placement)
			}
			if strings.Join(got, ",") != "rack=r1,rack=r2,rack=r3" || doc.Candidates[0].Short != 1 || doc.Candidates[2].Short != 3 {
				t.Errorf("%s: candidates %+v, want r1 (short 1), r2, r3 (short 3)", group, doc.Candidates)
			}
		}
	}
}

// TestPodGroupNotAvailable: without a PodGroup source the route answers 501
// and says why.
func TestPodGroupNotAvailable(t *testing.T) {
	h := NewRouter(Options{Queue: fixtureQueue()})
	rec := get(h, "/debug/queue/podgroups/ml/gpt-train", "")
	if rec.Code != http.StatusNotImplemented || !strings.Contains(rec.Body.String(), "GangScheduling feature gate is disabled") {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

// TestFollower: an instance that observed another one leading answers the
// state routes with 503 naming the leader, and still serves health and
// profiles; one that has observed no leader yet (or leads) answers.
func TestFollower(t *testing.T) {
	for _, tc := range []struct {
		name         string
		self, leader string
		wantCode     int
	}{
		{"another instance leads", "cp-0_1", "cp-1_2", http.StatusServiceUnavailable},
		{"this instance leads", "cp-0_1", "cp-0_1", http.StatusOK},
		{"no leader observed yet", "cp-0_1", "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := podGroupOptions()
			opts.Leadership = func() (string, string) { return tc.self, tc.leader }
			h := NewRouter(opts)
			for _, path := range []string{"/debug/queue", "/debug/queue/pods/team-a/trainer-0", "/debug/queue/podgroups/ml/gpt-train", "/debug/apicalls", "/debug/placements", "/debug/placements/ml/llama-train"} {
				rec := get(h, path, "")
				if rec.Code != tc.wantCode {
					t.Errorf("GET %s: %d, want %d: %s", path, rec.Code, tc.wantCode, rec.Body)
				}
				if tc.wantCode == http.StatusServiceUnavailable && (!strings.Contains(rec.Body.String(), "is not the leader") || !strings.Contains(rec.Body.String(), "The leader is "+tc.leader)) {
					t.Errorf("GET %s: %s, want it to say this instance is not the leader and name %s", path, rec.Body, tc.leader)
				}
			}
			for _, path := range []string{"/healthz", "/debug/pprof/"} {
				if rec := get(h, path, ""); rec.Code != http.StatusOK {
					t.Errorf("GET %s on a follower: %d", path, rec.Code)
				}
			}
		})
	}
}

// TestPodGroupNoPodTried: a cycle whose every placement the room check left
// out tried no pod, and says so rather than "0 of N pods fit".
func TestPodGroupNoPodTried(t *testing.T) {
	opts := podGroupOptions()
	p := opts.Placements.(*fakePlacements)
	d := &p.snap.Decisions[0] // ml/gpt-train
	d.Evaluations, d.PodsFit, d.FirstUnfit = nil, 0, nil
	d.RoomLeftOut = []PlacementRoom{{Placement: "rack=r1", Pods: 3}, {Placement: "rack=r2", Pods: 2}, {Placement: "rack=r3", Pods: 1}}
	d.RoomLeftOutCount = 3
	rec := get(NewRouter(opts), "/debug/queue/podgroups/ml/gpt-train", "")
	body := rec.Body.String()
	for _, want := range []string{
		"Last cycle:   Unschedulable, 1m30s ago: no pod tried: all 3 placements lacked the room, 4 needed",
		"Unblock:      free 1 × (cpu 8, memory 32Gi) in one topology.kspatch.io/rack (best: rack=r1, 3 of 4 fit), or lower minCount to 3",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the text lacks %q:\n%s", want, body)
		}
	}
}

// TestPodGroupUnblockCoscheduling: a coscheduling group's missing PodGroup
// names its own label; a cycle that tried no member (minResources not
// free) gets no "<any node>" candidate and points at the cycle's message.
func TestPodGroupUnblockCoscheduling(t *testing.T) {
	opts := podGroupOptions()
	p := opts.Placements.(*fakePlacements)
	groups := opts.PodGroups.(fakePodGroups)
	// Coscheduling groups: one not created yet, one whose minResources are
	// not free (its cycle tried no member).
	groups["ml/cs-missing"] = PodGroupDetail{TakenAt: base(), Namespace: "ml", Name: "cs-missing", Members: members("cs-missing-0"),
		MemberLabel: "scheduling.x-k8s.io/pod-group"}
	groups["ml/cs-short"] = PodGroupDetail{TakenAt: base(), Namespace: "ml", Name: "cs-short", Found: true, Policy: PolicyGang, MinCount: 2,
		Members: members("cs-short-0", "cs-short-1"), MemberLabel: "scheduling.x-k8s.io/pod-group"}
	short := "the cluster's free allocatable cannot hold the group's spec.minResources: cpu 1 free of 3 (short 2); the group is tried once enough is free"
	p.snap.Decisions = append([]PlacementDecision{{
		Namespace: "ml", PodGroup: "cs-short", Time: ago(30 * time.Second), Result: ResultUnschedulable, Pods: 2, Required: 2,
		Message:     short + "; none was bound",
		Assignments: []PodAssignment{{Pod: "cs-short-0", Failure: short}, {Pod: "cs-short-1", Failure: short}},
	}}, p.snap.Decisions...)
	h := NewRouter(opts)
	for group, want := range map[string]string{
		"ml/cs-missing": "create PodGroup ml/cs-missing, or remove the label scheduling.x-k8s.io/pod-group from its pods",
		"ml/cs-short":   "see the last cycle's message: " + short + "; none was bound",
	} {
		rec := get(h, "/debug/queue/podgroups/"+group, "application/json")
		var doc struct {
			Unblock    string            `json:"unblock"`
			Candidates []json.RawMessage `json:"candidates"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v: %s", group, err, rec.Body)
		}
		if doc.Unblock != want {
			t.Errorf("%s: unblock %q, want %q", group, doc.Unblock, want)
		}
		if len(doc.Candidates) != 0 {
			t.Errorf("%s: candidates %s, want none", group, doc.Candidates)
		}
	}
}
