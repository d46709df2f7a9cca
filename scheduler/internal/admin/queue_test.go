package admin

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/ptr"

	"kspatch.dev/adminapi"
)

type fakeQueue struct{ snap queue.Snapshot }

func (f *fakeQueue) Snapshot() queue.Snapshot { return f.snap }

// SnapshotSelect offers the fake's Pods as refs and returns those chosen.
func (f *fakeQueue) SnapshotSelect(choose func(pods iter.Seq[queue.PodRef]) []queue.PodRef) queue.Snapshot {
	out := queue.Snapshot{SchedulingCycle: f.snap.SchedulingCycle}
	for _, ref := range choose(func(yield func(queue.PodRef) bool) {
		for _, p := range f.snap.Pods {
			if !yield(queue.PodRef{Pod: p.Pod, Queue: p.Queue}) {
				return
			}
		}
	}) {
		for _, p := range f.snap.Pods {
			if p.Pod == ref.Pod {
				out.Pods = append(out.Pods, p)
			}
		}
	}
	return out
}

func TestQueueSource(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	gang := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "worker-0", UID: "u1", Labels: map[string]string{pgapi.PodGroupLabel: "training"}},
		Spec:       v1.PodSpec{Priority: ptr.To[int32](100)},
		Status:     v1.PodStatus{NominatedNodeName: "node-7"},
	}
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "u2"}}
	failure := &framework.FailureSummary{
		Time: now.Add(-time.Minute), Message: "0/3 nodes are available", NumAllNodes: 3,
		Plugins: []framework.PluginFailure{{Plugin: "NodeResourcesFit", Nodes: 3, Reasons: []framework.ReasonCount{{Reason: "Insufficient memory", Nodes: 3}, {Reason: "Insufficient cpu", Nodes: 1}}}},
	}
	src := &QueueSource{Now: func() time.Time { return now }, Queue: &fakeQueue{snap: queue.Snapshot{
		SchedulingCycle: 42,
		Pods: []queue.PodSnapshot{
			{Pod: gang, Queue: queue.SnapshotUnschedulable, Attempts: 2, UnschedulablePlugins: []string{"NodeResourcesFit"}, LastFailure: failure},
			{Pod: plain, Queue: queue.SnapshotGated, GatingPlugin: "SchedulingGates", UnschedulablePlugins: []string{"SchedulingGates"}},
		},
	}}}

	snap, err := src.QueueSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []adminapi.QueuedPod{
		{Namespace: "ml", Name: "worker-0", UID: "u1", Queue: adminapi.QueueUnschedulable, Priority: 100, Attempts: 2, UnschedulablePlugins: []string{"NodeResourcesFit"}, PodGroup: "training"},
		{Namespace: "default", Name: "web", UID: "u2", Queue: adminapi.QueueGated, UnschedulablePlugins: []string{"SchedulingGates"}, GatingPlugin: "SchedulingGates"},
	}
	if diff := cmp.Diff(want, snap.Pods); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if snap.SchedulingCycle != 42 || !snap.TakenAt.Equal(now) {
		t.Errorf("cycle %d taken at %v", snap.SchedulingCycle, snap.TakenAt)
	}

	detail, err := src.QueuedPod(context.Background(), "ml", "worker-0")
	if err != nil || detail == nil {
		t.Fatalf("QueuedPod: %v, %v", detail, err)
	}
	wantDiag := &adminapi.Diagnosis{Time: failure.Time, Message: failure.Message, NumAllNodes: 3, Plugins: []adminapi.PluginDiagnosis{{
		Plugin: "NodeResourcesFit", Nodes: 3,
		Reasons: []adminapi.ReasonCount{{Reason: "Insufficient memory", Count: 3}, {Reason: "Insufficient cpu", Count: 1}},
	}}}
	if diff := cmp.Diff(wantDiag, detail.LastFailure); diff != "" {
		t.Errorf("diagnosis (-want +got):\n%s", diff)
	}
	if detail.NominatedNodeName != "node-7" {
		t.Errorf("nominated node %q", detail.NominatedNodeName)
	}
	if missing, err := src.QueuedPod(context.Background(), "ml", "absent"); missing != nil || err != nil {
		t.Errorf("absent pod: %v, %v", missing, err)
	}
	if _, err := (&QueueSource{}).QueueSnapshot(context.Background()); err == nil {
		t.Errorf("expected an error without a queue")
	}
}

// TestDiagnosisOfAPodGroupMember checks that a member taken back with its
// group reaches the admin API as such, not as a pod its plugins rejected.
func TestDiagnosisOfAPodGroupMember(t *testing.T) {
	tests := []struct {
		name string
		in   *framework.FailureSummary
		want *adminapi.PodGroupDiagnosis
	}{
		{name: "an ordinary failure", in: &framework.FailureSummary{Message: "0/3 nodes are available", NumAllNodes: 3}},
		{name: "fit, taken back with its group", in: &framework.FailureSummary{Message: "PodGroup ns/g: …",
			PodGroup: &framework.PodGroupFailure{Fit: true, Node: "node-a"}}, want: &adminapi.PodGroupDiagnosis{Fit: true, Node: "node-a"}},
		{name: "did not fit, with its group", in: &framework.FailureSummary{Message: "PodGroup ns/g: …",
			PodGroup: &framework.PodGroupFailure{}}, want: &adminapi.PodGroupDiagnosis{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnosis(tc.in).PodGroup
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("PodGroup %+v, want %+v", got, tc.want)
			}
		})
	}
}
