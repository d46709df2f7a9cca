package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The kspatch PodGroup API (scheduling.kspatch.io/v1alpha1), as the CRD
// scheduler/deploy/podgroup-crd.yaml defines it. The scheduler's Go types
// live in the patched v1.33 tree, which this module does not import: these
// mirror the CRD's fields, and convert's tests decode them strictly.
const (
	kspatchGroup      = "scheduling.kspatch.io"
	kspatchAPIVersion = kspatchGroup + "/v1alpha1"
	// kspatchLabel is the label a pod joins a kspatch PodGroup with.
	kspatchLabel = "scheduling.kspatch.io/pod-group"
	// kspatchMaxLevels is the CRD's maxItems of spec.schedulingConstraints.topology.
	kspatchMaxLevels = 4
	// kspatchMaxTimeout is the CRD's maximum of spec.scheduleTimeoutSeconds.
	kspatchMaxTimeout = 86400
)

// The values of the kspatch PodGroup's enumerations.
const (
	modeRequired         = "Required"
	modePreferred        = "Preferred"
	disruptionPod        = "Pod"
	disruptionWholeGroup = "PodGroup"
)

// kspatchPodGroup is a scheduling.kspatch.io/v1alpha1 PodGroup without its
// status (the scheduler writes it; convert never carries it).
type kspatchPodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              kspatchSpec `json:"spec"`
}

type kspatchSpec struct {
	SchedulingPolicy       kspatchPolicy       `json:"schedulingPolicy"`
	SchedulingConstraints  *kspatchConstraints `json:"schedulingConstraints,omitempty"`
	ScheduleTimeoutSeconds *int32              `json:"scheduleTimeoutSeconds,omitempty"`
	// DisruptionMode is "" (the CRD defaults it to Pod), Pod or PodGroup.
	DisruptionMode string `json:"disruptionMode,omitempty"`
}

// kspatchPolicy holds exactly one of Gang and Basic.
type kspatchPolicy struct {
	Gang  *kspatchGang  `json:"gang,omitempty"`
	Basic *kspatchBasic `json:"basic,omitempty"`
}

type kspatchGang struct {
	MinCount int32 `json:"minCount"`
}

type kspatchBasic struct{}

type kspatchConstraints struct {
	Topology []kspatchLevel `json:"topology,omitempty"`
}

// kspatchLevel is a topology level; an empty Mode is Required.
type kspatchLevel struct {
	Key  string `json:"key"`
	Mode string `json:"mode,omitempty"`
}
