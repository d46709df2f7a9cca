package admin

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"

	"kspatch.dev/adminapi"
)

// PodGroupReader is what the scheduler's PodGroup manager offers
// (podgroup.Manager, added by the kspatch series): the PodGroup as the
// scheduler reads it, and its members.
type PodGroupReader interface {
	// Get returns the PodGroup, or an error saying why the scheduler cannot
	// use it (not found, malformed, not listed yet).
	Get(key types.NamespacedName) (*pgapi.PodGroup, error)
	// Members returns the group's pods that are not terminated, in the
	// order the pod-group cycle tries them.
	Members(key types.NamespacedName) []*v1.Pod
}

// PodGroupSource serves /debug/queue/podgroups/{namespace}/{name} from the
// PodGroup manager's informer and pod index: no API call, nothing the
// scheduling loop does.
type PodGroupSource struct {
	Groups PodGroupReader
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

var _ adminapi.PodGroupSource = &PodGroupSource{}

// PodGroup implements adminapi.PodGroupSource.
func (s *PodGroupSource) PodGroup(_ context.Context, namespace, name string) (*adminapi.PodGroupDetail, error) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	pg, err := s.Groups.Get(key)
	pods := s.Groups.Members(key)
	if apierrors.IsNotFound(err) && len(pods) == 0 {
		return nil, nil
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	d := &adminapi.PodGroupDetail{TakenAt: now(), Namespace: namespace, Name: name, Levels: []adminapi.TopologyLevel{}}
	switch {
	case err == nil:
		d.Found = true
		if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
			d.Policy, d.MinCount = adminapi.PolicyGang, int(g.MinCount)
		} else {
			d.Policy = adminapi.PolicyBasic
		}
		if c := pg.Spec.SchedulingConstraints; c != nil {
			for _, t := range c.Topology {
				mode := adminapi.LevelRequired
				if t.IsPreferred() {
					mode = adminapi.LevelPreferred
				}
				d.Levels = append(d.Levels, adminapi.TopologyLevel{Key: t.Key, Mode: mode})
			}
		}
		d.Scheduled = int(pg.Status.Scheduled)
		if c := meta.FindStatusCondition(pg.Status.Conditions, pgapi.PodGroupScheduled); c != nil {
			d.Condition = &adminapi.GroupCondition{Status: string(c.Status), Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime.Time}
		}
	case apierrors.IsNotFound(err):
	default:
		// Malformed, or PodGroups not listed yet: the scheduler holds the
		// members for a PodGroup it cannot use; say why.
		d.Found, d.Problem = true, err.Error()
	}
	if len(pods) > 0 {
		d.MemberLabel = podgroup.LabelOf(pods[0])
	}
	for _, pod := range pods {
		d.Members = append(d.Members, adminapi.PodGroupMember{Name: pod.Name, UID: string(pod.UID), Node: pod.Spec.NodeName,
			Deleting: pod.DeletionTimestamp != nil})
	}
	return d, nil
}
