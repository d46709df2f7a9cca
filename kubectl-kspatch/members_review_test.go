package main

// Review of `kubectl kspatch convert` (#47): pods the converter does not
// see, and labels it does not know.

import (
	"strings"
	"testing"
)

// TestReviewMembers_TemplateWithoutContainers: findPods recognises a pod
// template only by spec.containers. A partial object (a kustomize
// strategic-merge patch, a Helm values overlay rendered to a Deployment
// patch) that sets the group label on spec.template without repeating the
// containers is passed through untouched, exit 0: after the overlay is
// applied on v1.37 the pods carry the label and no spec.schedulingGroup,
// and upstream schedules them one by one. A map with metadata.labels
// naming a group next to a spec is at least worth a loss line.
func TestReviewMembers_TemplateWithoutContainers(t *testing.T) {
	const in = `apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  template:
    metadata: {labels: {scheduling.kspatch.io/pod-group: serve}}
    spec: {schedulerName: kspatch-scheduler}
`
	out, stderr, code := convertText(in, "--to", "upstream")
	if strings.Contains(out, "podGroupName: serve") || code != 0 {
		return
	}
	t.Errorf("exit status 0, nothing said, no spec.schedulingGroup on a template that names the group serve:\n%s\nstderr:\n%s", out, stderr)
}

// TestReviewMembers_OldCoschedulingLabel: convert refuses PodGroups of
// scheduler-plugins' older API group scheduling.sigs.k8s.io ("move to it
// first"), but the member pods of those releases, labelled
// pod-group.scheduling.sigs.k8s.io: NAME, go through silently with exit 0
// when their group is in another file: they join no group upstream.
func TestReviewMembers_OldCoschedulingLabel(t *testing.T) {
	const in = `apiVersion: v1
kind: Pod
metadata: {name: worker-0, namespace: ml, labels: {pod-group.scheduling.sigs.k8s.io: train}}
spec: {schedulerName: scheduler-plugins-scheduler, containers: [{name: w, image: trainer}]}
`
	out, stderr, code := convertText(in, "--to", "upstream")
	if code != 0 || strings.Contains(out, "podGroupName") {
		return
	}
	t.Errorf("exit status 0, nothing said, for a pod labelled with the older coscheduling label:\n%s\nstderr:\n%s", out, stderr)
}

// TestReviewMembers_CustomResourceTemplateSchema: docs/migration.md
// advertises PyTorchJob templates as converted. convert adds
// spec.schedulingGroup to the template of any custom resource, but a
// custom resource's schema is its operator's: Kubeflow's PyTorchJob CRD
// (kubeflow.org_pytorchjobs.yaml) is a fully structural copy of the
// PodTemplateSpec of the k8s.io/api it was built with, which has no
// schedulingGroup, and the operator builds pods through its own compiled
// corev1 types. kubectl apply then refuses the field (strict field
// validation) or the API server prunes it, and the job's pods join no
// group; with --remove-labels they lose the label too. convert prints
// nothing (exit 0). A note per custom-resource template (the field only
// works if the operator's CRD and types carry it) would say so.
func TestReviewMembers_CustomResourceTemplateSchema(t *testing.T) {
	const in = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 4
      template:
        metadata: {labels: {scheduling.kspatch.io/pod-group: pt}}
        spec: {containers: [{name: pytorch, image: trainer}]}
`
	out, stderr, code := convertText(in, "--to", "upstream", "--remove-labels")
	if code == 0 && strings.TrimSpace(stderr) == "" {
		t.Errorf("exit status 0, nothing said; the PyTorchJob's template now relies on a field its CRD does not define:\n%s", out)
	}
}
