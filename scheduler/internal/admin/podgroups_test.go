package admin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"

	"kspatch.dev/adminapi"
)

// fakeGroups is a PodGroupReader over fixed PodGroups, errors and members.
type fakeGroups struct {
	groups  map[types.NamespacedName]*pgapi.PodGroup
	errs    map[types.NamespacedName]error
	members map[types.NamespacedName][]*v1.Pod
}

func (f *fakeGroups) Get(key types.NamespacedName) (*pgapi.PodGroup, error) {
	if err := f.errs[key]; err != nil {
		return nil, err
	}
	if pg := f.groups[key]; pg != nil {
		return pg, nil
	}
	return nil, apierrors.NewNotFound(pgapi.Resource.GroupResource(), key.Name)
}

func (f *fakeGroups) Members(key types.NamespacedName) []*v1.Pod { return f.members[key] }

func TestPodGroupSource(t *testing.T) {
	now := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: "ml", Name: name} }
	pod := func(name, node string, deleting bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: types.UID("uid-" + name)}, Spec: v1.PodSpec{NodeName: node}}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{Time: now}
		}
		return p
	}
	labelled := func(p *v1.Pod, label, group string) *v1.Pod {
		p.Labels = map[string]string{label: group}
		return p
	}
	src := &PodGroupSource{Now: func() time.Time { return now }, Groups: &fakeGroups{
		groups: map[types.NamespacedName]*pgapi.PodGroup{
			key("train"): {
				ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train"},
				Spec: pgapi.PodGroupSpec{
					SchedulingPolicy:      pgapi.PodGroupSchedulingPolicy{Gang: &pgapi.GangSchedulingPolicy{MinCount: 3}},
					SchedulingConstraints: &pgapi.PodGroupSchedulingConstraints{Topology: []pgapi.TopologyConstraint{{Key: "rack"}}},
				},
				Status: pgapi.PodGroupStatus{Scheduled: 1, Conditions: []metav1.Condition{{Type: pgapi.PodGroupScheduled, Status: metav1.ConditionFalse,
					Reason: "Unschedulable", Message: "no placement fits", LastTransitionTime: metav1.Time{Time: now.Add(-time.Minute)}}}},
			},
			key("moe"): {
				ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "moe"},
				Spec: pgapi.PodGroupSpec{
					SchedulingPolicy: pgapi.PodGroupSchedulingPolicy{Gang: &pgapi.GangSchedulingPolicy{MinCount: 6}},
					SchedulingConstraints: &pgapi.PodGroupSchedulingConstraints{Topology: []pgapi.TopologyConstraint{
						{Key: "block"}, {Key: "rack", Mode: pgapi.TopologyPreferred}}},
				},
			},
			key("batch"): {ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "batch"},
				Spec: pgapi.PodGroupSpec{SchedulingPolicy: pgapi.PodGroupSchedulingPolicy{Basic: &pgapi.BasicSchedulingPolicy{}}}},
		},
		errs: map[types.NamespacedName]error{key("broken"): errors.New("PodGroup ml/broken is malformed: spec.schedulingPolicy: exactly one of gang and basic")},
		members: map[types.NamespacedName][]*v1.Pod{
			key("train"): {pod("w-0", "node-1", false), pod("w-1", "", false), pod("w-2", "", true)},
			// A coscheduling group's member: its label is the one to name.
			key("orphan"): {labelled(pod("o-0", "", false), "scheduling.x-k8s.io/pod-group", "orphan")},
			key("broken"): {pod("b-0", "", false)},
		},
	}}
	for _, tc := range []struct {
		name string
		want *adminapi.PodGroupDetail
	}{
		{name: "train", want: &adminapi.PodGroupDetail{TakenAt: now, Namespace: "ml", Name: "train", Found: true, Policy: adminapi.PolicyGang, MinCount: 3,
			Levels: []adminapi.TopologyLevel{{Key: "rack", Mode: adminapi.LevelRequired}}, Scheduled: 1,
			Condition:   &adminapi.GroupCondition{Status: "False", Reason: "Unschedulable", Message: "no placement fits", LastTransitionTime: now.Add(-time.Minute)},
			Members:     []adminapi.PodGroupMember{{Name: "w-0", UID: "uid-w-0", Node: "node-1"}, {Name: "w-1", UID: "uid-w-1"}, {Name: "w-2", UID: "uid-w-2", Deleting: true}},
			MemberLabel: pgapi.PodGroupLabel}},
		{name: "moe", want: &adminapi.PodGroupDetail{TakenAt: now, Namespace: "ml", Name: "moe", Found: true, Policy: adminapi.PolicyGang, MinCount: 6,
			// An empty mode is Required.
			Levels: []adminapi.TopologyLevel{{Key: "block", Mode: adminapi.LevelRequired}, {Key: "rack", Mode: adminapi.LevelPreferred}}}},
		{name: "batch", want: &adminapi.PodGroupDetail{TakenAt: now, Namespace: "ml", Name: "batch", Found: true, Policy: adminapi.PolicyBasic, Levels: []adminapi.TopologyLevel{}}},
		{name: "orphan", want: &adminapi.PodGroupDetail{TakenAt: now, Namespace: "ml", Name: "orphan", Levels: []adminapi.TopologyLevel{},
			Members: []adminapi.PodGroupMember{{Name: "o-0", UID: "uid-o-0"}}, MemberLabel: "scheduling.x-k8s.io/pod-group"}},
		{name: "broken", want: &adminapi.PodGroupDetail{TakenAt: now, Namespace: "ml", Name: "broken", Found: true, Levels: []adminapi.TopologyLevel{},
			Problem: "PodGroup ml/broken is malformed: spec.schedulingPolicy: exactly one of gang and basic",
			Members: []adminapi.PodGroupMember{{Name: "b-0", UID: "uid-b-0"}}, MemberLabel: pgapi.PodGroupLabel}},
		{name: "nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := src.PodGroup(context.Background(), "ml", tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}
