package main

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The coscheduling PodGroup API of scheduler-plugins
// (scheduling.x-k8s.io/v1alpha1), from its published field list, and the
// annotations that give such a group kspatch's extras (docs/podgroup.md).
// Only the spec: convert never carries a status.
const (
	coschedulingGroup      = "scheduling.x-k8s.io"
	coschedulingAPIVersion = coschedulingGroup + "/v1alpha1"
	// coschedulingLabel is the label a pod joins a coscheduling PodGroup with.
	coschedulingLabel = "scheduling.x-k8s.io/pod-group"
	// coschedulingOldGroup is the API group of scheduler-plugins' older
	// releases, which convert does not read.
	coschedulingOldGroup = "scheduling.sigs.k8s.io"
	// coschedulingOldLabel is the label the member pods of those releases
	// carry; convert refuses it as it refuses their PodGroups.
	coschedulingOldLabel = "pod-group.scheduling.sigs.k8s.io"

	annotationTopologyRequired  = "scheduling.kspatch.io/topology-required"
	annotationTopologyPreferred = "scheduling.kspatch.io/topology-preferred"
	annotationDisruptionMode    = "scheduling.kspatch.io/disruption-mode"
)

// coschedulingPodGroup is a scheduling.x-k8s.io/v1alpha1 PodGroup without
// its status.
type coschedulingPodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              coschedulingSpec `json:"spec,omitempty"`
}

type coschedulingSpec struct {
	MinMember              int32               `json:"minMember,omitempty"`
	MinResources           corev1.ResourceList `json:"minResources,omitempty"`
	ScheduleTimeoutSeconds *int32              `json:"scheduleTimeoutSeconds,omitempty"`
}
