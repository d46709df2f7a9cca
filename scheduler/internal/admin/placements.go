package admin

import (
	"context"
	"errors"
	"time"

	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"

	"kspatch.dev/adminapi"
)

// PlacementSnapshotter is what the record of recent pod-group cycles offers
// for debugging (podgroup.Recorder.Snapshot, added by the kspatch series).
type PlacementSnapshotter interface {
	Snapshot() []podgroup.Decision
}

// PlacementSource serves /debug/placements from the scheduler's record of
// recent pod-group cycles (GangScheduling). The cycles place pods one by one
// for now: a decision has pod assignments but no generated or evaluated
// placements until topology-aware placement (TopologyAwareWorkloadScheduling)
// records them.
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
		Namespace:   d.PodGroup.Namespace,
		PodGroup:    d.PodGroup.Name,
		Time:        d.Time,
		Duration:    d.Duration,
		Result:      placementResult(d.Result),
		Message:     d.Message,
		Pods:        len(d.Assignments),
		Assignments: make([]adminapi.PodAssignment, len(d.Assignments)),
	}
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
