package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The placement suite (issue #8, KEP-5732 topology-aware placement): gangs
// whose PodGroups keep all their pods in one rack
// (spec.schedulingConstraints.topology: [{key: topology.kspatch.io/rack}])
// against the same gangs without the constraint, on the patched scheduler
// with GangScheduling and TopologyAwareWorkloadScheduling on, on clusters
// of fake nodes in racks. Vanilla, which knows no PodGroup, schedules the
// same pods without a group on the same nodes, for reference. It measures
// throughput, the pod-group cycles
// (scheduler_podgroup_scheduling_attempt_duration_seconds) and the
// evaluations of candidate racks
// (scheduler_placement_evaluation_duration_seconds).

// placementRackLabel is the node label that names a node's rack, and the
// constrained PodGroups' topology key.
const placementRackLabel = "topology.kspatch.io/rack"

// placementNamespace holds the suite's pods and PodGroups.
const placementNamespace = "placement"

// placementPodCPU is the measured pod's CPU request (1 CPU; in millis, so
// that it stays a string in YAML): a node (4 CPUs) holds
// podsPerPlacementNode of them, so that gangs fill racks.
const (
	placementPodCPU      = "1000m"
	podsPerPlacementNode = 4
)

// The sides of the suite: vanilla runs the pods without a group, the
// patched scheduler with both gates on the gangs.
var (
	placementVanilla = side{Name: "vanilla", Tree: "vanilla"}
	placementGateOn  = side{Name: "patched-gate-on", Tree: "patched", Gates: map[string]bool{"GangScheduling": true, "TopologyAwareWorkloadScheduling": true}}
)

// A placementCluster is a cluster shape: Nodes fake nodes in Racks racks of
// equal size.
type placementCluster struct {
	Nodes, Racks int
}

func (c placementCluster) perRack() int { return c.Nodes / c.Racks }

// id names the shape in test case names: 500n50r.
func (c placementCluster) id() string { return fmt.Sprintf("%dn%dr", c.Nodes, c.Racks) }

// String describes the shape in the summary.
func (c placementCluster) String() string {
	return fmt.Sprintf("%d nodes, %d racks of %d", c.Nodes, c.Racks, c.perRack())
}

// placementOptions are the suite's flags.
type placementOptions struct {
	// Clusters are the cluster shapes, each run with every workload.
	Clusters []placementCluster
	// GangSize is the pods per PodGroup (its minCount); Pods the measured
	// pods of every workload, a multiple of it.
	GangSize, Pods int
	// Markdown is the summary to write, relative to the checkout; empty for
	// none.
	Markdown string
	// Profile records a CPU profile of every run.
	Profile bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

// defaultPlacementOptions are issue #8's shapes: gangs of 32 in 1024 pods
// on 500 nodes in 50 racks of 10 (40 pods a rack: one gang and some spare)
// and on 5000 nodes in 100 racks of 50 (200 pods a rack: six gangs).
func defaultPlacementOptions() placementOptions {
	return placementOptions{
		Clusters: []placementCluster{{Nodes: 500, Racks: 50}, {Nodes: 5000, Racks: 100}},
		GangSize: 32, Pods: 1024,
		Markdown: "docs/benchmarks-placement.md",
		Command:  "make bench BENCH_ARGS='-suites placement'",
	}
}

// parsePlacementClusters parses -placement-clusters: nodes/racks, comma-separated.
func parsePlacementClusters(s string) ([]placementCluster, error) {
	var clusters []placementCluster
	for _, f := range strings.Split(s, ",") {
		nodes, racks, ok := strings.Cut(strings.TrimSpace(f), "/")
		n, err1 := strconv.Atoi(nodes)
		r, err2 := strconv.Atoi(racks)
		if !ok || err1 != nil || err2 != nil || n < 1 || r < 1 {
			return nil, fmt.Errorf("invalid -placement-clusters entry %q: must be nodes/racks, such as 500/50", f)
		}
		clusters = append(clusters, placementCluster{Nodes: n, Racks: r})
	}
	return clusters, nil
}

// formatPlacementClusters is the -placement-clusters value of clusters.
func formatPlacementClusters(clusters []placementCluster) string {
	var s []string
	for _, c := range clusters {
		s = append(s, fmt.Sprintf("%d/%d", c.Nodes, c.Racks))
	}
	return strings.Join(s, ",")
}

// validate checks that every gang is complete and that, in every cluster,
// each gang finds a rack with room for all its pods (so that every
// workload schedules all its pods and ends).
func (o placementOptions) validate() error {
	if len(o.Clusters) == 0 {
		return fmt.Errorf("-placement-clusters is empty")
	}
	if o.GangSize < 1 {
		return fmt.Errorf("invalid -placement-gang-size %d: must be at least 1", o.GangSize)
	}
	if o.Pods < 1 || o.Pods%o.GangSize != 0 {
		return fmt.Errorf("invalid -placement-pods %d: must be a positive multiple of the gang size %d, or the last gang would never reach its minCount", o.Pods, o.GangSize)
	}
	seen := map[placementCluster]bool{}
	for _, c := range o.Clusters {
		if seen[c] {
			return fmt.Errorf("-placement-clusters has %d/%d twice", c.Nodes, c.Racks)
		}
		seen[c] = true
		if c.Nodes%c.Racks != 0 {
			return fmt.Errorf("invalid -placement-clusters entry %d/%d: the nodes must split into racks of equal size", c.Nodes, c.Racks)
		}
		perRack := c.perRack() * podsPerPlacementNode / o.GangSize
		if gangs := o.Pods / o.GangSize; gangs > c.Racks*perRack {
			return fmt.Errorf("-placement-pods %d do not fit in %d/%d: a rack of %d nodes holds %d pods, %d gang(s) of %d, so the %d racks hold %d of the %d gangs",
				o.Pods, c.Nodes, c.Racks, c.perRack(), c.perRack()*podsPerPlacementNode, perRack, o.GangSize, c.Racks, c.Racks*perRack, gangs)
		}
	}
	return nil
}

// placementKind is what a workload creates.
type placementKind int

const (
	// placementUngrouped: the pods without a group.
	placementUngrouped placementKind = iota
	// placementUnconstrained: gangs whose PodGroups have no constraint.
	placementUnconstrained
	// placementRack: gangs whose PodGroups keep them in one rack.
	placementRack
)

var placementKinds = []placementKind{placementUngrouped, placementUnconstrained, placementRack}

// testCase is the scheduler_perf test case of the kind on a cluster shape.
func (k placementKind) testCase(c placementCluster) string {
	return [...]string{"PlacementUngrouped", "PlacementGangs", "PlacementRack"}[k] + c.id()
}

// label describes the kind in the summary.
func (k placementKind) label(gangSize int) string {
	switch k {
	case placementUnconstrained:
		return fmt.Sprintf("gangs of %d", gangSize)
	case placementRack:
		return fmt.Sprintf("gangs of %d, one rack", gangSize)
	}
	return "no group"
}

// gangSize is the pods per PodGroup of the kind, 0 without a group.
func (k placementKind) gangSize(o placementOptions) int {
	if k == placementUngrouped {
		return 0
	}
	return o.GangSize
}

// placementRun is one workload run of a repetition.
type placementRun struct {
	Cluster placementCluster
	Kind    placementKind
	Side    side
}

// placementRuns lists the runs of one repetition, cluster by cluster: the
// pods without a group on vanilla, then the gangs without and with the
// constraint on the patched scheduler.
func placementRuns(clusters []placementCluster) []placementRun {
	var runs []placementRun
	for _, c := range clusters {
		for _, k := range placementKinds {
			s := placementGateOn
			if k == placementUngrouped {
				s = placementVanilla
			}
			runs = append(runs, placementRun{Cluster: c, Kind: k, Side: s})
		}
	}
	return runs
}

// placementNodeTemplate is node-default.yaml's node (4 CPUs, 32Gi, 110
// pods) in rack rack-<Index / perRack>: scheduler_perf creates nodes with
// Index 0..Count-1, so consecutive nodes share a rack.
func placementNodeTemplate(perRack int) string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/placement.go); do not edit.
apiVersion: v1
kind: Node
metadata:
  generateName: scheduler-perf-
  labels:
    %s: rack-{{div .Index %d}}
spec: {}
status:
  capacity:
    pods: "110"
    cpu: "4"
    memory: 32Gi
  conditions:
  - status: "True"
    type: Ready
  phase: Running
`, placementRackLabel, perRack)
}

func placementNodeFile(perRack int) string {
	return fmt.Sprintf("placement-node-%dperrack.yaml", perRack)
}

func placementPodFile(size int) string {
	if size == 0 {
		return "placement-pod-ungrouped.yaml"
	}
	return fmt.Sprintf("placement-pod-%d.yaml", size)
}

// placementPodGroupFile is the PodGroup template of a gang kind.
func placementPodGroupFile(k placementKind, size int) string {
	if k == placementRack {
		return fmt.Sprintf("placement-podgroup-%d-rack.yaml", size)
	}
	return fmt.Sprintf("placement-podgroup-%d.yaml", size)
}

// placementFiles are the templates the suite's test cases read, by file
// name in the workload package: the PodGroup CRD (gangs.go's file), a node
// template per rack size, the pods with and without a group, and the
// PodGroups with and without the constraint.
func placementFiles(crd []byte, o placementOptions) (map[string][]byte, error) {
	if err := checkCRDTemplate(crd); err != nil {
		return nil, err
	}
	const source = "bench/placement.go"
	files := map[string][]byte{
		gangCRDTemplate:              crd,
		placementPodFile(0):          []byte(memberPodTemplate(source, 0, placementPodCPU)),
		placementPodFile(o.GangSize): []byte(memberPodTemplate(source, o.GangSize, placementPodCPU)),
		placementPodGroupFile(placementUnconstrained, o.GangSize): []byte(podGroupTemplate(source, o.GangSize, "")),
		placementPodGroupFile(placementRack, o.GangSize):          []byte(podGroupTemplate(source, o.GangSize, placementRackLabel)),
	}
	for _, c := range o.Clusters {
		files[placementNodeFile(c.perRack())] = []byte(placementNodeTemplate(c.perRack()))
	}
	return files, nil
}

// placementMetrics are gangMetrics and the placement metrics, which exist
// only on the patched scheduler with both gates on.
const placementMetrics = gangMetrics + `      scheduler_placement_evaluation_duration_seconds:
      - label: result
        values: [feasible, infeasible]
      scheduler_placement_evaluations_total:
      - label: result
        values: [feasible, infeasible, error]
      scheduler_generated_placements_total:
`

// placementConfig is the scheduler_perf configuration of the suite for a
// tree, appended to the other suites': a groupTestCase per cluster shape
// and kind, on racked nodes. The gang test cases exist in the patched tree
// only, the pods without a group in the vanilla tree only.
func placementConfig(tree string, o placementOptions) string {
	var b strings.Builder
	for _, c := range o.Clusters {
		for _, k := range placementKinds {
			size := k.gangSize(o)
			tc := groupTestCase{Name: k.testCase(c), NodeTemplate: placementNodeFile(c.perRack()), Namespace: placementNamespace,
				PodFile: placementPodFile(size), Metrics: placementMetrics, Nodes: c.Nodes, Pods: o.Pods}
			if size > 0 {
				tc.PodGroupFile, tc.Groups = placementPodGroupFile(k, size), o.Pods/size
			}
			for _, r := range placementRuns([]placementCluster{c}) {
				if r.Kind == k && r.Side.Tree == tree {
					tc.Sides = append(tc.Sides, r.Side)
				}
			}
			tc.writeTo(&b)
		}
	}
	return b.String()
}

// placementResult is one run of one workload of the suite.
type placementResult struct {
	gangResult
	Cluster placementCluster
	Kind    placementKind
	// Feasible and Infeasible are
	// scheduler_placement_evaluation_duration_seconds by result; Count is 0
	// where there is none.
	Feasible, Infeasible latency
	// Evaluations counts placement evaluations by result
	// (scheduler_placement_evaluations_total); nil where the scheduler has
	// no such metric.
	Evaluations map[string]float64
	// Generated is scheduler_generated_placements_total, -1 without the
	// metric.
	Generated float64
}

func placementResultFrom(items []dataItem) placementResult {
	r := placementResult{gangResult: gangResultFrom(items), Generated: -1}
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "scheduler_placement_evaluation_duration_seconds":
			switch it.Labels["result"] {
			case "feasible":
				r.Feasible = latencyOf(it)
			case "infeasible":
				r.Infeasible = latencyOf(it)
			}
		case "scheduler_placement_evaluations_total":
			if r.Evaluations == nil {
				r.Evaluations = map[string]float64{}
			}
			r.Evaluations[it.Labels["result"]] += it.Data["Value"]
		case "scheduler_generated_placements_total":
			r.Generated = it.Data["Value"]
		}
	}
	return r
}

// evaluations is the total of placement evaluations, -1 without the
// metric.
func (r placementResult) evaluations() float64 { return totalOrNA(r.Evaluations) }

// evaluationMean is the mean duration of all evaluations, feasible or not
// (ms); 0 without any.
func (r placementResult) evaluationMean() float64 {
	n := r.Feasible.Count + r.Infeasible.Count
	if n == 0 {
		return 0
	}
	return (r.Feasible.Avg*r.Feasible.Count + r.Infeasible.Avg*r.Infeasible.Count) / n
}

// runPlacement runs every workload of the suite reps times (the runs of a
// repetition in placementRuns' order) and writes the markdown summary.
func runPlacement(h *harness, reps int, o placementOptions) error {
	var results []placementResult
	for rep := 1; rep <= reps; rep++ {
		for _, run := range placementRuns(o.Clusters) {
			r, err := runPlacementOne(h, run, rep, o)
			if err != nil {
				return err
			}
			fmt.Printf("%-22s %-20s %-16s rep %d  %7.1f pods/s  group p50/p99 %s/%s ms  evaluations %s  feasible p50/p99 %s/%s ms  (%s, load %.1f)\n",
				run.Cluster.id(), run.Kind.label(o.GangSize), run.Side.Name, rep, r.Throughput, msOrNA(r.Group, r.Group.P50), msOrNA(r.Group, r.Group.P99),
				orNA(r.evaluations(), "%.0f"), msOrNA(r.Feasible, r.Feasible.P50), msOrNA(r.Feasible, r.Feasible.P99), r.Wall.Round(time.Second), r.Load)
			results = append(results, r)
		}
	}
	return printAndWrite(h, placementMarkdown(h, results, reps, o), o.Markdown)
}

// runPlacementOne runs one workload and checks that it measured what it is
// meant to: a throughput, one pod-group cycle per gang at least, and, with
// the constraint, placement evaluations.
func runPlacementOne(h *harness, run placementRun, rep int, o placementOptions) (placementResult, error) {
	tc := run.Kind.testCase(run.Cluster)
	g, items, err := runGroupWorkload(h, run.Side, tc, fmt.Sprintf("%s-%s-rep%d", tc, run.Side.Name, rep), o.Profile)
	if err != nil {
		return placementResult{}, fmt.Errorf("%s (%s) on %s: %w", tc, run.Kind.label(o.GangSize), run.Side.Name, err)
	}
	r := placementResultFrom(items)
	r.gangResult = g
	r.Size, r.Rep, r.Cluster, r.Kind = run.Kind.gangSize(o), rep, run.Cluster, run.Kind
	return r, r.check(tc, o)
}

// check refuses a run that did not measure its workload.
func (r placementResult) check(tc string, o placementOptions) error {
	if r.Throughput == 0 {
		return fmt.Errorf("%s on %s: no SchedulingThroughput (scheduler_perf samples it once a second: were all pods scheduled within a second? raise -placement-pods)", tc, r.Side)
	}
	if r.Kind == placementUngrouped {
		return nil
	}
	gangs := float64(o.Pods / o.GangSize)
	if r.groupAttempts() < gangs {
		return fmt.Errorf("%s on %s: %s pod-group cycles for %.0f gangs: the gangs were not scheduled as groups", tc, r.Side, orNA(r.groupAttempts(), "%.0f"), gangs)
	}
	if r.Kind == placementRack && r.evaluations() < gangs {
		return fmt.Errorf("%s on %s: %s placement evaluations for %.0f gangs: the rack constraint was not evaluated (is the placement algorithm in the patched tree?)", tc, r.Side, orNA(r.evaluations(), "%.0f"), gangs)
	}
	return nil
}

// placementMedian returns the run with the median throughput of a kind on
// a cluster shape.
func placementMedian(results []placementResult, c placementCluster, k placementKind) (placementResult, bool) {
	return medianRun(results, func(r placementResult) bool { return r.Cluster == c && r.Kind == k })
}

func placementMarkdown(h *harness, results []placementResult, reps int, o placementOptions) string {
	var b strings.Builder
	var runs []gangResult
	for _, r := range results {
		runs = append(runs, r.gangResult)
	}
	b.WriteString(groupSuiteHeader(h, "topology-aware placement (issue #8, KEP-5732)", "bench/placement.go", reps, runs))
	fmt.Fprintf(&b, "%d measured Pods (scheduler_perf's `pod-default.yaml` with %s CPU, 500Mi, as requests and limits) created at once on fake nodes (`node-default.yaml`: 4 CPUs, 32Gi, "+
		"so %d Pods a node) in racks: the node template labels node *i* `%s=rack-<i / nodes per rack>`. "+
		"Every workload first creates the PodGroup CRD (`%s`), the nodes and, for gangs, the PodGroups, and waits %s, unmeasured. "+
		"*Gangs of %d*: one PodGroup per gang (`gang.minCount: %d`; the pods carry `%s`). "+
		"*One rack*: the same PodGroups with `schedulingConstraints.topology: [{key: %s}]`. "+
		"Both run on the patched scheduler with `GangScheduling` and `TopologyAwareWorkloadScheduling` on. "+
		"*No group*: the same Pods without the label and no PodGroup, on vanilla (which knows no PodGroups), for reference.\n\n",
		o.Pods, placementPodCPU, podsPerPlacementNode, placementRackLabel, gangCRDFile, gangSettle, o.GangSize, o.GangSize, gangPodGroupLabel, placementRackLabel)
	b.WriteString("*vs unconstrained*: throughput against the gangs without the constraint on the same cluster. " +
		"*Group cycles*: `scheduler_podgroup_schedule_attempts_total` (scheduled/all). " +
		"*Group attempt*: `scheduler_podgroup_scheduling_attempt_duration_seconds`, one pod-group cycle up to the decision (with the constraint: generating the racks, " +
		"evaluating candidates, scoring, and the commit of the chosen one). " +
		"*Generated* and *evaluated* per gang: `scheduler_generated_placements_total` and `scheduler_placement_evaluations_total` (feasible + infeasible) " +
		"divided by the gangs; the scheduler stops evaluating once it has found its share of feasible racks (`percentageOfPlacementsToScore`, adaptive on the node count; " +
		"see docs/design-placement.md). *Evaluation*: `scheduler_placement_evaluation_duration_seconds`, one candidate rack tried by simulating the gang's pods on copies of its nodes (PreFilter, Filter), " +
		"by result; the mean is over all evaluations. *Pod e2e*: `scheduler_pod_scheduling_sli_duration_seconds`. " +
		"Percentiles are interpolated within the histogram buckets (powers of 2 from 1 ms for the group attempt, from 0.5 ms for an evaluation), so they are coarse; means are exact.\n\n")
	b.WriteString("| cluster | workload | side | pods/s | vs unconstrained | group cycles | group attempt p50 / p99 (ms) | group attempt mean (ms) | generated / gang | evaluated / gang | feasible evaluation p50 / p99 (ms) | infeasible evaluation p50 / p99 (ms) | evaluation mean (ms) | pod e2e p50 / p99 (ms) |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	gangs := float64(o.Pods / o.GangSize)
	for _, c := range o.Clusters {
		base, hasBase := placementMedian(results, c, placementUnconstrained)
		for _, k := range placementKinds {
			r, ok := placementMedian(results, c, k)
			if !ok {
				continue
			}
			vs := "n/a"
			if hasBase {
				vs = fmt.Sprintf("%.2f×", ratio(r.Throughput, base.Throughput))
			}
			cycles, groupMean, generated, evaluated := "n/a", "n/a", "n/a", "n/a"
			if r.GroupAttempts != nil {
				cycles = fmt.Sprintf("%.0f/%.0f", r.GroupAttempts["scheduled"], r.groupAttempts())
			}
			if r.Group.Count > 0 {
				groupMean = fmt.Sprintf("%.1f", r.Group.Avg)
			}
			if r.Generated >= 0 && k != placementUngrouped {
				generated = fmt.Sprintf("%.1f", r.Generated/gangs)
			}
			if r.Evaluations != nil && k != placementUngrouped {
				evaluated = fmt.Sprintf("%.1f + %.1f", r.Evaluations["feasible"]/gangs, r.Evaluations["infeasible"]/gangs)
			}
			evalMean := "n/a"
			if r.Feasible.Count+r.Infeasible.Count > 0 {
				evalMean = fmt.Sprintf("%.2f", r.evaluationMean())
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %.1f%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f / %.0f |\n",
				c, k.label(o.GangSize), r.Side, r.Throughput, throughputSpread(results, func(x placementResult) bool { return x.Cluster == c && x.Kind == k }), vs,
				cycles, p50p99(r.Group), groupMean, generated, evaluated, p50p99(r.Feasible), p50p99(r.Infeasible), evalMean, r.SLI.P50, r.SLI.P99)
		}
	}
	b.WriteString("\nRatios (throughput, medians):\n\n```\n")
	b.WriteString(placementRatios(results, o))
	b.WriteString("```\n")
	fmt.Fprintf(&b, "\nCommand: `%s`. Reproduce with the defaults: `make bench BENCH_ARGS='-suites placement'` (add `-reps 3` for medians, `-placement-cpuprofile` for a CPU profile of every run). "+
		"Raw data items, logs and profiles are in `_output/bench/runs/Placement*`.\n", o.Command)
	return b.String()
}

// p50p99 is "p50 / p99" of a histogram (ms), n/a without samples.
func p50p99(l latency) string {
	if l.Count == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f / %.1f", l.P50, l.P99)
}

// placementRatios compares, on each cluster shape, the gangs in one rack
// with the gangs without the constraint, and both with vanilla's pods
// without a group.
func placementRatios(results []placementResult, o placementOptions) string {
	var b strings.Builder
	for _, c := range o.Clusters {
		rack, okRack := placementMedian(results, c, placementRack)
		free, okFree := placementMedian(results, c, placementUnconstrained)
		van, okVan := placementMedian(results, c, placementUngrouped)
		if !okRack && !okFree {
			continue
		}
		fmt.Fprintf(&b, "%s:\n", c)
		if okRack && okFree {
			fmt.Fprintf(&b, "  one rack / unconstrained           %.2fx\n", ratio(rack.Throughput, free.Throughput))
		}
		if okFree && okVan {
			fmt.Fprintf(&b, "  unconstrained / vanilla (no group) %.2fx\n", ratio(free.Throughput, van.Throughput))
		}
		if okRack && okVan {
			fmt.Fprintf(&b, "  one rack / vanilla (no group)      %.2fx\n", ratio(rack.Throughput, van.Throughput))
		}
	}
	return b.String()
}
