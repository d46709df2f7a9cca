package main

// Review of `kubectl kspatch convert` (#47): removing group labels that
// selectors other than the object's own spec.selector still use.

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// templateMatches reports whether the labels at templatePath of obj match
// the LabelSelector at selectorPath.
func templateMatches(t *testing.T, obj map[string]interface{}, selectorPath, templateLabelsPath []string) bool {
	t.Helper()
	sv, _ := nested(obj, selectorPath...)
	sm, _ := sv.(map[string]interface{})
	var sel metav1.LabelSelector
	if ml, ok := sm["matchLabels"].(map[string]interface{}); ok {
		sel.MatchLabels = map[string]string{}
		for k, v := range ml {
			sel.MatchLabels[k] = v.(string)
		}
	}
	s, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		t.Fatal(err)
	}
	lv, _ := nested(obj, templateLabelsPath...)
	lm, _ := lv.(map[string]interface{})
	set := labels.Set{}
	for k, v := range lm {
		set[k] = v.(string)
	}
	return s.Matches(set)
}

// TestReviewSelector_CronJobJobTemplateSelector: selectorUses reads only
// the root object's spec.selector. A CronJob's Jobs are selected by
// spec.jobTemplate.spec.selector (manualSelector), so --remove-labels
// strips the label that selector needs: the CronJob is accepted, and each
// Job it then creates is refused ("selector does not match template
// labels"), with exit status 0 here. The same hole in --to kspatch removes
// a coscheduling label such a selector uses.
func TestReviewSelector_CronJobJobTemplateSelector(t *testing.T) {
	for _, tc := range []struct {
		name, label string
		args        []string
		extra       string
	}{
		{name: "--to upstream --remove-labels", label: kspatchLabel, args: []string{"--to", "upstream", "--remove-labels"}},
		{name: "--to kspatch, coscheduling label beside spec.schedulingGroup", label: coschedulingLabel, args: []string{"--to", "kspatch"},
			extra: "          schedulingGroup: {podGroupName: nightly}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      manualSelector: true
      selector: {matchLabels: {` + tc.label + `: nightly}}
      template:
        metadata: {labels: {` + tc.label + `: nightly}}
        spec:
          restartPolicy: OnFailure
          containers: [{name: nightly, image: batch}]
` + tc.extra
			out, stderr, code := convertText(in, tc.args...)
			if code == exitFailed {
				return // refusing is fine
			}
			obj := objects(t, out)[0]
			if !templateMatches(t, obj, []string{"spec", "jobTemplate", "spec", "selector"}, []string{"spec", "jobTemplate", "spec", "template", "metadata", "labels"}) {
				t.Errorf("exit status %d: spec.jobTemplate.spec.selector no longer matches the template's labels; every Job the CronJob creates is refused:\n%s\nstderr:\n%s", code, out, stderr)
			}
		})
	}
}

// TestReviewSelector_OtherObjectsSelectors: --remove-labels strips the
// group label from the pods of a Job while the same input holds a
// PodDisruptionBudget and a headless Service that select the gang's pods by
// that label. After step 4 of docs/migration.md the budget covers no pod
// and the Service has no endpoints; convert says nothing (exit 0).
func TestReviewSelector_OtherObjectsSelectors(t *testing.T) {
	const in = `apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  template:
    metadata: {labels: {scheduling.kspatch.io/pod-group: train}}
    spec: {restartPolicy: Never, containers: [{name: w, image: trainer}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: train, namespace: ml}
spec:
  minAvailable: 4
  selector: {matchLabels: {scheduling.kspatch.io/pod-group: train}}
---
apiVersion: v1
kind: Service
metadata: {name: train, namespace: ml}
spec:
  clusterIP: None
  selector: {scheduling.kspatch.io/pod-group: train}
`
	out, stderr, code := convertText(in, "--to", "upstream", "--remove-labels")
	if code == exitFailed {
		return
	}
	if strings.Contains(strings.SplitN(out, "---", 2)[0], kspatchLabel) {
		return // the label was kept
	}
	for _, kind := range []string{"PodDisruptionBudget", "Service"} {
		if !strings.Contains(stderr, kind) {
			t.Errorf("exit status %d: the label was removed from the Job's pods and nothing names the %s that selects on it; stderr:\n%s", code, kind, stderr)
		}
	}
}
