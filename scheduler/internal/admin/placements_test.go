package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"

	"kspatch.dev/adminapi"
)

type fakeRecorder []podgroup.Decision

func (f fakeRecorder) Snapshot() []podgroup.Decision { return f }

func TestPlacementSnapshot(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	train := types.NamespacedName{Namespace: "ml", Name: "train"}
	pod := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ml", Name: name} }
	tests := []struct {
		name      string
		decisions fakeRecorder
		want      []adminapi.PlacementDecision
	}{
		{name: "empty", want: []adminapi.PlacementDecision{}},
		{
			name: "gang scheduled",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now.Add(-time.Minute), Duration: 3 * time.Millisecond, Result: podgroup.ResultScheduled,
				Message: "2 of 2 pods fit and were sent to binding (0 already scheduled, minCount 2)", MinCount: 2,
				Assignments: []podgroup.Assignment{{Pod: pod("w-0"), Node: "node-1"}, {Pod: pod("w-1"), Node: "node-2"}},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now.Add(-time.Minute), Duration: 3 * time.Millisecond, Result: adminapi.ResultScheduled,
				Message: "2 of 2 pods fit and were sent to binding (0 already scheduled, minCount 2)", Pods: 2, Required: 2,
				Assignments: []adminapi.PodAssignment{{Pod: "w-0", Node: "node-1"}, {Pod: "w-1", Node: "node-2"}},
			}},
		},
		{
			name: "gang unschedulable, then an error; newest first is kept",
			decisions: fakeRecorder{
				{
					PodGroup: train, Time: now.Add(-time.Second), Result: podgroup.ResultError, Message: "PodGroup ml/train does not exist",
					Assignments: []podgroup.Assignment{{Pod: pod("w-0"), Failure: "PodGroup ml/train does not exist"}},
				},
				{
					PodGroup: train, Time: now.Add(-time.Minute), Duration: time.Millisecond, Result: podgroup.ResultUnschedulable, MinCount: 3,
					Message: "1 of 3 pods fit, 3 needed",
					Assignments: []podgroup.Assignment{
						{Pod: pod("w-0"), Failure: "fit on node-1, undone: the group did not fit"},
						{Pod: pod("w-1"), Failure: "0/6 nodes are available: 6 Insufficient cpu."},
						{Pod: pod("w-2"), Failure: "not tried: the pods left could not reach minCount"},
					},
				},
			},
			want: []adminapi.PlacementDecision{
				{
					Namespace: "ml", PodGroup: "train", Time: now.Add(-time.Second), Result: adminapi.ResultError, Message: "PodGroup ml/train does not exist", Pods: 1,
					Assignments: []adminapi.PodAssignment{{Pod: "w-0", Failure: "PodGroup ml/train does not exist"}},
				},
				{
					Namespace: "ml", PodGroup: "train", Time: now.Add(-time.Minute), Duration: time.Millisecond, Result: adminapi.ResultUnschedulable,
					Message: "1 of 3 pods fit, 3 needed", Pods: 3, Required: 3,
					Assignments: []adminapi.PodAssignment{
						{Pod: "w-0", Failure: "fit on node-1, undone: the group did not fit"},
						{Pod: "w-1", Failure: "0/6 nodes are available: 6 Insufficient cpu."},
						{Pod: "w-2", Failure: "not tried: the pods left could not reach minCount"},
					},
				},
			},
		},
		{
			name: "a pod outside the group's namespace is named in full",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Result: podgroup.ResultScheduled,
				Assignments: []podgroup.Assignment{{Pod: types.NamespacedName{Namespace: "other", Name: "w-0"}, Node: "node-1"}},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: adminapi.ResultScheduled, Pods: 1,
				Assignments: []adminapi.PodAssignment{{Pod: "other/w-0", Node: "node-1"}},
			}},
		},
		{
			name: "rack gang: placements generated, evaluated with scores, one chosen",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Duration: 9 * time.Millisecond, Result: podgroup.ResultScheduled, MinCount: 2,
				Message: "placement rack=r2 chosen of 3 (2 feasible)",
				Placements: []podgroup.GeneratedPlacement{
					{Name: "rack=r1", Nodes: 2}, {Name: "rack=r2", Nodes: 2}, {Name: "rack=r3", Nodes: 1},
				},
				Evaluations: []podgroup.PlacementEvaluation{
					{
						Placement: "rack=r1", Feasible: true, PodsFit: 2, Duration: 2 * time.Millisecond,
						Scores:     []podgroup.PluginScore{{Plugin: "PodGroupPodsCount", Score: 100}, {Plugin: "NodeResourcesFit", Score: 40}},
						TotalScore: 140,
					},
					{
						Placement: "rack=r2", Feasible: true, PodsFit: 2, Duration: 3 * time.Millisecond,
						Scores:     []podgroup.PluginScore{{Plugin: "PodGroupPodsCount", Score: 100}, {Plugin: "NodeResourcesFit", Score: 75}},
						TotalScore: 175,
					},
					{Placement: "rack=r3", Reason: "1 of 2 pods fit, 2 needed", PodsFit: 1, Duration: time.Millisecond},
				},
				Chosen:      "rack=r2",
				Assignments: []podgroup.Assignment{{Pod: pod("w-0"), Node: "node-3"}, {Pod: pod("w-1"), Node: "node-4"}},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Duration: 9 * time.Millisecond, Result: adminapi.ResultScheduled,
				Message: "placement rack=r2 chosen of 3 (2 feasible)", Pods: 2, Required: 2,
				Placements: []adminapi.GeneratedPlacement{
					{Name: "rack=r1", Nodes: 2}, {Name: "rack=r2", Nodes: 2}, {Name: "rack=r3", Nodes: 1},
				},
				Evaluations: []adminapi.PlacementEvaluation{
					{
						Placement: "rack=r1", Feasible: true, PodsFit: 2, Duration: 2 * time.Millisecond,
						Scores:     []adminapi.PluginScore{{Plugin: "PodGroupPodsCount", Score: 100}, {Plugin: "NodeResourcesFit", Score: 40}},
						TotalScore: 140,
					},
					{
						Placement: "rack=r2", Feasible: true, PodsFit: 2, Duration: 3 * time.Millisecond,
						Scores:     []adminapi.PluginScore{{Plugin: "PodGroupPodsCount", Score: 100}, {Plugin: "NodeResourcesFit", Score: 75}},
						TotalScore: 175,
					},
					{Placement: "rack=r3", Reason: "1 of 2 pods fit, 2 needed", PodsFit: 1, Duration: time.Millisecond},
				},
				Chosen:      "rack=r2",
				Assignments: []adminapi.PodAssignment{{Pod: "w-0", Node: "node-3"}, {Pod: "w-1", Node: "node-4"}},
			}},
		},
		{
			name: "rack gang fits in no placement: evaluations without scores, nothing chosen",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Result: podgroup.ResultUnschedulable, MinCount: 3,
				Message:    "no placement fits: 2 evaluated, best rack=r1 (2 of 3 pods fit)",
				Placements: []podgroup.GeneratedPlacement{{Name: "rack=r1", Nodes: 2}, {Name: "rack=r2", Nodes: 2}},
				Evaluations: []podgroup.PlacementEvaluation{
					{Placement: "rack=r1", Reason: "2 of 3 pods fit, 3 needed", PodsFit: 2, FirstUnfit: &podgroup.UnfitPod{
						Pod: "w-2", Requests: []podgroup.ResourceAmount{{Name: "cpu", Quantity: "8"}},
						Rejections: []podgroup.PluginRejection{{Plugin: "NodeResourcesFit", Nodes: 2, Reasons: []podgroup.ReasonCount{{Reason: "Insufficient cpu", Nodes: 2}}}},
					}},
					{Placement: "rack=r2", Reason: "1 of 3 pods fit, 3 needed", PodsFit: 1},
				},
				RoomLeftOut: []podgroup.PlacementRoom{{Placement: "rack=r3", Pods: 1}}, RoomLeftOutCount: 4,
				RoomPerPod: []podgroup.ResourceAmount{{Name: "cpu", Quantity: "8"}, {Name: "memory", Quantity: "16Gi"}},
				PodsFit:    2, FirstUnfit: &podgroup.UnfitPod{Pod: "w-2"},
				Assignments: []podgroup.Assignment{{Pod: pod("w-0"), Failure: "no placement fits the group"}},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: adminapi.ResultUnschedulable,
				Message: "no placement fits: 2 evaluated, best rack=r1 (2 of 3 pods fit)", Pods: 1, Required: 3,
				Placements: []adminapi.GeneratedPlacement{{Name: "rack=r1", Nodes: 2}, {Name: "rack=r2", Nodes: 2}},
				Evaluations: []adminapi.PlacementEvaluation{
					{Placement: "rack=r1", Reason: "2 of 3 pods fit, 3 needed", PodsFit: 2, FirstUnfit: &adminapi.UnfitPod{
						Pod: "w-2", Requests: []adminapi.ResourceAmount{{Name: "cpu", Quantity: "8"}},
						Rejections: []adminapi.PluginDiagnosis{{Plugin: "NodeResourcesFit", Nodes: 2, Reasons: []adminapi.ReasonCount{{Reason: "Insufficient cpu", Count: 2}}}},
					}},
					{Placement: "rack=r2", Reason: "1 of 3 pods fit, 3 needed", PodsFit: 1},
				},
				RoomLeftOut: []adminapi.PlacementRoom{{Placement: "rack=r3", Pods: 1}}, RoomLeftOutCount: 4,
				RoomPerPod: []adminapi.ResourceAmount{{Name: "cpu", Quantity: "8"}, {Name: "memory", Quantity: "16Gi"}},
				PodsFit:    2, FirstUnfit: &adminapi.UnfitPod{Pod: "w-2"},
				Assignments: []adminapi.PodAssignment{{Pod: "w-0", Failure: "no placement fits the group"}},
			}},
		},
		{
			name: "required block, preferred rack: no rack fits, a block does with the pods over two racks",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Result: podgroup.ResultScheduled, MinCount: 6, Chosen: "block=b1",
				Levels: []podgroup.LevelRecord{
					{Key: "rack", Mode: "Preferred", Placements: 3, Evaluated: 2, RoomLeftOut: 1, Result: podgroup.LevelFailed,
						Reason: "no rack domain fits 6 pods: the best, block=b1,rack=r1, fits 4"},
					{Key: "block", Mode: "Required", Placements: 2, Evaluated: 1, Feasible: 1, Result: podgroup.LevelChosen},
					{Key: podgroup.LevelCluster, Result: podgroup.LevelNotTried},
				},
				Placements: []podgroup.GeneratedPlacement{
					{Name: "block=b1,rack=r1", Nodes: 4, Level: "rack"}, {Name: "block=b1", Nodes: 8, Level: "block"},
				},
				Evaluations: []podgroup.PlacementEvaluation{
					{Placement: "block=b1,rack=r1", Level: "rack", Reason: "4 of 6 pods fit, 6 needed", PodsFit: 4},
					{Placement: "block=b1", Level: "block", Feasible: true, PodsFit: 6, TotalScore: 90,
						Domains: []podgroup.DomainPods{{Domain: "block=b1,rack=r1", Pods: 4}, {Domain: "block=b1,rack=r2", Pods: 2}}},
				},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: adminapi.ResultScheduled, Required: 6, Chosen: "block=b1",
				Assignments: []adminapi.PodAssignment{},
				Levels: []adminapi.PlacementLevel{
					{Key: "rack", Mode: adminapi.LevelPreferred, Placements: 3, Evaluated: 2, RoomLeftOut: 1, Result: adminapi.LevelNoFit,
						Reason: "no rack domain fits 6 pods: the best, block=b1,rack=r1, fits 4"},
					{Key: "block", Mode: adminapi.LevelRequired, Placements: 2, Evaluated: 1, Feasible: 1, Result: adminapi.LevelChosen},
					{Key: adminapi.LevelCluster, Result: adminapi.LevelNotTried},
				},
				Placements: []adminapi.GeneratedPlacement{
					{Name: "block=b1,rack=r1", Nodes: 4, Level: "rack"}, {Name: "block=b1", Nodes: 8, Level: "block"},
				},
				Evaluations: []adminapi.PlacementEvaluation{
					{Placement: "block=b1,rack=r1", Level: "rack", Reason: "4 of 6 pods fit, 6 needed", PodsFit: 4},
					{Placement: "block=b1", Level: "block", Feasible: true, PodsFit: 6, TotalScore: 90,
						Domains: []adminapi.DomainPods{{Domain: "block=b1,rack=r1", Pods: 4}, {Domain: "block=b1,rack=r2", Pods: 2}}},
				},
			}},
		},
		{
			name: "preferred levels only: held at the cluster level",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Result: podgroup.ResultUnschedulable, MinCount: 6,
				HeldAt: "no cluster domain fits 6 pods: the best, cluster, fits 5",
				Levels: []podgroup.LevelRecord{
					{Key: "rack", Mode: "Preferred", Placements: 1, Evaluated: 1, Result: podgroup.LevelFailed, Reason: "no rack domain fits 6 pods: the best, rack=r1, fits 3"},
					{Key: podgroup.LevelCluster, Placements: 1, Evaluated: 1, Result: podgroup.LevelFailed, Reason: "no cluster domain fits 6 pods: the best, cluster, fits 5"},
				},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: adminapi.ResultUnschedulable, Required: 6,
				Assignments: []adminapi.PodAssignment{},
				HeldAt:      "no cluster domain fits 6 pods: the best, cluster, fits 5",
				Levels: []adminapi.PlacementLevel{
					{Key: "rack", Mode: adminapi.LevelPreferred, Placements: 1, Evaluated: 1, Result: adminapi.LevelNoFit, Reason: "no rack domain fits 6 pods: the best, rack=r1, fits 3"},
					{Key: adminapi.LevelCluster, Placements: 1, Evaluated: 1, Result: adminapi.LevelNoFit, Reason: "no cluster domain fits 6 pods: the best, cluster, fits 5"},
				},
			}},
		},
		{
			name: "gang preempts in a rack: two candidates, victims in other namespaces and of a pod group, some not kept",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Result: podgroup.ResultUnschedulable, MinCount: 4, PodsFit: 2,
				Message:    "no placement fits (2 placements, 2 evaluated); best rack=r1: 2 of 4 pods fit, 4 needed",
				Placements: []podgroup.GeneratedPlacement{{Name: "rack=r1", Nodes: 4, Level: "rack"}, {Name: "rack=r2", Nodes: 4, Level: "rack"}},
				Preemption: &podgroup.PreemptionRecord{
					Priority: 1000, Result: podgroup.PreemptionPreempting,
					Message: "preempting 67 pods in rack=r1 (highest priority 500, 1 PodDisruptionBudget violated)",
					Candidates: []podgroup.PreemptionCandidate{
						{Placement: "rack=r1", Level: "rack", PotentialVictims: 70, Fits: true, VictimCount: 67, HighestPriority: 500, PDBViolations: 1,
							Victims: []podgroup.Victim{
								{Pod: types.NamespacedName{Namespace: "team-b", Name: "batch-7"}, Node: "r1-n3", Priority: 100},
								{Pod: pod("sweep-2"), Node: "r1-n4", Priority: 500, PodGroup: "sweep"},
							}},
						{Placement: "rack=r2", Level: "rack", PotentialVictims: 2, Reason: "3 of 4 pods fit without its 2 pods of lower priority, 4 needed"},
					},
					Chosen: "rack=r1",
					Victims: []podgroup.Victim{
						{Pod: types.NamespacedName{Namespace: "team-b", Name: "batch-7"}, Node: "r1-n3", Priority: 100},
						{Pod: types.NamespacedName{Namespace: "team-c", Name: "etl-1"}, Node: "r1-n1", Priority: -10},
						{Pod: pod("sweep-2"), Node: "r1-n4", Priority: 500, PodGroup: "sweep"},
					},
					VictimsOmitted: 64,
					VictimCount:    67,
				},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: adminapi.ResultUnschedulable, Required: 4, PodsFit: 2,
				Message:     "no placement fits (2 placements, 2 evaluated); best rack=r1: 2 of 4 pods fit, 4 needed",
				Assignments: []adminapi.PodAssignment{},
				Placements:  []adminapi.GeneratedPlacement{{Name: "rack=r1", Nodes: 4, Level: "rack"}, {Name: "rack=r2", Nodes: 4, Level: "rack"}},
				Preemption: &adminapi.Preemption{
					Priority: 1000, Result: "Preempting",
					Message: "preempting 67 pods in rack=r1 (highest priority 500, 1 PodDisruptionBudget violated)",
					Candidates: []adminapi.PreemptionCandidate{
						{Placement: "rack=r1", Level: "rack", PotentialVictims: 70, Fits: true, VictimCount: 67, HighestPriority: 500, PDBViolations: 1,
							Victims: []adminapi.Victim{
								{Pod: "team-b/batch-7", Node: "r1-n3", Priority: 100},
								{Pod: "ml/sweep-2", Node: "r1-n4", Priority: 500, PodGroup: "sweep"},
							}},
						{Placement: "rack=r2", Level: "rack", PotentialVictims: 2, Reason: "3 of 4 pods fit without its 2 pods of lower priority, 4 needed"},
					},
					Chosen: "rack=r1",
					Victims: []adminapi.Victim{
						{Pod: "team-b/batch-7", Node: "r1-n3", Priority: 100},
						{Pod: "team-c/etl-1", Node: "r1-n1", Priority: -10},
						{Pod: "ml/sweep-2", Node: "r1-n4", Priority: 500, PodGroup: "sweep"},
					},
					VictimsOmitted: 64,
					VictimCount:    67,
				},
			}},
		},
		{
			name: "gang without topology: preemption does not help, no candidate named a victim",
			decisions: fakeRecorder{{
				PodGroup: train, Time: now, Result: podgroup.ResultUnschedulable, MinCount: 8,
				Preemption: &podgroup.PreemptionRecord{Priority: 200, Result: podgroup.PreemptionNotHelpful,
					Message:    "no placement fits even without every pod of lower priority",
					Candidates: []podgroup.PreemptionCandidate{{Placement: "cluster", PotentialVictims: 12, Reason: "6 of 8 pods fit"}}},
			}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: adminapi.ResultUnschedulable, Required: 8,
				Assignments: []adminapi.PodAssignment{},
				Preemption: &adminapi.Preemption{Priority: 200, Result: "NotHelpful",
					Message:    "no placement fits even without every pod of lower priority",
					Candidates: []adminapi.PreemptionCandidate{{Placement: "cluster", PotentialVictims: 12, Reason: "6 of 8 pods fit"}}},
			}},
		},
		{
			name: "every preemption result, and one the adapter does not know",
			decisions: fakeRecorder{
				{PodGroup: train, Time: now, Preemption: &podgroup.PreemptionRecord{Result: podgroup.PreemptionWaiting}},
				{PodGroup: train, Time: now, Preemption: &podgroup.PreemptionRecord{Result: podgroup.PreemptionNotAllowed}},
				{PodGroup: train, Time: now, Preemption: &podgroup.PreemptionRecord{Result: podgroup.PreemptionError}},
				{PodGroup: train, Time: now, Preemption: &podgroup.PreemptionRecord{Result: "Later"}},
				{PodGroup: train, Time: now},
			},
			want: []adminapi.PlacementDecision{
				{Namespace: "ml", PodGroup: "train", Time: now, Assignments: []adminapi.PodAssignment{}, Preemption: &adminapi.Preemption{Result: "Waiting"}},
				{Namespace: "ml", PodGroup: "train", Time: now, Assignments: []adminapi.PodAssignment{}, Preemption: &adminapi.Preemption{Result: "NotAllowed"}},
				{Namespace: "ml", PodGroup: "train", Time: now, Assignments: []adminapi.PodAssignment{}, Preemption: &adminapi.Preemption{Result: "Error"}},
				{Namespace: "ml", PodGroup: "train", Time: now, Assignments: []adminapi.PodAssignment{}, Preemption: &adminapi.Preemption{Result: "Later"}},
				{Namespace: "ml", PodGroup: "train", Time: now, Assignments: []adminapi.PodAssignment{}},
			},
		},
		{
			name:      "a decision without assignments",
			decisions: fakeRecorder{{PodGroup: train, Time: now, Result: "Unknown"}},
			want: []adminapi.PlacementDecision{{
				Namespace: "ml", PodGroup: "train", Time: now, Result: "Unknown", Assignments: []adminapi.PodAssignment{},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &PlacementSource{Recorder: tc.decisions, Now: func() time.Time { return now }}
			snap, err := src.PlacementSnapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !snap.TakenAt.Equal(now) {
				t.Errorf("TakenAt %v, want %v", snap.TakenAt, now)
			}
			if diff := cmp.Diff(tc.want, snap.Decisions); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlacementSnapshotNoRecorder(t *testing.T) {
	if _, err := (&PlacementSource{}).PlacementSnapshot(context.Background()); err == nil {
		t.Error("no error without a recorder")
	}
}

// TestPlacementsFromRecorder serves a real recorder through the admin API's
// router: the list shows the newest cycle first, and the per-group route
// only that group's cycles with their assignments.
func TestPlacementsFromRecorder(t *testing.T) {
	start := time.Now().Add(-time.Minute)
	r := podgroup.NewRecorder(2)
	r.Record(podgroup.Decision{PodGroup: types.NamespacedName{Namespace: "ml", Name: "old"}, Time: start, Result: podgroup.ResultScheduled})
	r.Record(podgroup.Decision{
		PodGroup: types.NamespacedName{Namespace: "ml", Name: "train"}, Time: start.Add(time.Second), Duration: 2 * time.Millisecond,
		Result: podgroup.ResultUnschedulable, Message: "1 of 2 pods fit, 2 needed",
		Assignments: []podgroup.Assignment{
			{Pod: types.NamespacedName{Namespace: "ml", Name: "w-0"}, Failure: "fit on node-1, undone: the group did not fit"},
			{Pod: types.NamespacedName{Namespace: "ml", Name: "w-1"}, Failure: "0/6 nodes are available"},
		},
	})
	// The ring keeps two: the first is dropped.
	r.Record(podgroup.Decision{
		PodGroup: types.NamespacedName{Namespace: "ml", Name: "train"}, Time: start.Add(2 * time.Second), Result: podgroup.ResultScheduled,
		Placements: []podgroup.GeneratedPlacement{{Name: "rack=r1", Nodes: 2}, {Name: "rack=r2", Nodes: 2}},
		Evaluations: []podgroup.PlacementEvaluation{
			{Placement: "rack=r1", Feasible: true, PodsFit: 2, Scores: []podgroup.PluginScore{{Plugin: "PodGroupPodsCount", Score: 100}}, TotalScore: 100},
			{Placement: "rack=r2", Reason: "1 of 2 pods fit, 2 needed", PodsFit: 1},
		},
		Chosen: "rack=r1",
		Assignments: []podgroup.Assignment{
			{Pod: types.NamespacedName{Namespace: "ml", Name: "w-0"}, Node: "node-1"},
			{Pod: types.NamespacedName{Namespace: "ml", Name: "w-1"}, Node: "node-2"},
		},
	})
	router := adminapi.NewRouter(adminapi.Options{Placements: &PlacementSource{Recorder: r}})

	var list struct {
		Kind     string `json:"kind"`
		Recorded int    `json:"recorded"`
		Items    []struct {
			Namespace, PodGroup, Result string
			Pods                        int
			Placements                  []struct{ Name string }
			Evaluations                 []struct {
				Placement  string
				Feasible   bool
				TotalScore int64
			}
			Chosen      string
			Assignments []struct{ Pod, Node, Failure string }
		} `json:"items"`
	}
	rec := serve(router, "/debug/placements?output=json")
	if rec.Code != http.StatusOK {
		t.Fatalf("/debug/placements: HTTP %d: %s", rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Namespace+"/"+it.PodGroup+" "+it.Result)
	}
	if diff := cmp.Diff([]string{"ml/train Scheduled", "ml/train Unschedulable"}, got); diff != "" {
		t.Errorf("/debug/placements items (-want +got):\n%s", diff)
	}
	if list.Kind != "PlacementDecisionList" || list.Recorded != 2 {
		t.Errorf("kind %q, recorded %d; want PlacementDecisionList, 2", list.Kind, list.Recorded)
	}
	if it := list.Items[0]; it.Pods != 2 || len(it.Assignments) != 2 || it.Assignments[1].Pod != "w-1" || it.Assignments[1].Node != "node-2" {
		t.Errorf("newest decision %+v, want 2 pods, w-1 on node-2", it)
	}
	if it := list.Items[0]; it.Chosen != "rack=r1" || len(it.Placements) != 2 || len(it.Evaluations) != 2 ||
		!it.Evaluations[0].Feasible || it.Evaluations[0].TotalScore != 100 || it.Evaluations[1].Feasible {
		t.Errorf("newest decision %+v, want rack=r1 chosen of 2 placements, only it feasible (score 100)", it)
	}
	if it := list.Items[1]; it.Chosen != "" || len(it.Placements) != 0 || len(it.Evaluations) != 0 {
		t.Errorf("decision without a topology constraint %+v, want no placements, evaluations or choice", it)
	}

	rec = serve(router, "/debug/placements/ml/train")
	if rec.Code != http.StatusOK {
		t.Fatalf("/debug/placements/ml/train: HTTP %d: %s", rec.Code, rec.Body)
	}
	for _, want := range []string{"Pod group:", "ml/train", "Unschedulable", "w-0", "fit on node-1, undone: the group did not fit", "node-2",
		"Chosen placement:", "rack=r1 *", "PodGroupPodsCount=100", "1 of 2 pods fit, 2 needed"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/debug/placements/ml/train does not show %q:\n%s", want, rec.Body)
		}
	}
	if rec := serve(router, "/debug/placements/ml/old"); rec.Code != http.StatusNotFound {
		t.Errorf("/debug/placements/ml/old (dropped from the ring): HTTP %d, want 404", rec.Code)
	}
}

// TestPlacementLevelOfQueuedPod serves a queued gang member and a real
// recorder through the router, wired as the scheduler command wires them:
// the pod shows the level its group is held at while, and only while, the
// group's newest cycle holds it there.
func TestPlacementLevelOfQueuedPod(t *testing.T) {
	start := time.Now().Add(-time.Minute)
	moe := types.NamespacedName{Namespace: "ml", Name: "moe"}
	member := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "moe-0", UID: "u-moe-0", Labels: map[string]string{pgapi.PodGroupLabel: "moe"}}}
	r := podgroup.NewRecorder(0)
	router := adminapi.NewRouter(adminapi.Options{
		Queue:      &QueueSource{Queue: &fakeQueue{snap: queue.Snapshot{Pods: []queue.PodSnapshot{{Pod: member, Queue: queue.SnapshotUnschedulable}}}}},
		Placements: &PlacementSource{Recorder: r},
	})
	const held = "no topology.kubernetes.io/block domain fits 6 pods: the best, topology.kubernetes.io/block=b1, fits 5"
	for i, step := range []struct {
		name   string
		record *podgroup.Decision // recorded before the request; nil: none
		want   string
	}{
		{name: "no cycle recorded yet"},
		{name: "another group held", record: &podgroup.Decision{PodGroup: types.NamespacedName{Namespace: "ml", Name: "other"},
			Result: podgroup.ResultUnschedulable, HeldAt: "no rack domain fits 2 pods"}},
		{name: "held at the block level", record: &podgroup.Decision{PodGroup: moe, Result: podgroup.ResultUnschedulable, HeldAt: held,
			Levels: []podgroup.LevelRecord{{Key: "topology.kubernetes.io/block", Mode: "Required", Result: podgroup.LevelFailed, Reason: held}}},
			want: held},
		{name: "a newer cycle chose a placement", record: &podgroup.Decision{PodGroup: moe, Result: podgroup.ResultScheduled, Chosen: "topology.kubernetes.io/block=b2",
			Levels: []podgroup.LevelRecord{{Key: "topology.kubernetes.io/block", Mode: "Required", Result: podgroup.LevelChosen}}}},
	} {
		t.Run(step.name, func(t *testing.T) {
			if d := step.record; d != nil {
				d.Time = start.Add(time.Duration(i) * time.Second)
				r.Record(*d)
			}
			rec := serve(router, "/debug/queue/pods/ml/moe-0?output=json")
			if rec.Code != http.StatusOK {
				t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
			}
			var doc struct {
				PlacementLevel *string `json:"placementLevel"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			switch {
			case step.want == "" && doc.PlacementLevel != nil:
				t.Errorf("placementLevel %q, want none", *doc.PlacementLevel)
			case step.want != "" && (doc.PlacementLevel == nil || *doc.PlacementLevel != step.want):
				t.Errorf("placementLevel %v, want %q: %s", doc.PlacementLevel, step.want, rec.Body)
			}
		})
	}
}

// TestPreemptionFromRecorder serves a real recorder through the router: the
// preemption a cycle recorded reaches /debug/placements (JSON and text) and
// the pod-group page's last cycle, with the values recorded.
func TestPreemptionFromRecorder(t *testing.T) {
	r := podgroup.NewRecorder(0)
	r.Record(podgroup.Decision{
		PodGroup: types.NamespacedName{Namespace: "ml", Name: "gpt"}, Time: time.Now().Add(-time.Second),
		Result: podgroup.ResultUnschedulable, MinCount: 2,
		Preemption: &podgroup.PreemptionRecord{
			Priority: 1000, Result: podgroup.PreemptionPreempting, Message: "preempting 2 pods in rack=r1",
			Candidates: []podgroup.PreemptionCandidate{
				{Placement: "rack=r1", PotentialVictims: 3, Fits: true, VictimCount: 2, HighestPriority: 10, Victims: []podgroup.Victim{
					{Pod: types.NamespacedName{Namespace: "batch", Name: "b-0"}, Node: "n1", Priority: 10},
					{Pod: types.NamespacedName{Namespace: "batch", Name: "b-1"}, Node: "n2", Priority: 5, PodGroup: "etl"},
				}},
				{Placement: "rack=r2", PotentialVictims: 1, Reason: "1 of 2 pods fit without its 1 pod of lower priority, 2 needed"},
			},
			Chosen: "rack=r1",
			Victims: []podgroup.Victim{
				{Pod: types.NamespacedName{Namespace: "batch", Name: "b-0"}, Node: "n1", Priority: 10},
				{Pod: types.NamespacedName{Namespace: "batch", Name: "b-1"}, Node: "n2", Priority: 5, PodGroup: "etl"},
			},
			VictimCount: 2,
		},
	})
	router := adminapi.NewRouter(adminapi.Options{Placements: &PlacementSource{Recorder: r}})

	rec := serve(router, "/debug/placements/ml/gpt?output=json")
	if rec.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	var list struct {
		Items []struct {
			Preemption struct {
				Priority   int32  `json:"priority"`
				Result     string `json:"result"`
				Message    string `json:"message"`
				Chosen     string `json:"chosen"`
				Candidates []struct {
					Placement        string `json:"placement"`
					PotentialVictims int    `json:"potentialVictims"`
					Fits             bool   `json:"fits"`
					VictimCount      int    `json:"victimCount"`
					HighestPriority  *int32 `json:"highestPriority"`
					Victims          []struct {
						Pod, Node, PodGroup string
						Priority            int32
					} `json:"victims"`
					Reason string `json:"reason"`
				} `json:"candidates"`
				Victims []struct {
					Pod, Node, PodGroup string
					Priority            int32
				} `json:"victims"`
				VictimCount int `json:"victimCount"`
			} `json:"preemption"`
		} `json:"items"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d items, want 1: %s", len(list.Items), rec.Body)
	}
	p := list.Items[0].Preemption
	if p.Priority != 1000 || p.Result != "Preempting" || p.Message != "preempting 2 pods in rack=r1" || p.Chosen != "rack=r1" || p.VictimCount != 2 {
		t.Errorf("preemption %+v, want priority 1000, Preempting, its message, rack=r1 chosen, 2 victims", p)
	}
	if len(p.Victims) != 2 || p.Victims[1].Pod != "batch/b-1" || p.Victims[1].Node != "n2" || p.Victims[1].Priority != 5 || p.Victims[1].PodGroup != "etl" {
		t.Errorf("victims %+v, want batch/b-0 on n1, batch/b-1 on n2 (priority 5, group etl)", p.Victims)
	}
	if len(p.Candidates) != 2 {
		t.Fatalf("candidates %+v, want 2", p.Candidates)
	}
	if c := p.Candidates[0]; c.Placement != "rack=r1" || !c.Fits || c.PotentialVictims != 3 || c.VictimCount != 2 ||
		c.HighestPriority == nil || *c.HighestPriority != 10 || len(c.Victims) != 2 || c.Victims[0].Pod != "batch/b-0" {
		t.Errorf("candidate rack=r1 %+v, want it fits, 3 potential victims, 2 left of priority up to 10, batch/b-0 first", c)
	}
	if c := p.Candidates[1]; c.Placement != "rack=r2" || c.Fits || c.HighestPriority != nil || len(c.Victims) != 0 ||
		c.Reason != "1 of 2 pods fit without its 1 pod of lower priority, 2 needed" {
		t.Errorf("candidate rack=r2 %+v, want no fit, no victims, its reason", c)
	}

	text := serve(router, "/debug/placements/ml/gpt").Body.String()
	for _, want := range []string{"  Priority:           1000 (only pods of lower priority may be victims)\n", "  Result:             Preempting\n",
		"  rack=r1 *   batch/b-0@n1   10         <none>\n", "Victims chosen (2, in rack=r1):\n", "  batch/b-1@n2   5          etl\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("/debug/placements/ml/gpt lacks %q:\n%s", want, text)
		}
	}

	// The pod-group page needs a PodGroup source, or any source that
	// knows the group: the recorded cycle is enough.
	router = adminapi.NewRouter(adminapi.Options{Placements: &PlacementSource{Recorder: r}, PodGroups: &PodGroupSource{Groups: &fakeGroups{}}})
	page := serve(router, "/debug/queue/podgroups/ml/gpt").Body.String()
	if want := "  Preemption:   Preempting: preempting 2 pods in rack=r1\n"; !strings.Contains(page, want) {
		t.Errorf("the pod-group page lacks %q:\n%s", want, page)
	}
}

// TestVictimGroupNames: a victim's pod group, which the scheduler records
// as namespace/name (a member preempted on its own or with its whole
// group), is shown by name, in the victim's namespace, as adminapi.Victim
// says; a pod without a group shows none.
func TestVictimGroupNames(t *testing.T) {
	for _, tc := range []struct {
		name     string
		recorded podgroup.Victim
		want     string
	}{
		{"a member", podgroup.Victim{Pod: types.NamespacedName{Namespace: "ml", Name: "sweep-2"}, PodGroup: "ml/sweep"}, "sweep"},
		{"no group", podgroup.Victim{Pod: types.NamespacedName{Namespace: "team-b", Name: "batch-7"}}, ""},
		{"by name already", podgroup.Victim{Pod: types.NamespacedName{Namespace: "batch", Name: "b-1"}, PodGroup: "etl"}, "etl"},
		{"a group named like the namespace", podgroup.Victim{Pod: types.NamespacedName{Namespace: "ml", Name: "ml-0"}, PodGroup: "ml/ml"}, "ml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := victims([]podgroup.Victim{tc.recorded})
			if len(got) != 1 || got[0].PodGroup != tc.want || got[0].Pod != tc.recorded.Pod.String() {
				t.Errorf("victims(%+v) = %+v, want pod %s in group %q", tc.recorded, got, tc.recorded.Pod, tc.want)
			}
		})
	}
}
