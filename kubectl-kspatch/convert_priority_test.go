package main

import "testing"

// TestConvertPriorities: a converted group runs at the priority class its
// members in the input agree on, both ways; members that disagree are a
// loss, and a group without members in the input is written as before.
func TestConvertPriorities(t *testing.T) {
	const (
		ks   = "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n---\n"
		cs   = "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {minMember: 2}\n---\n"
		up   = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: high}\n---\n"
		ksTo = "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n---\n"
	)
	pod := func(name, label, class string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ml, labels: {" + label + ": g}}\nspec: {containers: [{name: c, image: i}]" + class + "}\n"
	}
	withField := func(name, class string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ml, labels: {scheduling.kspatch.io/pod-group: g}}\nspec: {containers: [{name: c, image: i}]" + class + ", schedulingGroup: {podGroupName: g}}\n"
	}
	const high = ", priorityClassName: high"
	for _, tc := range []struct {
		name, in, want string
		args           []string
		losses         []string
	}{{
		name: "kspatch group, members agree: the class is the group's",
		in:   ks + pod("a", kspatchLabel, high) + "---\n" + pod("b", kspatchLabel, high),
		want: up + withField("a", high) + "---\n" + withField("b", high),
	}, {
		name: "coscheduling group, its members labelled the coscheduling way",
		in:   cs + pod("a", coschedulingLabel, high),
		want: up + "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: ml, labels: {scheduling.x-k8s.io/pod-group: g}}\nspec: {containers: [{name: c, image: i}]" + high + ", schedulingGroup: {podGroupName: g}}\n",
	}, {
		name: "members without a class: none written",
		in:   ks + pod("a", kspatchLabel, ""),
		want: "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n---\n" + withField("a", ""),
	}, {
		name:   "members disagree: none written, a loss naming them",
		in:     ks + pod("a", kspatchLabel, high) + "---\n" + pod("b", kspatchLabel, ""),
		want:   "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n---\n" + withField("a", high) + "---\n" + withField("b", ""),
		losses: []string{"loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/g (document 1): spec.priorityClassName: not set: the group's members name different priority classes (none: Pod v1 ml/b (document 3); high: Pod v1 ml/a (document 2))"},
	}, {
		name: "members of a group of another namespace do not count",
		in:   ks + "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: web, labels: {scheduling.kspatch.io/pod-group: g}}\nspec: {containers: [{name: c, image: i}]" + high + "}\n",
		want: "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: web, labels: {scheduling.kspatch.io/pod-group: g}}\nspec: {containers: [{name: c, image: i}]" + high + ", schedulingGroup: {podGroupName: g}}\n",
	}, {
		name: "back: members that carry the group's class lose nothing",
		args: []string{"--to", "kspatch"},
		in:   up + withField("a", high),
		want: ksTo + pod("a", kspatchLabel, high),
	}, {
		name:   "back: members without it lose it",
		args:   []string{"--to", "kspatch"},
		in:     up + withField("a", ""),
		want:   ksTo + pod("a", kspatchLabel, ""),
		losses: []string{"loss: PodGroup scheduling.k8s.io/v1beta1 ml/g (document 1): spec.priorityClassName: high is not carried"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			checkConversion(t, tc.in, tc.want, tc.losses, tc.args...)
		})
	}
}
