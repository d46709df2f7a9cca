package main

import (
	"strings"
	"testing"
)

// TestConvertRefuses: input that cannot be converted exits 1, writes
// nothing on standard output, and says on standard error which object and
// field, and why.
func TestConvertRefuses(t *testing.T) {
	const ks = "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\n"
	const cs = "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: c, namespace: ml"
	const up = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: u}\n"
	pod := func(labels, spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: " + labels + "}\nspec: {containers: [{name: c, image: i}]" + spec + "}\n"
	}
	for _, tc := range []struct {
		name, in, want string
		args           []string
	}{
		// Reading.
		{name: "not YAML", in: "a: [b", want: "error: document 1: yaml"},
		{name: "a key twice", in: "apiVersion: v1\nkind: ConfigMap\nkind: Secret\n", want: `error: document 1: yaml: unmarshal errors`},
		{name: "a JSON key twice", in: `{"apiVersion": "v1", "kind": "ConfigMap", "kind": "Secret"}`, want: `error: document 1: duplicate field "kind"`},
		{name: "a JSON array", in: `[{"apiVersion": "v1"}]`, want: "a JSON array, not an object"},
		{name: "a scalar document", in: "---\nhello\n", want: "document 1: not an object"},
		{name: "nothing", in: "# only a comment\n---\n", want: "the input holds no object"},
		{name: "no kind", in: "apiVersion: v1\nmetadata: {name: x}\n", want: "error: object v1 x (document 1): not a Kubernetes object: apiVersion and kind are required"},
		{name: "a bad apiVersion", in: "apiVersion: a/b/c\nkind: X\n", want: `apiVersion: unexpected GroupVersion string: a/b/c`},
		{name: "List items not a list", in: "apiVersion: v1\nkind: List\nitems: {a: 1}\n", want: "items: not a list"},
		{name: "a List item not an object", in: "apiVersion: v1\nkind: List\nitems: [1]\n", want: "items[0]: not an object"},
		// kspatch PodGroups.
		{name: "kspatch: gang and basic", in: ks + "spec: {schedulingPolicy: {gang: {minCount: 2}, basic: {}}}", want: "error: PodGroup scheduling.kspatch.io/v1alpha1 ml/g (document 1): spec.schedulingPolicy: exactly one of gang and basic must be set"},
		{name: "kspatch: no policy", in: ks + "spec: {schedulingPolicy: {}}", want: "spec.schedulingPolicy: exactly one of gang and basic"},
		{name: "kspatch: minCount 0", in: ks + "spec: {schedulingPolicy: {gang: {minCount: 0}}}", want: "spec.schedulingPolicy.gang.minCount: 0; it must be at least 1"},
		{name: "kspatch: minCount above int32", in: ks + "spec: {schedulingPolicy: {gang: {minCount: 4294967298}}}", want: "spec.schedulingPolicy.gang.minCount: got number 4294967298, want int32"},
		{name: "kspatch: minCount a string", in: ks + "spec: {schedulingPolicy: {gang: {minCount: \"4\"}}}", want: "spec.schedulingPolicy.gang.minCount: got string, want int32"},
		{name: "kspatch: not a label key", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: 'rack zone'}]}}", want: `spec.schedulingConstraints.topology[0]: key "rack zone" is not a node label key`},
		{name: "kspatch: a key twice", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: rack}, {key: rack, mode: Preferred}]}}", want: "topology[1]: the key rack is listed more than once"},
		{name: "kspatch: Required second", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: block, mode: Preferred}, {key: rack}]}}", want: "topology[1]: only the first level may be Required"},
		{name: "kspatch: bad mode", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: rack, mode: Soft}]}}", want: `topology[0]: mode "Soft"; it must be Required or Preferred`},
		{name: "kspatch: zone below hostname", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: kubernetes.io/hostname}, {key: topology.kubernetes.io/zone, mode: Preferred}]}}", want: "topology[1]: the key topology.kubernetes.io/zone is wider than kubernetes.io/hostname above it"},
		{name: "kspatch: region below zone, a custom level between", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}, {key: rack, mode: Preferred}, {key: topology.kubernetes.io/region, mode: Preferred}]}}", want: "topology[2]: the key topology.kubernetes.io/region is wider than topology.kubernetes.io/zone above it"},
		{name: "kspatch: five levels", in: ks + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: a}, {key: b, mode: Preferred}, {key: c, mode: Preferred}, {key: d, mode: Preferred}, {key: e, mode: Preferred}]}}", want: "5 topology levels; at most 4"},
		{name: "kspatch: timeout 0", in: ks + "spec: {schedulingPolicy: {basic: {}}, scheduleTimeoutSeconds: 0}", want: "spec.scheduleTimeoutSeconds: 0; it must be between 1 and 86400"},
		{name: "kspatch: bad disruption mode", in: ks + "spec: {schedulingPolicy: {basic: {}}, disruptionMode: Gang}", want: `spec.disruptionMode: "Gang"; it must be Pod or PodGroup`},
		{name: "kspatch: no name", in: "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {generateName: g-}\nspec: {schedulingPolicy: {basic: {}}}", want: "metadata.name: required: pods join a group by its name"},
		{name: "kspatch: name longer than a label value", in: "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: " + strings.Repeat("a", 64) + "}\nspec: {schedulingPolicy: {basic: {}}}", want: "metadata.name: 64 characters; a kspatch PodGroup's name is at most 63"},
		{name: "kspatch: unknown version", in: "apiVersion: scheduling.kspatch.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n", want: "scheduling.kspatch.io/v1beta1: convert reads scheduling.kspatch.io/v1alpha1 PodGroups only"},
		// coscheduling PodGroups.
		{name: "coscheduling: minMember 0", in: cs + "}\nspec: {minMember: 0}", want: "error: PodGroup scheduling.x-k8s.io/v1alpha1 ml/c (document 1): spec.minMember: 0; it must be at least 1"},
		{name: "coscheduling: minMember missing", in: cs + "}\nspec: {}", want: "spec.minMember: 0; it must be at least 1"},
		{name: "coscheduling: minMember negative", in: cs + "}\nspec: {minMember: -2}", want: "spec.minMember: -2; it must be at least 1"},
		{name: "coscheduling: minMember above int32", in: cs + "}\nspec: {minMember: 2147483648}", want: "spec.minMember: got number 2147483648, want int32"},
		{name: "coscheduling: timeout 0", in: cs + "}\nspec: {minMember: 2, scheduleTimeoutSeconds: 0}", want: "spec.scheduleTimeoutSeconds: 0; it must be at least 1"},
		{name: "coscheduling: timeout negative", in: cs + "}\nspec: {minMember: 2, scheduleTimeoutSeconds: -5}", want: "spec.scheduleTimeoutSeconds: -5; it must be at least 1"},
		{name: "coscheduling: negative minResources", in: cs + "}\nspec: {minMember: 2, minResources: {cpu: '-1'}}", want: "spec.minResources.cpu: -1; a quantity must not be negative"},
		{name: "coscheduling: not a quantity", in: cs + "}\nspec: {minMember: 2, minResources: {cpu: lots}}", want: `spec.minResources.cpu: "lots" is not a quantity: quantities must match the regular expression`},
		{name: "coscheduling: Required annotation names two keys", in: cs + ", annotations: {scheduling.kspatch.io/topology-required: 'block,rack'}}\nspec: {minMember: 2}", want: `metadata.annotations[scheduling.kspatch.io/topology-required]: "block,rack"; it must name one node label key`},
		{name: "coscheduling: Required annotation empty", in: cs + ", annotations: {scheduling.kspatch.io/topology-required: ' '}}\nspec: {minMember: 2}", want: "it must name one node label key"},
		{name: "coscheduling: Preferred annotation with an empty entry", in: cs + ", annotations: {scheduling.kspatch.io/topology-preferred: 'rack,,host'}}\nspec: {minMember: 2}", want: "without empty entries"},
		{name: "coscheduling: Preferred repeats Required", in: cs + ", annotations: {scheduling.kspatch.io/topology-required: rack, scheduling.kspatch.io/topology-preferred: rack}}\nspec: {minMember: 2}", want: "metadata.annotations[scheduling.kspatch.io/topology-preferred]: the key rack is listed more than once"},
		{name: "coscheduling: Preferred not a label key", in: cs + ", annotations: {scheduling.kspatch.io/topology-preferred: 'a b'}}\nspec: {minMember: 2}", want: `metadata.annotations[scheduling.kspatch.io/topology-preferred]: key "a b" is not a node label key`},
		{name: "coscheduling: timeout above a day", in: cs + "}\nspec: {minMember: 2, scheduleTimeoutSeconds: 86401}", want: "spec.scheduleTimeoutSeconds: 86401; it must be at most 86400"},
		{name: "coscheduling: Preferred region below Required zone", in: cs + ", annotations: {scheduling.kspatch.io/topology-required: topology.kubernetes.io/zone, scheduling.kspatch.io/topology-preferred: topology.kubernetes.io/region}}\nspec: {minMember: 2}", want: "metadata.annotations[scheduling.kspatch.io/topology-preferred]: the key topology.kubernetes.io/region is wider than topology.kubernetes.io/zone above it"},
		{name: "coscheduling: bad disruption annotation", in: cs + ", annotations: {scheduling.kspatch.io/disruption-mode: All}}\nspec: {minMember: 2}", want: `metadata.annotations[scheduling.kspatch.io/disruption-mode]: "All"; it must be Pod or PodGroup`},
		{name: "coscheduling: the older API group", in: "apiVersion: scheduling.sigs.k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: old}\nspec: {minMember: 2}", want: "scheduling.sigs.k8s.io is the API group of older scheduler-plugins releases"},
		{name: "coscheduling: unknown version", in: "apiVersion: scheduling.x-k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: c}\n", want: "convert reads scheduling.x-k8s.io/v1alpha1 PodGroups only"},
		// v1beta1 PodGroups, --to kspatch.
		{name: "upstream: gang and basic", args: []string{"--to", "kspatch"}, in: up + "spec: {schedulingPolicy: {gang: {minCount: 2}, basic: {}}}", want: "error: PodGroup scheduling.k8s.io/v1beta1 u (document 1): spec.schedulingPolicy: exactly one of gang and basic"},
		{name: "upstream: minCount 0", args: []string{"--to", "kspatch"}, in: up + "spec: {schedulingPolicy: {gang: {minCount: 0}}}", want: "spec.schedulingPolicy.gang.minCount: 0; it must be at least 1"},
		{name: "upstream: single and all", args: []string{"--to", "kspatch"}, in: up + "spec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}, all: {}}}", want: "spec.disruptionMode: exactly one of single and all"},
		{name: "upstream: not a label key", args: []string{"--to", "kspatch"}, in: up + "spec: {schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: [{key: '/rack'}]}}", want: `spec.schedulingConstraints.topology[0]: key "/rack" is not a node label key`},
		{name: "upstream: name too long for a label", args: []string{"--to", "kspatch"}, in: "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: " + strings.Repeat("b", 70) + "}\nspec: {schedulingPolicy: {basic: {}}}", want: "70 characters; a kspatch PodGroup's name is at most 63"},
		// Two objects that become one.
		{name: "kspatch and coscheduling groups of one name", in: ks + "spec: {schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {minMember: 2}",
			want: "error: PodGroup scheduling.x-k8s.io/v1alpha1 ml/g (document 2): converts to a PodGroup ml/g that PodGroup scheduling.kspatch.io/v1alpha1 ml/g (document 1) converts to as well"},
		{name: "a group and its converted self", in: ks + "spec: {schedulingPolicy: {basic: {}}}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {basic: {}}}",
			want: "(document 2): converts to a PodGroup ml/g that"},
		{name: "a group without a namespace and one of its name in a namespace", in: "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}}\n---\n" + ks + "spec: {schedulingPolicy: {basic: {}}}",
			want: "error: PodGroup scheduling.kspatch.io/v1alpha1 ml/g (document 2): converts to a PodGroup of the same name as PodGroup scheduling.kspatch.io/v1alpha1 g (document 1), which has no namespace: applied to ml"},
		{name: "a nested List's item not an object", in: "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: List, items: [3]}\n", want: "error: List v1 (no name) (document 1, item 0): items[0]: not an object"},
		// Member pods.
		{name: "a label that is not a PodGroup name", in: pod("{scheduling.kspatch.io/pod-group: Train_1}", ""), want: `error: Pod v1 p (document 1): metadata.labels[scheduling.kspatch.io/pod-group]: "Train_1" is not a PodGroup name`},
		{name: "a template label that is not a PodGroup name", in: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    metadata: {labels: {scheduling.x-k8s.io/pod-group: A.}}\n    spec: {containers: []}\n", want: `spec.template.metadata.labels[scheduling.x-k8s.io/pod-group]: "A." is not a PodGroup name`},
		{name: "a podGroupName too long for a label", args: []string{"--to", "kspatch"}, in: pod("{}", ", schedulingGroup: {podGroupName: "+strings.Repeat("c", 64)+"}"), want: "spec.schedulingGroup.podGroupName: \"ccc"},
		{name: "the older coscheduling label alone", in: pod("{pod-group.scheduling.sigs.k8s.io: old}", ""), want: "error: Pod v1 p (document 1): metadata.labels[pod-group.scheduling.sigs.k8s.io]: old: the label of older scheduler-plugins releases"},
		{name: "the older coscheduling label beside another group, --to kspatch", args: []string{"--to", "kspatch"}, in: pod("{pod-group.scheduling.sigs.k8s.io: old, scheduling.kspatch.io/pod-group: new}", ""), want: "metadata.labels[pod-group.scheduling.sigs.k8s.io]: old: the label of older scheduler-plugins releases"},
		{name: "the older coscheduling label in a template without containers", in: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {metadata: {labels: {pod-group.scheduling.sigs.k8s.io: old}}}}\n", want: "spec.template.metadata.labels[pod-group.scheduling.sigs.k8s.io]: old: the label of older"},
		{name: "--to kspatch: a CronJob's job selector needs a coscheduling label of another group", args: []string{"--to", "kspatch"},
			in:   "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: cj}\nspec:\n  jobTemplate:\n    spec:\n      selector: {matchLabels: {scheduling.x-k8s.io/pod-group: a}}\n      template:\n        metadata: {labels: {scheduling.x-k8s.io/pod-group: a}}\n        spec: {containers: [], schedulingGroup: {podGroupName: b}}\n",
			want: "spec.jobTemplate.spec.template.metadata.labels[scheduling.x-k8s.io/pod-group]: spec.jobTemplate.spec.selector selects on it, so it cannot be removed"},
		{name: "labels not a map", in: pod("[a]", ""), want: "metadata.labels: not an object"},
		{name: "a label not a string", in: pod("{scheduling.kspatch.io/pod-group: 5}", ""), want: "metadata.labels[scheduling.kspatch.io/pod-group]: not a string"},
		{name: "schedulingGroup not an object", in: pod("{}", ", schedulingGroup: g"), want: "spec.schedulingGroup: not an object"},
		{name: "podGroupName not a string", in: pod("{}", ", schedulingGroup: {podGroupName: 3}"), want: "spec.schedulingGroup.podGroupName: not a string"},
		{name: "--to kspatch: a coscheduling label the selector needs, beside another group", args: []string{"--to", "kspatch"},
			in:   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {scheduling.x-k8s.io/pod-group: a}}\n  template:\n    metadata: {labels: {scheduling.x-k8s.io/pod-group: a}}\n    spec: {containers: [], schedulingGroup: {podGroupName: b}}\n",
			want: "spec.template.metadata.labels[scheduling.x-k8s.io/pod-group]: spec.selector selects on it, so it cannot be removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := convertText(tc.in, tc.args...)
			if code != exitFailed {
				t.Errorf("exit status %d, want %d", code, exitFailed)
			}
			if out != "" {
				t.Errorf("refused, yet wrote:\n%s", out)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr:\n%s\nwant it to contain:\n%s", stderr, tc.want)
			}
		})
	}
}
