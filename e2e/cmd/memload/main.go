// Command memload is the cluster side of `make bench`'s memory suite
// (bench/memory.go): it starts a fresh local control plane (e2e/cluster)
// with the kube-scheduler binary it is given, vanilla or patched, loads one
// workload, and writes what the scheduler process held to a JSON file: its
// heap in use after a forced GC (/debug/pprof/heap?gc=1 on the secure port,
// the runtime's MemStats after that GC) and its peak RSS (VmHWM of
// /proc/PID/status), plus, for the soak, a sample every interval.
//
// Workloads (-workload):
//
//	pending  -pods pods that fit on no node (more CPU than any of -nodes
//	         has, preemptionPolicy Never), measured once every one has been
//	         attempted and waits in the queue;
//	dra      the DRA claim-template burst: -pods pods with a
//	         ResourceClaimTemplate each, on pods/50 nodes with 60 devices,
//	         measured once every pod is bound;
//	gangs    -gangs PodGroups of -gang-size pods kept in one rack
//	         (-gang-nodes nodes over -gang-racks racks), measured once every
//	         pod is bound (vanilla ignores the groups: its pods schedule one
//	         by one);
//	soak     pods created and deleted at a steady rate for -duration (plain
//	         pods, pods with a ResourceClaim of their own whose CEL selector
//	         is unlike any other, pods that fit nowhere, small gangs), the
//	         scheduler sampled every -interval.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"kspatch.dev/e2e/cluster"
)

func main() { os.Exit(memload(os.Args[1:])) }

// config is what a run is told by its flags.
type config struct {
	Workload   string
	Side       string
	Nodes      int
	Pods       int
	Gangs      int
	GangSize   int
	GangNodes  int
	GangRacks  int
	Settle     time.Duration
	Soak       soakConfig
	APIQPS     int
	Flush      time.Duration
	Verbosity  int
	LoadQPS    int
	LoadWorker int
}

func memload(args []string) int {
	root, _ := os.Getwd()
	flags := flag.NewFlagSet("memload", flag.ContinueOnError)
	var cfg config
	dir := flags.String("dir", filepath.Join(root, "_output", "memload"), "directory for the control plane's certificates, data and logs (emptied)")
	bin := flags.String("bin", filepath.Join(root, "_output", "bin"), "directory with etcd, kube-apiserver, kube-controller-manager and kwok")
	deploy := flags.String("deploy", filepath.Join(root, "scheduler", "deploy"), "the scheduler/deploy directory (the scheduler runs with its static pod's flags)")
	scheduler := flags.String("scheduler", "", "the kube-scheduler binary to measure (default: BIN/kube-scheduler)")
	vanilla := flags.Bool("vanilla", false, "the scheduler is upstream's (make build-vanilla): no admin API flags")
	out := flags.String("out", "", "JSON file to write the result to (required)")
	timeout := flags.Duration("timeout", 45*time.Minute, "give up after this long")
	keep := flags.Bool("keep-data", false, "keep etcd's data after a successful run (it is removed: a 50,000-pod run leaves gigabytes)")
	flags.StringVar(&cfg.Workload, "workload", "", "pending, dra, gangs or soak")
	flags.StringVar(&cfg.Side, "side", "", "the name recorded for the scheduler (vanilla, patched)")
	flags.IntVar(&cfg.Nodes, "nodes", 5000, "pending: fake nodes; soak: fake nodes (with devices)")
	flags.IntVar(&cfg.Pods, "pods", 50000, "pending: unschedulable pods; dra: pods of the burst")
	flags.IntVar(&cfg.Gangs, "gangs", 300, "gangs: PodGroups")
	flags.IntVar(&cfg.GangSize, "gang-size", 32, "gangs: pods per PodGroup (its minCount)")
	flags.IntVar(&cfg.GangNodes, "gang-nodes", 1000, "gangs: fake nodes")
	flags.IntVar(&cfg.GangRacks, "gang-racks", 50, "gangs: racks the nodes are spread over")
	flags.DurationVar(&cfg.Settle, "settle", 10*time.Second, "wait this long after a workload is done before measuring")
	flags.DurationVar(&cfg.Soak.Duration, "duration", 20*time.Minute, "soak: how long pods are created and deleted")
	flags.DurationVar(&cfg.Soak.Interval, "interval", 30*time.Second, "soak: time between samples")
	flags.Float64Var(&cfg.Soak.Rate, "rate", 5, "soak: pods created (and, after their lifetime, deleted) per second")
	flags.DurationVar(&cfg.Soak.Lifetime, "lifetime", time.Minute, "soak: how long each pod lives")
	flags.IntVar(&cfg.Soak.Devices, "devices", 16, "soak: DRA devices per node")
	flags.IntVar(&cfg.APIQPS, "scheduler-qps", 500, "the scheduler's --kube-api-qps (burst twice that); kube-scheduler's default 50 would spend 1000 s on 50,000 status patches")
	flags.DurationVar(&cfg.Flush, "unschedulable-flush", 0, "pending: the scheduler's --pod-max-in-unschedulable-pods-duration (0: its default, 5m); longer keeps 50,000 pods, whose first attempts take longer than 5 minutes, from being retried before they are measured")
	flags.IntVar(&cfg.Verbosity, "scheduler-v", 0, "the scheduler's --v (log verbosity), to see why pods move in the queue")
	flags.IntVar(&cfg.LoadQPS, "load-qps", 1000, "QPS of the client that creates the workload")
	flags.IntVar(&cfg.LoadWorker, "load-workers", 16, "parallel creators of the workload")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "memload:", err)
		return 2
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "memload: -out is required")
		return 2
	}
	// The kubeconfigs the control plane writes name files under -dir.
	for _, p := range []*string{dir, bin, deploy, scheduler, out} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "memload:", err)
				return 2
			}
			*p = abs
		}
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), *timeout, fmt.Errorf("memload: -timeout %s passed", *timeout))
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, died := context.WithCancelCause(ctx)
	defer died(nil)

	schedArgs := []string{"--kube-api-qps=" + strconv.Itoa(cfg.APIQPS), "--kube-api-burst=" + strconv.Itoa(2*cfg.APIQPS)}
	if cfg.Verbosity > 0 {
		schedArgs = append(schedArgs, "--v="+strconv.Itoa(cfg.Verbosity))
	}
	if cfg.Flush > 0 {
		schedArgs = append(schedArgs, "--pod-max-in-unschedulable-pods-duration="+cfg.Flush.String())
	}
	opts := cluster.Options{Dir: *dir, Bin: *bin, DeployDir: *deploy, SchedulerBinary: *scheduler, Vanilla: *vanilla,
		NoNodeLifecycle: cfg.Workload == "pending",
		SchedulerArgs:   schedArgs, Log: os.Stdout, OnExit: func(e cluster.Exit) { died(e) }}
	res, err := run(ctx, opts, cfg)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = fmt.Errorf("%w (%v)", err, cause)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "memload: %v; logs in %s\n", err, filepath.Join(*dir, "logs"))
		return 1
	}
	if !*keep {
		_ = os.RemoveAll(filepath.Join(*dir, "etcd"))
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err == nil {
		err = os.WriteFile(*out, append(data, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memload:", err)
		return 1
	}
	fmt.Printf("heap in use after GC %.1f MiB (spans %.1f MiB), peak RSS %.1f MiB; wrote %s\n", mib(res.HeapAlloc), mib(res.HeapInuse), mib(res.PeakRSS), *out)
	return 0
}

func (c config) validate() error {
	switch c.Workload {
	case "pending", "dra":
		if c.Pods < 1 {
			return fmt.Errorf("-pods %d: must be at least 1", c.Pods)
		}
		if c.Workload == "pending" && c.Nodes < 1 {
			return fmt.Errorf("-nodes %d: must be at least 1", c.Nodes)
		}
	case "gangs":
		if c.Gangs < 1 || c.GangSize < 1 || c.GangNodes < 1 || c.GangRacks < 1 || c.GangRacks > c.GangNodes {
			return fmt.Errorf("-gangs %d, -gang-size %d, -gang-nodes %d, -gang-racks %d: all must be at least 1, racks at most nodes",
				c.Gangs, c.GangSize, c.GangNodes, c.GangRacks)
		}
	case "soak":
		if err := c.Soak.validate(); err != nil {
			return err
		}
		if c.Nodes < 1 {
			return fmt.Errorf("-nodes %d: must be at least 1", c.Nodes)
		}
	default:
		return fmt.Errorf("-workload %q: must be pending, dra, gangs or soak", c.Workload)
	}
	if c.APIQPS < 1 || c.LoadQPS < 1 || c.LoadWorker < 1 {
		return fmt.Errorf("-scheduler-qps, -load-qps and -load-workers must be at least 1")
	}
	return nil
}

// run starts the control plane, loads the workload and measures.
func run(ctx context.Context, opts cluster.Options, cfg config) (*Result, error) {
	start := time.Now()
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		fmt.Println("stopping the control plane")
		c.Stop()
	}()
	l, err := newLoader(c, cfg.LoadQPS, cfg.LoadWorker)
	if err != nil {
		return nil, err
	}
	res := &Result{Workload: cfg.Workload, Side: cfg.Side}
	switch cfg.Workload {
	case "pending":
		err = l.pending(ctx, cfg, res)
	case "dra":
		err = l.draBurst(ctx, cfg, res)
	case "gangs":
		err = l.gangs(ctx, cfg, res)
	case "soak":
		err = l.soak(ctx, cfg, res)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Workload != "soak" {
		fmt.Printf("settling for %s before measuring\n", cfg.Settle)
		if err := sleep(ctx, cfg.Settle); err != nil {
			return nil, err
		}
		s, err := sample(ctx, c, start)
		if err != nil {
			return nil, err
		}
		res.setFinal(s)
	}
	if err := countAttempts(ctx, c, res); err != nil {
		return nil, err
	}
	// The heap profile at the end, to see what holds the heap: go tool
	// pprof -top -sample_index=inuse_space DIR/heap.pprof.
	if err := saveHeapProfile(ctx, c, filepath.Join(opts.Dir, "heap.pprof")); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(d):
		return nil
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
