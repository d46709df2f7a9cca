// Command kube-scheduler is the kspatch build of the Kubernetes scheduler: the
// upstream scheduler application from the patched tree (patches/ applied to
// the release in patches/BASE), plus the kspatch admin API. Its flags,
// configuration and behaviour are the upstream ones; the kspatch enhancements
// are behind their feature gates.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version" // kubernetes_build_info
)

func main() {
	code := cli.Run(newSchedulerCommand())
	os.Exit(code)
}
