package adminapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"
)

// base is the fixed clock of the fixtures: every snapshot is taken at base,
// so ages in golden files never change.
func base() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }

func ago(d time.Duration) time.Time { return base().Add(-d) }

// fakeQueue is a QueueSource over a fixed list of pods.
type fakeQueue struct {
	mu      sync.Mutex
	snap    QueueSnapshot
	details map[string]QueuedPodDetail // by namespace/name; extra detail fields
	// shared returns the stored pods without copying (for benchmarks; the
	// router promises not to modify snapshots).
	shared bool
	// hook, if set, runs at the start of every call (to block, fail or
	// panic).
	hook func(ctx context.Context) error
}

func (f *fakeQueue) QueueSnapshot(ctx context.Context) (*QueueSnapshot, error) {
	if f.hook != nil {
		if err := f.hook(ctx); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.snap
	if !f.shared {
		s.Pods = slices.Clone(f.snap.Pods)
	}
	return &s, nil
}

func (f *fakeQueue) QueuedPod(ctx context.Context, namespace, name string) (*QueuedPodDetail, error) {
	if f.hook != nil {
		if err := f.hook(ctx); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.snap.Pods {
		if p.Namespace == namespace && p.Name == name {
			d := f.details[namespace+"/"+name]
			d.TakenAt = f.snap.TakenAt
			d.QueuedPod = p
			return &d, nil
		}
	}
	return nil, nil
}

// set replaces the pods.
func (f *fakeQueue) set(pods []QueuedPod) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snap.Pods = pods
}

type fakeAPICalls struct{ snap APICallSnapshot }

func (f *fakeAPICalls) APICallSnapshot(context.Context) (*APICallSnapshot, error) {
	s := f.snap
	s.Calls = slices.Clone(s.Calls)
	return &s, nil
}

type fakePlacements struct{ snap PlacementSnapshot }

func (f *fakePlacements) PlacementSnapshot(context.Context) (*PlacementSnapshot, error) {
	s := f.snap
	s.Decisions = slices.Clone(s.Decisions)
	return &s, nil
}

func fixtureQueue() *fakeQueue {
	return &fakeQueue{
		snap: QueueSnapshot{
			TakenAt:         base(),
			SchedulingCycle: 812,
			// Deliberately not in (namespace, name, uid) order.
			Pods: []QueuedPod{
				{Namespace: "team-a", Name: "trainer-1", UID: "6d1c7f0e-a1", Queue: QueueBackoff, Priority: 1000, Attempts: 2,
					InitialAttemptTimestamp: ago(2 * time.Minute), Timestamp: ago(20 * time.Second), BackoffExpiry: base().Add(4 * time.Second),
					UnschedulablePlugins: []string{"NodeResourcesFit"}, PodGroup: "trainer"},
				// Unschedulable pods have no backoff expiry, as in the
				// scheduler's queue: it works one out only when an event
				// moves the pod to the backoff or active queue.
				{Namespace: "team-a", Name: "trainer-0", UID: "6d1c7f0e-a0", Queue: QueueUnschedulable, Priority: 1000, Attempts: 3,
					InitialAttemptTimestamp: ago(5*time.Minute + 12*time.Second), Timestamp: ago(3 * time.Minute),
					UnschedulablePlugins: []string{"TaintToleration", "NodeResourcesFit"}, PodGroup: "trainer"},
				{Namespace: "team-a", Name: "web-7d9f-x2x", UID: "0b7e41d2-w1", Queue: QueueActive, Timestamp: ago(time.Second)},
				{Namespace: "team-b", Name: "batch-17", UID: "9a0f5c33-b1", Queue: QueueGated, Timestamp: ago(2*time.Hour + 5*time.Minute),
					GatingPlugin: "SchedulingGates"},
				{Namespace: "team-b", Name: "claim-user", UID: "9a0f5c33-b2", Queue: QueueUnschedulable, Attempts: 1,
					InitialAttemptTimestamp: ago(46 * time.Second), Timestamp: ago(45 * time.Second),
					PendingPlugins: []string{"DynamicResources"}},
				{Namespace: "kube-system", Name: "coredns-extra", UID: "51e2aa07-k1", Queue: QueueInFlight, Priority: 2000000000, Attempts: 1,
					InitialAttemptTimestamp: ago(2 * time.Second), Timestamp: ago(2 * time.Second)},
				{Namespace: "ml", Name: "llama-worker-3", UID: "c3f0d9b8-m3", Queue: QueueUnschedulable, Attempts: 7,
					InitialAttemptTimestamp: ago(51 * time.Hour), Timestamp: ago(26 * time.Hour),
					UnschedulablePlugins: []string{"PodGroupPodsCount"}, PodGroup: "llama-train"},
				{Namespace: "team-a", Name: "trainer-2", UID: "6d1c7f0e-a2", Queue: QueueActive, Priority: 1000, Attempts: 1,
					InitialAttemptTimestamp: ago(2 * time.Minute), Timestamp: ago(3 * time.Second), PodGroup: "trainer"},
			},
		},
		details: map[string]QueuedPodDetail{
			"team-a/trainer-0": {
				LastFailure: &Diagnosis{
					Time:              ago(3 * time.Minute),
					Message:           "0/6 nodes are available: 2 node(s) had untolerated taint {dedicated: infra}, 4 Insufficient nvidia.com/gpu. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod.",
					NumAllNodes:       6,
					PostFilterMessage: "0/6 nodes are available: 6 No preemption victims found for incoming pod.",
					Plugins: []PluginDiagnosis{
						{Plugin: "TaintToleration", Nodes: 2, Reasons: []ReasonCount{{Reason: "node(s) had untolerated taint {dedicated: infra}", Count: 2}}},
						{Plugin: "NodeResourcesFit", Nodes: 4, Reasons: []ReasonCount{{Reason: "Insufficient cpu", Count: 1}, {Reason: "Insufficient nvidia.com/gpu", Count: 4}}},
					},
				},
			},
			"team-a/trainer-1": {NominatedNodeName: "gpu-n3"},
			"ml/llama-worker-3": {
				LastFailure: &Diagnosis{
					Time:     ago(40 * time.Second),
					Message:  "PodGroup ml/llama-train: 3 of 4 pods fit, 4 needed (minCount 4, 0 already scheduled); no pod of the group was bound. This pod fit; first pod that did not: ml/llama-worker-2: 0/6 nodes are available: 6 Insufficient nvidia.com/gpu.",
					PodGroup: &PodGroupDiagnosis{Fit: true, Node: "gpu-n2"},
				},
			},
		},
	}
}

func fixtureAPICalls() *fakeAPICalls {
	return &fakeAPICalls{snap: APICallSnapshot{
		TakenAt: base(),
		Calls: []APICall{
			{Type: "pod_binding", Object: ObjectRef{Namespace: "team-a", Name: "trainer-2", UID: "6d1c7f0e-a2"},
				EnqueuedAt: ago(150 * time.Millisecond), InFlightSince: ago(100 * time.Millisecond)},
			{Type: "pod_status_patch", Object: ObjectRef{Namespace: "team-a", Name: "trainer-0", UID: "6d1c7f0e-a0"},
				EnqueuedAt: ago(3 * time.Minute), Merges: 2},
			{Type: "pod_status_patch", Object: ObjectRef{Namespace: "team-b", Name: "claim-user", UID: "9a0f5c33-b2"},
				EnqueuedAt: ago(45 * time.Second)},
			{Type: "pod_deletion", Object: ObjectRef{Namespace: "team-c", Name: "victim-1", UID: "77aa0c12-v1"},
				EnqueuedAt: ago(2 * time.Second), InFlightSince: ago(time.Second)},
			{Type: "pod_status_patch", Object: ObjectRef{Namespace: "ml", Name: "llama-worker-3", UID: "c3f0d9b8-m3"},
				EnqueuedAt: ago(10 * time.Second), Merges: 1},
		},
	}}
}

func fixturePlacements() *fakePlacements {
	racks := []GeneratedPlacement{{Name: "rack=r1", Nodes: 4}, {Name: "rack=r2", Nodes: 4}, {Name: "rack=r3", Nodes: 2}}
	return &fakePlacements{snap: PlacementSnapshot{
		TakenAt: base(),
		Decisions: []PlacementDecision{
			{
				Namespace: "ml", PodGroup: "llama-train", Time: ago(12 * time.Second), Duration: 38412 * time.Microsecond,
				Result: ResultScheduled, Pods: 4, Required: 4, Placements: racks,
				Evaluations: []PlacementEvaluation{
					{Placement: "rack=r1", Feasible: true, PodsFit: 4, Duration: 9100 * time.Microsecond,
						Scores: []PluginScore{{Plugin: "NodeResourcesFit", Score: 72}, {Plugin: "PodGroupPodsCount", Score: 100}}, TotalScore: 172},
					{Placement: "rack=r2", Feasible: true, PodsFit: 4, Duration: 8700 * time.Microsecond,
						Scores: []PluginScore{{Plugin: "NodeResourcesFit", Score: 65}, {Plugin: "PodGroupPodsCount", Score: 100}}, TotalScore: 165},
					{Placement: "rack=r3", Feasible: false, Reason: "2 of 4 pods fit, gang minCount is 4", PodsFit: 2, Duration: 4200 * time.Microsecond},
				},
				Chosen: "rack=r1",
				Assignments: []PodAssignment{
					{Pod: "llama-worker-0", Node: "r1-n1"}, {Pod: "llama-worker-1", Node: "r1-n2"},
					{Pod: "llama-worker-2", Node: "r1-n3"}, {Pod: "llama-worker-3", Node: "r1-n4"},
				},
			},
			{
				Namespace: "team-a", PodGroup: "trainer", Time: ago(3 * time.Minute), Duration: 12050 * time.Microsecond,
				Result: ResultUnschedulable, Message: "1 of 3 pods fit, gang minCount is 3", Pods: 3, Required: 3, PodsFit: 1,
				FirstUnfit: &UnfitPod{Pod: "trainer-1", Requests: []ResourceAmount{{Name: "cpu", Quantity: "4"}, {Name: "nvidia.com/gpu", Quantity: "1"}},
					Rejections: []PluginDiagnosis{{Plugin: "NodeResourcesFit", Nodes: 4, Reasons: []ReasonCount{{Reason: "Insufficient nvidia.com/gpu", Count: 4}}},
						{Plugin: "TaintToleration", Nodes: 2, Reasons: []ReasonCount{{Reason: "node(s) had untolerated taint {dedicated: infra}", Count: 2}}}}},
				Assignments: []PodAssignment{
					{Pod: "trainer-0", Failure: "0/6 nodes are available: 4 Insufficient nvidia.com/gpu"},
					{Pod: "trainer-1", Failure: "0/6 nodes are available: 4 Insufficient nvidia.com/gpu"},
					{Pod: "trainer-2", Failure: "gang minCount 3 not met"},
				},
			},
			{
				Namespace: "ml", PodGroup: "llama-train", Time: ago(5 * time.Minute), Duration: 21300 * time.Microsecond,
				Result: ResultUnschedulable, Message: "no placement fits the pod group", Pods: 4, Required: 4, Placements: racks,
				Evaluations: []PlacementEvaluation{
					{Placement: "rack=r1", Reason: "3 of 4 pods fit, gang minCount is 4", PodsFit: 3, Duration: 7 * time.Millisecond},
					{Placement: "rack=r2", Reason: "3 of 4 pods fit, gang minCount is 4", PodsFit: 3, Duration: 6900 * time.Microsecond},
					{Placement: "rack=r3", Reason: "2 of 4 pods fit, gang minCount is 4", PodsFit: 2, Duration: 4100 * time.Microsecond},
				},
				Assignments: []PodAssignment{
					{Pod: "llama-worker-0", Failure: "no feasible placement"}, {Pod: "llama-worker-1", Failure: "no feasible placement"},
					{Pod: "llama-worker-2", Failure: "no feasible placement"}, {Pod: "llama-worker-3", Failure: "no feasible placement"},
				},
			},
			{
				// A hostname key: one placement per node, most of them not
				// kept by the scheduler.
				Namespace: "ml", PodGroup: "per-host", Time: ago(6 * time.Minute), Duration: 2100 * time.Microsecond,
				Result: ResultScheduled, Pods: 1, Required: 1, Chosen: "hostname=n-0001",
				Placements:        []GeneratedPlacement{{Name: "hostname=n-0000", Nodes: 1}, {Name: "hostname=n-0001", Nodes: 1}},
				PlacementsOmitted: 4998,
				Evaluations: []PlacementEvaluation{
					{Placement: "hostname=n-0000", Reason: "0 of 1 pods fit, 1 needed", Duration: 300 * time.Microsecond},
					{Placement: "hostname=n-0001", Feasible: true, PodsFit: 1, Duration: 250 * time.Microsecond, TotalScore: 10},
				},
				Assignments: []PodAssignment{{Pod: "probe-0", Node: "n-0001"}},
			},
		},
	}}
}

// fixtureOptions are Options over every fixture source.
func fixtureOptions() Options {
	return Options{
		Queue:      fixtureQueue(),
		APICalls:   fixtureAPICalls(),
		Placements: fixturePlacements(),
		Leader:     func() bool { return true },
	}
}

// get sends a GET for target (with an Accept header if accept is set) and
// returns the recorded response.
func get(h http.Handler, target, accept string) *httptest.ResponseRecorder {
	return do(h, http.MethodGet, target, accept)
}

func do(h http.Handler, method, target, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
