package main

import (
	"testing"
)

// TestConvertMembers: how pods and pod templates join their group in
// each direction, in every kind of object that carries pods, and the
// losses of a pod that names two groups.
func TestConvertMembers(t *testing.T) {
	const c = "containers: [{name: c, image: i}]"
	for _, tc := range []struct {
		name, in, want string
		args           []string
		losses         []string
	}{{
		name: "a Pod with the kspatch label",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: train}}\nspec: {" + c + "}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: train}}\nspec: {" + c + ", schedulingGroup: {podGroupName: train}}",
	}, {
		name: "a Pod with the coscheduling label",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: pytorch}}\nspec: {" + c + "}\nstatus: {phase: Pending}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: pytorch}}\nspec: {" + c + ", schedulingGroup: {podGroupName: pytorch}}\nstatus: {phase: Pending}",
	}, {
		name: "a Pod without a group label is left as it is",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\nspec: {" + c + "}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\nspec: {" + c + "}",
	}, {
		name: "Deployment, StatefulSet, ReplicaSet, DaemonSet, Job: spec.template",
		in: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {selector: {matchLabels: {app: d}}, template: {metadata: {labels: {app: d, scheduling.kspatch.io/pod-group: g1}}, spec: {` + c + `}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec: {serviceName: s, selector: {matchLabels: {app: s}}, template: {metadata: {labels: {app: s, scheduling.kspatch.io/pod-group: g2}}, spec: {` + c + `}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: r}
spec: {selector: {matchLabels: {app: r}}, template: {metadata: {labels: {app: r, scheduling.x-k8s.io/pod-group: g3}}, spec: {` + c + `}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec: {selector: {matchLabels: {app: ds}}, template: {metadata: {labels: {app: ds, scheduling.kspatch.io/pod-group: g4}}, spec: {` + c + `}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {completions: 4, parallelism: 4, template: {metadata: {labels: {scheduling.kspatch.io/pod-group: g5}}, spec: {restartPolicy: Never, ` + c + `}}}`,
		want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {selector: {matchLabels: {app: d}}, template: {metadata: {labels: {app: d, scheduling.kspatch.io/pod-group: g1}}, spec: {` + c + `, schedulingGroup: {podGroupName: g1}}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec: {serviceName: s, selector: {matchLabels: {app: s}}, template: {metadata: {labels: {app: s, scheduling.kspatch.io/pod-group: g2}}, spec: {` + c + `, schedulingGroup: {podGroupName: g2}}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: r}
spec: {selector: {matchLabels: {app: r}}, template: {metadata: {labels: {app: r, scheduling.x-k8s.io/pod-group: g3}}, spec: {` + c + `, schedulingGroup: {podGroupName: g3}}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec: {selector: {matchLabels: {app: ds}}, template: {metadata: {labels: {app: ds, scheduling.kspatch.io/pod-group: g4}}, spec: {` + c + `, schedulingGroup: {podGroupName: g4}}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec: {completions: 4, parallelism: 4, template: {metadata: {labels: {scheduling.kspatch.io/pod-group: g5}}, spec: {restartPolicy: Never, ` + c + `, schedulingGroup: {podGroupName: g5}}}}`,
	}, {
		name: "CronJob: spec.jobTemplate.spec.template",
		in:   "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: nightly}}, spec: {restartPolicy: OnFailure, " + c + "}}}}}",
		want: "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: nightly}}, spec: {restartPolicy: OnFailure, " + c + ", schedulingGroup: {podGroupName: nightly}}}}}}",
	}, {
		name: "a custom resource: every pod template in it (Kubeflow's PyTorchJob)",
		in: `
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: pt}}, spec: {` + c + `}}}
    Worker: {replicas: 3, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: pt}}, spec: {` + c + `}}}`,
		want: `
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: pt}}, spec: {` + c + `, schedulingGroup: {podGroupName: pt}}}}
    Worker: {replicas: 3, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: pt}}, spec: {` + c + `, schedulingGroup: {podGroupName: pt}}}}`,
		losses: []string{
			"loss: PyTorchJob kubeflow.org/v1 ml/pt (document 1): spec.pytorchReplicaSpecs.Master.template.spec.schedulingGroup: set, but in a custom resource's template",
			"loss: PyTorchJob kubeflow.org/v1 ml/pt (document 1): spec.pytorchReplicaSpecs.Worker.template.spec.schedulingGroup: set, but in a custom resource's template",
		},
	}, {
		name:   "a list of templates in a custom resource (JobSet-like), one with a group, one without",
		in:     "apiVersion: example.com/v1\nkind: Set\nmetadata: {name: s}\nspec: {jobs: [{template: {spec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + "}}}}}, {template: {spec: {template: {spec: {" + c + "}}}}}]}",
		want:   "apiVersion: example.com/v1\nkind: Set\nmetadata: {name: s}\nspec: {jobs: [{template: {spec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + ", schedulingGroup: {podGroupName: a}}}}}}, {template: {spec: {template: {spec: {" + c + "}}}}}]}",
		losses: []string{"loss: Set example.com/v1 s (document 1): spec.jobs[0].template.spec.template.spec.schedulingGroup: set, but in a custom resource's template"},
	}, {
		name:   "a pod that names two groups joins the kspatch one; the other is a loss",
		in:     "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: a, scheduling.x-k8s.io/pod-group: b}}\nspec: {" + c + "}",
		want:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: a, scheduling.x-k8s.io/pod-group: b}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}",
		losses: []string{"loss: Pod v1 ml/p (document 1): metadata.labels[scheduling.x-k8s.io/pod-group]: the pod names a second group, b, which is not carried: it joins a (metadata.labels[scheduling.kspatch.io/pod-group])"},
	}, {
		name: "both labels naming one group is no loss",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.kspatch.io/pod-group: a, scheduling.x-k8s.io/pod-group: a}}\nspec: {" + c + "}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.kspatch.io/pod-group: a, scheduling.x-k8s.io/pod-group: a}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}",
	}, {
		name:   "a template's spec.schedulingGroup already set wins over its labels",
		in:     "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + ", schedulingGroup: {podGroupName: z}}}}",
		want:   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + ", schedulingGroup: {podGroupName: z}}}}",
		losses: []string{"loss: Deployment apps/v1 d (document 1): spec.template.metadata.labels[scheduling.kspatch.io/pod-group]: the pod names a second group, a, which is not carried: it joins z (spec.schedulingGroup.podGroupName)"},
	}, {
		name: "--remove-labels: the group labels go, other labels stay",
		args: []string{"--remove-labels"},
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: w, scheduling.kspatch.io/pod-group: a, scheduling.x-k8s.io/pod-group: a}}\nspec: {" + c + "}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: w}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}",
	}, {
		name: "--remove-labels: a label the selector uses stays, and says so",
		args: []string{"--remove-labels"},
		in:   "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {selector: {matchExpressions: [{key: scheduling.kspatch.io/pod-group, operator: Exists}]}, template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + "}}}\n---\napiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\nspec: {selector: {scheduling.x-k8s.io/pod-group: b}, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: b}}, spec: {" + c + "}}}",
		want: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {selector: {matchExpressions: [{key: scheduling.kspatch.io/pod-group, operator: Exists}]}, template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + ", schedulingGroup: {podGroupName: a}}}}\n---\napiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\nspec: {selector: {scheduling.x-k8s.io/pod-group: b}, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: b}}, spec: {" + c + ", schedulingGroup: {podGroupName: b}}}}",
		losses: []string{
			"loss: StatefulSet apps/v1 s (document 1): spec.template.metadata.labels[scheduling.kspatch.io/pod-group]: kept, not removed: spec.selector selects on it",
			"loss: ReplicationController v1 rc (document 2): spec.template.metadata.labels[scheduling.x-k8s.io/pod-group]: kept, not removed",
		},
	}, {
		name: "--to kspatch: spec.schedulingGroup becomes the label",
		args: []string{"--to", "kspatch"},
		in:   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {restartPolicy: Never, " + c + ", schedulingGroup: {podGroupName: train}}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: x}}\nspec: {" + c + ", schedulingGroup: {podGroupName: train}}",
		want: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: train}}, spec: {restartPolicy: Never, " + c + "}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: x, scheduling.kspatch.io/pod-group: train}}\nspec: {" + c + "}",
	}, {
		name:   "--to kspatch: a kspatch label already there wins; another podGroupName is a loss",
		args:   []string{"--to", "kspatch"},
		in:     "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + ", schedulingGroup: {podGroupName: b}}",
		want:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + "}",
		losses: []string{"loss: Pod v1 p (document 1): spec.schedulingGroup.podGroupName: the pod names a second group, b, which is not carried: it joins a (metadata.labels[scheduling.kspatch.io/pod-group])"},
	}, {
		name: "--to kspatch: a coscheduling label beside the new kspatch one goes (one group per pod under kspatch)",
		args: []string{"--to", "kspatch"},
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: a}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: q, labels: {scheduling.x-k8s.io/pod-group: b}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + "}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: q, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + "}",
		losses: []string{
			"loss: Pod v1 p (document 1): metadata.labels[scheduling.x-k8s.io/pod-group]: removed: under kspatch a pod joins one group, and this one joins the kspatch PodGroup a",
			"loss: Pod v1 q (document 2): metadata.labels[scheduling.x-k8s.io/pod-group]: the pod names a second group, b, which is not carried: it joins a (spec.schedulingGroup.podGroupName)",
		},
	}, {
		name:   "--to kspatch: schedulingGroup fields other than podGroupName are losses",
		args:   []string{"--to", "kspatch"},
		in:     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {" + c + ", schedulingGroup: {podGroupName: a, compositeName: x}}",
		want:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + "}",
		losses: []string{"loss: Pod v1 p (document 1): spec.schedulingGroup.compositeName: not carried"},
	}, {
		name: "--to kspatch: a coscheduling member stays one",
		args: []string{"--to", "kspatch"},
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: a}}\nspec: {" + c + "}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: a}}\nspec: {" + c + "}",
	}, {
		name: "a v1 List: items converted, the list kept",
		in:   "apiVersion: v1\nkind: List\nmetadata: {resourceVersion: ''}\nitems:\n- {apiVersion: scheduling.kspatch.io/v1alpha1, kind: PodGroup, metadata: {name: g}, spec: {schedulingPolicy: {basic: {}}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {scheduling.kspatch.io/pod-group: g}}, spec: {" + c + "}}",
		want: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: g}, spec: {schedulingPolicy: {basic: {}}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p, labels: {scheduling.kspatch.io/pod-group: g}}, spec: {" + c + ", schedulingGroup: {podGroupName: g}}}",
	}, {
		name:   "a typed list whose items lack kind: from the list's",
		in:     "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroupList\nitems:\n- {metadata: {name: g, namespace: ml}, spec: {schedulingPolicy: {gang: {minCount: 2}}, scheduleTimeoutSeconds: 30}}",
		want:   "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: g, namespace: ml}, spec: {schedulingPolicy: {gang: {minCount: 2}}}}",
		losses: []string{"loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/g (document 1, item 0): spec.scheduleTimeoutSeconds: 30 is not carried"},
	}, {
		name:   "a List in a List: its items converted too, named by both indexes",
		in:     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: scheduling.kspatch.io/v1alpha1, kind: PodGroup, metadata: {name: g}, spec: {schedulingPolicy: {basic: {}}, scheduleTimeoutSeconds: 9}}",
		want:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: g}, spec: {schedulingPolicy: {basic: {}}}}",
		losses: []string{"loss: PodGroup scheduling.kspatch.io/v1alpha1 g (document 1, item 0.0): spec.scheduleTimeoutSeconds: 9 is not carried"},
	}, {
		name:   "--remove-labels: a label the template's own affinity selects on stays",
		args:   []string{"--remove-labels"},
		in:     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + ", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: rack, labelSelector: {matchLabels: {scheduling.kspatch.io/pod-group: a}}}]}}}}}",
		want:   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {" + c + ", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: rack, labelSelector: {matchLabels: {scheduling.kspatch.io/pod-group: a}}}]}}, schedulingGroup: {podGroupName: a}}}}",
		losses: []string{"loss: Job batch/v1 j (document 1): spec.template.metadata.labels[scheduling.kspatch.io/pod-group]: kept, not removed: spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector selects on it"},
	}, {
		name: "--remove-labels: a selector of another namespace, or of another group, does not keep the label",
		args: []string{"--remove-labels"},
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + "}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: web}\nspec: {selector: {scheduling.kspatch.io/pod-group: a}}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: t, namespace: ml}\nspec: {selector: {scheduling.kspatch.io/pod-group: b}}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: web}\nspec: {selector: {scheduling.kspatch.io/pod-group: a}}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: t, namespace: ml}\nspec: {selector: {scheduling.kspatch.io/pod-group: b}}",
	}, {
		name: "--to kspatch: a coscheduling label naming the same group stays where a selector uses it",
		args: []string{"--to", "kspatch"},
		in:   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {matchLabels: {scheduling.x-k8s.io/pod-group: a}}, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: a}}, spec: {" + c + ", schedulingGroup: {podGroupName: a}}}}",
		want: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {matchLabels: {scheduling.x-k8s.io/pod-group: a}}, template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: a, scheduling.kspatch.io/pod-group: a}}, spec: {" + c + "}}}",
	}, {
		name: "--to kspatch: a coscheduling label naming another group goes, and says which selector loses the pod",
		args: []string{"--to", "kspatch"},
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.x-k8s.io/pod-group: b}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: ml}\nspec: {selector: {matchExpressions: [{key: scheduling.x-k8s.io/pod-group, operator: Exists}]}}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {" + c + "}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: ml}\nspec: {selector: {matchExpressions: [{key: scheduling.x-k8s.io/pod-group, operator: Exists}]}}",
		losses: []string{
			"loss: Pod v1 ml/p (document 1): metadata.labels[scheduling.x-k8s.io/pod-group]: the pod names a second group, b",
			"loss: Pod v1 ml/p (document 1): metadata.labels[scheduling.x-k8s.io/pod-group]: removed, so that the pod joins one group; and PodDisruptionBudget policy/v1 ml/b (document 2) selects on it (spec.selector): it selects this pod no more",
		},
	}, {
		name: "--to kspatch: spec.schedulingGroup: null goes",
		args: []string{"--to", "kspatch"},
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {" + c + ", schedulingGroup: null}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {" + c + "}",
	}, {
		name: "the older coscheduling label beside a label of the same group is left alone",
		in:   "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: a, pod-group.scheduling.sigs.k8s.io: a}}\nspec: {" + c + "}",
		want: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {scheduling.x-k8s.io/pod-group: a, pod-group.scheduling.sigs.k8s.io: a}}\nspec: {" + c + ", schedulingGroup: {podGroupName: a}}",
	}, {
		name:   "a template without containers (a patch) that names a group: not converted, reported",
		in:     "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: a}}}}",
		want:   "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {template: {metadata: {labels: {scheduling.x-k8s.io/pod-group: a}}}}",
		losses: []string{"loss: StatefulSet apps/v1 s (document 1): spec.template.metadata.labels[scheduling.x-k8s.io/pod-group]: not converted: a pod template without containers"},
	}, {
		name:   "--to kspatch: a template without containers with spec.schedulingGroup: reported",
		args:   []string{"--to", "kspatch"},
		in:     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {schedulingGroup: {podGroupName: a}}}}",
		want:   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {schedulingGroup: {podGroupName: a}}}}",
		losses: []string{"loss: Job batch/v1 j (document 1): spec.template.spec.schedulingGroup.podGroupName: not converted: a pod template without containers (a partial object, such as a kustomize patch?) that names the group a; convert the complete object it makes, or set the label scheduling.kspatch.io/pod-group: a and remove spec.schedulingGroup in it yourself"},
	}, {
		name: "a template without containers and without a group, or a CronJob's job template, is no pod",
		in:   "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {jobTemplate: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {template: {metadata: {labels: {app: x}}}}}}",
		want: "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj, labels: {scheduling.kspatch.io/pod-group: a}}\nspec: {jobTemplate: {metadata: {labels: {scheduling.kspatch.io/pod-group: a}}, spec: {template: {metadata: {labels: {app: x}}}}}}",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			checkConversion(t, tc.in, tc.want, tc.losses, tc.args...)
		})
	}
}
