package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The gang suite (KEP-5732, GangScheduling): N pods on a cluster of fake
// nodes, created in gangs of K pods each with a PodGroup (gang minCount K)
// on the patched scheduler with GangScheduling on, against the same pods
// without a group on every side (vanilla, patched gate off, patched gate
// on). It measures throughput and the duration of the pod-group cycles
// (scheduler_podgroup_scheduling_attempt_duration_seconds), and for every
// side the per-pod latencies to compare them with.

// gangSides are the sides of the gang suite.
var gangSides = []side{
	{Name: "vanilla", Tree: "vanilla"},
	{Name: "patched-gate-off", Tree: "patched", Gates: map[string]bool{"GangScheduling": false}},
	{Name: "patched-gate-on", Tree: "patched", Gates: map[string]bool{"GangScheduling": true}},
}

// gangSideOn is the side that schedules the gangs.
const gangSideOn = "patched-gate-on"

// gangOptions are the gang suite's flags.
type gangOptions struct {
	// Sizes are the gang sizes (pods per PodGroup, which is also its
	// minCount).
	Sizes []int
	// Pods are the measured pods of every workload, Nodes the fake nodes.
	Pods, Nodes int
	// Markdown is the summary to write, relative to the checkout; empty for
	// none.
	Markdown string
	// Profile records a CPU profile of every run.
	Profile bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

// defaultGangOptions are the gangs suite's defaults: gangs of 8 and 32 in
// 2048 pods (a multiple of both) on 500 nodes.
func defaultGangOptions() gangOptions {
	return gangOptions{Sizes: []int{8, 32}, Pods: 2048, Nodes: 500, Markdown: "docs/benchmarks-gangs.md", Command: "make bench BENCH_ARGS='-suites gangs'"}
}

func joinInts(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

// gangs.go's node and pod shapes: scheduler_perf's node-default.yaml (4
// CPUs, 32Gi, 110 pods) and pod-default.yaml (100m CPU, 500Mi), so a node
// holds podsPerGangNode pods (by CPU).
const podsPerGangNode = 40

// gangPodGroupLabel is the label by which a pod joins a PodGroup.
const gangPodGroupLabel = "scheduling.kspatch.io/pod-group"

// gangNamespace holds the measured pods and their PodGroups.
const gangNamespace = "gangs"

// gangCRDFile is the PodGroup CustomResourceDefinition, relative to the
// checkout; the suites' prepare reads it (crdSuiteFiles) and the harness's
// prepare writes it into the workload package.
const gangCRDFile = "scheduler/deploy/podgroup-crd.yaml"

// gangSettle is how long the workloads wait, unmeasured, after creating
// the CRD, the nodes and the PodGroups, so that the scheduler's PodGroup
// informer (whose first lists fail until the CRD exists, and back off) has
// listed every PodGroup before the first pod arrives.
const gangSettle = "3s"

// parsePositiveSizes parses the value v of -flag, a comma-separated list
// of gang sizes (-gang-sizes, -levels-gang-sizes, -preemption-gang-sizes):
// positive numbers, each kept once, in the order given.
func parsePositiveSizes(flag, v string) ([]int, error) {
	var sizes []int
	seen := map[int]bool{}
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid -%s entry %q: must be a positive number of pods per gang", flag, f)
		}
		if !seen[n] {
			seen[n] = true
			sizes = append(sizes, n)
		}
	}
	return sizes, nil
}

// validate checks that every gang is complete (a gang short of minCount
// would never be scheduled and the workload would wait forever) and that
// the nodes hold the pods.
func (o gangOptions) validate() error {
	if o.Nodes < 1 {
		return fmt.Errorf("invalid -gang-nodes %d: must be at least 1", o.Nodes)
	}
	if o.Pods < 1 || o.Pods > o.Nodes*podsPerGangNode {
		return fmt.Errorf("invalid -gang-pods %d: must be between 1 and %d (%d nodes hold %d pods each)", o.Pods, o.Nodes*podsPerGangNode, o.Nodes, podsPerGangNode)
	}
	if len(o.Sizes) == 0 {
		return fmt.Errorf("-gang-sizes is empty")
	}
	for _, k := range o.Sizes {
		if o.Pods%k != 0 {
			return fmt.Errorf("-gang-pods %d is not a multiple of gang size %d: the last gang would never reach its minCount", o.Pods, k)
		}
	}
	return nil
}

// gangTestCase is the scheduler_perf test case of a gang size; 0 is the
// same pods without a group.
func gangTestCase(size int) string {
	if size == 0 {
		return "GangsUngrouped"
	}
	return fmt.Sprintf("Gangs%d", size)
}

// gangWorkloadLabel describes a gang size in the summary.
func gangWorkloadLabel(size int) string {
	if size == 0 {
		return "no group"
	}
	return fmt.Sprintf("gangs of %d", size)
}

// gangRun is one workload run of a repetition: a gang size (0: no group)
// on a side.
type gangRun struct {
	Size int
	Side side
}

// gangRuns lists the runs of one repetition: the pods without a group on
// every side, then the gangs of each size on the patched scheduler with
// GangScheduling on (neither vanilla nor the gate off know PodGroups).
func gangRuns(sizes []int) []gangRun {
	var runs []gangRun
	for _, s := range gangSides {
		runs = append(runs, gangRun{Size: 0, Side: s})
	}
	for _, k := range sizes {
		for _, s := range gangSides {
			if s.Name == gangSideOn {
				runs = append(runs, gangRun{Size: k, Side: s})
			}
		}
	}
	return runs
}

// gangPodTemplate is the measured pod, pod-default.yaml's, with the
// PodGroup label when size > 0: pods Index 0..K-1 join gang-0, K..2K-1
// gang-1, and so on. Pods and PodGroups are created in the same namespace.
func gangPodTemplate(size int) string {
	return memberPodTemplate("bench/gangs.go", size, "100m")
}

// memberPodTemplate is scheduler_perf's pod-default.yaml with cpu as its
// CPU request and limit and, when size > 0, the label that makes pods
// Index 0..size-1 members of PodGroup gang-0, the next size pods of gang-1,
// and so on. source names the generating file in the header.
func memberPodTemplate(source string, size int, cpu string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by kspatch's bench driver (%s); do not edit.\napiVersion: v1\nkind: Pod\nmetadata:\n  generateName: pod-\n", source)
	if size > 0 {
		fmt.Fprintf(&b, "  labels:\n    %s: gang-{{div .Index %d}}\n", gangPodGroupLabel, size)
	}
	fmt.Fprintf(&b, `spec:
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: %[1]s
        memory: 500Mi
      requests:
        cpu: %[1]s
        memory: 500Mi
`, cpu)
	return b.String()
}

// gangPodGroupTemplate is PodGroup gang-<Index>, a gang of size pods.
func gangPodGroupTemplate(size int) string {
	return podGroupTemplate("bench/gangs.go", size, "")
}

// podGroupTemplate is PodGroup gang-<Index>, a gang of size pods (minCount
// size) whose pods must share the value of the node label topologyKey when
// it is not empty. source names the generating file in the header.
func podGroupTemplate(source string, size int, topologyKey string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# Generated by kspatch's bench driver (%s); do not edit.
apiVersion: scheduling.kspatch.io/v1alpha1
kind: PodGroup
metadata:
  name: gang-{{.Index}}
spec:
  schedulingPolicy:
    gang:
      minCount: %d
`, source, size)
	if topologyKey != "" {
		fmt.Fprintf(&b, "  schedulingConstraints:\n    topology:\n    - key: %s\n", topologyKey)
	}
	return b.String()
}

func gangPodFile(size int) string {
	if size == 0 {
		return "gangs-pod-ungrouped.yaml"
	}
	return fmt.Sprintf("gangs-pod-%d.yaml", size)
}

func gangPodGroupFile(size int) string { return fmt.Sprintf("gangs-podgroup-%d.yaml", size) }

const gangCRDTemplate = "gangs-podgroup-crd.yaml"

// gangFiles are the templates the suite's test cases read, by file name in
// the workload package. crd is the PodGroup CRD manifest; scheduler_perf
// reads templates through text/template, so it must not contain "{{".
func gangFiles(crd []byte, sizes []int) (map[string][]byte, error) {
	if err := checkCRDTemplate(crd); err != nil {
		return nil, err
	}
	files := map[string][]byte{
		gangCRDTemplate: crd,
		gangPodFile(0):  []byte(gangPodTemplate(0)),
	}
	for _, k := range sizes {
		files[gangPodFile(k)] = []byte(gangPodTemplate(k))
		files[gangPodGroupFile(k)] = []byte(gangPodGroupTemplate(k))
	}
	return files, nil
}

// checkCRDTemplate refuses a PodGroup CRD manifest that scheduler_perf,
// which reads templates through text/template, would not create verbatim.
func checkCRDTemplate(crd []byte) error {
	if bytes.Contains(crd, []byte("{{")) {
		return fmt.Errorf("%s contains '{{', which scheduler_perf's createAny would read as a template action", gangCRDFile)
	}
	return nil
}

// gangMetrics are collected during the measured phase. The pod-group
// metrics exist only on the patched scheduler with GangScheduling on; the
// per-pod ones on every side.
const gangMetrics = `  metricsCollectorConfig:
    metrics:
      scheduler_podgroup_scheduling_attempt_duration_seconds:
      scheduler_podgroup_schedule_attempts_total:
      - label: result
        values: [scheduled, unschedulable, error]
      scheduler_scheduling_attempt_duration_seconds:
      - label: result
        values: [scheduled]
      scheduler_scheduling_algorithm_duration_seconds:
      scheduler_pod_scheduling_sli_duration_seconds:
      kspatch_bench_pod_writes_total:
      - label: kind
        values: [status]
      apiserver_request_duration_seconds:
      - label: verb
        values: [POST]
      - label: resource
        values: [pods]
      - label: subresource
        values: ["", binding]
      apiserver_request_total:
      - label: verb
        values: [PATCH, POST]
      - label: resource
        values: [podgroups, events]
      - label: subresource
        values: [status, ""]
`

// gangsConfig is the scheduler_perf configuration of the suite for a tree,
// appended to the other suites': one groupTestCase per gang size (0: no
// group) on scheduler_perf's default nodes. The test cases of the gangs
// exist in the patched tree only: scheduler_perf rejects a test case
// without workloads.
func gangsConfig(tree string, o gangOptions) string {
	var b strings.Builder
	for _, k := range append([]int{0}, o.Sizes...) {
		tc := groupTestCase{Name: gangTestCase(k), Namespace: gangNamespace, PodFile: gangPodFile(k), Metrics: gangMetrics, Nodes: o.Nodes, Pods: o.Pods}
		if k > 0 {
			tc.PodGroupFile, tc.Groups = gangPodGroupFile(k), o.Pods/k
		}
		for _, r := range gangRuns(o.Sizes) {
			if r.Size == k && r.Side.Tree == tree {
				tc.Sides = append(tc.Sides, r.Side)
			}
		}
		tc.writeTo(&b)
	}
	return b.String()
}

// groupTestCase is one scheduler_perf test case of the pod-group suites
// (gangs, placement). It creates the PodGroup CRD first (so that the API
// server is in the same state on every side), then the nodes, then - with
// a FillFile - the fill pods, then - with a PodGroupFile - the PodGroups,
// waits gangSettle, and measures the creation and scheduling of the pods.
type groupTestCase struct {
	Name string
	// NodeTemplate is createNodes' nodeTemplatePath; empty for
	// scheduler_perf's default node (node-default.yaml's shape).
	NodeTemplate string
	// SchedulerConfig is the test case's schedulerConfigPath (a
	// KubeSchedulerConfiguration in the workload package); empty for
	// scheduler_perf's default configuration.
	SchedulerConfig string
	// PodGroupFile is the PodGroup template, created Groups times; empty
	// for pods without a group.
	PodGroupFile string
	// Namespace holds the pods and their PodGroups; PodFile is the pod
	// template.
	Namespace, PodFile string
	// Metrics is the metricsCollectorConfig block.
	Metrics string
	// FillFile is the template of the pods that load the cluster before
	// anything is measured, created Fill times in FillNamespace (unmeasured;
	// they may be created bound to their nodes); empty for none.
	FillFile, FillNamespace string
	Fill                    int
	// Sides are the test case's workloads, one per side, named after it.
	Sides               []side
	Nodes, Pods, Groups int
	// PodsFirst creates the measured pods before their PodGroups: the pods
	// wait for their groups (unmeasured, PodsFirstSettle), then the
	// measurement covers creating the PodGroups and scheduling the gangs,
	// without the API server's work of creating the pods in the same
	// window. Needs PodGroupFile.
	PodsFirst bool
}

// podsFirstSettle is how long a PodsFirst test case waits, unmeasured,
// after creating its pods: long enough for the scheduler to see each pod
// once and set it aside until its PodGroup exists.
const podsFirstSettle = "20s"

// writeTo appends the test case to a configuration; nothing when it has no
// side.
func (tc groupTestCase) writeTo(b *strings.Builder) {
	if len(tc.Sides) == 0 {
		return
	}
	fmt.Fprintf(b, "- name: %s\n", tc.Name)
	if tc.SchedulerConfig != "" {
		fmt.Fprintf(b, "  schedulerConfigPath: %s\n", tc.SchedulerConfig)
	}
	b.WriteString("  workloadTemplate:\n")
	fmt.Fprintf(b, "  - opcode: createAny\n    templatePath: %s\n", gangCRDTemplate)
	b.WriteString("  - opcode: createNodes\n")
	if tc.NodeTemplate != "" {
		fmt.Fprintf(b, "    nodeTemplatePath: %s\n", tc.NodeTemplate)
	}
	b.WriteString("    countParam: $nodes\n")
	if tc.FillFile != "" {
		fmt.Fprintf(b, "  - opcode: createPods\n    namespace: %s\n    countParam: $fill\n    podTemplatePath: %s\n", tc.FillNamespace, tc.FillFile)
	}
	if tc.PodsFirst && tc.PodGroupFile != "" {
		fmt.Fprintf(b, "  - opcode: createPods\n    namespace: %s\n    countParam: $pods\n    podTemplatePath: %s\n    skipWaitToCompletion: true\n", tc.Namespace, tc.PodFile)
		fmt.Fprintf(b, "  - opcode: sleep\n    duration: %s\n", podsFirstSettle)
		fmt.Fprintf(b, "  - opcode: startCollectingMetrics\n    namespaces: [%s]\n", tc.Namespace)
		fmt.Fprintf(b, "  - opcode: createAny\n    templatePath: %s\n    namespace: %s\n    countParam: $groups\n", tc.PodGroupFile, tc.Namespace)
		fmt.Fprintf(b, "  - opcode: barrier\n    namespaces: [%s]\n", tc.Namespace)
		b.WriteString("  - opcode: stopCollectingMetrics\n")
	} else {
		if tc.PodGroupFile != "" {
			fmt.Fprintf(b, "  - opcode: createAny\n    templatePath: %s\n    namespace: %s\n    countParam: $groups\n", tc.PodGroupFile, tc.Namespace)
		}
		fmt.Fprintf(b, "  - opcode: sleep\n    duration: %s\n", gangSettle)
		fmt.Fprintf(b, "  - opcode: createPods\n    namespace: %s\n    countParam: $pods\n    podTemplatePath: %s\n    collectMetrics: true\n", tc.Namespace, tc.PodFile)
	}
	b.WriteString(tc.Metrics)
	b.WriteString("  workloads:\n")
	for _, s := range tc.Sides {
		fmt.Fprintf(b, "  - name: %s\n    labels: [kspatch]\n", apiWorkloadName(s))
		writeGates(b, s.Gates)
		fmt.Fprintf(b, "    params:\n      nodes: %d\n      pods: %d\n", tc.Nodes, tc.Pods)
		if tc.PodGroupFile != "" {
			fmt.Fprintf(b, "      groups: %d\n", tc.Groups)
		}
		if tc.FillFile != "" {
			fmt.Fprintf(b, "      fill: %d\n", tc.Fill)
		}
	}
}

// writeGates appends a workload's featureGates, sorted by name so that the
// configuration is the same on every run; nothing without gates.
func writeGates(b *strings.Builder, gates map[string]bool) {
	if len(gates) == 0 {
		return
	}
	names := make([]string, 0, len(gates))
	for g := range gates {
		names = append(names, g)
	}
	sort.Strings(names)
	b.WriteString("    featureGates:\n")
	for _, g := range names {
		fmt.Fprintf(b, "      %s: %t\n", g, gates[g])
	}
}

// latency is a histogram's summary in a data item (ms).
type latency struct {
	P50, P90, P99, Avg, Count float64
}

func latencyOf(it dataItem) latency {
	return latency{P50: it.Data["Perc50"], P90: it.Data["Perc90"], P99: it.Data["Perc99"], Avg: it.Data["Average"], Count: it.Data["Count"]}
}

// gangResult is one run of one gang-suite workload.
type gangResult struct {
	Size int
	Side string
	Rep  int
	// Throughput is SchedulingThroughput's average (pods/s).
	Throughput float64
	// GroupAttempts counts pod-group cycles by result (scheduled,
	// unschedulable, error); nil where the scheduler has no such metric.
	GroupAttempts map[string]float64
	// Group is scheduler_podgroup_scheduling_attempt_duration_seconds;
	// Group.Count is 0 where there is none.
	Group latency
	// PodAttempt is scheduler_scheduling_attempt_duration_seconds for
	// result=scheduled (scheduling cycle and binding of one pod; in a
	// pod-group cycle, from the member's own cycle on). Algorithm is
	// scheduler_scheduling_algorithm_duration_seconds (filter and score of
	// one pod). SLI is scheduler_pod_scheduling_sli_duration_seconds (from
	// the pod's first entry into the queue, gating included, to binding).
	PodAttempt, Algorithm, SLI latency
	// PodCreate and Binding are the API server's latency of Pod creations
	// (the workload's) and bindings (the scheduler's):
	// apiserver_request_duration_seconds for POST pods and pods/binding.
	PodCreate, Binding latency
	// StatusWrites counts the Pod status patches the scheduler sent
	// (PodScheduled=False after a failed attempt, a failed pod-group cycle
	// included).
	StatusWrites float64
	// PodGroupStatusWrites counts PATCH podgroups/status requests, Events
	// POST events requests (apiserver_request_total).
	PodGroupStatusWrites, Events float64
	// Load is the 1-minute load average at the end of the run.
	Load float64
	Wall time.Duration
}

func gangResultFrom(items []dataItem) gangResult {
	var r gangResult
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "SchedulingThroughput":
			r.Throughput = it.Data["Average"]
		case "scheduler_podgroup_schedule_attempts_total":
			if r.GroupAttempts == nil {
				r.GroupAttempts = map[string]float64{}
			}
			r.GroupAttempts[it.Labels["result"]] += it.Data["Value"]
		case "scheduler_podgroup_scheduling_attempt_duration_seconds":
			r.Group = latencyOf(it)
		case "scheduler_scheduling_attempt_duration_seconds":
			if it.Labels["result"] == "scheduled" {
				r.PodAttempt = latencyOf(it)
			}
		case "scheduler_scheduling_algorithm_duration_seconds":
			r.Algorithm = latencyOf(it)
		case "scheduler_pod_scheduling_sli_duration_seconds":
			r.SLI = latencyOf(it)
		case "apiserver_request_duration_seconds":
			switch it.Labels["subresource"] {
			case "":
				r.PodCreate = latencyOf(it)
			case "binding":
				r.Binding = latencyOf(it)
			}
		case "apiserver_request_total":
			switch {
			case it.Labels["verb"] == "PATCH" && it.Labels["resource"] == "podgroups" && it.Labels["subresource"] == "status":
				r.PodGroupStatusWrites += it.Data["Value"]
			case it.Labels["verb"] == "POST" && it.Labels["resource"] == "events" && it.Labels["subresource"] == "":
				r.Events += it.Data["Value"]
			}
		case "kspatch_bench_pod_writes_total":
			if it.Labels["kind"] == "status" {
				r.StatusWrites += it.Data["Value"]
			}
		}
	}
	return r
}

// groupAttempts is the total of pod-group cycles, -1 without the metric.
func (r gangResult) groupAttempts() float64 { return totalOrNA(r.GroupAttempts) }

// totalOrNA sums a counter's values by label, -1 when the metric was not
// collected (a nil map).
func totalOrNA(byLabel map[string]float64) float64 {
	if byLabel == nil {
		return -1
	}
	total := 0.0
	for _, v := range byLabel {
		total += v
	}
	return total
}

// gangSuite is the gang suite: gangRuns' workloads.
type gangSuite struct{ o gangOptions }

func (gangSuite) name() string { return "gangs" }

func (s gangSuite) prepare(h *harness) (map[string][]byte, error) {
	return crdSuiteFiles(h.root, s.name(), s.o.validate, func(crd []byte) (map[string][]byte, error) { return gangFiles(crd, s.o.Sizes) })
}

func (gangSuite) trees([]string) []string { return bothTrees() }

func (s gangSuite) config(tree string) string { return gangsConfig(tree, s.o) }

func (s gangSuite) run(h *harness, reps int) error { return runGangs(h, reps, s.o) }

// runGangs runs every workload of the suite reps times (the runs of a
// repetition in gangRuns' order) and writes the markdown summary.
func runGangs(h *harness, reps int, o gangOptions) error {
	runs := func(int) []gangRun { return gangRuns(o.Sizes) }
	results, err := repeat(reps, runs, func(run gangRun, rep int) (gangResult, error) {
		tc := gangTestCase(run.Size)
		r, _, err := runGroupWorkload(h, run.Side, tc, fmt.Sprintf("%s-%s-rep%d", tc, run.Side.Name, rep), o.Profile)
		if err != nil {
			return gangResult{}, fmt.Errorf("%s (%s) on %s: %w", tc, gangWorkloadLabel(run.Size), run.Side.Name, err)
		}
		r.Size, r.Rep = run.Size, rep
		if r.Throughput == 0 {
			return gangResult{}, fmt.Errorf("%s on %s: no SchedulingThroughput (scheduler_perf samples it once a second: were all pods scheduled within a second? raise -gang-pods)", tc, run.Side.Name)
		}
		if run.Size > 0 && r.groupAttempts() < float64(o.Pods/run.Size) {
			return gangResult{}, fmt.Errorf("%s on %s: %.0f pod-group cycles for %d gangs: the gangs were not scheduled as groups", tc, run.Side.Name, r.groupAttempts(), o.Pods/run.Size)
		}
		fmt.Printf("%-12s %-18s rep %d  %7.1f pods/s  group cycles %s  group p50/p99 %s/%s ms  pod attempt p50/p99 %.1f/%.1f ms  (%s, load %.1f)\n",
			gangWorkloadLabel(run.Size), run.Side.Name, rep, r.Throughput, orNA(r.groupAttempts(), "%.0f"),
			msOrNA(r.Group, r.Group.P50), msOrNA(r.Group, r.Group.P99), r.PodAttempt.P50, r.PodAttempt.P99, r.Wall.Round(time.Second), r.Load)
		return r, nil
	})
	if err != nil {
		return err
	}
	return printAndWrite(h, gangMarkdown(h, results, reps, o), o.Markdown)
}

// runGroupWorkload runs a side's workload of a pod-group suite's test case
// and reads its data items as a gangResult, with its wall time and the load
// average at its end; the items are returned for other metrics.
func runGroupWorkload(h *harness, s side, testCase, runName string, profile bool) (gangResult, []dataItem, error) {
	start := time.Now()
	items, err := h.run(s.Tree, testCase, apiWorkloadName(s), runName, nil, profile)
	if err != nil {
		return gangResult{}, nil, err
	}
	r := gangResultFrom(items)
	r.Side, r.Wall, r.Load = s.Name, time.Since(start), loadAverage()
	return r, items, nil
}

func msOrNA(l latency, v float64) string {
	if l.Count == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", v)
}

// gangMedian returns the run with the median throughput of a gang size on
// a side.
func gangMedian(results []gangResult, size int, sideName string) (gangResult, bool) {
	return medianRun(results, func(r gangResult) bool { return r.Size == size && r.Side == sideName })
}

// measuredRun is a run of a pod-group suite: gangResult, or a result that
// embeds one.
type measuredRun interface {
	throughput() float64
}

func (r gangResult) throughput() float64 { return r.Throughput }

// medianRun returns the run with the median throughput of the runs keep
// selects (the upper one of an even number), so that the numbers of a row
// come from one run.
func medianRun[R measuredRun](results []R, keep func(R) bool) (R, bool) {
	var rs []R
	for _, r := range results {
		if keep(r) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		var none R
		return none, false
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].throughput() < rs[j].throughput() })
	return rs[len(rs)/2], true
}

// throughputSpread is " (min–max)" of the throughputs of the runs keep
// selects when there is more than one.
func throughputSpread[R measuredRun](results []R, keep func(R) bool) string {
	lo, hi, n := 0.0, 0.0, 0
	for _, r := range results {
		if !keep(r) {
			continue
		}
		t := r.throughput()
		if n == 0 || t < lo {
			lo = t
		}
		if n == 0 || t > hi {
			hi = t
		}
		n++
	}
	if n < 2 {
		return ""
	}
	return fmt.Sprintf(" (%.0f–%.0f)", lo, hi)
}

func gangMarkdown(h *harness, results []gangResult, reps int, o gangOptions) string {
	var b strings.Builder
	b.WriteString(groupSuiteHeader(h, "gang scheduling (KEP-5732)", "bench/gangs.go", reps, results))
	fmt.Fprintf(&b, "%d measured Pods (scheduler_perf's `pod-default.yaml`: 100m CPU, 500Mi) created at once on %d fake nodes (`node-default.yaml`: 4 CPUs, 32Gi), "+
		"after the PodGroup CRD (`%s`) and, for gangs, one PodGroup per gang (`gang.minCount` = gang size; the pods carry `%s`). "+
		"*No group*: the same Pods without the label and no PodGroup, on every side. "+
		"Neither vanilla nor the patched scheduler with `GangScheduling=false` knows PodGroups, so gangs run on the patched scheduler with the gate on.\n\n",
		o.Pods, o.Nodes, gangCRDFile, gangPodGroupLabel)
	b.WriteString("*Group cycles*: `scheduler_podgroup_schedule_attempts_total` (scheduled/all; one per gang when every gang is complete in the queue at its first cycle). " +
		"*Group attempt*: `scheduler_podgroup_scheduling_attempt_duration_seconds`, one pod-group cycle (every member filtered, scored, assumed, reserved and permitted, " +
		"up to the decision; binding not included); *per member* is its mean divided by the gang size. " +
		"*Pod attempt*: `scheduler_scheduling_attempt_duration_seconds{result=scheduled}` (one pod's scheduling cycle plus its binding; " +
		"in a gang, from the member's own cycle, so it includes the cycles of the members after it). " +
		"*Pod e2e*: `scheduler_pod_scheduling_sli_duration_seconds` (from the pod's first entry into the queue, waiting for its gang included, to bound). " +
		"Percentiles are interpolated within the histogram buckets (powers of 2 from 1 ms for the group attempt), so they are coarse; means are exact.\n\n")
	b.WriteString("| workload | side | pods/s | vs vanilla | group cycles | group attempt p50 / p90 / p99 (ms) | group attempt mean (ms) | per member (ms) | pod attempt p50 / p99 (ms) | pod e2e p50 / p99 (ms) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	van, _ := gangMedian(results, 0, "vanilla")
	rows := func(row func(k int, s side, r gangResult)) {
		for _, k := range append([]int{0}, o.Sizes...) {
			for _, s := range gangSides {
				if r, ok := gangMedian(results, k, s.Name); ok {
					row(k, s, r)
				}
			}
		}
	}
	rows(func(k int, s side, r gangResult) {
		cycles, group, groupMean, perMember := "n/a", "n/a", "n/a", "n/a"
		if r.GroupAttempts != nil {
			cycles = fmt.Sprintf("%.0f/%.0f", r.GroupAttempts["scheduled"], r.groupAttempts())
		}
		if r.Group.Count > 0 {
			group = fmt.Sprintf("%.1f / %.1f / %.1f", r.Group.P50, r.Group.P90, r.Group.P99)
			groupMean = fmt.Sprintf("%.1f", r.Group.Avg)
			if k > 0 {
				perMember = fmt.Sprintf("%.2f", r.Group.Avg/float64(k))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f%s | %.2f× | %s | %s | %s | %s | %.1f / %.1f | %.0f / %.0f |\n",
			gangWorkloadLabel(k), s.Name, r.Throughput, gangSpread(results, k, s.Name), ratio(r.Throughput, van.Throughput), cycles, group, groupMean, perMember,
			r.PodAttempt.P50, r.PodAttempt.P99, r.SLI.P50, r.SLI.P99)
	})
	b.WriteString(extraCyclesNote(results, o))
	b.WriteString("\nThe API work of the same runs. *Algorithm*: `scheduler_scheduling_algorithm_duration_seconds` (one pod's filter and score). " +
		"*API create / bind*: the API server's p50 latency of the workload's Pod creations and of the scheduler's bindings " +
		"(`apiserver_request_duration_seconds`, POST pods and pods/binding; the API server runs in the benchmark's process). " +
		"*Pod status writes*: Pod status patches the scheduler sent (`PodScheduled=False` after a failed attempt, every member of a failed pod-group cycle included; " +
		"counted by bench/scheduler_perf-data-items.patch). *PodGroup status writes*: `apiserver_request_total` for PATCH podgroups/status. " +
		"*Events*: `apiserver_request_total` for POST events. Counts cover the whole run, per measured Pod or per gang.\n\n")
	b.WriteString("| workload | side | algorithm mean (ms) | API create / bind p50 (ms) | Pod status writes/pod | PodGroup status writes/gang | events/pod |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
	rows(func(k int, s side, r gangResult) {
		pgWrites := "n/a"
		if k > 0 {
			pgWrites = fmt.Sprintf("%.2f", r.PodGroupStatusWrites/float64(o.Pods/k))
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %.1f / %.1f | %.3f | %s | %.2f |\n",
			gangWorkloadLabel(k), s.Name, r.Algorithm.Avg, r.PodCreate.P50, r.Binding.P50, r.StatusWrites/float64(o.Pods), pgWrites, r.Events/float64(o.Pods))
	})
	b.WriteString("\nRatios (throughput, medians):\n\n```\n")
	b.WriteString(gangRatios(results, o.Sizes))
	b.WriteString("```\n")
	fmt.Fprintf(&b, "\nCommand: `%s`. Reproduce with the defaults: `make bench BENCH_ARGS='-suites gangs'` (add `-reps 3` for medians, `-gang-cpuprofile` for a CPU profile of every run). "+
		"Raw data items, logs and profiles are in `_output/bench/runs/Gangs*`.\n", o.Command)
	return b.String()
}

// groupSuiteHeader is the title and first paragraph of a pod-group suite's
// summary: when, where and on which trees it ran, how rows are chosen, and
// the load.
func groupSuiteHeader(h *harness, title, source string, reps int, results []gangResult) string {
	goVersion, _ := exec.Command("go", "version").Output()
	vanillaRef, _ := h.treeRef("vanilla")
	patchedRef, _ := h.treeRef("patched")
	return fmt.Sprintf("# kspatch benchmarks: %s\n\nGenerated by `make bench` (%s) on %s: %d CPUs, %s. "+
		"Vanilla tree %s (v1.33.13 + build fix-up), patched tree %s. Each row is the run with the median throughput of %d run(s) "+
		"(in brackets: the lowest and highest throughput of all its runs); runs alternate. %s\n\n",
		title, source, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), strings.TrimSpace(string(goVersion)), short(vanillaRef), short(patchedRef), reps, loadNote(results))
}

// extraCyclesNote explains pod-group cycles beyond one per gang when the
// median runs had any: in this workload every gang fits, so each extra
// cycle is one that started before every member was in the queue.
func extraCyclesNote(results []gangResult, o gangOptions) string {
	var parts []string
	for _, k := range o.Sizes {
		r, ok := gangMedian(results, k, gangSideOn)
		if !ok || r.GroupAttempts == nil {
			continue
		}
		gangs := float64(o.Pods / k)
		if extra := r.groupAttempts() - gangs; extra > 0 {
			parts = append(parts, fmt.Sprintf("%.0f for %.0f gangs of %d", extra, gangs, k))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "\nExtra pod-group cycles (" + strings.Join(parts, ", ") + "): every gang here fits, so a cycle beyond one per gang is one that found fewer than " +
		"minCount members in the scheduling queue although all of them existed (a member not added to the queue yet, or still gated while the manager " +
		"had not activated it), and was rejected at once without trying a pod (`Pod group unschedulable ... firstFailure=\"<none>\"` in the run's output.txt). " +
		"Each sends `PodScheduled=False` for the members it took, a FailedScheduling event and an Unschedulable PodGroup condition; the gang is scheduled " +
		"by a later cycle once every member is queued.\n"
}

// gangSpread is " (min–max)" of the throughputs of a gang size on a side
// when there is more than one run.
func gangSpread(results []gangResult, size int, sideName string) string {
	return throughputSpread(results, func(r gangResult) bool { return r.Size == size && r.Side == sideName })
}

// loadedRun is a run that recorded the load average at its end.
type loadedRun interface {
	load() float64
}

func (r gangResult) load() float64 { return r.Load }

// loadNote says how busy the machine was: the 1-minute load average at the
// end of each run.
func loadNote[R loadedRun](results []R) string {
	lo, hi, n := 0.0, 0.0, 0
	for _, r := range results {
		l := r.load()
		if l <= 0 {
			continue
		}
		if n == 0 || l < lo {
			lo = l
		}
		if n == 0 || l > hi {
			hi = l
		}
		n++
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("The 1-minute load average at the end of the runs was %.1f–%.1f on %d CPUs: other work on the machine makes single runs noisy.", lo, hi, runtime.NumCPU())
}

// loadAverage is the 1-minute load average, 0 where /proc/loadavg is not
// readable.
func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(fields[0], 64)
	return v
}

// gangRatios compares each gang size's throughput with the pods without a
// group on every side.
func gangRatios(results []gangResult, sizes []int) string {
	var b strings.Builder
	on, okOn := gangMedian(results, 0, gangSideOn)
	off, okOff := gangMedian(results, 0, "patched-gate-off")
	van, okVan := gangMedian(results, 0, "vanilla")
	if okOn && okOff {
		fmt.Fprintf(&b, "no group:      gate-on/gate-off %.2fx\n", ratio(on.Throughput, off.Throughput))
	}
	if okOn && okVan {
		fmt.Fprintf(&b, "no group:      gate-on/vanilla %.2fx\n", ratio(on.Throughput, van.Throughput))
	}
	for _, k := range sizes {
		g, ok := gangMedian(results, k, gangSideOn)
		if !ok {
			continue
		}
		label := gangWorkloadLabel(k) + ":"
		if okVan {
			fmt.Fprintf(&b, "%-14s gate-on/vanilla (no group) %.2fx\n", label, ratio(g.Throughput, van.Throughput))
		}
		if okOff {
			fmt.Fprintf(&b, "%-14s gate-on/gate-off (no group) %.2fx\n", label, ratio(g.Throughput, off.Throughput))
		}
		if okOn {
			fmt.Fprintf(&b, "%-14s gate-on/gate-on (no group) %.2fx\n", label, ratio(g.Throughput, on.Throughput))
		}
	}
	return b.String()
}
