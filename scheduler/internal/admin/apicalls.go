package admin

import (
	"context"
	"time"

	"k8s.io/kubernetes/pkg/scheduler/backend/apiqueue"

	"kspatch.dev/adminapi"
)

// APICallSnapshotter is what the asynchronous API call queue offers for
// debugging (apiqueue.Queue.Snapshot, added by the kspatch series).
type APICallSnapshotter interface {
	Snapshot() []apiqueue.CallInfo
}

// APICallSource serves /debug/apicalls from the scheduler's asynchronous
// API call queue.
type APICallSource struct {
	Queue APICallSnapshotter
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

var _ adminapi.APICallSource = &APICallSource{}

// APICallSnapshot implements adminapi.APICallSource.
func (s *APICallSource) APICallSnapshot(ctx context.Context) (*adminapi.APICallSnapshot, error) {
	calls := s.Queue.Snapshot()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	snap := &adminapi.APICallSnapshot{TakenAt: now(), Calls: make([]adminapi.APICall, 0, len(calls))}
	for _, c := range calls {
		call := adminapi.APICall{
			Type:       string(c.Type),
			Object:     adminapi.ObjectRef{Namespace: c.Object.Namespace, Name: c.Object.Name, UID: string(c.Object.UID)},
			EnqueuedAt: c.Enqueued,
			Merges:     c.Merges,
		}
		if c.Running {
			call.InFlightSince = c.Started
		}
		snap.Calls = append(snap.Calls, call)
	}
	return snap, nil
}
