// Package admin adapts the patched scheduler's read-only snapshots to the
// Source interfaces of kspatch.dev/adminapi, and wires the admin API's request
// metrics into the scheduler's registry.
package admin

import (
	"context"
	"errors"
	"iter"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"kspatch.dev/adminapi"
)

// podGroupName names the PodGroup a Pod joins, by the scheduler's own rule
// (podgroup.GroupOf: kspatch's label, or coscheduling's with
// CoschedulingPodGroups); empty for none.
func podGroupName(pod *v1.Pod) string {
	key, _ := podgroup.GroupOf(pod)
	return key.Name
}

// QueueSnapshotter is what the scheduling queue offers for debugging
// (queue.PriorityQueue.Snapshot and SnapshotSelect, added by the kspatch
// series).
type QueueSnapshotter interface {
	Snapshot() queue.Snapshot
	SnapshotSelect(choose func(pods iter.Seq[queue.PodRef]) []queue.PodRef) queue.Snapshot
}

// QueueSource serves adminapi's queue routes from the scheduling queue.
type QueueSource struct {
	Queue QueueSnapshotter
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

var (
	_ adminapi.QueueSource = &QueueSource{}
	_ adminapi.QueuePager  = &QueueSource{}
)

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

// QueuePage implements adminapi.QueuePager. The page is selected while the
// queue walks its Pods under its lock, and only the page's Pods are copied,
// so a request holds the lock for one pass of comparisons over the queue.
func (s *QueueSource) QueuePage(ctx context.Context, q adminapi.QueueQuery) (*adminapi.QueuePage, error) {
	if s.Queue == nil {
		return nil, errNoQueue
	}
	page := &adminapi.QueuePage{TakenAt: s.now()}
	snap := s.Queue.SnapshotSelect(func(pods iter.Seq[queue.PodRef]) []queue.PodRef {
		sel := adminapi.NewPageSelector[queue.PodRef](q)
		for ref := range pods {
			c := adminapi.PageCandidate{
				Key:   adminapi.PodKey{Namespace: ref.Pod.Namespace, Name: ref.Pod.Name, UID: string(ref.Pod.UID)},
				Queue: queueName(ref.Queue),
			}
			// Only what the filters and the group counts need: every
			// lookup here runs for every queued Pod under the queue's lock.
			c.PodGroup = podGroupName(ref.Pod)
			if q.Plugin != "" {
				c.PluginMatch = ref.HasPlugin(q.Plugin)
			}
			sel.Offer(c, ref)
		}
		var chosen []queue.PodRef
		page.Counts, page.Matched, page.Remaining, chosen = sel.Result()
		page.Groups, page.GroupsOmitted = sel.Groups()
		return chosen
	})
	page.SchedulingCycle = snap.SchedulingCycle
	page.Pods = make([]adminapi.QueuedPod, len(snap.Pods))
	for i := range snap.Pods {
		page.Pods[i] = queuedPod(&snap.Pods[i])
	}
	return page, nil
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

// queueName maps the queue's sub-queue names to adminapi's.
func queueName(q string) adminapi.QueueName {
	switch q {
	case queue.SnapshotActive:
		return adminapi.QueueActive
	case queue.SnapshotBackoff:
		return adminapi.QueueBackoff
	case queue.SnapshotUnschedulable:
		return adminapi.QueueUnschedulable
	case queue.SnapshotGated:
		return adminapi.QueueGated
	case queue.SnapshotInFlight:
		return adminapi.QueueInFlight
	}
	return adminapi.QueueName(q)
}

func queuedPod(p *queue.PodSnapshot) adminapi.QueuedPod {
	return adminapi.QueuedPod{
		Namespace:               p.Pod.Namespace,
		Name:                    p.Pod.Name,
		UID:                     string(p.Pod.UID),
		Queue:                   queueName(p.Queue),
		Priority:                priority(p.Pod),
		Attempts:                p.Attempts,
		InitialAttemptTimestamp: p.InitialAttemptTimestamp,
		Timestamp:               p.Timestamp,
		BackoffExpiry:           p.BackoffExpiration,
		UnschedulablePlugins:    p.UnschedulablePlugins,
		PendingPlugins:          p.PendingPlugins,
		GatingPlugin:            p.GatingPlugin,
		PodGroup:                podGroupName(p.Pod),
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
	if g := f.PodGroup; g != nil {
		d.PodGroup = &adminapi.PodGroupDiagnosis{Fit: g.Fit, Node: g.Node}
	}
	d.OmittedPlugins = f.OmittedPlugins
	for _, pf := range f.Plugins {
		pd := adminapi.PluginDiagnosis{Plugin: pf.Plugin, Nodes: pf.Nodes, OmittedReasons: pf.OmittedReasons}
		for _, rc := range pf.Reasons {
			pd.Reasons = append(pd.Reasons, adminapi.ReasonCount{Reason: rc.Reason, Count: rc.Nodes})
		}
		sortReasons(pd.Reasons)
		d.Plugins = append(d.Plugins, pd)
	}
	return d
}
