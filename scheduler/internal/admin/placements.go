package admin

import (
	"context"
	"errors"
	"strings"
	"time"

	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"

	"kspatch.dev/adminapi"
)

// PlacementSnapshotter is what the record of recent pod-group cycles offers
// for debugging (podgroup.Recorder.Snapshot, added by the kspatch series).
type PlacementSnapshotter interface {
	Snapshot() []podgroup.Decision
}

// PlacementSource serves /debug/placements from the scheduler's record of
// recent pod-group cycles (GangScheduling). Every decision has the pod
// assignments; a group with a topology constraint
// (TopologyAwareWorkloadScheduling) also has the placements generated and
// evaluated, and the one chosen; a group with a Preferred topology level
// (PodGroupTopologyLevels), what the search found at each level; a gang
// that did not fit and tried to preempt (WorkloadAwarePreemption), the
// placements it tried and the victims it chose.
type PlacementSource struct {
	Recorder PlacementSnapshotter
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

var _ adminapi.PlacementSource = &PlacementSource{}

var errNoRecorder = errors.New("the scheduler records no pod-group cycles")

// PlacementSnapshot implements adminapi.PlacementSource. The decisions keep
// the recorder's order, newest first.
func (s *PlacementSource) PlacementSnapshot(ctx context.Context) (*adminapi.PlacementSnapshot, error) {
	if s.Recorder == nil {
		return nil, errNoRecorder
	}
	decisions := s.Recorder.Snapshot()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	snap := &adminapi.PlacementSnapshot{TakenAt: now(), Decisions: make([]adminapi.PlacementDecision, 0, len(decisions))}
	for i := range decisions {
		snap.Decisions = append(snap.Decisions, placementDecision(&decisions[i]))
	}
	return snap, nil
}

func placementDecision(d *podgroup.Decision) adminapi.PlacementDecision {
	out := adminapi.PlacementDecision{
		Namespace:         d.PodGroup.Namespace,
		PodGroup:          d.PodGroup.Name,
		Time:              d.Time,
		Duration:          d.Duration,
		Result:            placementResult(d.Result),
		Message:           d.Message,
		Pods:              len(d.Assignments),
		Placements:        generatedPlacements(d.Placements),
		PlacementsOmitted: d.PlacementsOmitted,
		Evaluations:       placementEvaluations(d.Evaluations),
		Chosen:            d.Chosen,
		Assignments:       make([]adminapi.PodAssignment, len(d.Assignments)),
		Required:          d.MinCount,
		RoomLeftOutCount:  d.RoomLeftOutCount,
		Levels:            placementLevels(d.Levels),
		HeldAt:            d.HeldAt,
		Preemption:        preemption(d.Preemption),
	}
	for _, room := range d.RoomLeftOut {
		out.RoomLeftOut = append(out.RoomLeftOut, adminapi.PlacementRoom{Placement: room.Placement, Pods: room.Pods})
	}
	for _, r := range d.RoomPerPod {
		out.RoomPerPod = append(out.RoomPerPod, adminapi.ResourceAmount{Name: r.Name, Quantity: r.Quantity})
	}
	out.PodsFit, out.FirstUnfit = d.PodsFit, unfitPod(d.FirstUnfit)
	for i, a := range d.Assignments {
		// adminapi names a pod within the group's namespace, which is
		// where every member lives (a Pod joins the PodGroup of its own
		// namespace); anything else is spelled out in full.
		pod := a.Pod.Name
		if a.Pod.Namespace != d.PodGroup.Namespace {
			pod = a.Pod.String()
		}
		out.Assignments[i] = adminapi.PodAssignment{Pod: pod, Node: a.Node, Failure: a.Failure}
	}
	return out
}

// generatedPlacements copies the candidate placements; nil when the group
// has no topology constraint.
func generatedPlacements(ps []podgroup.GeneratedPlacement) []adminapi.GeneratedPlacement {
	if len(ps) == 0 {
		return nil
	}
	out := make([]adminapi.GeneratedPlacement, len(ps))
	for i, p := range ps {
		out[i] = adminapi.GeneratedPlacement{Name: p.Name, Nodes: p.Nodes, Level: p.Level}
	}
	return out
}

// placementEvaluations copies the evaluations in evaluation order; nil when
// none were made.
func placementEvaluations(es []podgroup.PlacementEvaluation) []adminapi.PlacementEvaluation {
	if len(es) == 0 {
		return nil
	}
	out := make([]adminapi.PlacementEvaluation, len(es))
	for i, e := range es {
		out[i] = adminapi.PlacementEvaluation{
			Placement:  e.Placement,
			Level:      e.Level,
			Domains:    domainPods(e.Domains),
			Feasible:   e.Feasible,
			Reason:     e.Reason,
			PodsFit:    e.PodsFit,
			Duration:   e.Duration,
			Scores:     pluginScores(e.Scores),
			TotalScore: e.TotalScore,
			FirstUnfit: unfitPod(e.FirstUnfit),
		}
	}
	return out
}

// placementLevels copies what the placement search found at each topology
// level, narrowest first; nil for a group without a Preferred level.
func placementLevels(ls []podgroup.LevelRecord) []adminapi.PlacementLevel {
	if len(ls) == 0 {
		return nil
	}
	out := make([]adminapi.PlacementLevel, len(ls))
	for i, l := range ls {
		out[i] = adminapi.PlacementLevel{
			Key:         l.Key,
			Mode:        levelMode(l.Mode),
			Placements:  l.Placements,
			Evaluated:   l.Evaluated,
			RoomLeftOut: l.RoomLeftOut,
			Feasible:    l.Feasible,
			Result:      levelResult(l.Result),
			Reason:      l.Reason,
		}
	}
	return out
}

// levelMode maps a level's mode (the PodGroup API's spelling) to adminapi's,
// the one /debug/queue/podgroups uses; empty (the cluster level) stays
// empty.
func levelMode(m string) string {
	switch pgapi.TopologyMode(m) {
	case pgapi.TopologyRequired:
		return adminapi.LevelRequired
	case pgapi.TopologyPreferred:
		return adminapi.LevelPreferred
	}
	return m
}

// levelResult maps the recorder's level results to adminapi's.
func levelResult(r string) string {
	switch r {
	case podgroup.LevelChosen:
		return adminapi.LevelChosen
	case podgroup.LevelFailed:
		return adminapi.LevelNoFit
	case podgroup.LevelNotTried:
		return adminapi.LevelNotTried
	}
	return r
}

// domainPods copies the pods per narrowest-level domain of a placement;
// nil for a placement of the narrowest level.
func domainPods(ds []podgroup.DomainPods) []adminapi.DomainPods {
	if len(ds) == 0 {
		return nil
	}
	out := make([]adminapi.DomainPods, len(ds))
	for i, d := range ds {
		out[i] = adminapi.DomainPods{Domain: d.Domain, Pods: d.Pods}
	}
	return out
}

// preemption copies what a gang's preemption found; nil when the cycle did
// not try to preempt.
func preemption(p *podgroup.PreemptionRecord) *adminapi.Preemption {
	if p == nil {
		return nil
	}
	out := &adminapi.Preemption{
		Priority:       p.Priority,
		Result:         preemptionResult(p.Result),
		Message:        p.Message,
		Chosen:         p.Chosen,
		Victims:        victims(p.Victims),
		VictimsOmitted: p.VictimsOmitted,
		VictimCount:    p.VictimCount,
	}
	if len(p.Candidates) > 0 {
		out.Candidates = make([]adminapi.PreemptionCandidate, len(p.Candidates))
		for i, c := range p.Candidates {
			out.Candidates[i] = adminapi.PreemptionCandidate{
				Placement:        c.Placement,
				Level:            c.Level,
				PotentialVictims: c.PotentialVictims,
				Fits:             c.Fits,
				VictimCount:      c.VictimCount,
				HighestPriority:  c.HighestPriority,
				PDBViolations:    c.PDBViolations,
				Victims:          victims(c.Victims),
				Reason:           c.Reason,
			}
		}
	}
	return out
}

// victims copies preemption victims, each pod named namespace/name (a
// victim may be in any namespace) and its pod group by name, in the pod's
// namespace (the recorder names it namespace/name); nil for none.
func victims(vs []podgroup.Victim) []adminapi.Victim {
	if len(vs) == 0 {
		return nil
	}
	out := make([]adminapi.Victim, len(vs))
	for i, v := range vs {
		group := strings.TrimPrefix(v.PodGroup, v.Pod.Namespace+"/")
		out[i] = adminapi.Victim{Pod: v.Pod.String(), Node: v.Node, Priority: v.Priority, PodGroup: group}
	}
	return out
}

// preemptionResult maps the recorder's preemption results to adminapi's.
func preemptionResult(r string) string {
	switch r {
	case podgroup.PreemptionPreempting:
		return adminapi.PreemptionPreempting
	case podgroup.PreemptionNotHelpful:
		return adminapi.PreemptionNotHelpful
	case podgroup.PreemptionWaiting:
		return adminapi.PreemptionWaiting
	case podgroup.PreemptionNotAllowed:
		return adminapi.PreemptionNotAllowed
	case podgroup.PreemptionError:
		return adminapi.PreemptionError
	}
	return r
}

// unfitPod copies the first pod that did not fit in a placement; nil when
// none failed.
func unfitPod(u *podgroup.UnfitPod) *adminapi.UnfitPod {
	if u == nil {
		return nil
	}
	out := &adminapi.UnfitPod{Pod: u.Pod}
	for _, r := range u.Requests {
		out.Requests = append(out.Requests, adminapi.ResourceAmount{Name: r.Name, Quantity: r.Quantity})
	}
	for _, r := range u.Rejections {
		d := adminapi.PluginDiagnosis{Plugin: r.Plugin, Nodes: r.Nodes}
		for _, c := range r.Reasons {
			d.Reasons = append(d.Reasons, adminapi.ReasonCount{Reason: c.Reason, Count: c.Nodes})
		}
		out.Rejections = append(out.Rejections, d)
	}
	return out
}

// pluginScores copies a placement's scores; nil for an unscored
// (infeasible) placement.
func pluginScores(ss []podgroup.PluginScore) []adminapi.PluginScore {
	if len(ss) == 0 {
		return nil
	}
	out := make([]adminapi.PluginScore, len(ss))
	for i, s := range ss {
		out[i] = adminapi.PluginScore{Plugin: s.Plugin, Score: s.Score}
	}
	return out
}

// placementResult maps the recorder's results to adminapi's.
func placementResult(r string) string {
	switch r {
	case podgroup.ResultScheduled:
		return adminapi.ResultScheduled
	case podgroup.ResultUnschedulable:
		return adminapi.ResultUnschedulable
	case podgroup.ResultError:
		return adminapi.ResultError
	}
	return r
}
