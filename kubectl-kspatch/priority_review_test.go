package main

// Review of `kubectl kspatch convert` (#47): the gang's priority.

import (
	"strings"
	"testing"
)

// TestReviewPriority_GangPriorityDropsToZero: under kspatch a gang's
// priority is its pods' (convert says so itself, going back: "kspatch's
// PodGroup has no priority; its pods' own priorityClassName counts").
// Upstream's v1beta1 PodGroup has spec.priorityClassName / spec.priority,
// "the priority that should be considered when scheduling this pod group",
// resolved to the global default or zero when unset; and upstream's
// workload-aware preemption takes the PodGroup's priority for every member
// (kubernetes/kubernetes#139030). convert writes the group without a
// priority and says nothing, so a gang of priorityClassName: high pods
// becomes a priority-0 group on upgrade day: it no longer preempts, and
// anything above 0 may preempt it. Carry the members' class into the
// group, or at least print a loss line.
func TestReviewPriority_GangPriorityDropsToZero(t *testing.T) {
	for _, group := range []string{
		"apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: train, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 4}}}\n",
		"apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: train, namespace: ml}\nspec: {minMember: 4}\n",
	} {
		in := group + `---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  parallelism: 4
  template:
    metadata: {labels: {scheduling.kspatch.io/pod-group: train}}
    spec:
      priorityClassName: high
      restartPolicy: Never
      containers: [{name: w, image: trainer}]
`
		out, stderr, code := convertText(in, "--to", "upstream")
		pg := objects(t, out)[0]
		cls, _ := nested(pg, "spec", "priorityClassName")
		if cls == "high" || strings.Contains(strings.ToLower(strings.Join(lossLines(stderr), "\n")), "priority") {
			continue
		}
		t.Errorf("from %s: exit status %d; the v1beta1 PodGroup has no priorityClassName and no loss line mentions priority, while its members run at priorityClassName high:\n%s\nstderr:\n%s",
			objects(t, group)[0]["apiVersion"], code, out, stderr)
	}
}
