package main

// Review of `kubectl kspatch convert` (#47): groups the kspatch CRD or
// scheduler refuses, which convert converts.

import "testing"

// TestReviewValidation_MalformedUnderKspatchConverted: readCoschedulingGroup
// promises "A group the kspatch scheduler would call malformed is an
// error", and validateKspatch "checks what the CRD's schema checks", and
// docs/migration.md says convert refuses "a group that its own API
// rejects". These groups are refused by the kspatch scheduler's Validate
// (FromCoscheduling: timeout above MaxScheduleTimeoutSeconds 86400; levels
// whose well-known keys are listed narrowest first) or by the CRDs
// (maximum: 86400; the zone/region/hostname order rules), yet convert
// writes an upstream group from each with exit 3, so a group that never
// scheduled under kspatch starts scheduling upstream (with kubernetes.io/hostname
// as its one Required level: all pods on one node).
func TestReviewValidation_MalformedUnderKspatchConverted(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{name: "coscheduling scheduleTimeoutSeconds 100000", in: "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: a, namespace: ml}\nspec: {minMember: 2, scheduleTimeoutSeconds: 100000}\n"},
		{name: "coscheduling annotations: Required hostname above Preferred zone", in: "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n  name: a\n  namespace: ml\n  annotations: {scheduling.kspatch.io/topology-required: kubernetes.io/hostname, scheduling.kspatch.io/topology-preferred: topology.kubernetes.io/zone}\nspec: {minMember: 2}\n"},
		{name: "kspatch PodGroup: Required hostname above Preferred zone", in: "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: a, namespace: ml}\nspec:\n  schedulingPolicy: {gang: {minCount: 2}}\n  schedulingConstraints: {topology: [{key: kubernetes.io/hostname}, {key: topology.kubernetes.io/zone, mode: Preferred}]}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := convertText(tc.in, "--to", "upstream")
			if code != exitFailed {
				t.Errorf("exit status %d, want %d (refused):\n%s\nstderr:\n%s", code, exitFailed, out, stderr)
			}
		})
	}
}
