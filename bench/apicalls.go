package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// The API-call suite (KEP-5229): scheduler_perf workloads whose Pod writes
// (status patches, bindings) are delayed by an injected latency, vanilla
// against the patched scheduler with SchedulerAsyncAPICalls off and on.

// apiSides are the sides of the API-call suite.
var apiSides = []side{
	{Name: "vanilla", Tree: "vanilla"},
	{Name: "patched-gate-off", Tree: "patched", Gates: map[string]bool{"SchedulerAsyncAPICalls": false}},
	{Name: "patched-gate-on", Tree: "patched", Gates: map[string]bool{"SchedulerAsyncAPICalls": true}},
}

// apiWorkload is one workload of the suite.
type apiWorkload struct {
	// Key names the workload in -api-workloads.
	Key string
	// TestCase is the scheduler_perf test case; Name describes it.
	TestCase, Name string
	// Latency is injected into every Pod status patch and binding.
	Latency time.Duration
	// QPS and Burst, when QPS is set, rate-limit the scheduler's Pod writes
	// as kube-scheduler's client does (50 and 100 by default).
	QPS   float64
	Burst int
}

// apiWorkloads are the workloads of the suite, in the order they run.
//
// The Unschedulable ones sweep the write latency at upstream's churn rate
// (5/s). Vanilla sends each churned Pod's PodScheduled=False patch inside
// its scheduling loop, so the loop waits rate × latency of every second
// (plus the attempts' own CPU); what is left schedules the measured Pods.
// The asynchronous side does not wait, so its gain grows with that product:
// small at 50ms (25% of the loop), large at 150ms (75%) and 175ms (88%),
// where what is left of vanilla's loop, not the CPU, bounds it. At 200ms (100%)
// vanilla's loop falls behind the churn for good and schedules almost
// nothing (102 of 2000 measured pods in the 10 minutes scheduler_perf
// waits), so that point is not in the suite.
var apiWorkloads = []apiWorkload{
	{Key: "churn5-50ms", TestCase: "APICallsUnschedulable200ms", Name: "unschedulable churn 5/s, 50ms writes", Latency: 50 * time.Millisecond},
	{Key: "churn10-50ms", TestCase: "APICallsUnschedulable100ms", Name: "unschedulable churn 10/s, 50ms writes", Latency: 50 * time.Millisecond},
	{Key: "churn5-100ms", TestCase: "APICallsUnschedulable200ms", Name: "unschedulable churn 5/s, 100ms writes", Latency: 100 * time.Millisecond},
	{Key: "churn5-150ms", TestCase: "APICallsUnschedulable200ms", Name: "unschedulable churn 5/s, 150ms writes", Latency: 150 * time.Millisecond},
	{Key: "churn5-175ms", TestCase: "APICallsUnschedulable200ms", Name: "unschedulable churn 5/s, 175ms writes", Latency: 175 * time.Millisecond},
	{Key: "normal-50ms", TestCase: "APICallsNormal", Name: "normal scheduling, 50ms writes", Latency: 50 * time.Millisecond},
	{Key: "normal", TestCase: "APICallsNormal", Name: "normal scheduling, no injected latency"},
	// The backlog of #21's finding 1: thousands of unschedulable Pods whose
	// status patches wait at the client's default rate limit while the
	// measured Pods arrive; their bindings must not wait behind the patches.
	{Key: "backlog-qps50", TestCase: "APICallsBacklog", Name: fmt.Sprintf("%d unschedulable Pods, then the measured ones; scheduler writes at 50 QPS, burst 100", backlogPods), QPS: 50, Burst: 100},
}

// backlogPods is how many unschedulable Pods APICallsBacklog creates before
// the measured ones.
const backlogPods = 2000

// apiOptions are the apicalls suite's flags.
type apiOptions struct {
	// Pods is the number of measured Pods of every workload.
	Pods int
	// Markdown is the summary to write (relative to the checkout unless
	// absolute); empty for none.
	Markdown string
	// Workloads are the keys of the workloads to run, comma-separated;
	// empty for all.
	Workloads string
	// Profile records a CPU profile of every run.
	Profile bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

func defaultAPIOptions() apiOptions {
	return apiOptions{Pods: 1000, Markdown: "docs/benchmarks-apicalls.md", Command: "make bench BENCH_ARGS='-suites apicalls'"}
}

// validate checks the options and returns the workloads to run.
func (o apiOptions) validate() ([]apiWorkload, error) {
	if o.Pods < 1 || o.Pods > apiNodes*podsPerAPINode {
		return nil, fmt.Errorf("invalid -api-pods %d: must be between 1 and %d (the apicalls suite's %d nodes hold %d of its pods each)", o.Pods, apiNodes*podsPerAPINode, apiNodes, podsPerAPINode)
	}
	return chooseAPIWorkloads(o.Workloads)
}

// chooseAPIWorkloads returns the workloads named in keys (comma-separated
// Keys; empty for all), in the suite's order.
func chooseAPIWorkloads(keys string) ([]apiWorkload, error) {
	if strings.TrimSpace(keys) == "" {
		return apiWorkloads, nil
	}
	want := map[string]bool{}
	for _, k := range strings.Split(keys, ",") {
		k = strings.TrimSpace(k)
		found := false
		for _, w := range apiWorkloads {
			found = found || w.Key == k
		}
		if !found {
			var allowed []string
			for _, w := range apiWorkloads {
				allowed = append(allowed, w.Key)
			}
			return nil, fmt.Errorf("unknown workload %q in -api-workloads: allowed are %s", k, strings.Join(allowed, ", "))
		}
		want[k] = true
	}
	var chosen []apiWorkload
	for _, w := range apiWorkloads {
		if want[w.Key] {
			chosen = append(chosen, w)
		}
	}
	return chosen, nil
}

// The apicalls suite runs on apiNodes of scheduler_perf's node-default.yaml
// (4 CPUs), which hold podsPerAPINode of its pod-default.yaml pods (100m
// CPU) each: -api-pods is at most their product.
const (
	apiNodes       = 100
	podsPerAPINode = 40
)

// churnIntervals are the intervals (ms) of the APICallsUnschedulable test
// cases: upstream's Unschedulable workload churns every 200 ms.
var churnIntervals = []int{200, 100}

// apiWorkloadName is the scheduler_perf workload name of a side in a test
// case (the latency is set per run, not per workload).
func apiWorkloadName(s side) string {
	return strings.ReplaceAll(s.Name, "-", "_")
}

// apiCallsConfig is the scheduler_perf configuration of the suite, appended
// to the burst configuration. APICallsUnschedulable<N>ms, shaped like
// upstream's Unschedulable workload: while the measured Pods are scheduled,
// a high-priority Pod that fits nowhere is created every N ms (in its own
// namespace); it goes ahead of the measured Pods, and each attempt at it
// ends in a PodScheduled=False status patch, which vanilla sends inside the
// scheduling cycle. APICallsNormal: the measured Pods only.
func apiCallsConfig(tree string, pods, nodes int) string {
	var b strings.Builder
	workloads := func() {
		b.WriteString("  workloads:\n")
		for _, s := range apiSides {
			if s.Tree != tree {
				continue
			}
			fmt.Fprintf(&b, "  - name: %s\n    labels: [kspatch]\n", apiWorkloadName(s))
			if len(s.Gates) > 0 {
				b.WriteString("    featureGates:\n")
				for g, on := range s.Gates {
					fmt.Fprintf(&b, "      %s: %t\n", g, on)
				}
			}
			fmt.Fprintf(&b, "    params:\n      nodes: %d\n      pods: %d\n", nodes, pods)
		}
	}
	metrics := `  metricsCollectorConfig:
    metrics:
      kspatch_bench_pod_writes_total:
      - label: kind
        values: [status, binding]
`
	nodesOp := "  - opcode: createNodes\n    countParam: $nodes\n"
	measured := "  - opcode: createPods\n    countParam: $pods\n    podTemplatePath: ../templates/pod-default.yaml\n    collectMetrics: true\n"
	type testCase struct{ name, ops string }
	var cases []testCase
	for _, ms := range churnIntervals {
		// churn takes no parameter for its interval.
		churn := fmt.Sprintf("  - opcode: churn\n    mode: create\n    namespace: unschedulable\n    templatePaths: [../templates/pod-high-priority-large-cpu.yaml]\n    intervalMilliseconds: %d\n", ms)
		cases = append(cases, testCase{fmt.Sprintf("APICallsUnschedulable%dms", ms), nodesOp + churn + measured})
	}
	cases = append(cases, testCase{"APICallsNormal", nodesOp + measured})
	backlog := fmt.Sprintf("  - opcode: createPods\n    count: %d\n    namespace: unschedulable\n    podTemplatePath: ../templates/pod-high-priority-large-cpu.yaml\n    skipWaitToCompletion: true\n", backlogPods)
	cases = append(cases, testCase{"APICallsBacklog", nodesOp + backlog + measured})
	for _, tc := range cases {
		fmt.Fprintf(&b, "- name: %s\n  workloadTemplate:\n%s", tc.name, tc.ops)
		b.WriteString(metrics)
		if tc.name == "APICallsBacklog" {
			b.WriteString(backlogMetrics)
		}
		workloads()
	}
	return b.String()
}

// apiResult is one run of one API-call workload.
type apiResult struct {
	Workload apiWorkload
	Side     string
	Rep      int
	// Throughput is SchedulingThroughput's average (pods/s).
	Throughput float64
	// StatusWrites and BindingWrites count the Pod status patches and
	// bindings the API server got during the measured phase.
	StatusWrites, BindingWrites float64
	// SLIp50 and SLIp99 are the measured Pods' scheduling SLI percentiles,
	// BindingWaitP99 the 99th percentile of a binding's wait in the API call
	// queue (gate on only), all in ms; 0 when the run has none.
	SLIp50, SLIp99, BindingWaitP99 float64
	// The throughput window runs from the first measured Pod seen
	// scheduled to the last one. WindowPods were scheduled after the first
	// in its WindowSeconds, and WindowStatusWrites status patches sent: their
	// ratios are the run's exact throughput, and its status-write rate (the
	// pressure the asynchronous path takes off the loop).
	WindowPods, WindowSeconds, WindowStatusWrites float64
}

// windowThroughput is the Pods scheduled per second of the throughput
// window; 0 when the run has none.
func (r apiResult) windowThroughput() float64 {
	if r.WindowSeconds <= 0 {
		return 0
	}
	return r.WindowPods / r.WindowSeconds
}

// statusWritesPerSecond is the run's status-write rate in its throughput
// window; 0 when the run has none.
func (r apiResult) statusWritesPerSecond() float64 {
	if r.WindowSeconds <= 0 {
		return 0
	}
	return r.WindowStatusWrites / r.WindowSeconds
}

// backlogMetrics are the extra metrics APICallsBacklog collects.
const backlogMetrics = `      scheduler_pod_scheduling_sli_duration_seconds:
      scheduler_async_api_call_queue_wait_seconds:
      - label: call_type
        values: [pod_binding]
`

func apiResultFrom(items []dataItem) apiResult {
	var r apiResult
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "SchedulingThroughput":
			r.Throughput = it.Data["Average"]
		case "kspatch_bench_pod_writes_total":
			switch it.Labels["kind"] {
			case "status":
				r.StatusWrites += it.Data["Value"]
			case "binding":
				r.BindingWrites += it.Data["Value"]
			}
		case "scheduler_pod_scheduling_sli_duration_seconds":
			r.SLIp50, r.SLIp99 = it.Data["Perc50"], it.Data["Perc99"]
		case "scheduler_async_api_call_queue_wait_seconds":
			r.BindingWaitP99 = it.Data["Perc99"]
		case "kspatch_bench_throughput_window":
			r.WindowPods, r.WindowSeconds, r.WindowStatusWrites = it.Data["Pods"], it.Data["Seconds"], it.Data["statusWrites"]
		}
	}
	return r
}

// apiSuite is the API-call suite: its workloads on apiSides.
type apiSuite struct {
	o apiOptions
	// workloads are the workloads to run, chosen by prepare.
	workloads []apiWorkload
}

func (*apiSuite) name() string { return "apicalls" }

// inEveryTree: the suite's test cases are in every tree's configuration.
func (*apiSuite) inEveryTree() {}

func (s *apiSuite) prepare(*harness) (map[string][]byte, error) {
	var err error
	s.workloads, err = s.o.validate()
	return nil, err
}

func (*apiSuite) trees([]string) []string { return bothTrees() }

func (s *apiSuite) config(tree string) string { return apiCallsConfig(tree, s.o.Pods, apiNodes) }

func (s *apiSuite) run(h *harness, reps int) error { return runAPICalls(h, s.workloads, reps, s.o) }

// runAPICalls runs every workload of the suite on every side, reps times,
// and writes the markdown summary.
func runAPICalls(h *harness, workloads []apiWorkload, reps int, o apiOptions) error {
	pods := o.Pods
	runs := func(rep int) []onSide[apiWorkload] { return onSides(workloads, apiSides, rep) }
	results, err := repeat(reps, runs, func(run onSide[apiWorkload], rep int) (apiResult, error) {
		w, s := run.Workload, run.Side
		env := []string{"KSPATCH_BENCH_WRITE_LATENCY=" + w.Latency.String()}
		if w.QPS > 0 {
			env = append(env, fmt.Sprintf("KSPATCH_BENCH_SCHEDULER_QPS=%g", w.QPS), fmt.Sprintf("KSPATCH_BENCH_SCHEDULER_BURST=%d", w.Burst))
		}
		items, err := h.run(s.Tree, w.TestCase, apiWorkloadName(s), fmt.Sprintf("%s-%s-%s-rep%d", w.TestCase, w.Latency, s.Name, rep), env, o.Profile)
		if err != nil {
			return apiResult{}, fmt.Errorf("%s (%s) on %s: %w", w.TestCase, w.Name, s.Name, err)
		}
		r := apiResultFrom(items)
		r.Workload, r.Side, r.Rep = w, s.Name, rep
		if r.throughput() == 0 {
			return apiResult{}, fmt.Errorf("%s (%s) on %s: no SchedulingThroughput", w.TestCase, w.Name, s.Name)
		}
		fmt.Printf("%-40s %-18s rep %d  %7.1f pods/s (SchedulingThroughput %.1f)  %5.2f status + %5.2f binding writes/pod  %5.2f status writes/s in %.0f s  SLI p50/p99 %.0f/%.0f ms  binding wait p99 %.1f ms\n",
			w.Name, s.Name, rep, r.throughput(), r.Throughput, r.StatusWrites/float64(pods), r.BindingWrites/float64(pods), r.statusWritesPerSecond(), r.WindowSeconds, r.SLIp50, r.SLIp99, r.BindingWaitP99)
		return r, nil
	})
	if err != nil {
		return err
	}
	md := apiMarkdown(h, workloads, results, reps, o)
	fmt.Println()
	fmt.Print(md)
	if o.Markdown == "" {
		return nil
	}
	return os.WriteFile(underRoot(h.root, o.Markdown), []byte(md), 0o644)
}

// medianSchedulingThroughput is the median of the SchedulingThroughput of
// the runs keep selects.
func medianSchedulingThroughput(results []apiResult, keep func(apiResult) bool) float64 {
	var t []float64
	for _, r := range results {
		if keep(r) {
			t = append(t, r.Throughput)
		}
	}
	return medianOf(t)
}

// writeRate is "rate (min–max)" of the status writes per second: r's, and
// the spread over the runs keep selects; empty when no run has a window.
func writeRate(r apiResult, results []apiResult, keep func(apiResult) bool) string {
	var rates []float64
	for _, x := range results {
		if keep(x) && x.WindowSeconds > 0 {
			rates = append(rates, x.statusWritesPerSecond())
		}
	}
	if len(rates) == 0 {
		return ""
	}
	out := fmt.Sprintf("%.1f", r.statusWritesPerSecond())
	if len(rates) > 1 {
		out += fmt.Sprintf(" (%.1f–%.1f)", slices.Min(rates), slices.Max(rates))
	}
	return out
}

// throughput is the run's exact throughput (the window's), or
// SchedulingThroughput's average when the run has no window.
func (r apiResult) throughput() float64 {
	if t := r.windowThroughput(); t > 0 {
		return t
	}
	return r.Throughput
}
func (r apiResult) sideName() string { return r.Side }
func (r apiResult) repetition() int  { return r.Rep }

// pairedRun is a run that pairedRatios can pair with another side's run of
// the same repetition.
type pairedRun interface {
	measuredRun
	sideName() string
	repetition() int
}

// pairedRatios returns, for every repetition in which both sides ran the
// workload keep selects, side num's throughput over side den's. Sides
// alternate within a repetition, so a ratio compares runs a few seconds
// apart and a slow period of a shared machine weighs on both.
func pairedRatios[R pairedRun](results []R, keep func(R) bool, num, den string) []float64 {
	byRep := map[int]map[string]float64{}
	var reps []int
	for _, r := range results {
		if !keep(r) {
			continue
		}
		if byRep[r.repetition()] == nil {
			byRep[r.repetition()] = map[string]float64{}
			reps = append(reps, r.repetition())
		}
		byRep[r.repetition()][r.sideName()] = r.throughput()
	}
	sort.Ints(reps)
	var ratios []float64
	for _, rep := range reps {
		n, okN := byRep[rep][num]
		d, okD := byRep[rep][den]
		if okN && okD && d > 0 {
			ratios = append(ratios, n/d)
		}
	}
	return ratios
}

// medianOf is the median of values (the mean of the middle two of an even
// number); 0 when there is none.
func medianOf(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	mid := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		mid = (sorted[len(sorted)/2-1] + mid) / 2
	}
	return mid
}

// ratioSummary is "median× (min–max)" of ratios (the mean of the middle
// two of an even number); empty when there is none.
func ratioSummary(ratios []float64) string {
	if len(ratios) == 0 {
		return ""
	}
	med := fmt.Sprintf("%.2f×", medianOf(ratios))
	if len(ratios) == 1 {
		return med
	}
	lo, hi := slices.Min(ratios), slices.Max(ratios)
	return fmt.Sprintf("%s (%.2f–%.2f)", med, lo, hi)
}

func apiMarkdown(h *harness, workloads []apiWorkload, results []apiResult, reps int, o apiOptions) string {
	pods := o.Pods
	var b strings.Builder
	goVersion, _ := exec.Command("go", "version").Output()
	vanillaRef, _ := h.treeRef("vanilla")
	patchedRef, _ := h.treeRef("patched")
	fmt.Fprintf(&b, "# kspatch benchmarks: asynchronous API calls (KEP-5229)\n\nGenerated by `make bench` (bench/apicalls.go) on %s: %d CPUs, %s. "+
		"Vanilla tree %s (v1.33.13 + build fix-up), patched tree %s. Each row is the median of %d run(s); the sides take turns within a repetition, in reverse order in every other one.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), strings.TrimSpace(string(goVersion)), short(vanillaRef), short(patchedRef), reps)
	fmt.Fprintf(&b, "%d measured Pods on 100 nodes. *Unschedulable churn N/s*: shaped like upstream's `Unschedulable` workload — while they are scheduled, "+
		"a high-priority Pod that fits nowhere (9 CPUs, nodes have 4) is created N times a second (upstream churns 5/s); it is attempted ahead of the "+
		"measured Pods and each attempt ends in a `PodScheduled=False` status patch, which vanilla sends inside the scheduling cycle. "+
		"The injected latency delays every Pod status patch and binding the scheduler sends (bench/scheduler_perf-data-items.patch); "+
		"*writes/pod* count those requests over the whole run (churned Pods included), per measured Pod. "+
		"The churn has no limit: it runs from before the first measured Pod until the last one is scheduled, whatever the number of measured Pods. "+
		"*status writes/s* is the pressure it puts on the write path: the status patches sent between the first and the last throughput sample, "+
		"per second of that window (the median run's, min–max over the runs).\n\n", pods)
	b.WriteString("*pods/s* is the median run's throughput (the upper middle one of an even number; min–max over the runs): the measured Pods scheduled after the first one, " +
		"per second from the first to the last, as the test's informer sees them. scheduler_perf's own *SchedulingThroughput* (the median run's, in its own column) averages " +
		"one-second samples, so in a run of a few seconds it depends on where the start and the end fall between two ticks. *vs vanilla* is the median of the per-repetition ratios to " +
		"vanilla's run of the same repetition (min–max), and *on/off* the same against the gate-off side.\n\n")
	b.WriteString("*SLI p50/p99* is the measured Pods' `scheduler_pod_scheduling_sli_duration_seconds`, *binding wait p99* a binding's wait in the API call queue " +
		"(`scheduler_async_api_call_queue_wait_seconds`, gate on only), both in ms, of the median run, where the workload collects them.\n\n")
	b.WriteString("| workload | side | pods/s | SchedulingThroughput | status writes/s | status writes/pod | binding writes/pod | SLI p50/p99 ms | binding wait p99 ms | vs vanilla | on/off |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, w := range workloads {
		ofWorkload := func(r apiResult) bool { return r.Workload == w }
		for _, s := range apiSides {
			keep := func(r apiResult) bool { return r.Workload == w && r.Side == s.Name }
			r, ok := medianRun(results, keep)
			if !ok {
				continue
			}
			vsVanilla := "1.00×"
			if s.Name != "vanilla" {
				vsVanilla = ratioSummary(pairedRatios(results, ofWorkload, s.Name, "vanilla"))
			}
			onOff := ""
			if s.Name == "patched-gate-on" {
				onOff = ratioSummary(pairedRatios(results, ofWorkload, s.Name, "patched-gate-off"))
			}
			sli, wait := "", ""
			if r.SLIp99 > 0 {
				sli = fmt.Sprintf("%.0f / %.0f", r.SLIp50, r.SLIp99)
			}
			if r.BindingWaitP99 > 0 {
				wait = fmt.Sprintf("%.1f", r.BindingWaitP99)
			}
			fmt.Fprintf(&b, "| %s | %s | %.1f%s | %.1f | %s | %.2f | %.2f | %s | %s | %s | %s |\n", w.Name, s.Name, r.throughput(), throughputSpread(results, keep), medianSchedulingThroughput(results, keep),
				writeRate(r, results, keep), r.StatusWrites/float64(pods), r.BindingWrites/float64(pods), sli, wait, vsVanilla, onOff)
		}
	}
	fmt.Fprintf(&b, "\nCommand: `%s`. Reproduce with the defaults: `make bench BENCH_ARGS='-suites apicalls'` (add `-reps 4` for medians, "+
		"`-api-workloads churn5-150ms,normal` for a subset). Raw data items and logs are in `_output/bench/runs/APICalls*`.\n", o.Command)
	return b.String()
}
