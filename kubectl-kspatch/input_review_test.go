package main

// Review of `kubectl kspatch convert` (#47): how it reads its input.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewInput_RepeatedFilenameDropsAFile: kubectl users pass -f more
// than once (kubectl apply -f a.yaml -f b.yaml). convert's -f is a plain
// string flag, so the last one silently wins: the first file's PodGroup
// is neither converted nor written, and the exit status says 0
// ("converted, nothing lost"). Either read every file or refuse (exit 2).
func TestReviewInput_RepeatedFilenameDropsAFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(a, []byte("apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: a, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 2}}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: ml}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := convertText("", "-f", a, "-f", b)
	if code == exitUsage {
		return // refusing is fine too
	}
	if !strings.Contains(out, "name: a") {
		t.Errorf("-f %s -f %s: exit status %d and the PodGroup of %s is missing from the output:\n%s\nstderr:\n%s", a, b, code, a, out, stderr)
	}
}

// TestReviewInput_ValidYAMLRefused: inputs kubectl apply -f reads (its
// YAMLOrJSONDecoder falls back to YAML when the first "JSON" object does
// not parse; it converts YAML without the strict duplicate check) that
// convert refuses with exit 1 "bad input".
func TestReviewInput_ValidYAMLRefused(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{name: "flow-style YAML document starting with {", in: "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ml}}\n"},
		{name: "a JSON object, then a YAML document", in: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}` + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"},
		{name: "a merge key with an override (<<: *anchor, then name:)", in: `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml}
spec:
  template:
    metadata: {labels: {scheduling.kspatch.io/pod-group: train}}
    spec:
      restartPolicy: Never
      containers:
      - &worker {name: a, image: trainer}
      - <<: *worker
        name: b
`},
		{name: "spec.schedulingGroup: null (unset)", in: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml, labels: {scheduling.kspatch.io/pod-group: g}}\nspec: {containers: [{name: c, image: i}], schedulingGroup: null}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := convertText(tc.in)
			if code != 0 {
				t.Errorf("exit status %d, want 0:\n%s", code, stderr)
			}
		})
	}
}

// TestReviewInput_NestedListGroupNotConverted: kubectl flattens a List
// inside a List (cli-runtime's FlattenListVisitor) and applies its items.
// convert converts only the outer List's items: the inner kspatch PodGroup
// goes out unconverted, its timeout is not reported, and the exit status
// is 0 ("converted, nothing lost").
func TestReviewInput_NestedListGroupNotConverted(t *testing.T) {
	const in = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: List
  items:
  - apiVersion: scheduling.kspatch.io/v1alpha1
    kind: PodGroup
    metadata: {name: train, namespace: ml}
    spec: {schedulingPolicy: {gang: {minCount: 2}}, scheduleTimeoutSeconds: 60}
`
	out, stderr, code := convertText(in, "--to", "upstream")
	if code == exitFailed {
		return // refusing nested lists is fine too
	}
	if strings.Contains(out, kspatchAPIVersion) {
		t.Errorf("exit status %d; a kspatch PodGroup is in the --to upstream output:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if len(lossLines(stderr)) == 0 {
		t.Errorf("spec.scheduleTimeoutSeconds of the nested group is not reported as a loss; stderr:\n%s", stderr)
	}
}

// TestReviewInput_UnnamespacedTwin: a group without a namespace lands in
// the namespace kubectl applies it to, usually default; a second group of
// the same name in default then becomes the same v1beta1 PodGroup, and
// kubectl apply overwrites one with the other. convert's own "two objects
// that would become one PodGroup" check keys on the literal namespace and
// misses it.
func TestReviewInput_UnnamespacedTwin(t *testing.T) {
	const in = `apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: train}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: default}
spec: {minMember: 8}
`
	out, stderr, code := convertText(in, "--to", "upstream")
	if code != exitFailed && !strings.Contains(stderr, "train") {
		t.Errorf("exit status %d, nothing said; two v1beta1 PodGroups named train, one without a namespace, one in default:\n%s", code, out)
	}
}
