package main

import (
	"testing"
)

// TestConvertGroups: every mapping rule of a pod group, in both
// directions, with the exact losses each one reports (one line per loss,
// naming the object and the field).
func TestConvertGroups(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		args           []string
		losses         []string
	}{{
		name: "kspatch gang, Required level, disruption PodGroup",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack, mode: Required}]}
  disruptionMode: PodGroup`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}
  disruptionMode: {all: {}}`,
	}, {
		name: "kspatch basic, a level without a mode is Required, disruption Pod",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: web, namespace: ml}
spec:
  schedulingPolicy: {basic: {}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
  disruptionMode: Pod`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: web, namespace: ml}
spec:
  schedulingPolicy: {basic: {}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
  disruptionMode: {single: {}}`,
	}, {
		name: "kspatch without disruption mode: none written (both APIs default to one pod at a time)",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: a}
spec: {schedulingPolicy: {gang: {minCount: 1}}}`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: a}
spec: {schedulingPolicy: {gang: {minCount: 1}}}`,
	}, {
		name: "kspatch Preferred levels and timeout are losses",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 8}}
  schedulingConstraints:
    topology:
    - {key: topology.kubernetes.io/block}
    - {key: topology.kubernetes.io/rack, mode: Preferred}
    - {key: kubernetes.io/hostname, mode: Preferred}
  scheduleTimeoutSeconds: 600`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 8}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/block}]}`,
		losses: []string{
			"loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/train (document 1): spec.schedulingConstraints.topology[1]: the Preferred level topology.kubernetes.io/rack is not carried: upstream's PodGroup has no preferred levels",
			"loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/train (document 1): spec.schedulingConstraints.topology[2]: the Preferred level kubernetes.io/hostname is not carried",
			"loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/train (document 1): spec.scheduleTimeoutSeconds: 600 is not carried: upstream's PodGroup has no timeout",
		},
	}, {
		name: "kspatch with Preferred levels only: no topology at all",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: p}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack, mode: Preferred}]}`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: p}
spec: {schedulingPolicy: {gang: {minCount: 2}}}`,
		losses: []string{"p (document 1): spec.schedulingConstraints.topology[0]: the Preferred level topology.kubernetes.io/rack is not carried"},
	}, {
		name: "metadata: server-set fields and kubectl's last-applied left out, labels, annotations and owners kept, finalizers and status lost",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata:
  name: train
  namespace: ml
  uid: 0b6f5b1e-1111-2222-3333-444455556666
  resourceVersion: "812"
  generation: 1
  creationTimestamp: "2026-11-01T10:00:00Z"
  managedFields: [{manager: kubectl, operation: Apply}]
  labels: {team: vision}
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}", owner: ana}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train, uid: 0b6f5b1e-aaaa-bbbb-cccc-ddddeeeeffff, controller: true}]
  finalizers: [example.com/keep]
spec: {schedulingPolicy: {gang: {minCount: 2}}}
status: {scheduled: 2, conditions: [{type: PodGroupScheduled, status: "True", reason: Scheduled, message: ok, lastTransitionTime: "2026-11-01T10:00:00Z"}]}`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: train
  namespace: ml
  labels: {team: vision}
  annotations: {owner: ana}
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train, uid: 0b6f5b1e-aaaa-bbbb-cccc-ddddeeeeffff, controller: true}]
spec: {schedulingPolicy: {gang: {minCount: 2}}}`,
		losses: []string{"ml/train (document 1): metadata.finalizers: example.com/keep not carried"},
	}, {
		name: "unknown fields are losses, each on its line",
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: u}
spec:
  schedulingPolicy: {gang: {minCount: 2, minCountt: 3}}
  priority: 7`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: u}
spec: {schedulingPolicy: {gang: {minCount: 2}}}`,
		losses: []string{
			"u (document 1): spec.priority: unknown field: not carried",
			"u (document 1): spec.schedulingPolicy.gang.minCountt: unknown field: not carried",
		},
	}, {
		name: "coscheduling: minMember, kspatch's annotations (Required level, disruption mode) read and not copied",
		in: `
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: pytorch
  namespace: ml
  annotations:
    scheduling.kspatch.io/topology-required: " topology.kubernetes.io/rack "
    scheduling.kspatch.io/disruption-mode: PodGroup
    example.com/team: vision
spec: {minMember: 3}
status: {phase: Running, running: 3}`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pytorch, namespace: ml, annotations: {example.com/team: vision}}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}
  disruptionMode: {all: {}}`,
	}, {
		name: "coscheduling: minResources, timeout and each Preferred level are losses",
		in: `
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: pytorch
  namespace: ml
  annotations:
    scheduling.kspatch.io/topology-preferred: "topology.kubernetes.io/rack, kubernetes.io/hostname"
    scheduling.kspatch.io/disruption-mode: Pod
spec:
  minMember: 3
  minResources: {cpu: "12", memory: 48Gi, nvidia.com/gpu: "8"}
  scheduleTimeoutSeconds: 60`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: pytorch, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
  disruptionMode: {single: {}}`,
		losses: []string{
			"loss: PodGroup scheduling.x-k8s.io/v1alpha1 ml/pytorch (document 1): metadata.annotations[scheduling.kspatch.io/topology-preferred]: the Preferred level topology.kubernetes.io/rack is not carried",
			"ml/pytorch (document 1): metadata.annotations[scheduling.kspatch.io/topology-preferred]: the Preferred level kubernetes.io/hostname is not carried",
			"ml/pytorch (document 1): spec.minResources: cpu=12, memory=48Gi, nvidia.com/gpu=8 is not carried: upstream's PodGroup has no minimum resources",
			"ml/pytorch (document 1): spec.scheduleTimeoutSeconds: 60 is not carried",
		},
	}, {
		name: "upstream to kspatch: gang, the topology entry as the Required level, single is Pod",
		args: []string{"--to", "kspatch"},
		in: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}
  disruptionMode: {single: {}}
status: {conditions: [{type: PodGroupInitiallyScheduled, status: "True", reason: Scheduled, message: "", lastTransitionTime: "2026-11-01T10:00:00Z"}]}`,
		want: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack, mode: Required}]}
  disruptionMode: Pod`,
	}, {
		name: "upstream to kspatch: basic, all is PodGroup",
		args: []string{"--to", "kspatch"},
		in: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: b}
spec: {schedulingPolicy: {basic: {}}, disruptionMode: {all: {}}}`,
		want: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: b}
spec: {schedulingPolicy: {basic: {}}, disruptionMode: PodGroup}`,
	}, {
		name: "upstream to kspatch: what kspatch has no field for is lost, a topology entry beyond the first too",
		args: []string{"--to", "kspatch"},
		in: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: w, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/block}, {key: topology.kubernetes.io/rack}]}
  priorityClassName: high
  priority: 1000
  preemptionPolicy: Never
  resourceClaims: [{name: gpus, resourceClaimTemplateName: eight-gpus}]
  workloadRef: {workloadName: training, templateName: workers}
  parentCompositePodGroupName: job`,
		want: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: w, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/block, mode: Required}]}`,
		losses: []string{
			"loss: PodGroup scheduling.k8s.io/v1beta1 ml/w (document 1): spec.schedulingConstraints.topology[1]: topology.kubernetes.io/rack is not carried",
			"ml/w (document 1): spec.priorityClassName: high is not carried",
			"ml/w (document 1): spec.priority: 1000 is not carried",
			"ml/w (document 1): spec.preemptionPolicy: Never is not carried",
			"ml/w (document 1): spec.resourceClaims[0]: gpus is not carried",
			"ml/w (document 1): spec.workloadRef: training/workers is not carried: kspatch has no Workload API",
			"ml/w (document 1): spec.parentCompositePodGroupName: job is not carried",
		},
	}, {
		name: "the target API's own groups pass through: kspatch --to kspatch",
		args: []string{"--to", "kspatch"},
		in: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: k, resourceVersion: "3"}
spec: {schedulingPolicy: {gang: {minCount: 2}}, scheduleTimeoutSeconds: 60}
status: {scheduled: 1}`,
		want: `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: k, resourceVersion: "3"}
spec: {schedulingPolicy: {gang: {minCount: 2}}, scheduleTimeoutSeconds: 60}
status: {scheduled: 1}`,
	}, {
		name: "the target API's own groups pass through: v1beta1 and Workload --to upstream",
		in: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: u}
spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 5}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec: {podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]}`,
		want: `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: u}
spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 5}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec: {podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]}`,
	}, {
		name: "kspatch schedules coscheduling groups: --to kspatch leaves them",
		args: []string{"--to", "kspatch"},
		in: `
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: c}
spec: {minMember: 2, minResources: {cpu: "4"}}`,
		want: `
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: c}
spec: {minMember: 2, minResources: {cpu: "4"}}`,
	}, {
		name: "--to kspatch leaves out upstream objects kspatch has no counterpart of",
		args: []string{"--to", "kspatch"},
		in: `
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ml}
spec: {podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: c, namespace: ml}
spec: {}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000`,
		want: `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000`,
		losses: []string{
			"loss: Workload scheduling.k8s.io/v1beta1 ml/w (document 1): left out of the output: kspatch has no counterpart of scheduling.k8s.io/v1beta1 Workload",
			"loss: CompositePodGroup scheduling.k8s.io/v1alpha3 ml/c (document 2): left out of the output",
		},
	}, {
		name: "objects unrelated to groups pass through, PriorityClass included",
		in: `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: "1"}`,
		want: `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data: {a: "1"}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			checkConversion(t, tc.in, tc.want, tc.losses, tc.args...)
		})
	}
}
