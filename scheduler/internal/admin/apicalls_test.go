package admin

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/scheduler/backend/apiqueue"
	"k8s.io/kubernetes/pkg/scheduler/framework/apicalls"

	"kspatch.dev/adminapi"
)

type fakeAPICalls []apiqueue.CallInfo

func (f fakeAPICalls) Snapshot() []apiqueue.CallInfo { return f }

func TestAPICallSnapshot(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ref := apiqueue.ObjectRef{Namespace: "ns", Name: "p", UID: "u1"}
	tests := []struct {
		name  string
		calls fakeAPICalls
		want  []adminapi.APICall
	}{
		{name: "empty", want: []adminapi.APICall{}},
		{
			name: "pending and running",
			calls: fakeAPICalls{
				{Type: apiqueue.BindingType, Object: ref, Enqueued: now.Add(-2 * time.Second), Running: true, Started: now.Add(-time.Second)},
				{Type: apiqueue.StatusPatchType, Object: apiqueue.ObjectRef{Namespace: "ns", Name: "q", UID: "u2"}, Enqueued: now.Add(-time.Second), Merges: 3},
			},
			want: []adminapi.APICall{
				{Type: "pod_binding", Object: adminapi.ObjectRef{Namespace: "ns", Name: "p", UID: "u1"}, EnqueuedAt: now.Add(-2 * time.Second), InFlightSince: now.Add(-time.Second)},
				{Type: "pod_status_patch", Object: adminapi.ObjectRef{Namespace: "ns", Name: "q", UID: "u2"}, EnqueuedAt: now.Add(-time.Second), Merges: 3},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &APICallSource{Queue: tc.calls, Now: func() time.Time { return now }}
			snap, err := src.APICallSnapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !snap.TakenAt.Equal(now) {
				t.Errorf("TakenAt %v, want %v", snap.TakenAt, now)
			}
			if diff := cmp.Diff(tc.want, snap.Calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAPICallSnapshotFromQueue reads a real queue (not running, so its
// calls stay pending): merges are counted, superseded calls are gone, and
// calls are listed in the order they will run (bindings before status
// patches).
func TestAPICallSnapshotFromQueue(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	q := apiqueue.New(fake.NewClientset(), 1)
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1"}}
	cond := &v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable}
	node := "node-a"
	q.Add(ctx, apicalls.NewStatusPatch(pod, cond, nil))
	q.Add(ctx, apicalls.NewStatusPatch(pod, nil, &node))
	other := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "o", UID: "u2"}}
	q.Add(ctx, apicalls.NewStatusPatch(other, cond, nil))
	q.Add(ctx, apicalls.NewBinding(other, node))

	snap, err := (&APICallSource{Queue: q}).APICallSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range snap.Calls {
		got = append(got, c.Type+" "+c.Object.Name+" merges="+string(rune('0'+c.Merges)))
	}
	want := []string{"pod_binding o merges=0", "pod_status_patch p merges=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
