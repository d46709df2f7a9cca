package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// The upstream suite (issue #20, performance conformance): upstream's own
// scheduler_perf workloads, read from the pinned release's
// test/integration/scheduler_perf/misc/performance-config.yaml, on vanilla
// and on the patched scheduler with every kspatch gate at its default. A
// drop-in scheduler must not be slower on them: the goal is a patched/vanilla
// throughput ratio of at least upstreamGoal on every workload.

// upstreamConfigPath is upstream's performance configuration the suite runs,
// in the Kubernetes tree.
const upstreamConfigPath = "test/integration/scheduler_perf/misc/performance-config.yaml"

// upstreamGoal is the lowest patched/vanilla throughput ratio (the median of
// the paired per-repetition ratios) that counts as "as fast as vanilla".
const upstreamGoal = 0.98

// upstreamSides are the sides of the suite: the patched scheduler runs with
// no gate set, so every kspatch gate is at its default, as shipped.
var upstreamSides = []side{
	{Name: "vanilla", Tree: "vanilla"},
	{Name: "patched", Tree: "patched"},
}

// The sizes -upstream-size chooses from.
const (
	upstreamSmall = "small"
	upstreamLarge = "large"
)

// An upstreamPreset is the workload of an upstream test case that each
// -upstream-size runs. Every name is a workload of upstream's file; both set
// no feature gate or only the release's default (SchedulerQueueingHints and
// SchedulerAsyncPreemption are on by default in v1.33), so that vanilla runs
// as shipped too.
type upstreamPreset struct {
	TestCase     string
	Small, Large string
	// Default puts the test case in the suite when -upstream-workloads is
	// empty.
	Default bool
}

// upstreamPresets are the suite's test cases and their sizes.
//
// small is the smallest workload with upstream's "performance" label that
// gives a throughput at all (scheduler_perf samples it once a second, so
// the "integration-test" workloads of 5-10 pods measure nothing): about
// 1000 measured pods, a few seconds each, a quick check.
//
// large, the default, is the largest workload that stays in reasonable time
// on a 2-core machine: 5000 nodes and 10000 measured pods where upstream has
// them (SchedulingBasic, Unschedulable, SchedulingWithMixedChurn: tens of
// seconds measured at the 150-300 pods/s two cores schedule, which upstream
// asks for - "ideally, longer than 10 seconds"), PreemptionAsync's 5000
// nodes with 20000 running pods and 5000 measured ones. It leaves out what
// only adds time: SchedulingBasic's 50000 pods, Unschedulable's 20000
// initial pods. PreemptionBasic and SchedulingWhileGated have a single
// performance size (PreemptionBasic's 5000-node workload is commented out
// upstream: it "always seems to fail"), used for both sizes. Where upstream
// has a workload with SchedulerQueueingHints off and one with it on, the
// suite takes the one on: that is v1.33's default.
//
// SchedulingDaemonset (15000 nodes, 30000 pods) and
// SchedulingDeletedPodsWithFinalizers (1000 measured pods, a few seconds:
// its point is the leak check after the run) are not run by default; name
// them in -upstream-workloads.
var upstreamPresets = []upstreamPreset{
	{TestCase: "SchedulingBasic", Small: "500Nodes", Large: "5000Nodes_10000Pods_QueueingHintsEnabled", Default: true},
	{TestCase: "Unschedulable", Small: "500Nodes/10Init/1kPods", Large: "5kNodes/100Init/10kPods_QueueingHintsEnabled", Default: true},
	{TestCase: "PreemptionBasic", Small: "1000Nodes_QueueingHintsEnabled", Large: "1000Nodes_QueueingHintsEnabled", Default: true},
	// PreemptionAsync's 500-node workload schedules its 500 measured pods
	// within scheduler_perf's first one-second sample on vanilla (no
	// throughput at all), so both sizes take the 5000-node one.
	{TestCase: "PreemptionAsync", Small: "5000Nodes_AsyncPreemptionEnabled", Large: "5000Nodes_AsyncPreemptionEnabled", Default: true},
	{TestCase: "SchedulingWithMixedChurn", Small: "1000Nodes", Large: "5000Nodes_10000Pods_QueueingHintsEnabled", Default: true},
	{TestCase: "SchedulingWhileGated", Small: "1Node_10000GatedPods_QueueingHintsEnabled", Large: "1Node_10000GatedPods_QueueingHintsEnabled", Default: true},
	{TestCase: "SchedulingDeletedPodsWithFinalizers", Small: "1000Node_1000DeletingPods_QueueingHintsEnabled", Large: "1000Node_1000DeletingPods_QueueingHintsEnabled"},
	{TestCase: "SchedulingDaemonset", Small: "15000Nodes_QueueingHintsEnabled", Large: "15000Nodes_QueueingHintsEnabled"},
}

// upstreamPresetNames lists the test cases of upstreamPresets, for -help.
func upstreamPresetNames() string {
	var names []string
	for _, p := range upstreamPresets {
		names = append(names, p.TestCase)
	}
	return strings.Join(names, ", ")
}

// upstreamDefaultNames lists the test cases the suite runs by default, for
// -help.
func upstreamDefaultNames() string {
	var names []string
	for _, p := range upstreamPresets {
		if p.Default {
			names = append(names, p.TestCase)
		}
	}
	return strings.Join(names, ", ")
}

// workload is the preset's workload at size (upstreamSmall or upstreamLarge).
func (p upstreamPreset) workload(size string) string {
	if size == upstreamSmall {
		return p.Small
	}
	return p.Large
}

// upstreamOptions are the upstream suite's flags.
type upstreamOptions struct {
	// Workloads are the workloads to run, comma-separated: a test case of
	// upstreamPresets (at Size) or TestCase/Workload; empty for the
	// presets marked Default.
	Workloads string
	// Size is upstreamSmall or upstreamLarge.
	Size string
	// Markdown is the summary to write (relative to the checkout unless
	// absolute); empty for none.
	Markdown string
	// Profile records a CPU profile of every run.
	Profile bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

func defaultUpstreamOptions() upstreamOptions {
	return upstreamOptions{Size: upstreamLarge, Markdown: "docs/benchmarks-upstream.md", Command: "make bench BENCH_ARGS='-suites upstream'"}
}

// upstreamWorkload is one workload of an upstream test case.
type upstreamWorkload struct {
	TestCase, Workload string
	// Detail is what upstream's file sets for it: its parameters and the
	// feature gates of the test case and the workload (filled in by
	// upstreamConfig).
	Detail string
}

// String is the workload as scheduler_perf names it under
// BenchmarkPerfScheduling, and as -upstream-workloads takes it.
func (w upstreamWorkload) String() string { return w.TestCase + "/" + w.Workload }

// validate checks the options that need no Kubernetes tree and returns the
// workloads to run; upstreamConfig checks them against upstream's file.
func (o upstreamOptions) validate() ([]upstreamWorkload, error) {
	return chooseUpstreamWorkloads(o.Workloads, o.Size)
}

// chooseUpstreamWorkloads returns the workloads that list names
// (comma-separated; empty for the default test cases), in its order and
// each once. An entry is a test case of upstreamPresets, which runs its
// workload at size, or TestCase/Workload, which names a workload of
// upstream's file as scheduler_perf does.
func chooseUpstreamWorkloads(list, size string) ([]upstreamWorkload, error) {
	if size != upstreamSmall && size != upstreamLarge {
		return nil, fmt.Errorf("invalid -upstream-size %q: allowed are %s, %s", size, upstreamSmall, upstreamLarge)
	}
	var chosen []upstreamWorkload
	seen := map[string]bool{}
	add := func(w upstreamWorkload) {
		if !seen[w.String()] {
			seen[w.String()] = true
			chosen = append(chosen, w)
		}
	}
	if strings.TrimSpace(list) == "" {
		for _, p := range upstreamPresets {
			if p.Default {
				add(upstreamWorkload{TestCase: p.TestCase, Workload: p.workload(size)})
			}
		}
		return chosen, nil
	}
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		testCase, workload, named := strings.Cut(entry, "/")
		switch {
		case testCase == "" || (named && workload == ""):
			return nil, fmt.Errorf("invalid entry %q in -upstream-workloads: want TestCase or TestCase/Workload", entry)
		case named:
			add(upstreamWorkload{TestCase: testCase, Workload: workload})
			continue
		}
		found := false
		for _, p := range upstreamPresets {
			if p.TestCase == testCase {
				add(upstreamWorkload{TestCase: testCase, Workload: p.workload(size)})
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown workload %q in -upstream-workloads: allowed are %s (each at its -upstream-size workload), "+
				"or TestCase/Workload naming any workload of upstream's %s", entry, upstreamPresetNames(), upstreamConfigPath)
		}
	}
	return chosen, nil
}

// upstreamConfig is the scheduler_perf configuration of the suite, appended
// to the other suites': the test cases of upstream's file (raw, read from
// ref) that hold a chosen workload, with only the chosen workloads. They are
// upstream's, unchanged, but for two things: each chosen workload is
// labelled kspatch (the label the bench package selects by) instead of
// upstream's labels, and loses its threshold (the lowest throughput
// upstream's CI machines must reach; a slower machine would fail the run
// instead of measuring it). It returns the chosen workloads with their
// Detail, and an error that lists what is allowed when a test case or
// workload is not in the file.
func upstreamConfig(raw []byte, ref string, chosen []upstreamWorkload) (string, []upstreamWorkload, error) {
	var cases []map[string]any
	if err := yaml.Unmarshal(raw, &cases); err != nil {
		return "", nil, fmt.Errorf("%s: %w", upstreamConfigPath, err)
	}
	index := map[string]int{}
	var names []string
	for i, tc := range cases {
		name, _ := tc["name"].(string)
		index[name] = i
		names = append(names, name)
	}
	want := map[string]map[string]bool{} // test case -> workload names
	resolved := make([]upstreamWorkload, 0, len(chosen))
	for _, w := range chosen {
		i, ok := index[w.TestCase]
		if !ok {
			return "", nil, fmt.Errorf("unknown test case %q in -upstream-workloads: allowed are %s (the test cases of %s)",
				w.TestCase, strings.Join(names, ", "), upstreamConfigPath)
		}
		wl, all := findUpstreamWorkload(cases[i], w.Workload)
		if wl == nil {
			return "", nil, fmt.Errorf("unknown workload %q of test case %s in -upstream-workloads: allowed are %s",
				w.Workload, w.TestCase, strings.Join(all, ", "))
		}
		if want[w.TestCase] == nil {
			want[w.TestCase] = map[string]bool{}
		}
		want[w.TestCase][w.Workload] = true
		w.Detail = upstreamDetail(cases[i], wl)
		resolved = append(resolved, w)
	}
	var out []map[string]any
	for _, tc := range cases {
		name, _ := tc["name"].(string)
		if want[name] == nil {
			continue
		}
		kept := map[string]any{}
		for k, v := range tc {
			kept[k] = v
		}
		var workloads []any
		for _, w := range upstreamWorkloads(tc) {
			if n, _ := w["name"].(string); !want[name][n] {
				continue
			}
			copied := map[string]any{}
			for k, v := range w {
				copied[k] = v
			}
			copied["labels"] = []any{"kspatch"}
			delete(copied, "threshold")
			workloads = append(workloads, copied)
		}
		kept["workloads"] = workloads
		out = append(out, kept)
	}
	text, err := yaml.Marshal(out)
	if err != nil {
		return "", nil, err
	}
	header := fmt.Sprintf("# Upstream's test cases from %s at %s (bench/upstream.go):\n"+
		"# only the chosen workloads, labelled kspatch, without thresholds.\n", upstreamConfigPath, short(ref))
	return header + string(text), resolved, nil
}

// upstreamWorkloads are the workloads of a test case of upstream's file.
func upstreamWorkloads(tc map[string]any) []map[string]any {
	list, _ := tc["workloads"].([]any)
	var ws []map[string]any
	for _, item := range list {
		if w, ok := item.(map[string]any); ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// findUpstreamWorkload returns the workload named name of a test case, or
// nil and the names of all its workloads.
func findUpstreamWorkload(tc map[string]any, name string) (map[string]any, []string) {
	var all []string
	for _, w := range upstreamWorkloads(tc) {
		n, _ := w["name"].(string)
		if n == name {
			return w, nil
		}
		all = append(all, n)
	}
	return nil, all
}

// upstreamDetail describes what a workload sets: its parameters, sorted by
// name, and the feature gates of its test case and its own (the workload's
// win), e.g. "initNodes=500 initPods=500 measurePods=1000; SchedulerQueueingHints=true".
func upstreamDetail(tc, w map[string]any) string {
	var params []string
	if ps, ok := w["params"].(map[string]any); ok {
		for k, v := range ps {
			params = append(params, fmt.Sprintf("%s=%v", k, v))
		}
	}
	sort.Strings(params)
	gates := map[string]any{}
	for _, m := range []map[string]any{tc, w} {
		if gs, ok := m["featureGates"].(map[string]any); ok {
			for k, v := range gs {
				gates[k] = v
			}
		}
	}
	var gateList []string
	for k, v := range gates {
		gateList = append(gateList, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(gateList)
	detail := strings.Join(params, " ")
	if len(gateList) > 0 {
		detail += "; " + strings.Join(gateList, " ")
	}
	return detail
}

// upstreamSource reads upstream's file from the vanilla tree's commit (the
// pinned release plus the build fix-up): both sides run the very same
// workloads, whatever the series does to the file.
func upstreamSource(h *harness) ([]byte, string, error) {
	ref, err := h.treeRef("vanilla")
	if err != nil {
		return nil, "", err
	}
	out, err := h.git(filepath.Join(h.root, "_output", "kubernetes"), "show", ref+":"+upstreamConfigPath)
	if err != nil {
		return nil, "", err
	}
	return []byte(out), ref, nil
}

// upstreamRunName names a run's directory under _output/bench/runs.
func upstreamRunName(w upstreamWorkload, s side, rep int) string {
	return fmt.Sprintf("Upstream-%s-%s-%s-rep%d", w.TestCase, strings.ReplaceAll(w.Workload, "/", "_"), s.Name, rep)
}

// upstreamResult is one run of one upstream workload.
type upstreamResult struct {
	Workload upstreamWorkload
	Side     string
	Rep      int
	// Throughput is SchedulingThroughput's average (pods/s).
	Throughput float64
	// Load is the 1-minute load average at the end of the run.
	Load float64
	Wall time.Duration
}

func (r upstreamResult) throughput() float64 { return r.Throughput }
func (r upstreamResult) sideName() string    { return r.Side }
func (r upstreamResult) repetition() int     { return r.Rep }
func (r upstreamResult) load() float64       { return r.Load }

// runUpstream runs every workload on both sides, reps times (the sides in
// sidesForRep's order), and writes the markdown summary.
func runUpstream(h *harness, workloads []upstreamWorkload, reps int, o upstreamOptions) error {
	var results []upstreamResult
	for rep := 1; rep <= reps; rep++ {
		for _, w := range workloads {
			for _, s := range sidesForRep(upstreamSides, rep) {
				start := time.Now()
				items, err := h.run(s.Tree, w.TestCase, w.Workload, upstreamRunName(w, s, rep), nil, o.Profile)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", w, s.Name, err)
				}
				r := upstreamResult{Workload: w, Side: s.Name, Rep: rep, Throughput: resultFrom(items).Throughput, Wall: time.Since(start), Load: loadAverage()}
				if r.Throughput == 0 {
					return fmt.Errorf("%s on %s: no SchedulingThroughput (scheduler_perf samples it once a second: did every measured pod schedule within a second? choose a larger workload)", w, s.Name)
				}
				fmt.Printf("%-58s %-8s rep %d  %7.1f pods/s  (%s, load %.1f)\n", w, s.Name, rep, r.Throughput, r.Wall.Round(time.Second), r.Load)
				results = append(results, r)
			}
		}
	}
	return printAndWrite(h, upstreamMarkdown(h, workloads, results, reps, o), o.Markdown)
}

// upstreamVerdict is the paired patched/vanilla ratios of one workload.
type upstreamVerdict struct {
	Ratios []float64
}

// met reports whether the median ratio reaches upstreamGoal; false without
// a pair.
func (v upstreamVerdict) met() bool {
	return len(v.Ratios) > 0 && medianOf(v.Ratios) >= upstreamGoal
}

func upstreamVerdictOf(results []upstreamResult, w upstreamWorkload) upstreamVerdict {
	return upstreamVerdict{Ratios: pairedRatios(results, func(r upstreamResult) bool { return r.Workload == w }, "patched", "vanilla")}
}

// upstreamMarkdown is docs/benchmarks-upstream.md.
func upstreamMarkdown(h *harness, workloads []upstreamWorkload, results []upstreamResult, reps int, o upstreamOptions) string {
	var b strings.Builder
	goVersion, _ := exec.Command("go", "version").Output()
	vanillaRef, _ := h.treeRef("vanilla")
	patchedRef, _ := h.treeRef("patched")
	fmt.Fprintf(&b, "# kspatch benchmarks: upstream's scheduler_perf workloads (performance conformance)\n\n"+
		"Generated by `make bench` (bench/upstream.go) on %s: %d CPUs, %s. Vanilla tree %s (v1.33.13 + build fix-up), patched tree %s "+
		"with every kspatch gate at its default. %d repetition(s); in each, the two sides run every workload one after the other, "+
		"in reverse order in every other repetition. %s\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), strings.TrimSpace(string(goVersion)), short(vanillaRef), short(patchedRef), reps, loadNote(results))
	fmt.Fprintf(&b, "The workloads are upstream's own, from `%s` of the pinned release (read from the vanilla tree, so both sides run the same file): "+
		"the test case as upstream wrote it, with only the chosen workload, which is labelled for the bench package and loses its `threshold` "+
		"(the lowest throughput upstream's CI machines must reach; here it would fail a slower machine's run instead of measuring it). "+
		"Each runs in its own process, with its own API server and etcd, as scheduler_perf does. *Upstream parameters*: the workload's "+
		"`params` and the feature gates it sets. Sizes: `-upstream-size %s` (bench/upstream.go says why each).\n\n",
		upstreamConfigPath, o.Size)
	fmt.Fprintf(&b, "*pods/s*: scheduler_perf's `SchedulingThroughput` (the average of once-a-second samples while the measured pods are scheduled) of the "+
		"median run (the upper middle one of an even number), min–max over the runs in brackets. *patched/vanilla*: the median of the per-repetition "+
		"ratios of patched's throughput to vanilla's in the same repetition (min–max). Goal: **≥ %.2f× on every workload**.\n\n", upstreamGoal)
	fmt.Fprintf(&b, "| workload | upstream parameters | vanilla pods/s | patched pods/s | patched/vanilla | ≥ %.2f× |\n|---|---|---:|---:|---:|---|\n", upstreamGoal)
	var met, missed []string
	for _, w := range workloads {
		cell := func(sideName string) string {
			keep := func(r upstreamResult) bool { return r.Workload == w && r.Side == sideName }
			r, ok := medianRun(results, keep)
			if !ok {
				return "n/a"
			}
			return fmt.Sprintf("%.1f%s", r.Throughput, throughputSpread(results, keep))
		}
		v := upstreamVerdictOf(results, w)
		verdict := "n/a"
		switch {
		case len(v.Ratios) == 0:
			missed = append(missed, fmt.Sprintf("%s (no pair)", w))
		case v.met():
			verdict = "yes"
			met = append(met, w.String())
		default:
			verdict = "**no**"
			missed = append(missed, fmt.Sprintf("%s (%.2f×)", w, medianOf(v.Ratios)))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", w, w.Detail, cell("vanilla"), cell("patched"), orText(ratioSummary(v.Ratios), "n/a"), verdict)
	}
	fmt.Fprintf(&b, "\nGoal ≥ %.2f× on every workload: ", upstreamGoal)
	switch {
	case len(missed) == 0:
		fmt.Fprintf(&b, "met on all %d workloads.", len(met))
	case len(met) == 0:
		fmt.Fprintf(&b, "met on none of the %d workloads; missed on %s.", len(missed), strings.Join(missed, ", "))
	default:
		fmt.Fprintf(&b, "met on %d of %d (%s); missed on %s.", len(met), len(workloads), strings.Join(met, ", "), strings.Join(missed, ", "))
	}
	if reps < 3 {
		fmt.Fprintf(&b, " With %d repetition(s) a ratio rests on single runs of a machine that is not quiet; run `-reps 3` or more before reading a verdict into it.", reps)
	}
	fmt.Fprintf(&b, "\n\nCommand: `%s` (%d repetition(s)). Reproduce with the defaults: `make bench BENCH_ARGS='-suites upstream -reps 3'` "+
		"(`-upstream-size small` for the quick sizes, `-upstream-workloads SchedulingBasic,Unschedulable/5kNodes/100Init/1kPods` for a subset, "+
		"`-upstream-cpuprofile` for a CPU profile of every run). Raw data items, logs and profiles are in `_output/bench/runs/Upstream-*`.\n", o.Command, reps)
	return b.String()
}

// orText is s, or alt when s is empty.
func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
