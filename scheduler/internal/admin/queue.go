// Package admin adapts the patched scheduler's read-only snapshots to the
// Source interfaces of kspatch.dev/adminapi, and wires the admin API's request
// metrics into the scheduler's registry.
package admin

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"kspatch.dev/adminapi"
)

// PodGroupLabel is the label by which a Pod joins a PodGroup.
const PodGroupLabel = "scheduling.kspatch.io/pod-group"

// QueueSnapshotter is what the scheduling queue offers for debugging
// (queue.PriorityQueue.Snapshot, added by the kspatch series).
type QueueSnapshotter interface {
	Snapshot() queue.Snapshot
}

// QueueSource serves adminapi's queue routes from the scheduling queue.
type QueueSource struct {
	Queue QueueSnapshotter
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

var _ adminapi.QueueSource = &QueueSource{}

var errNoQueue = errors.New("the scheduling queue does not support snapshots")

func (s *QueueSource) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// QueueSnapshot implements adminapi.QueueSource.
func (s *QueueSource) QueueSnapshot(ctx context.Context) (*adminapi.QueueSnapshot, error) {
	if s.Queue == nil {
		return nil, errNoQueue
	}
	snap := s.Queue.Snapshot()
	snap.SortPlugins()
	out := &adminapi.QueueSnapshot{TakenAt: s.now(), SchedulingCycle: snap.SchedulingCycle, Pods: make([]adminapi.QueuedPod, 0, len(snap.Pods))}
	for i := range snap.Pods {
		out.Pods = append(out.Pods, queuedPod(&snap.Pods[i]))
	}
	return out, nil
}

// QueuedPod implements adminapi.QueueSource; nil, nil when the Pod is not queued.
func (s *QueueSource) QueuedPod(ctx context.Context, namespace, name string) (*adminapi.QueuedPodDetail, error) {
	if s.Queue == nil {
		return nil, errNoQueue
	}
	snap := s.Queue.Snapshot()
	for i := range snap.Pods {
		p := &snap.Pods[i]
		if p.Pod.Namespace != namespace || p.Pod.Name != name {
			continue
		}
		one := queue.Snapshot{Pods: []queue.PodSnapshot{*p}}
		one.SortPlugins()
		return &adminapi.QueuedPodDetail{
			TakenAt:           s.now(),
			QueuedPod:         queuedPod(&one.Pods[0]),
			NominatedNodeName: p.Pod.Status.NominatedNodeName,
			LastFailure:       diagnosis(p.LastFailure),
		}, nil
	}
	return nil, nil
}

var queueNames = map[string]adminapi.QueueName{
	queue.SnapshotActive:        adminapi.QueueActive,
	queue.SnapshotBackoff:       adminapi.QueueBackoff,
	queue.SnapshotUnschedulable: adminapi.QueueUnschedulable,
	queue.SnapshotGated:         adminapi.QueueGated,
	queue.SnapshotInFlight:      adminapi.QueueInFlight,
}

func queuedPod(p *queue.PodSnapshot) adminapi.QueuedPod {
	return adminapi.QueuedPod{
		Namespace:               p.Pod.Namespace,
		Name:                    p.Pod.Name,
		UID:                     string(p.Pod.UID),
		Queue:                   queueNames[p.Queue],
		Priority:                priority(p.Pod),
		Attempts:                p.Attempts,
		InitialAttemptTimestamp: p.InitialAttemptTimestamp,
		Timestamp:               p.Timestamp,
		BackoffExpiry:           p.BackoffExpiration,
		UnschedulablePlugins:    p.UnschedulablePlugins,
		PendingPlugins:          p.PendingPlugins,
		GatingPlugin:            p.GatingPlugin,
		PodGroup:                p.Pod.Labels[PodGroupLabel],
	}
}

func priority(pod *v1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

func diagnosis(f *framework.FailureSummary) *adminapi.Diagnosis {
	if f == nil {
		return nil
	}
	d := &adminapi.Diagnosis{
		Time:              f.Time,
		Message:           f.Message,
		NumAllNodes:       f.NumAllNodes,
		PreFilterMessage:  f.PreFilterMessage,
		PostFilterMessage: f.PostFilterMessage,
	}
	for _, pf := range f.Plugins {
		pd := adminapi.PluginDiagnosis{Plugin: pf.Plugin, Nodes: pf.Nodes}
		for reason, count := range pf.Reasons {
			pd.Reasons = append(pd.Reasons, adminapi.ReasonCount{Reason: reason, Count: count})
		}
		sortReasons(pd.Reasons)
		d.Plugins = append(d.Plugins, pd)
	}
	return d
}
