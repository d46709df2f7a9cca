package adminapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The topology of the multi-level fixtures: block b1 holds racks r1 and r2
// (4 nodes each), block b2 racks r3 (4 nodes) and r4 (2 nodes).
const (
	blockKey = "topology.kubernetes.io/block"
	rackKey  = "topology.kubernetes.io/rack"
)

func blockName(b string) string   { return blockKey + "=" + b }
func rackName(b, r string) string { return blockKey + "=" + b + "," + rackKey + "=" + r }

// levelPlacements are the candidates of a group with a Required block level
// and a Preferred rack level: one per rack, then one per block.
func levelPlacements() []GeneratedPlacement {
	return []GeneratedPlacement{
		{Name: rackName("b1", "r1"), Nodes: 4, Level: rackKey},
		{Name: rackName("b1", "r2"), Nodes: 4, Level: rackKey},
		{Name: rackName("b2", "r3"), Nodes: 4, Level: rackKey},
		{Name: rackName("b2", "r4"), Nodes: 2, Level: rackKey},
		{Name: blockName("b1"), Nodes: 8, Level: blockKey},
		{Name: blockName("b2"), Nodes: 6, Level: blockKey},
	}
}

// moeAssignments are the six pods of a group, on nodes or failed.
func moeAssignments(group string, nodes []string, failure string) []PodAssignment {
	out := make([]PodAssignment, 6)
	for i := range out {
		out[i].Pod = group + "-" + string(rune('0'+i))
		if nodes != nil {
			out[i].Node = nodes[i]
		} else {
			out[i].Failure = failure
		}
	}
	return out
}

// heldDecision is a cycle of a 6-pod gang (required block, preferred rack)
// that fit in no rack and in no block: it is held at the block level.
func heldDecision(group string, at time.Duration) PlacementDecision {
	gpu := []ResourceAmount{{Name: "cpu", Quantity: "8"}, {Name: "nvidia.com/gpu", Quantity: "1"}}
	return PlacementDecision{
		Namespace: "ml", PodGroup: group, Time: ago(at), Duration: 61 * time.Millisecond,
		Result: ResultUnschedulable, Pods: 6, Required: 6, PodsFit: 5,
		Message: "no placement fits (6 placements, 4 evaluated, 2 lacked the room); best " + blockName("b1") + ": 5 of 6 pods fit, 6 needed",
		HeldAt:  blockKey + " (Required): no " + blockKey + " domain fits 6 pods: the best, " + blockName("b1") + ", fits 5",
		Levels: []PlacementLevel{
			{Key: rackKey, Mode: LevelPreferred, Placements: 4, Evaluated: 2, RoomLeftOut: 2, Result: LevelNoFit,
				Reason: "no " + rackKey + " domain fits 6 pods: the best, " + rackName("b1", "r1") + ", fits 3"},
			{Key: blockKey, Mode: LevelRequired, Placements: 2, Evaluated: 2, Result: LevelNoFit,
				Reason: "no " + blockKey + " domain fits 6 pods: the best, " + blockName("b1") + ", fits 5"},
		},
		Placements: levelPlacements(),
		Evaluations: []PlacementEvaluation{
			{Placement: rackName("b1", "r1"), Level: rackKey, Reason: "3 of 6 pods fit, 6 needed", PodsFit: 3, Duration: 8 * time.Millisecond},
			{Placement: rackName("b2", "r3"), Level: rackKey, Reason: "3 of 6 pods fit, 6 needed", PodsFit: 3, Duration: 7 * time.Millisecond},
			{Placement: blockName("b1"), Level: blockKey, Reason: "5 of 6 pods fit, 6 needed", PodsFit: 5, Duration: 19 * time.Millisecond,
				Domains: []DomainPods{{Domain: rackName("b1", "r1"), Pods: 3}, {Domain: rackName("b1", "r2"), Pods: 2}},
				FirstUnfit: &UnfitPod{Pod: group + "-5", Requests: gpu, Rejections: []PluginDiagnosis{
					{Plugin: "NodeResourcesFit", Nodes: 8, Reasons: []ReasonCount{{Reason: "Insufficient nvidia.com/gpu", Count: 8}}}}}},
			{Placement: blockName("b2"), Level: blockKey, Reason: "4 of 6 pods fit, 6 needed", PodsFit: 4, Duration: 15 * time.Millisecond,
				Domains: []DomainPods{{Domain: rackName("b2", "r3"), Pods: 3}, {Domain: rackName("b2", "r4"), Pods: 1}}},
		},
		RoomLeftOut:      []PlacementRoom{{Placement: rackName("b1", "r2"), Pods: 2}, {Placement: rackName("b2", "r4"), Pods: 1}},
		RoomLeftOutCount: 2,
		RoomPerPod:       []ResourceAmount{{Name: "cpu", Quantity: "8"}},
		FirstUnfit:       &UnfitPod{Pod: group + "-5", Requests: gpu},
		Assignments:      moeAssignments(group, nil, "no placement fits"),
	}
}

// levelOptions are fixtureOptions with the cycles and queued pods of two
// gangs with a Required block level and a Preferred rack level:
// ml/moe-train, held at the block level 4 minutes ago and scheduled since
// in block b1, spilled over its racks r1 and r2 (one member queued again
// after its binding failed); and ml/moe-wait, held at the block level in
// its latest cycle.
func levelOptions() Options {
	opts := fixtureOptions()
	scheduled := PlacementDecision{
		Namespace: "ml", PodGroup: "moe-train", Time: ago(20 * time.Second), Duration: 52 * time.Millisecond,
		Result: ResultScheduled, Pods: 6, Required: 6, Chosen: blockName("b1"),
		Levels: []PlacementLevel{
			{Key: rackKey, Mode: LevelPreferred, Placements: 4, Evaluated: 2, RoomLeftOut: 2, Result: LevelNoFit,
				Reason: "no " + rackKey + " domain fits 6 pods: the best, " + rackName("b1", "r1") + ", fits 4"},
			{Key: blockKey, Mode: LevelRequired, Placements: 2, Evaluated: 2, Feasible: 1, Result: LevelChosen},
		},
		Placements: levelPlacements(),
		Evaluations: []PlacementEvaluation{
			{Placement: rackName("b1", "r1"), Level: rackKey, Reason: "4 of 6 pods fit, 6 needed", PodsFit: 4, Duration: 9 * time.Millisecond},
			{Placement: rackName("b2", "r3"), Level: rackKey, Reason: "3 of 6 pods fit, 6 needed", PodsFit: 3, Duration: 7 * time.Millisecond},
			{Placement: blockName("b1"), Level: blockKey, Feasible: true, PodsFit: 6, Duration: 17 * time.Millisecond,
				Domains: []DomainPods{{Domain: rackName("b1", "r1"), Pods: 4}, {Domain: rackName("b1", "r2"), Pods: 2}},
				Scores:  []PluginScore{{Plugin: "NodeResourcesFit", Score: 61}, {Plugin: "PodGroupPodsCount", Score: 100}}, TotalScore: 161},
			{Placement: blockName("b2"), Level: blockKey, Reason: "5 of 6 pods fit, 6 needed", PodsFit: 5, Duration: 14 * time.Millisecond,
				Domains: []DomainPods{{Domain: rackName("b2", "r3"), Pods: 3}, {Domain: rackName("b2", "r4"), Pods: 2}}},
		},
		RoomLeftOut:      []PlacementRoom{{Placement: rackName("b1", "r2"), Pods: 3}, {Placement: rackName("b2", "r4"), Pods: 2}},
		RoomLeftOutCount: 2,
		RoomPerPod:       []ResourceAmount{{Name: "cpu", Quantity: "8"}},
		Assignments:      moeAssignments("moe-train", []string{"b1-r1-n1", "b1-r1-n2", "b1-r1-n3", "b1-r1-n4", "b1-r2-n1", "b1-r2-n2"}, ""),
	}
	p := opts.Placements.(*fakePlacements)
	p.snap.Decisions = append([]PlacementDecision{heldDecision("moe-wait", 30*time.Second), scheduled, heldDecision("moe-train", 4*time.Minute)},
		p.snap.Decisions...)

	q := opts.Queue.(*fakeQueue)
	q.snap.Pods = append(q.snap.Pods,
		QueuedPod{Namespace: "ml", Name: "moe-train-5", UID: "uid-moe-train-5", Queue: QueueBackoff, Attempts: 2,
			InitialAttemptTimestamp: ago(5 * time.Minute), Timestamp: ago(5 * time.Second), BackoffExpiry: base().Add(3 * time.Second),
			PodGroup: "moe-train"})
	for i := range 6 {
		name := "moe-wait-" + string(rune('0'+i))
		q.snap.Pods = append(q.snap.Pods, QueuedPod{Namespace: "ml", Name: name, UID: "uid-" + name, Queue: QueueUnschedulable, Attempts: 3,
			InitialAttemptTimestamp: ago(10 * time.Minute), Timestamp: ago(30 * time.Second),
			UnschedulablePlugins: []string{"NodeResourcesFit", "TopologyPlacementGenerator"}, PodGroup: "moe-wait"})
	}
	q.details["ml/moe-wait-0"] = QueuedPodDetail{LastFailure: &Diagnosis{
		Time:     ago(30 * time.Second),
		Message:  "PodGroup ml/moe-wait: " + heldDecision("moe-wait", 0).Message,
		PodGroup: &PodGroupDiagnosis{},
	}}
	return opts
}

// TestLevelsGolden renders the decisions and a queued pod of groups with
// topology levels and compares them with testdata/*levels*.golden and
// queue_pod_held*.golden.
func TestLevelsGolden(t *testing.T) {
	runGolden(t, NewRouter(levelOptions()), []goldenCase{
		{"placements_levels", "/debug/placements/ml/moe-train?limit=1", http.StatusOK},
		{"placements_levels_held", "/debug/placements/ml/moe-wait", http.StatusOK},
		{"queue_pod_held", "/debug/queue/pods/ml/moe-wait-0", http.StatusOK},
	})
}

// errPlacements is a PlacementSource that fails.
type errPlacements struct{}

func (errPlacements) PlacementSnapshot(context.Context) (*PlacementSnapshot, error) {
	return nil, errors.New("recorder gone")
}

// TestQueuedPodPlacementLevel: a queued pod shows the level its group is
// held at when, and only when, the group's latest recorded cycle has one.
func TestQueuedPodPlacementLevel(t *testing.T) {
	held := blockKey + " (Required): no " + blockKey + " domain fits 6 pods: the best, " + blockName("b1") + ", fits 5"
	for _, tc := range []struct {
		name       string
		pod        string
		placements func(Options) PlacementSource
		wantCode   int
		want       string // placementLevel; empty: absent
	}{
		{name: "latest cycle held the group", pod: "ml/moe-wait-3", wantCode: http.StatusOK, want: held},
		{name: "an older cycle held it, the latest scheduled it", pod: "ml/moe-train-5", wantCode: http.StatusOK},
		{name: "group whose cycles have no levels", pod: "ml/llama-worker-3", wantCode: http.StatusOK},
		{name: "group without a recorded cycle", pod: "team-a/trainer-0", wantCode: http.StatusOK,
			placements: func(Options) PlacementSource { return &fakePlacements{snap: PlacementSnapshot{TakenAt: base()}} }},
		{name: "pod without a group", pod: "team-a/web-7d9f-x2x", wantCode: http.StatusOK,
			placements: func(Options) PlacementSource { return errPlacements{} }},
		{name: "no placement source", pod: "ml/moe-wait-3", wantCode: http.StatusOK,
			placements: func(Options) PlacementSource { return nil }},
		{name: "placement source fails", pod: "ml/moe-wait-3", wantCode: http.StatusInternalServerError,
			placements: func(Options) PlacementSource { return errPlacements{} }},
		{name: "the group's held cycle is not its latest", pod: "ml/moe-wait-3", wantCode: http.StatusOK,
			placements: func(o Options) PlacementSource {
				p := o.Placements.(*fakePlacements)
				later := p.snap.Decisions[0]
				later.Time, later.Result, later.HeldAt, later.Chosen = base(), ResultScheduled, "", blockName("b2")
				p.snap.Decisions = append([]PlacementDecision{later}, p.snap.Decisions...)
				return p
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := levelOptions()
			if tc.placements != nil {
				// A nil interface, not a typed nil, for "no source".
				if p := tc.placements(opts); p != nil {
					opts.Placements = p
				} else {
					opts.Placements = nil
				}
			}
			h := NewRouter(opts)
			rec := get(h, "/debug/queue/pods/"+tc.pod, "application/json")
			if rec.Code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", rec.Code, tc.wantCode, rec.Body)
			}
			if tc.wantCode != http.StatusOK {
				if !strings.Contains(rec.Body.String(), "reading the placement decisions: recorder gone") {
					t.Errorf("the error does not say which source failed: %s", rec.Body)
				}
				return
			}
			var doc map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			got, present := doc["placementLevel"]
			switch {
			case tc.want == "" && present:
				t.Errorf("placementLevel %q, want none", got)
			case tc.want != "" && got != tc.want:
				t.Errorf("placementLevel %v, want %q", got, tc.want)
			}
			text := get(h, "/debug/queue/pods/"+tc.pod, "").Body.String()
			if hasRow := strings.Contains(text, "\nPlacement level:"); hasRow != (tc.want != "") ||
				(tc.want != "" && !strings.Contains(text, tc.want)) {
				t.Errorf("text output, want the placement level %q:\n%s", tc.want, text)
			}
		})
	}
}

// TestPlacementLevelsText: the level columns and sections appear for a
// group with levels only, and say what the search found at each level.
func TestPlacementLevelsText(t *testing.T) {
	h := NewRouter(levelOptions())
	for _, tc := range []struct {
		target      string
		want, avoid []string
	}{
		{
			target: "/debug/placements/ml/moe-train?limit=1",
			want: []string{
				"Topology levels (2, narrowest first):",
				"  " + rackKey + "    preferred   4            2           2               0          NoFit    no " + rackKey + " domain fits 6 pods",
				"  " + blockKey + "   required    2            2           0               1          Chosen   <none>",
				"Pods per domain of the narrowest level (2 placements):",
				"  " + blockName("b1") + " *   " + rackName("b1", "r1") + "   4\n" +
					"                                      " + rackName("b1", "r2") + "   2\n",
			},
			avoid: []string{"Held at:"},
		},
		{
			target: "/debug/placements/ml/moe-wait",
			want:   []string{"Held at:            " + blockKey + " (Required): no " + blockKey + " domain fits 6 pods: the best, " + blockName("b1") + ", fits 5"},
		},
		{
			// A group without levels: the tables as before.
			target: "/debug/placements/ml/llama-train",
			want:   []string{"  NAME      NODES\n", "  PLACEMENT   FEASIBLE   PODS FIT"},
			avoid:  []string{"Topology levels", "LEVEL", "Pods per domain", "Held at:"},
		},
	} {
		body := get(h, tc.target, "").Body.String()
		for _, s := range tc.want {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s: the text lacks %q:\n%s", tc.target, s, body)
			}
		}
		for _, s := range tc.avoid {
			if strings.Contains(body, s) {
				t.Errorf("GET %s: the text has %q:\n%s", tc.target, s, body)
			}
		}
	}
}
