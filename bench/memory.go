package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The memory suite (issue #43): the kube-scheduler process's heap in use
// after a forced GC and its peak RSS, vanilla binary against patched
// binary, each run against a fresh local control plane (e2e/cluster:
// etcd, kube-apiserver, kube-controller-manager, kwok fake nodes). The
// cluster side is the e2e module's command e2e/cmd/memload, which this
// suite builds and runs once per workload, side and repetition; it writes
// one JSON result a run. Unlike the other suites it runs no scheduler_perf:
// it measures the real binaries, _output/bin/kube-scheduler (make build)
// and _output/bin/kube-scheduler-vanilla (make build-vanilla), copied
// first so that a rebuild during the run does not change them.
//
// Workloads: pending (unschedulable pods that stay in the queue), dra (the
// DRA claim-template burst), gangs (gangs kept in one rack; the placement
// recorder full), soak (pods created and deleted at a steady rate, the heap
// sampled every interval; its slope after the warm-up must be flat).

// memWorkloads are the memory suite's workloads, in the order they run.
var memWorkloads = []string{"pending", "dra", "gangs", "soak"}

// memSides are the two binaries compared.
var memSides = []side{{Name: "vanilla"}, {Name: "patched"}}

// memoryOptions are the memory suite's flags.
type memoryOptions struct {
	// Workloads to run, a subset of memWorkloads.
	Workloads []string
	// Sides to run, a subset of memSides' names (both by default).
	Sides []string
	// Reps is the paired repetitions of pending, dra and gangs; SoakReps
	// of the soak.
	Reps, SoakReps int
	// Nodes and Pods shape pending.
	Nodes, Pods int
	// DRAPods is the burst's size (its nodes: one per 50 pods, at least 10).
	DRAPods int
	// Gangs of GangSize pods on GangNodes nodes over GangRacks racks.
	Gangs, GangSize, GangNodes, GangRacks int
	// The soak: Soak long, a sample every SoakInterval, the slope fitted
	// after SoakWarmup; SoakRate creations a second, each living
	// SoakLifetime, on SoakNodes nodes.
	Soak, SoakInterval, SoakWarmup, SoakLifetime time.Duration
	SoakRate                                     float64
	SoakNodes                                    int
	// SchedulerQPS is the scheduler's --kube-api-qps on both sides.
	SchedulerQPS int
	// Flush is pending's --pod-max-in-unschedulable-pods-duration on
	// both sides.
	Flush time.Duration
	// MaxRatio is the goal for patched/vanilla heap on the plain-pod
	// workloads; MaxSlope the largest soak slope (MiB/hour, either sign)
	// called flat.
	MaxRatio, MaxSlope float64
	// Markdown and Plots are where the summary and the soak's plot go,
	// relative to the checkout; empty for none.
	Markdown, Plots string
	// Report re-renders the summary from the results of the last run
	// instead of running.
	Report bool
	// Quick is true when -memory-quick chose the small sizes.
	Quick bool
	// Command reproduces the run, for the summary.
	Command string
}

// defaultMemoryOptions are the sizes.
func defaultMemoryOptions() memoryOptions {
	return memoryOptions{
		Workloads: slices.Clone(memWorkloads), Sides: []string{"vanilla", "patched"}, Reps: 3, SoakReps: 1,
		Nodes: 5000, Pods: 50000, DRAPods: 5000,
		Gangs: 300, GangSize: 32, GangNodes: 1000, GangRacks: 50,
		Soak: 20 * time.Minute, SoakInterval: 30 * time.Second, SoakWarmup: 5 * time.Minute,
		SoakLifetime: time.Minute, SoakRate: 5, SoakNodes: 200,
		SchedulerQPS: 500, Flush: time.Hour, MaxRatio: 1.10, MaxSlope: 5,
		Markdown: "docs/benchmarks-memory.md", Plots: "docs/bench",
	}
}

// quickMemoryOptions are -memory-quick's sizes, for a check that both
// sides run end to end (about 25 minutes on 2 cores).
func quickMemoryOptions() memoryOptions {
	o := defaultMemoryOptions()
	o.Reps = 1
	o.Nodes, o.Pods, o.DRAPods = 200, 2000, 500
	o.Gangs, o.GangNodes, o.GangRacks = 20, 100, 10
	o.Soak, o.SoakInterval, o.SoakWarmup, o.SoakNodes = 3*time.Minute, 15*time.Second, time.Minute, 50
	o.Markdown, o.Plots = "_output/bench/memory/quick.md", "_output/bench/memory"
	return o
}

// memoryFlags registers the suite's flags on fs and returns a function
// that, after fs.Parse, returns the options: -memory-quick's sizes for
// every flag not given.
func memoryFlags(fs *flag.FlagSet) func() (memoryOptions, error) {
	d := defaultMemoryOptions()
	var o memoryOptions
	workloads := fs.String("memory-workloads", strings.Join(d.Workloads, ","), "memory suite: workloads to run, comma-separated, in the order given: "+strings.Join(memWorkloads, ", "))
	sideNames := fs.String("memory-sides", strings.Join(d.Sides, ","), "memory suite: sides to run, comma-separated (vanilla, patched); one side alone measures, and compares nothing")
	quick := fs.Bool("memory-quick", false, "memory suite: small sizes for a quick end-to-end check (2000 pods on 200 nodes, 500 DRA pods, 20 gangs on 100 nodes, a 3-minute soak on 50 nodes, 1 repetition); flags given explicitly still win; the summary goes to _output/bench/memory/quick.md")
	fs.IntVar(&o.Reps, "memory-reps", d.Reps, "memory suite: paired repetitions of pending, dra and gangs (sides alternate their order)")
	fs.IntVar(&o.SoakReps, "memory-soak-reps", d.SoakReps, "memory suite: runs of the soak per side")
	fs.IntVar(&o.Nodes, "memory-nodes", d.Nodes, "memory suite, pending: fake nodes")
	fs.IntVar(&o.Pods, "memory-pods", d.Pods, "memory suite, pending: pods that fit on no node")
	fs.IntVar(&o.DRAPods, "memory-dra-pods", d.DRAPods, "memory suite, dra: pods of the claim-template burst")
	fs.IntVar(&o.Gangs, "memory-gangs", d.Gangs, "memory suite, gangs: PodGroups kept in one rack")
	fs.IntVar(&o.GangSize, "memory-gang-size", d.GangSize, "memory suite, gangs: pods per PodGroup (its minCount)")
	fs.IntVar(&o.GangNodes, "memory-gang-nodes", d.GangNodes, "memory suite, gangs: fake nodes")
	fs.IntVar(&o.GangRacks, "memory-gang-racks", d.GangRacks, "memory suite, gangs: racks the nodes are spread over")
	fs.DurationVar(&o.Soak, "memory-soak", d.Soak, "memory suite, soak: how long pods are created and deleted")
	fs.DurationVar(&o.SoakInterval, "memory-soak-interval", d.SoakInterval, "memory suite, soak: time between heap samples")
	fs.DurationVar(&o.SoakWarmup, "memory-soak-warmup", d.SoakWarmup, "memory suite, soak: samples before this are left out of the slope")
	fs.DurationVar(&o.SoakLifetime, "memory-soak-lifetime", d.SoakLifetime, "memory suite, soak: how long each pod lives")
	fs.Float64Var(&o.SoakRate, "memory-soak-rate", d.SoakRate, "memory suite, soak: creations per second (of ten: four pods with a claim of their own, four plain pods, one that fits nowhere, one gang of 4)")
	fs.IntVar(&o.SoakNodes, "memory-soak-nodes", d.SoakNodes, "memory suite, soak: fake nodes, 16 devices each")
	fs.IntVar(&o.SchedulerQPS, "memory-scheduler-qps", d.SchedulerQPS, "memory suite: the scheduler's --kube-api-qps on both sides (burst twice that)")
	fs.DurationVar(&o.Flush, "memory-unschedulable-flush", d.Flush, "memory suite, pending: the scheduler's --pod-max-in-unschedulable-pods-duration on both sides (kube-scheduler's default 5m would send pods back to be tried again before all 50,000 had their first attempt)")
	fs.Float64Var(&o.MaxRatio, "memory-max-ratio", d.MaxRatio, "memory suite: goal for heap patched/vanilla on pending and dra")
	fs.Float64Var(&o.MaxSlope, "memory-max-slope", d.MaxSlope, "memory suite: largest soak slope after the warm-up (MiB/hour, either sign) that counts as flat")
	fs.StringVar(&o.Markdown, "memory-markdown", d.Markdown, "memory suite: markdown summary (relative to -root unless absolute); empty for none")
	fs.StringVar(&o.Plots, "memory-plots", d.Plots, "memory suite: directory of the soak plot memory-soak.png (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.Report, "memory-report", false, "memory suite: do not run; write the summary again from the last run's results (_output/bench/memory/results.json)")
	return func() (memoryOptions, error) {
		o.Quick = *quick
		if o.Quick {
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			o = o.withQuick(set)
		}
		var err error
		if o.Workloads, err = parseMemWorkloads(*workloads); err != nil {
			return o, err
		}
		if o.Sides, err = parseMemSides(*sideNames); err != nil {
			return o, err
		}
		return o, o.validate()
	}
}

// withQuick replaces every size whose flag is not in set by
// -memory-quick's.
func (o memoryOptions) withQuick(set map[string]bool) memoryOptions {
	q := quickMemoryOptions()
	pick := func(flag string, dst any, quick any) {
		if set[flag] {
			return
		}
		switch d := dst.(type) {
		case *int:
			*d = quick.(int)
		case *time.Duration:
			*d = quick.(time.Duration)
		case *string:
			*d = quick.(string)
		}
	}
	pick("memory-reps", &o.Reps, q.Reps)
	pick("memory-nodes", &o.Nodes, q.Nodes)
	pick("memory-pods", &o.Pods, q.Pods)
	pick("memory-dra-pods", &o.DRAPods, q.DRAPods)
	pick("memory-gangs", &o.Gangs, q.Gangs)
	pick("memory-gang-nodes", &o.GangNodes, q.GangNodes)
	pick("memory-gang-racks", &o.GangRacks, q.GangRacks)
	pick("memory-soak", &o.Soak, q.Soak)
	pick("memory-soak-interval", &o.SoakInterval, q.SoakInterval)
	pick("memory-soak-warmup", &o.SoakWarmup, q.SoakWarmup)
	pick("memory-soak-nodes", &o.SoakNodes, q.SoakNodes)
	pick("memory-markdown", &o.Markdown, q.Markdown)
	pick("memory-plots", &o.Plots, q.Plots)
	return o
}

func parseMemWorkloads(s string) ([]string, error) {
	var chosen []string
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if !slices.Contains(memWorkloads, w) {
			return nil, fmt.Errorf("unknown workload %q in -memory-workloads: allowed are %s", w, strings.Join(memWorkloads, ", "))
		}
		if !slices.Contains(chosen, w) {
			chosen = append(chosen, w)
		}
	}
	// In the order given: a long soak can go first when time is short.
	return chosen, nil
}

func parseMemSides(s string) ([]string, error) {
	var chosen []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name != "vanilla" && name != "patched" {
			return nil, fmt.Errorf("unknown side %q in -memory-sides: allowed are vanilla, patched", name)
		}
		if !slices.Contains(chosen, name) {
			chosen = append(chosen, name)
		}
	}
	return chosen, nil
}

// sides are the chosen sides, in memSides' order.
func (o memoryOptions) sides() []side {
	var chosen []side
	for _, s := range memSides {
		if len(o.Sides) == 0 || slices.Contains(o.Sides, s.Name) {
			chosen = append(chosen, s)
		}
	}
	return chosen
}

func (o memoryOptions) validate() error {
	for _, c := range []struct {
		name string
		v    int
	}{{"-memory-reps", o.Reps}, {"-memory-soak-reps", o.SoakReps}, {"-memory-nodes", o.Nodes}, {"-memory-pods", o.Pods},
		{"-memory-dra-pods", o.DRAPods}, {"-memory-gangs", o.Gangs}, {"-memory-gang-size", o.GangSize},
		{"-memory-gang-nodes", o.GangNodes}, {"-memory-gang-racks", o.GangRacks}, {"-memory-soak-nodes", o.SoakNodes},
		{"-memory-scheduler-qps", o.SchedulerQPS}} {
		if c.v < 1 {
			return fmt.Errorf("invalid %s %d: must be at least 1", c.name, c.v)
		}
	}
	if o.GangRacks > o.GangNodes {
		return fmt.Errorf("invalid -memory-gang-racks %d: at most -memory-gang-nodes (%d)", o.GangRacks, o.GangNodes)
	}
	if o.SoakInterval <= 0 || o.Soak < 2*o.SoakInterval {
		return fmt.Errorf("invalid -memory-soak %s with -memory-soak-interval %s: the soak needs at least two intervals", o.Soak, o.SoakInterval)
	}
	if o.SoakWarmup < 0 || o.Soak-o.SoakWarmup < 2*o.SoakInterval {
		return fmt.Errorf("invalid -memory-soak-warmup %s: the soak (%s) must leave at least two intervals after it", o.SoakWarmup, o.Soak)
	}
	if o.SoakRate <= 0 || o.SoakLifetime <= 0 {
		return fmt.Errorf("invalid -memory-soak-rate %g or -memory-soak-lifetime %s: both must be positive", o.SoakRate, o.SoakLifetime)
	}
	if o.MaxRatio <= 0 || o.MaxSlope <= 0 {
		return fmt.Errorf("invalid -memory-max-ratio %g or -memory-max-slope %g: both must be positive", o.MaxRatio, o.MaxSlope)
	}
	return nil
}

// memloadArgs are the arguments of memload for one run of workload.
func (o memoryOptions) memloadArgs(workload string) []string {
	a := []string{"-workload", workload, "-scheduler-qps", strconv.Itoa(o.SchedulerQPS)}
	switch workload {
	case "pending":
		a = append(a, "-nodes", strconv.Itoa(o.Nodes), "-pods", strconv.Itoa(o.Pods), "-unschedulable-flush", o.Flush.String(), "-timeout", "90m")
	case "dra":
		a = append(a, "-pods", strconv.Itoa(o.DRAPods), "-timeout", "60m")
	case "gangs":
		a = append(a, "-gangs", strconv.Itoa(o.Gangs), "-gang-size", strconv.Itoa(o.GangSize),
			"-gang-nodes", strconv.Itoa(o.GangNodes), "-gang-racks", strconv.Itoa(o.GangRacks), "-timeout", "60m")
	case "soak":
		a = append(a, "-nodes", strconv.Itoa(o.SoakNodes), "-duration", o.Soak.String(), "-interval", o.SoakInterval.String(),
			"-rate", strconv.FormatFloat(o.SoakRate, 'g', -1, 64), "-lifetime", o.SoakLifetime.String(),
			"-timeout", (o.Soak + 30*time.Minute).String())
	}
	return a
}

// memRun is one memload result (e2e/cmd/memload's Result) with the
// repetition it belongs to.
type memRun struct {
	Workload  string      `json:"workload"`
	Side      string      `json:"side"`
	Rep       int         `json:"rep"`
	HeapInuse float64     `json:"heapInuseBytes"`
	HeapAlloc float64     `json:"heapAllocBytes"`
	Sys       float64     `json:"sysBytes"`
	PeakRSS   float64     `json:"peakRSSBytes"`
	RSS       float64     `json:"rssBytes"`
	Pods      int         `json:"pods"`
	Nodes     int         `json:"nodes"`
	Load      float64     `json:"loadSeconds"`
	Seconds   float64     `json:"seconds"`
	Samples   []memSample `json:"samples,omitempty"`
	Attempts  float64     `json:"attempts"`
	Created   int         `json:"created,omitempty"`
	Deleted   int         `json:"deleted,omitempty"`
}

// memSample is one soak sample.
type memSample struct {
	Seconds   float64 `json:"seconds"`
	HeapInuse float64 `json:"heapInuseBytes"`
	HeapAlloc float64 `json:"heapAllocBytes"`
	RSS       float64 `json:"rssBytes"`
	LivePods  int     `json:"livePods"`
}

// memResults is what a run of the suite saves (results.json), enough to
// write the summary again (-memory-report).
type memResults struct {
	Date     string            `json:"date"`
	CPUs     int               `json:"cpus"`
	Go       string            `json:"go"`
	Commit   string            `json:"commit"`
	Versions map[string]string `json:"versions"`
	Options  memoryOptions     `json:"options"`
	Runs     []memRun          `json:"runs"`
}

// memHarness runs memload.
type memHarness struct {
	root, out string
	memload   string
	binaries  map[string]string // side -> scheduler binary
}

// runMemory runs the memory suite and writes its summary.
func runMemory(root string, o memoryOptions) error {
	out := filepath.Join(root, "_output", "bench", "memory")
	saved := filepath.Join(out, "results.json")
	if o.Report {
		raw, err := os.ReadFile(saved)
		if err != nil {
			return fmt.Errorf("-memory-report needs the results of a run: %w", err)
		}
		var res memResults
		if err := json.Unmarshal(raw, &res); err != nil {
			return fmt.Errorf("%s: %w", saved, err)
		}
		// Written where this invocation says; the command stays the one
		// that measured.
		res.Options.Markdown, res.Options.Plots = o.Markdown, o.Plots
		return writeMemoryReport(root, res)
	}
	h, res, err := prepareMemory(root, out, o)
	if err != nil {
		return err
	}
	save := func() error {
		data, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(saved, append(data, '\n'), 0o644)
	}
	sides := func(rep int) []side { return sidesForRep(o.sides(), rep) }
	for _, w := range o.Workloads {
		reps := o.Reps
		if w == "soak" {
			reps = o.SoakReps
		}
		// results.json is written again after every run.
		_, err := repeat(reps, sides, func(s side, rep int) (memRun, error) {
			r, err := h.run(w, s.Name, rep, o.memloadArgs(w))
			if err != nil {
				return memRun{}, fmt.Errorf("memory suite, %s on %s, repetition %d: %w", w, s.Name, rep, err)
			}
			fmt.Printf("memory %-8s %-8s rep %d: heap in use after GC %.1f MiB (spans %.1f MiB), peak RSS %.1f MiB (%.0f s)\n",
				w, s.Name, rep, r.HeapAlloc/mebi, r.HeapInuse/mebi, r.PeakRSS/mebi, r.Seconds)
			res.Runs = append(res.Runs, r)
			return r, save()
		})
		if err != nil {
			return err
		}
	}
	return writeMemoryReport(root, *res)
}

// prepareMemory builds memload and copies both schedulers into out/bin.
func prepareMemory(root, out string, o memoryOptions) (*memHarness, *memResults, error) {
	bin := filepath.Join(out, "bin")
	if err := os.MkdirAll(filepath.Join(out, "runs"), 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, nil, err
	}
	h := &memHarness{root: root, out: out, memload: filepath.Join(bin, "memload"), binaries: map[string]string{}}
	fmt.Println("==> building e2e/cmd/memload")
	build := exec.Command("go", "build", "-o", h.memload, "./cmd/memload")
	build.Dir = filepath.Join(root, "e2e")
	// The e2e module builds in the checkout's workspace (make bench runs
	// bench itself with GOWORK=off).
	build.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"))
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return nil, nil, fmt.Errorf("building e2e/cmd/memload: %w", err)
	}
	res := &memResults{Date: time.Now().UTC().Format("2006-01-02 15:04 MST"), CPUs: numCPU(), Versions: map[string]string{}, Options: o}
	if v, err := exec.Command("go", "version").Output(); err == nil {
		res.Go = strings.TrimSpace(string(v))
	}
	if c, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output(); err == nil {
		res.Commit = strings.TrimSpace(string(c))
	}
	for _, s := range []struct{ side, file, make string }{
		{"vanilla", "kube-scheduler-vanilla", "make build-vanilla"},
		{"patched", "kube-scheduler", "make build"},
	} {
		if !slices.Contains(o.Sides, s.side) {
			continue
		}
		src := filepath.Join(root, "_output", "bin", s.file)
		dst := filepath.Join(bin, "kube-scheduler-"+s.side)
		if err := copyFile(src, dst); err != nil {
			return nil, nil, fmt.Errorf("the %s scheduler (%s builds it): %w", s.side, s.make, err)
		}
		v, err := exec.Command(dst, "--version").Output()
		if err != nil {
			return nil, nil, fmt.Errorf("%s --version: %w", dst, err)
		}
		sum, modified, err := fileIdentity(src)
		if err != nil {
			return nil, nil, err
		}
		res.Versions[s.side] = fmt.Sprintf("%s, sha256 %s, built %s", strings.TrimSpace(string(v)), sum, modified)
		h.binaries[s.side] = dst
		fmt.Printf("==> %s scheduler: %s\n", s.side, res.Versions[s.side])
	}
	return h, res, nil
}

// run runs memload once and reads its result; its output goes to the
// terminal and to runs/NAME.log, its control plane's logs stay in
// runs/NAME/logs.
func (h *memHarness) run(workload, sideName string, rep int, args []string) (memRun, error) {
	name := fmt.Sprintf("%s-%s-rep%d", workload, sideName, rep)
	dir := filepath.Join(h.out, "runs", name)
	result := dir + ".json"
	_ = os.Remove(result)
	args = append(args, "-side", sideName, "-dir", dir, "-out", result, "-scheduler", h.binaries[sideName],
		"-bin", filepath.Join(h.root, "_output", "bin"), "-deploy", filepath.Join(h.root, "scheduler", "deploy"))
	if sideName == "vanilla" {
		args = append(args, "-vanilla")
	}
	log, err := os.Create(dir + ".log")
	if err != nil {
		return memRun{}, err
	}
	defer func() { _ = log.Close() }()
	fmt.Printf("==> memory %s: memload %s\n", name, strings.Join(args, " "))
	cmd := exec.Command(h.memload, args...)
	cmd.Dir = h.root
	cmd.Stdout = io.MultiWriter(os.Stdout, log)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		return memRun{}, fmt.Errorf("memload: %w; its output is in %s, the control plane's logs in %s", err, log.Name(), filepath.Join(dir, "logs"))
	}
	raw, err := os.ReadFile(result)
	if err != nil {
		return memRun{}, err
	}
	r, err := parseMemRun(raw)
	if err != nil {
		return memRun{}, fmt.Errorf("%s: %w", result, err)
	}
	r.Rep = rep
	return r, nil
}

// parseMemRun reads one memload result and checks it has what the summary
// needs.
func parseMemRun(raw []byte) (memRun, error) {
	var r memRun
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, err
	}
	if r.Workload == "" || r.Side == "" {
		return r, fmt.Errorf("no workload or side")
	}
	if r.HeapInuse <= 0 || r.PeakRSS <= 0 {
		return r, fmt.Errorf("no heap in use or peak RSS (heapInuseBytes %.0f, peakRSSBytes %.0f)", r.HeapInuse, r.PeakRSS)
	}
	if r.Workload == "soak" && len(r.Samples) < 2 {
		return r, fmt.Errorf("a soak with %d sample(s); at least 2 are needed", len(r.Samples))
	}
	return r, nil
}

// fileIdentity is a binary's SHA-256 (first 12 hex digits) and
// modification time, so that the summary says which build it measured
// (--version names the release, not the build).
func fileIdentity(path string) (sum, modified string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))[:12], st.ModTime().UTC().Format("2006-01-02 15:04 MST"), nil
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// mebi is bytes per MiB.
const mebi = 1 << 20
