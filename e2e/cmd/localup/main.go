// Command localup is `make run`: it brings up the local control plane
// (etcd, kube-apiserver, kube-controller-manager, kwok, the patched
// kube-scheduler), creates fake nodes spread over zones and racks with fake
// DRA devices, loads a small demo, prints how to look at it, and stops
// everything on Ctrl-C or SIGTERM — or when one of the components dies,
// after saying which, how, and where its log is.
//
// A run records its PID in DIR.pid (_output/cluster.pid); `localup -stop`
// (make stop) signals that process and waits until it has stopped the
// control plane and exited.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

func main() { os.Exit(localup(os.Args[1:])) }

// runFunc brings the control plane up and waits for ctx; tests replace it
// with a fake.
var runFunc = run

// localup parses args, runs the control plane until a signal, and returns
// the exit status.
func localup(args []string) int {
	root, _ := os.Getwd()
	flags := flag.NewFlagSet("localup", flag.ContinueOnError)
	dir := flags.String("dir", filepath.Join(root, "_output", "cluster"), "directory for certificates, data and logs (emptied)")
	bin := flags.String("bin", filepath.Join(root, "_output", "bin"), "directory with the control plane's binaries")
	deploy := flags.String("deploy", filepath.Join(root, "scheduler", "deploy"), "the scheduler/deploy directory (the scheduler runs with its static pod's flags)")
	nodes := flags.Int("nodes", 12, "fake nodes")
	zones := flags.Int("zones", 3, "zones the nodes are spread over")
	racks := flags.Int("racks", 2, "racks per zone")
	pods := flags.Int("pods", 110, "pod capacity of each fake node")
	devices := flags.Int("devices", 4, "fake DRA devices per node")
	adminPort := flags.Int("admin-port", 10261, "the scheduler's admin API port")
	gates := flags.String("feature-gates", "", "feature gates for every component, e.g. SchedulerPreQueueingHints=false")
	demo := flags.Bool("demo", true, "load the demo workload")
	prometheus := flags.String("prometheus", "", "path of a prometheus binary to run, scraping the scheduler (make run PROMETHEUS=1)")
	stopRequest := flags.Bool("stop", false, "stop the run using -dir (its PID is in DIR.pid) and wait until it has exited (make stop)")
	stopTimeout := flags.Duration("stop-timeout", 2*time.Minute, "with -stop: how long the run may take to stop its components before it is killed")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	if *stopRequest {
		if err := stopRun(pidFile(*dir), os.Stdout, *stopTimeout); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			return 1
		}
		return 0
	}
	// Before the control plane's directory is emptied: a second run would
	// pull it from under the first one.
	release, err := claimPIDFile(pidFile(*dir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	defer release()

	// Ctrl-C, SIGTERM (make stop) and a component's death all end the run
	// the same way: the control plane is stopped in order.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	go func() {
		select {
		case sig := <-signals:
			fmt.Printf("\n%s: stopping\n", sig)
			cancel(errStopRequested)
		case <-ctx.Done():
		}
	}()
	opts := cluster.Options{Dir: *dir, Bin: *bin, DeployDir: *deploy, AdminPort: *adminPort, FeatureGates: *gates, Log: os.Stdout,
		// The cluster has already printed the component, its exit status
		// and its log.
		OnExit: func(e cluster.Exit) { cancel(e) }}
	err = runFunc(ctx, opts, cluster.NodeSpec{Count: *nodes, Zones: *zones, Racks: *racks, Pods: *pods, Devices: *devices}, *demo, *prometheus)
	var died cluster.Exit
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &died):
		fmt.Fprintf(os.Stderr, "error: %v; make run stopped the rest of the control plane\n", died)
		return 1
	case errors.Is(cause, errStopRequested):
		// Stopped on request; an error from a start cut short is only
		// the interruption.
		return 0
	case err != nil:
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	return 0
}

// errStopRequested is the cause of a run ended by a signal.
var errStopRequested = errors.New("stop requested")

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
	fmt.Printf("creating %d fake nodes over %d zones × %d racks (two racks a block), %d devices each\n", nodes.Count, nodes.Zones, nodes.Racks, nodes.Devices)
	if err := c.CreateNodes(ctx, nodes); err != nil {
		return err
	}
	// kubectl kspatch reaches the scheduler as on a kubeadm control plane.
	if err := c.ExposeScheduler(ctx, true); err != nil {
		return err
	}
	if demo {
		if err := loadDemo(ctx, c, nodes, opts.FeatureGates); err != nil {
			return err
		}
		// The debug user sees the demo: the admin API shows a namespace
		// only to users who may get its pods.
		if err := c.GrantDebuggersView(ctx, "demo"); err != nil {
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
	printSummary(os.Stdout, c, summary{kubectl: kubectl, plugin: filepath.Join(opts.Bin, "kubectl-kspatch"), took: time.Since(start),
		promURL: promURL, logs: filepath.Join(opts.Dir, "logs")})
	<-ctx.Done()
	return nil
}

// summary is what printSummary says of a run besides the control plane's
// addresses.
type summary struct {
	// kubectl and plugin are the commands to show for kubectl and kubectl
	// kspatch.
	kubectl, plugin string
	// took is how long the control plane and the demo took to come up.
	took time.Duration
	// promURL is Prometheus's address, "" without one.
	promURL string
	// logs is the directory of the components' logs.
	logs string
}

// printSummary tells how to look at the running control plane.
func printSummary(w io.Writer, c *cluster.Cluster, s summary) {
	a := c.Admin
	fmt.Fprintf(w, `
The control plane is up (%s). Try:

  export KUBECONFIG=%s
  %s get nodes -L topology.kubernetes.io/zone,topology.kubernetes.io/block,topology.kubernetes.io/rack
  %s get pods -n demo -o wide
  %s get podgroups -n demo
  %s get pods -n demo -l %s=rack-train -o wide
  %s get pods -n demo -l %s=block-train -o wide
  curl -s %s/debug/queue
  curl -s '%s/debug/queue?queue=unschedulable'
  curl -s %s/debug/queue/pods/demo/too-big
  curl -s '%s/debug/queue?output=json'
  curl -s %s/debug/apicalls
  curl -s %s/debug/placements
  curl -s %s/debug/placements/demo/too-big
  curl -s %s/debug/placements/demo/rack-train
  curl -s %s/debug/placements/demo/block-train
  curl -s %s/debug/placements/demo/%s     # see its cycle whose Preemption part says Preempting
  %s get events -n demo --field-selector reason=Preempted
`, s.took.Round(time.Second), c.Kubeconfig, s.kubectl, s.kubectl, s.kubectl, s.kubectl, cluster.PodGroupLabel, s.kubectl, cluster.PodGroupLabel,
		a, a, a, a, a, a, a, a, a, a, preemptGang, s.kubectl)
	if s.promURL != "" {
		fmt.Fprintf(w, `
Prometheus scrapes the scheduler every 5s:
  %s/graph?g0.expr=scheduler_pre_queueing_hint_evaluations_total
  curl -s '%s/api/v1/query?query=scheduler_pod_scheduled_after_flush_total'
For Grafana, add %s as a Prometheus data source and import dashboards/*.json
(job kube-scheduler); see dashboards/README.md.
`, s.promURL, s.promURL, s.promURL)
	}
	port := c.SchedulerSecure
	if u, err := url.Parse(c.SchedulerSecure); err == nil && u.Port() != "" {
		port = u.Port()
	}
	fmt.Fprintf(w, `
The scheduler's secure port is %s (picked free at start; 10259 on a real
node). It serves the admin API under /debug/kspatch/ to authenticated
callers, e.g. this run's admin:
  %s
`, port, c.SecureCurl("/debug/kspatch/queue"))
	fmt.Fprintf(w, `
kubectl kspatch (make build) asks the same API from a workstation, through a
port-forward to the scheduler pod, as a user with only a kubeconfig and the
RBAC of scheduler/deploy/debug-rbac.yaml and view in namespace demo (this
run's user %s; it sees no other namespace's pods):
  KUBECONFIG=%s %s why podgroup/too-big -n demo
  KUBECONFIG=%s %s why podgroup/rack-train -n demo
  KUBECONFIG=%s %s queue
(or, with the binary's directory on PATH, kubectl kspatch why podgroup/too-big -n demo)
`, cluster.DebugUser, c.UserKubeconfig, s.plugin, c.UserKubeconfig, s.plugin, c.UserKubeconfig, s.plugin)
	fmt.Fprintf(w, "\nLogs are in %s. Ctrl-C, or make stop from another shell, stops everything.\n", s.logs)
}

// loadDemo creates, in namespace demo: a burst of pods that each get a
// device through a ResourceClaimTemplate, three pods sharing one claim, one
// pod that cannot fit anywhere, a gang of four pods that fits (PodGroup
// train), a gang of four that must share a rack (PodGroup rack-train), a
// gang that must share a block and would rather share a rack but is too big
// for one, so that it spills over two racks of a block (PodGroup
// block-train), a gang that does not fit (PodGroup too-big: one pod
// more than there are nodes, each pod needing more than half a node's CPUs,
// so none is bound), and, once the topology gangs are bound, a batch of
// low-priority pods in a rack of the block they left free and a gang that
// preempts it (PodGroup preempt-train, loadPreemptionDemo).
func loadDemo(ctx context.Context, c *cluster.Cluster, spec cluster.NodeSpec, gates string) error {
	nodes, dra := spec.Count, spec.Devices > 0
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
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: ns, Name: "train", MinCount: 4, Pods: 4, Pod: cluster.PodOptions{CPU: "2"}}); err != nil {
		return err
	}
	// Topology-aware placement: all four in one rack. Two pods of 12 CPUs
	// fit on a 32-CPU node, so they take two nodes of a rack; with the
	// default layout (12 nodes, 3 zones × 2 racks) every rack has two.
	// /debug/placements/demo/rack-train shows the racks evaluated and the
	// one chosen.
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: ns, Name: "rack-train", MinCount: 4, Pods: 4, TopologyKey: cluster.RackLabel,
		Pod: cluster.PodOptions{CPU: "12"}}); err != nil {
		return err
	}
	// Multi-level topology: one block required, one rack preferred, and
	// two pods more than a rack holds (six with the default layout, where
	// a rack holds four), so no rack fits and the gang spills over two
	// racks of one block. /debug/placements/demo/block-train shows the
	// rack level NoFit, the block level Chosen and the pods per rack.
	gangs := map[string]int{"rack-train": 4}
	if n := blockTrainSize(spec); n > 0 {
		gangs["block-train"] = n
		levels := []cluster.TopologyLevel{
			{Key: cluster.BlockLabel, Mode: cluster.TopologyRequired},
			{Key: cluster.RackLabel, Mode: cluster.TopologyPreferred},
		}
		if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: ns, Name: "block-train", MinCount: n, Pods: n, Levels: levels,
			Pod: cluster.PodOptions{CPU: "12"}}); err != nil {
			return err
		}
	} else {
		fmt.Println("no block has two racks (-racks 1): the demo has no PodGroup block-train")
	}
	// The fake nodes have 32 CPUs: one pod of 17 per node.
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: ns, Name: "too-big", MinCount: nodes + 1, Pods: nodes + 1,
		Pod: cluster.PodOptions{CPU: "17"}}); err != nil {
		return err
	}
	// Gang preemption, last: a batch of low-priority pods fills a rack of
	// the block rack-train and block-train left free, and the gang
	// preempt-train, which needs that whole block, preempts the batch.
	// /debug/placements/demo/preempt-train shows the preempting cycle.
	return loadPreemptionDemo(ctx, c, ns, gangs, gates)
}

// blockTrainSize is the size of the demo gang block-train: two pods of 12
// CPUs more than the largest rack holds (two on each 32-CPU node), so that
// it fits in no rack and spills over two racks of a block. It is 0 when the
// blocks have one rack each.
func blockTrainSize(spec cluster.NodeSpec) int {
	if spec.Racks < 2 || spec.RacksPerBlock == 1 {
		return 0
	}
	perRack := map[string]int{}
	for i := range spec.Count {
		_, _, rack := spec.Topology(i)
		perRack[rack]++
	}
	most := 0
	for _, n := range perRack {
		most = max(most, n)
	}
	return 2*most + 2
}
