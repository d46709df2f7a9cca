package main

import (
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// group is what converting a pod group carries: what kspatch's PodGroup
// and upstream's scheduling.k8s.io/v1beta1 PodGroup can both say. Each
// reader (readKspatchGroup, readCoschedulingGroup, readUpstreamGroup)
// reports what of its object does not fit here as losses; the writers
// below then lose nothing.
type group struct {
	meta metav1.ObjectMeta
	// minCount is a gang's minimum; 0 is a basic group.
	minCount int32
	// required is the node label key of the Required topology level, if
	// the group has one.
	required string
	// disruption is "" (not set: each API's default, one pod at a time),
	// disruptionPod or disruptionWholeGroup.
	disruption string
}

// upstream writes the group as a scheduling.k8s.io/v1beta1 PodGroup.
func (g *group) upstream() *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: g.meta,
	}
	if g.minCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: g.minCount}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	if g.required != "" {
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{
			Topology: []schedulingv1beta1.TopologyConstraint{{Key: g.required}},
		}
	}
	switch g.disruption {
	case disruptionPod:
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	case disruptionWholeGroup:
		pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	}
	return pg
}

// kspatch writes the group as a scheduling.kspatch.io/v1alpha1 PodGroup.
func (g *group) kspatch() *kspatchPodGroup {
	pg := &kspatchPodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: kspatchAPIVersion, Kind: "PodGroup"},
		ObjectMeta: g.meta,
	}
	if g.minCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &kspatchGang{MinCount: g.minCount}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &kspatchBasic{}
	}
	if g.required != "" {
		pg.Spec.SchedulingConstraints = &kspatchConstraints{Topology: []kspatchLevel{{Key: g.required, Mode: modeRequired}}}
	}
	pg.Spec.DisruptionMode = g.disruption
	return pg
}
