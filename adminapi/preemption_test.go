package adminapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// preemptingDecision is a cycle of ml/gpt-ft, a 4-pod gang of priority 1000
// with a rack constraint, that fit in no rack and preempted: rack=r1 fits
// once 3 of its 6 lower-priority pods are gone (one of them the last
// running member of the pod group ml/sweep, preempted with its group);
// rack=r2 does not fit even without its 2.
func preemptingDecision() PlacementDecision {
	victims := []Victim{
		{Pod: "team-b/batch-7", Node: "r1-n3", Priority: 100},
		{Pod: "team-b/batch-9", Node: "r1-n4", Priority: 100},
		{Pod: "ml/sweep-2", Node: "r1-n4", Priority: 500, PodGroup: "sweep"},
	}
	failed := func(name string) PodAssignment { return PodAssignment{Pod: name, Failure: "no placement fits"} }
	return PlacementDecision{
		Namespace: "ml", PodGroup: "gpt-ft", Time: ago(45 * time.Second), Duration: 63 * time.Millisecond,
		Result: ResultUnschedulable, Pods: 4, Required: 4, PodsFit: 2,
		Message:    "no placement fits (2 placements, 2 evaluated); best rack=r1: 2 of 4 pods fit, 4 needed",
		Placements: []GeneratedPlacement{{Name: "rack=r1", Nodes: 4}, {Name: "rack=r2", Nodes: 4}},
		Evaluations: []PlacementEvaluation{
			{Placement: "rack=r1", Reason: "2 of 4 pods fit, 4 needed", PodsFit: 2, Duration: 12 * time.Millisecond},
			{Placement: "rack=r2", Reason: "1 of 4 pods fit, 4 needed", PodsFit: 1, Duration: 10 * time.Millisecond},
		},
		Assignments: []PodAssignment{failed("gpt-ft-0"), failed("gpt-ft-1"), failed("gpt-ft-2"), failed("gpt-ft-3")},
		Preemption: &Preemption{
			Priority: 1000, Result: PreemptionPreempting,
			Message: "preempting 3 pods in rack=r1 (highest priority 500, 1 PodDisruptionBudget violated); 4 members nominated",
			Candidates: []PreemptionCandidate{
				{Placement: "rack=r1", PotentialVictims: 6, Fits: true, VictimCount: 3, HighestPriority: 500, PDBViolations: 1,
					Victims: victims},
				{Placement: "rack=r2", PotentialVictims: 2, Reason: "3 of 4 pods fit without its 2 pods of lower priority, 4 needed"},
			},
			Chosen:      "rack=r1",
			Victims:     victims,
			VictimCount: 3,
		},
	}
}

// preemptionOptions are podGroupOptions with ml/gpt-ft: its PodGroup, its
// four members waiting, and its latest cycle, preemptingDecision.
func preemptionOptions() Options {
	opts := podGroupOptions()
	p := opts.Placements.(*fakePlacements)
	p.snap.Decisions = append([]PlacementDecision{preemptingDecision()}, p.snap.Decisions...)
	q := opts.Queue.(*fakeQueue)
	for i := range 4 {
		name := "gpt-ft-" + string(rune('0'+i))
		q.snap.Pods = append(q.snap.Pods, QueuedPod{Namespace: "ml", Name: name, UID: "uid-" + name, Queue: QueueUnschedulable,
			Priority: 1000, Attempts: 1, InitialAttemptTimestamp: ago(45 * time.Second), Timestamp: ago(45 * time.Second),
			UnschedulablePlugins: []string{"NodeResourcesFit"}, PodGroup: "gpt-ft"})
	}
	groups := opts.PodGroups.(fakePodGroups)
	groups["ml/gpt-ft"] = PodGroupDetail{TakenAt: base(), Namespace: "ml", Name: "gpt-ft", Found: true, Policy: PolicyGang, MinCount: 4,
		Levels: []TopologyLevel{{Key: "topology.kspatch.io/rack", Mode: LevelRequired}},
		Condition: &GroupCondition{Status: "False", Reason: "Unschedulable", Message: "no placement fits (2 placements, 2 evaluated)",
			LastTransitionTime: ago(45 * time.Second)},
		Members: members("gpt-ft-0", "gpt-ft-1", "gpt-ft-2", "gpt-ft-3")}
	return opts
}

// TestPreemptionGolden renders a cycle that preempted: in its group's
// history, in the list of every group's cycles, and on its pod-group page,
// and compares them with testdata/*preemption*.golden and
// podgroup_preempting*.golden.
func TestPreemptionGolden(t *testing.T) {
	runGolden(t, NewRouter(preemptionOptions()), []goldenCase{
		{"placements_preemption", "/debug/placements/ml/gpt-ft", http.StatusOK},
		{"placements_preemption_list", "/debug/placements?limit=3", http.StatusOK},
		{"podgroup_preempting", "/debug/queue/podgroups/ml/gpt-ft", http.StatusOK},
	})
}

// TestPreemptionText: the preemption sections appear for a cycle that
// tried to preempt only, with the level column for a group with levels
// only, and say how many victims the scheduler did not keep.
func TestPreemptionText(t *testing.T) {
	for _, tc := range []struct {
		name        string
		change      func(*Preemption) // nil: the decision has no preemption
		target      string
		want, avoid []string
	}{
		{
			name:   "victims beyond those kept",
			target: "/debug/placements/ml/gpt-ft",
			change: func(p *Preemption) {
				p.VictimCount, p.VictimsOmitted = 67, 64
				p.Candidates[0].VictimCount = 67
			},
			want: []string{
				"  Victims:            67\n",
				"\nVictims chosen (67, in rack=r1):\n",
				"  ... and 64 more, not kept by the scheduler\n",
				// The candidate names its first three and counts the rest.
				"              ml/sweep-2@r1-n4       500        sweep\n" +
					"              ... and 64 more\n",
				"  rack=r1 *   6                   yes    67        500                1                <none>\n",
			},
			avoid: []string{"LEVEL"},
		},
		{
			name:   "candidates with a topology level",
			target: "/debug/placements/ml/gpt-ft",
			change: func(p *Preemption) {
				p.Candidates[0].Level = "topology.kspatch.io/rack"
			},
			want: []string{
				"  PLACEMENT   LEVEL                      POTENTIAL VICTIMS   FITS",
				"  rack=r1 *   topology.kspatch.io/rack   6                   yes",
				"  rack=r2     <none>                     2                   no",
			},
		},
		{
			name:   "nothing helps: no choice, no victims",
			target: "/debug/placements/ml/gpt-ft",
			change: func(p *Preemption) {
				*p = Preemption{Priority: 1000, Result: PreemptionNotHelpful, Message: "no placement fits even without every pod of lower priority",
					Candidates: []PreemptionCandidate{{Placement: "rack=r1", PotentialVictims: 6, Reason: "3 of 4 pods fit"}}}
			},
			want: []string{
				"  Result:             NotHelpful\n",
				"  Chosen placement:   <none>\n",
				"  rack=r1     6                   no     0         <none>             0                3 of 4 pods fit\n",
			},
			avoid: []string{"Victims chosen", "Victims per candidate", " *"},
		},
		{
			name:   "the list: a PREEMPTION column when a listed cycle preempted",
			target: "/debug/placements?limit=3",
			change: func(*Preemption) {},
			want: []string{"CHOSEN    SCORE    PREEMPTION\n", "  <none>    <none>   Preempting (3 victims)\n",
				"  <none>    <none>   <none>\n", "  rack=r1   172      <none>\n"},
		},
		{
			name:   "the list: none when no listed cycle preempted",
			target: "/debug/placements?limit=3",
			avoid:  []string{"PREEMPTION", "Preempting"},
		},
		{
			name:   "a cycle without preemption",
			target: "/debug/placements/ml/gpt-ft",
			avoid:  []string{"Preemption", "Victims", "PDB"},
		},
		{
			name:   "the pod-group page: one line",
			target: "/debug/queue/podgroups/ml/gpt-ft",
			change: func(*Preemption) {},
			want: []string{"\n  Message:      no placement fits (2 placements, 2 evaluated); best rack=r1: 2 of 4 pods fit, 4 needed\n" +
				"  Preemption:   Preempting: preempting 3 pods in rack=r1 (highest priority 500, 1 PodDisruptionBudget violated); 4 members nominated\n"},
		},
		{
			name:   "the pod-group page of a cycle without preemption",
			target: "/debug/queue/podgroups/ml/gpt-ft",
			avoid:  []string{"Preemption"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := preemptionOptions()
			d := &opts.Placements.(*fakePlacements).snap.Decisions[0]
			if tc.change != nil {
				tc.change(d.Preemption)
			} else {
				d.Preemption = nil
			}
			body := get(NewRouter(opts), tc.target, "").Body.String()
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
		})
	}
}

// TestPreemptionJSON checks the JSON fields a script reads, against values
// written here: the highest priority only where victims are left, lists
// never null, and no preemption field for a cycle without one.
func TestPreemptionJSON(t *testing.T) {
	type victim struct {
		Pod, Node, PodGroup string
		Priority            int32
	}
	var doc struct {
		Items []struct {
			PodGroup   string `json:"podGroup"`
			Preemption *struct {
				Priority   int32            `json:"priority"`
				Result     string           `json:"result"`
				Chosen     string           `json:"chosen"`
				Candidates []map[string]any `json:"candidates"`
				Victims    []victim         `json:"victims"`
				Omitted    int              `json:"victimsOmitted"`
				Count      int              `json:"victimCount"`
			} `json:"preemption"`
		} `json:"items"`
	}
	rec := get(NewRouter(preemptionOptions()), "/debug/placements?limit=2", "application/json")
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Items) != 2 || doc.Items[0].PodGroup != "gpt-ft" || doc.Items[1].PodGroup != "gpt-train" {
		t.Fatalf("items %+v, want gpt-ft then gpt-train", doc.Items)
	}
	if doc.Items[1].Preemption != nil {
		t.Errorf("gpt-train's cycle did not preempt, has %+v", doc.Items[1].Preemption)
	}
	p := doc.Items[0].Preemption
	if p == nil {
		t.Fatalf("gpt-ft's cycle has no preemption: %s", rec.Body)
	}
	if p.Priority != 1000 || p.Result != "Preempting" || p.Chosen != "rack=r1" || p.Count != 3 || p.Omitted != 0 {
		t.Errorf("preemption %+v, want priority 1000, Preempting, chosen rack=r1, 3 victims, none omitted", p)
	}
	wantVictims := []victim{{"team-b/batch-7", "r1-n3", "", 100}, {"team-b/batch-9", "r1-n4", "", 100}, {"ml/sweep-2", "r1-n4", "sweep", 500}}
	if len(p.Victims) != 3 || p.Victims[0] != wantVictims[0] || p.Victims[1] != wantVictims[1] || p.Victims[2] != wantVictims[2] {
		t.Errorf("victims %+v, want %+v", p.Victims, wantVictims)
	}
	if len(p.Candidates) != 2 {
		t.Fatalf("candidates %v, want 2", p.Candidates)
	}
	fits, not := p.Candidates[0], p.Candidates[1]
	for key, want := range map[string]any{"placement": "rack=r1", "potentialVictims": 6.0, "fits": true, "victimCount": 3.0,
		"highestPriority": 500.0, "pdbViolations": 1.0} {
		if fits[key] != want {
			t.Errorf("rack=r1 %s = %v, want %v", key, fits[key], want)
		}
	}
	if _, ok := fits["reason"]; ok {
		t.Errorf("the chosen candidate has a reason: %v", fits)
	}
	if _, ok := not["highestPriority"]; ok {
		t.Errorf("rack=r2 leaves no victim but has a highestPriority: %v", not)
	}
	if vs, ok := not["victims"].([]any); !ok || len(vs) != 0 {
		t.Errorf("rack=r2 victims %#v, want []", not["victims"])
	}
	if not["fits"] != false || not["victimCount"] != 0.0 || not["pdbViolations"] != 0.0 {
		t.Errorf("rack=r2 %v, want fits false, victimCount 0, pdbViolations 0", not)
	}
}
