// Command localup is `make run`: it brings up the local control plane
// (etcd, kube-apiserver, kube-controller-manager, kwok, the patched
// kube-scheduler), creates fake nodes spread over zones and racks with fake
// DRA devices, loads a small demo, prints how to look at it, and stops
// everything on Ctrl-C.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

func main() {
	root, _ := os.Getwd()
	dir := flag.String("dir", filepath.Join(root, "_output", "cluster"), "directory for certificates, data and logs (emptied)")
	bin := flag.String("bin", filepath.Join(root, "_output", "bin"), "directory with the control plane's binaries")
	deploy := flag.String("deploy", filepath.Join(root, "scheduler", "deploy"), "the scheduler/deploy directory (the scheduler runs with its static pod's flags)")
	nodes := flag.Int("nodes", 12, "fake nodes")
	zones := flag.Int("zones", 3, "zones the nodes are spread over")
	racks := flag.Int("racks", 2, "racks per zone")
	pods := flag.Int("pods", 110, "pod capacity of each fake node")
	devices := flag.Int("devices", 4, "fake DRA devices per node")
	adminPort := flag.Int("admin-port", 10261, "the scheduler's admin API port")
	gates := flag.String("feature-gates", "", "feature gates for every component, e.g. SchedulerPreQueueingHints=false")
	demo := flag.Bool("demo", true, "load the demo workload")
	prometheus := flag.String("prometheus", "", "path of a prometheus binary to run, scraping the scheduler (make run PROMETHEUS=1)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cluster.Options{Dir: *dir, Bin: *bin, DeployDir: *deploy, AdminPort: *adminPort, FeatureGates: *gates, Log: os.Stdout},
		cluster.NodeSpec{Count: *nodes, Zones: *zones, Racks: *racks, Pods: *pods, Devices: *devices}, *demo, *prometheus); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, opts cluster.Options, nodes cluster.NodeSpec, demo bool, prometheus string) error {
	start := time.Now()
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("stopping the control plane")
		c.Stop()
		fmt.Println("stopped; logs are in", filepath.Join(opts.Dir, "logs"))
	}()
	fmt.Printf("creating %d fake nodes over %d zones × %d racks, %d devices each\n", nodes.Count, nodes.Zones, nodes.Racks, nodes.Devices)
	if err := c.CreateNodes(ctx, nodes); err != nil {
		return err
	}
	if demo {
		if err := loadDemo(ctx, c, nodes.Count, nodes.Devices > 0); err != nil {
			return err
		}
	}
	promURL := ""
	if prometheus != "" {
		if promURL, err = c.StartPrometheus(ctx, prometheus); err != nil {
			return err
		}
	}
	kubectl := "kubectl"
	if _, err := os.Stat(filepath.Join(opts.Bin, "kubectl")); err == nil {
		kubectl = filepath.Join(opts.Bin, "kubectl")
	}
	a := c.Admin
	fmt.Printf(`
The control plane is up (%s). Try:

  export KUBECONFIG=%s
  %s get nodes -L topology.kubernetes.io/zone,topology.kubernetes.io/rack
  %s get pods -n demo -o wide
  %s get podgroups -n demo
  %s get pods -n demo -l %s=rack-train -o wide
  curl -s %s/debug/queue
  curl -s '%s/debug/queue?queue=unschedulable'
  curl -s %s/debug/queue/pods/demo/too-big
  curl -s '%s/debug/queue?output=json'
  curl -s %s/debug/apicalls
  curl -s %s/debug/placements
  curl -s %s/debug/placements/demo/too-big
  curl -s %s/debug/placements/demo/rack-train
`, time.Since(start).Round(time.Second), c.Kubeconfig, kubectl, kubectl, kubectl, kubectl, cluster.PodGroupLabel,
		a, a, a, a, a, a, a, a)
	if promURL != "" {
		fmt.Printf(`
Prometheus scrapes the scheduler every 5s:
  %s/graph?g0.expr=scheduler_pre_queueing_hint_evaluations_total
  curl -s '%s/api/v1/query?query=scheduler_pod_scheduled_after_flush_total'
For Grafana, add %s as a Prometheus data source and import dashboards/*.json
(job kube-scheduler); see dashboards/README.md.
`, promURL, promURL, promURL)
	}
	fmt.Printf("\nLogs are in %s. Ctrl-C stops everything.\n", filepath.Join(opts.Dir, "logs"))
	<-ctx.Done()
	return nil
}

// loadDemo creates, in namespace demo: a burst of pods that each get a
// device through a ResourceClaimTemplate, three pods sharing one claim, one
// pod that cannot fit anywhere, a gang of four pods that fits (PodGroup
// train), a gang of four that must share a rack (PodGroup rack-train) and a
// gang that does not fit (PodGroup too-big: one pod more than there are
// nodes, each pod needing more than half a node's CPUs, so none is bound).
func loadDemo(ctx context.Context, c *cluster.Cluster, nodes int, dra bool) error {
	const ns = "demo"
	fmt.Println("loading the demo in namespace", ns)
	if err := c.CreateNamespace(ctx, ns); err != nil {
		return err
	}
	if dra {
		if err := c.CreateClaimTemplate(ctx, ns, "one-gpu"); err != nil {
			return err
		}
		if err := c.CreatePods(ctx, ns, "dra-burst", 30, cluster.PodOptions{ClaimTemplate: "one-gpu"}); err != nil {
			return err
		}
		if err := c.CreateClaim(ctx, ns, "shared-gpu"); err != nil {
			return err
		}
		if err := c.CreatePods(ctx, ns, "shared", 3, cluster.PodOptions{Claim: "shared-gpu"}); err != nil {
			return err
		}
	}
	if err := c.CreatePods(ctx, ns, "web", 10, cluster.PodOptions{CPU: "500m"}); err != nil {
		return err
	}
	if _, err := c.Client.CoreV1().Pods(ns).Create(ctx, cluster.Pod(ns, "too-big", cluster.PodOptions{CPU: "1000"}), metav1.CreateOptions{}); err != nil {
		return err
	}
	if err := c.CreateGang(ctx, ns, "train", 4, 4, cluster.PodOptions{CPU: "2"}); err != nil {
		return err
	}
	// Topology-aware placement: all four in one rack. Two pods of 12 CPUs
	// fit on a 32-CPU node, so they take two nodes of a rack; with the
	// default layout (12 nodes, 3 zones × 2 racks) every rack has two.
	// /debug/placements/demo/rack-train shows the racks evaluated and the
	// one chosen.
	if err := c.CreateTopologyGang(ctx, ns, "rack-train", 4, 4, cluster.RackLabel, cluster.PodOptions{CPU: "12"}); err != nil {
		return err
	}
	// The fake nodes have 32 CPUs: one pod of 17 per node.
	return c.CreateGang(ctx, ns, "too-big", nodes+1, nodes+1, cluster.PodOptions{CPU: "17"})
}
