// Package kspatch holds the kspatch benchmark workloads for scheduler_perf.
// `make bench` copies this package, with a generated performance-config.yaml,
// into test/integration/scheduler_perf/kspatch of both the vanilla and the
// patched tree, so both sides run the very same workloads.
package kspatch

import (
	"fmt"
	"os"
	"testing"

	_ "k8s.io/component-base/logs/json/register"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
)

// outOfTreePlugins are scheduler plugins a suite adds to the workload
// package (the levels suite's placement log, levels_placements_test.go,
// registers itself here); nil without any. A plugin runs only where a test
// case's scheduler configuration enables it.
var outOfTreePlugins frameworkruntime.Registry

func TestMain(m *testing.M) {
	if err := perf.InitTests(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	m.Run()
}

func BenchmarkPerfScheduling(b *testing.B) {
	perf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", "kspatch", outOfTreePlugins)
}
