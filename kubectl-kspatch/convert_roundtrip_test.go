package main

import (
	"testing"
)

// kspatchManifests use every field the mapping carries both ways: gang and
// basic groups, a Required level, each disruption mode and none, and
// member pods and templates.
const kspatchManifests = `
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: ml, labels: {team: vision}}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack, mode: Required}]}
  disruptionMode: PodGroup
---
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: serve, namespace: ml}
spec: {schedulingPolicy: {basic: {}}, disruptionMode: Pod}
---
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata: {name: nightly, namespace: ml}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  completions: 4
  parallelism: 4
  template:
    metadata: {labels: {scheduling.kspatch.io/pod-group: train}}
    spec: {restartPolicy: Never, schedulerName: kspatch, containers: [{name: w, image: trainer}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 3
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve, scheduling.kspatch.io/pod-group: serve}}
    spec: {containers: [{name: s, image: server}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {scheduling.kspatch.io/pod-group: nightly}}
        spec: {restartPolicy: OnFailure, containers: [{name: nightly, image: batch}]}
---
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: ml, labels: {scheduling.kspatch.io/pod-group: train}}
spec: {containers: [{name: d, image: busybox}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ml}
data: {epochs: "10"}
`

// upstreamManifests are the same workloads written for upstream's API.
const upstreamManifests = `
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: train, namespace: ml, labels: {team: vision}}
spec:
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}
  disruptionMode: {all: {}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: serve, namespace: ml}
spec: {schedulingPolicy: {basic: {}}, disruptionMode: {single: {}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: nightly, namespace: ml}
spec: {schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  completions: 4
  parallelism: 4
  template:
    spec: {restartPolicy: Never, containers: [{name: w, image: trainer}], schedulingGroup: {podGroupName: train}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 3
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve}}
    spec: {containers: [{name: s, image: server}], schedulingGroup: {podGroupName: serve}}
---
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: ml}
spec: {containers: [{name: d, image: busybox}], schedulingGroup: {podGroupName: train}}
`

// TestConvertRoundTrip: where the mapping allows, converting there and
// back gives the objects one started with, and converting again to the
// API the objects are already in changes nothing.
func TestConvertRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, in          string
		there, back, same []string
	}{
		{name: "kspatch to upstream and back", in: kspatchManifests,
			there: []string{"--to", "upstream"}, back: []string{"--to", "kspatch"}, same: []string{"--to", "kspatch"}},
		{name: "upstream to kspatch and back, labels removed", in: upstreamManifests,
			there: []string{"--to", "kspatch"}, back: []string{"--to", "upstream", "--remove-labels"}, same: []string{"--to", "upstream"}},
		{name: "kspatch to upstream and back, through JSON", in: kspatchManifests,
			there: []string{"--to", "upstream", "-o", "json"}, back: []string{"--to", "kspatch", "-o", "json"}, same: []string{"--to", "kspatch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mid, stderr, code := convertText(tc.in, tc.there...)
			if code != 0 {
				t.Fatalf("%v: exit status %d:\n%s", tc.there, code, stderr)
			}
			back, stderr, code := convertText(mid, tc.back...)
			if code != 0 {
				t.Fatalf("%v: exit status %d:\n%s", tc.back, code, stderr)
			}
			sameObjects(t, back, tc.in)
			again, stderr, code := convertText(back, tc.same...)
			if code != 0 {
				t.Fatalf("%v again: exit status %d:\n%s", tc.same, code, stderr)
			}
			sameObjects(t, again, back)
		})
	}
}

// TestConvertRoundTripNormalises: the spellings a round trip kspatch →
// upstream → kspatch gives back in another form of the same meaning
// (docs/migration.md, "Round trips"), losing nothing either way.
func TestConvertRoundTripNormalises(t *testing.T) {
	const pg = "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: train, namespace: ml}\nspec:\n  schedulingPolicy: {gang: {minCount: 4}}\n"
	for _, tc := range []struct{ name, in, want string }{
		{name: "a level without a mode comes back Required (the CRD's default)",
			in:   pg + "  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}\n",
			want: pg + "  schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack, mode: Required}]}\n"},
		{name: `disruptionMode "" comes back without the field (both are Pod)`,
			in:   pg + "  disruptionMode: \"\"\n",
			want: pg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mid, stderr, code := convertText(tc.in, "--to", "upstream")
			if code != 0 {
				t.Fatalf("there: exit status %d:\n%s", code, stderr)
			}
			back, stderr, code := convertText(mid, "--to", "kspatch")
			if code != 0 {
				t.Fatalf("back: exit status %d:\n%s", code, stderr)
			}
			sameObjects(t, back, tc.want)
		})
	}
}
