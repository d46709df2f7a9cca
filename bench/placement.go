package main

import (
	"fmt"
	"os"
	"os/exec"
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
// same pods without a group on the same nodes, for reference. A loaded
// shape (nodes/racks/loaded) is filled first with one bound pod a node, to
// about 90% of its CPU, so that only every tenth rack has room for gangs.
// It measures throughput, the pod-group cycles
// (scheduler_podgroup_scheduling_attempt_duration_seconds), the
// evaluations of candidate racks
// (scheduler_placement_evaluation_duration_seconds) and, with a CPU
// profile, the CPU per pod-group cycle.

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
// equal size. A Loaded shape is filled before the measured pods: one fill
// pod, created bound, on every node, so that only the open racks (every
// tenth) have room for members (see placementFillTemplate).
type placementCluster struct {
	Nodes, Racks int
	Loaded       bool
}

func (c placementCluster) perRack() int { return c.Nodes / c.Racks }

// id names the shape in test case names: 500n50r, 5000n100rLoaded.
func (c placementCluster) id() string {
	id := fmt.Sprintf("%dn%dr", c.Nodes, c.Racks)
	if c.Loaded {
		id += "Loaded"
	}
	return id
}

// String describes the shape in the summary: 5000 nodes, 100 racks of 50,
// 90% full.
func (c placementCluster) String() string {
	s := fmt.Sprintf("%d nodes, %d racks of %d", c.Nodes, c.Racks, c.perRack())
	if c.Loaded {
		s += fmt.Sprintf(", %d%% full", int(100*c.fillShare()))
	}
	return s
}

// flag is the shape as -placement-clusters writes it: 500/50,
// 5000/100/loaded.
func (c placementCluster) flag() string {
	s := fmt.Sprintf("%d/%d", c.Nodes, c.Racks)
	if c.Loaded {
		s += "/" + placementLoadedSuffix
	}
	return s
}

// placementLoadedSuffix marks a loaded shape in -placement-clusters.
const placementLoadedSuffix = "loaded"

// The fill of a loaded shape: rack r is open when r %
// placementOpenRackEvery == placementOpenRackEvery-1 (rack-9, rack-19, ...):
// its nodes' fill pods request placementFillOpenMilliCPU, leaving
// podsPerOpenNode measured pods of placementPodCPU room on each; every other
// rack is full: its fill pods request placementFillFullMilliCPU, leaving
// less than one measured pod. Every fill pod requests placementFillMemory.
const (
	placementOpenRackEvery    = 10
	placementNodeMilliCPU     = 4000
	placementFillOpenMilliCPU = 2000
	placementFillFullMilliCPU = 3800
	placementFillMemory       = "500Mi"
	podsPerOpenNode           = 2
)

// placementFillNamespace holds a loaded shape's fill pods, apart from the
// measured ones.
const placementFillNamespace = "fill"

// openRacks is the number of open racks of a loaded shape: those whose
// index % 10 is 9.
func (c placementCluster) openRacks() int { return c.Racks / placementOpenRackEvery }

// fillShare is the share of the cluster's CPU the fill pods of a loaded
// shape request (0.905 with 100 racks: 10 open, 90 full), 0 for a shape
// that is not loaded.
func (c placementCluster) fillShare() float64 {
	if !c.Loaded {
		return 0
	}
	open := c.openRacks()
	used := open*placementFillOpenMilliCPU + (c.Racks-open)*placementFillFullMilliCPU
	return float64(used) / float64(c.Racks*placementNodeMilliCPU)
}

// placementOptions are the suite's flags.
type placementOptions struct {
	// Clusters are the cluster shapes, each run with every workload.
	Clusters []placementCluster
	// GangSize is the pods per PodGroup (its minCount); Pods the measured
	// pods of every workload on a shape that is not loaded, LoadedPods on a
	// loaded one, both multiples of it.
	GangSize, Pods, LoadedPods int
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
// and on 5000 nodes in 100 racks of 50 (200 pods a rack: six gangs), and
// gangs of 32 in 768 pods on the same 5000 nodes 90% full (only the 10
// open racks have room: 100 pods a rack, three gangs).
func defaultPlacementOptions() placementOptions {
	return placementOptions{
		Clusters: []placementCluster{{Nodes: 500, Racks: 50}, {Nodes: 5000, Racks: 100}, {Nodes: 5000, Racks: 100, Loaded: true}},
		GangSize: 32, Pods: 1024, LoadedPods: 768,
		Markdown: "docs/benchmarks-placement.md",
		Command:  "make bench BENCH_ARGS='-suites placement'",
	}
}

// parsePlacementClusters parses -placement-clusters: nodes/racks or
// nodes/racks/loaded, comma-separated.
func parsePlacementClusters(s string) ([]placementCluster, error) {
	var clusters []placementCluster
	for _, f := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(f), "/")
		ok := len(parts) == 2 || len(parts) == 3 && parts[2] == placementLoadedSuffix
		n, r := 0, 0
		if ok {
			var err1, err2 error
			n, err1 = strconv.Atoi(parts[0])
			r, err2 = strconv.Atoi(parts[1])
			ok = err1 == nil && err2 == nil && n >= 1 && r >= 1
		}
		if !ok {
			return nil, fmt.Errorf("invalid -placement-clusters entry %q: must be nodes/racks or nodes/racks/%s, such as 500/50 or 5000/100/%s", f, placementLoadedSuffix, placementLoadedSuffix)
		}
		clusters = append(clusters, placementCluster{Nodes: n, Racks: r, Loaded: len(parts) == 3})
	}
	return clusters, nil
}

// formatPlacementClusters is the -placement-clusters value of clusters.
func formatPlacementClusters(clusters []placementCluster) string {
	var s []string
	for _, c := range clusters {
		s = append(s, c.flag())
	}
	return strings.Join(s, ",")
}

// podsOn is the measured pods of every workload on a cluster shape.
func (o placementOptions) podsOn(c placementCluster) int {
	if c.Loaded {
		return o.LoadedPods
	}
	return o.Pods
}

// gangsOn is the gangs of a gang workload on a cluster shape.
func (o placementOptions) gangsOn(c placementCluster) int { return o.podsOn(c) / o.GangSize }

// validate checks that every gang is complete and that, in every cluster,
// each gang finds a rack with room for all its pods (so that every
// workload schedules all its pods and ends): on a loaded shape, an open
// rack.
func (o placementOptions) validate() error {
	if len(o.Clusters) == 0 {
		return fmt.Errorf("-placement-clusters is empty")
	}
	if o.GangSize < 1 {
		return fmt.Errorf("invalid -placement-gang-size %d: must be at least 1", o.GangSize)
	}
	var plain, loaded bool
	for _, c := range o.Clusters {
		plain, loaded = plain || !c.Loaded, loaded || c.Loaded
	}
	if plain && (o.Pods < 1 || o.Pods%o.GangSize != 0) {
		return fmt.Errorf("invalid -placement-pods %d: must be a positive multiple of the gang size %d, or the last gang would never reach its minCount", o.Pods, o.GangSize)
	}
	if loaded && (o.LoadedPods < 1 || o.LoadedPods%o.GangSize != 0) {
		return fmt.Errorf("invalid -placement-loaded-pods %d: must be a positive multiple of the gang size %d, or the last gang would never reach its minCount", o.LoadedPods, o.GangSize)
	}
	seen := map[placementCluster]bool{}
	for _, c := range o.Clusters {
		if seen[c] {
			return fmt.Errorf("-placement-clusters has %s twice", c.flag())
		}
		seen[c] = true
		if c.Nodes%c.Racks != 0 {
			return fmt.Errorf("invalid -placement-clusters entry %s: the nodes must split into racks of equal size", c.flag())
		}
		gangs := o.gangsOn(c)
		if c.Loaded {
			perRack := c.perRack() * podsPerOpenNode / o.GangSize
			if gangs > c.openRacks()*perRack {
				return fmt.Errorf("-placement-loaded-pods %d do not fit in %s: only its %d open rack(s) (rack index %% %d == %d) have room, %d pods a rack (%d nodes with %d free CPUs), %d gang(s) of %d, so they hold %d of the %d gangs",
					o.LoadedPods, c.flag(), c.openRacks(), placementOpenRackEvery, placementOpenRackEvery-1, c.perRack()*podsPerOpenNode, c.perRack(), podsPerOpenNode,
					perRack, o.GangSize, c.openRacks()*perRack, gangs)
			}
			continue
		}
		perRack := c.perRack() * podsPerPlacementNode / o.GangSize
		if gangs > c.Racks*perRack {
			return fmt.Errorf("-placement-pods %d do not fit in %s: a rack of %d nodes holds %d pods, %d gang(s) of %d, so the %d racks hold %d of the %d gangs",
				o.Pods, c.flag(), c.perRack(), c.perRack()*podsPerPlacementNode, perRack, o.GangSize, c.Racks, c.Racks*perRack, gangs)
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

// placementNodePrefix names the suite's nodes: node i is pl-node-<i>, so
// that a loaded shape's fill pods can be created bound to it.
const placementNodePrefix = "pl-node-"

// placementNodeTemplate is node-default.yaml's node (4 CPUs, 32Gi, 110
// pods) named pl-node-<Index>, in rack rack-<Index / perRack>:
// scheduler_perf creates nodes with Index 0..Count-1, so consecutive nodes
// share a rack, and keeps a template's name.
func placementNodeTemplate(perRack int) string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/placement.go); do not edit.
apiVersion: v1
kind: Node
metadata:
  name: %s{{.Index}}
  labels:
    %s: rack-{{div .Index %d}}
spec: {}
status:
  capacity:
    pods: "110"
    cpu: "%d"
    memory: 32Gi
  conditions:
  - status: "True"
    type: Ready
  phase: Running
`, placementNodePrefix, placementRackLabel, perRack, placementNodeMilliCPU/1000)
}

func placementNodeFile(perRack int) string {
	return fmt.Sprintf("placement-node-%dperrack.yaml", perRack)
}

// placementFillTemplate is the fill pod of a loaded shape with racks of
// perRack nodes: created with Index 0..nodes-1, pod Index is bound to node
// pl-node-<Index> (spec.nodeName: it never goes through the scheduler) and
// requests, as requests only, placementFillMemory and a CPU share that
// depends on the node's rack (Index / perRack): an open rack's nodes (rack
// % 10 == 9) keep 2 CPUs free, room for podsPerOpenNode measured pods; a
// full rack's keep 0.2 CPU, room for none.
func placementFillTemplate(perRack int) string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/placement.go); do not edit.
apiVersion: v1
kind: Pod
metadata:
  generateName: fill-
spec:
  nodeName: %s{{.Index}}
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    ports:
    - containerPort: 80
    resources:
      requests:
        cpu: {{ if eq (mod (div .Index %d) %d) %d }}%dm{{ else }}%dm{{ end }}
        memory: %s
`, placementNodePrefix, perRack, placementOpenRackEvery, placementOpenRackEvery-1, placementFillOpenMilliCPU, placementFillFullMilliCPU, placementFillMemory)
}

func placementFillFile(perRack int) string {
	return fmt.Sprintf("placement-fill-%dperrack.yaml", perRack)
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
// template per rack size, a fill pod template per rack size of the loaded
// shapes, the pods with and without a group, and the PodGroups with and
// without the constraint.
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
		if c.Loaded {
			files[placementFillFile(c.perRack())] = []byte(placementFillTemplate(c.perRack()))
		}
	}
	return files, nil
}

// placementMetrics are gangMetrics and the placement metrics, which exist
// only on the patched scheduler with both gates on.
const placementMetrics = gangMetrics + `      scheduler_placement_decision_duration_seconds:
      - label: result
        values: [feasible, infeasible]
      scheduler_placement_evaluation_duration_seconds:
      - label: result
        values: [feasible, infeasible]
      scheduler_placement_evaluations_total:
      - label: result
        values: [feasible, infeasible, error]
      scheduler_generated_placements_total:
`

// placementConfig is the scheduler_perf configuration of the suite for a
// tree, appended to the other suites': a groupTestCase per cluster shape
// and kind, on racked nodes, filled first on a loaded shape. The gang test
// cases exist in the patched tree only, the pods without a group in the
// vanilla tree only.
func placementConfig(tree string, o placementOptions) string {
	var b strings.Builder
	for _, c := range o.Clusters {
		for _, k := range placementKinds {
			size := k.gangSize(o)
			pods := o.podsOn(c)
			tc := groupTestCase{Name: k.testCase(c), NodeTemplate: placementNodeFile(c.perRack()), Namespace: placementNamespace,
				PodFile: placementPodFile(size), Metrics: placementMetrics, Nodes: c.Nodes, Pods: pods}
			if c.Loaded {
				tc.FillFile, tc.FillNamespace, tc.Fill = placementFillFile(c.perRack()), placementFillNamespace, c.Nodes
			}
			if size > 0 {
				tc.PodGroupFile, tc.Groups = placementPodGroupFile(k, size), pods/size
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
	// Decision is scheduler_placement_decision_duration_seconds of the
	// decisions that chose a placement (result feasible): generation,
	// room check, evaluations and scoring, without the commit. Count is 0
	// where there is none.
	Decision latency
	// Evaluations counts placement evaluations by result
	// (scheduler_placement_evaluations_total); nil where the scheduler has
	// no such metric.
	Evaluations map[string]float64
	// Generated is scheduler_generated_placements_total, -1 without the
	// metric.
	Generated float64
	// GroupCPU is the CPU (ms) spent per pod-group cycle, from the run's
	// CPU profile (groupCycleCPU); -1 when unknown: no profile, or no
	// pod-group cycle.
	GroupCPU float64
}

func placementResultFrom(items []dataItem) placementResult {
	r := placementResult{gangResult: gangResultFrom(items), Generated: -1, GroupCPU: -1}
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "scheduler_placement_evaluation_duration_seconds":
			switch it.Labels["result"] {
			case "feasible":
				r.Feasible = latencyOf(it)
			case "infeasible":
				r.Infeasible = latencyOf(it)
			}
		case "scheduler_placement_decision_duration_seconds":
			if it.Labels["result"] == "feasible" {
				r.Decision = latencyOf(it)
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

// placementSuite is the placement suite: placementRuns' workloads.
type placementSuite struct{ o placementOptions }

func (placementSuite) name() string { return "placement" }

func (s placementSuite) prepare(h *harness) (map[string][]byte, error) {
	return crdSuiteFiles(h.root, s.name(), s.o.validate, func(crd []byte) (map[string][]byte, error) { return placementFiles(crd, s.o) })
}

func (placementSuite) trees([]string) []string { return bothTrees() }

func (s placementSuite) config(tree string) string { return placementConfig(tree, s.o) }

func (s placementSuite) run(h *harness, reps int) error { return runPlacement(h, reps, s.o) }

// runPlacement runs every workload of the suite reps times (the runs of a
// repetition in placementRuns' order) and writes the markdown summary.
func runPlacement(h *harness, reps int, o placementOptions) error {
	runs := func(int) []placementRun { return placementRuns(o.Clusters) }
	results, err := repeat(reps, runs, func(run placementRun, rep int) (placementResult, error) {
		r, err := runPlacementOne(h, run, rep, o)
		if err != nil {
			return placementResult{}, err
		}
		fmt.Printf("%-22s %-20s %-16s rep %d  %7.1f pods/s  group p50/p99 %s/%s ms  CPU/group cycle %s ms  evaluations %s  feasible p50/p99 %s/%s ms  (%s, load %.1f)\n",
			run.Cluster.id(), run.Kind.label(o.GangSize), run.Side.Name, rep, r.Throughput, msOrNA(r.Group, r.Group.P50), msOrNA(r.Group, r.Group.P99),
			orNA(r.GroupCPU, "%.1f"), orNA(r.evaluations(), "%.0f"), msOrNA(r.Feasible, r.Feasible.P50), msOrNA(r.Feasible, r.Feasible.P99), r.Wall.Round(time.Second), r.Load)
		return r, nil
	})
	if err != nil {
		return err
	}
	return printAndWrite(h, placementMarkdown(h, results, reps, o), o.Markdown)
}

// runPlacementOne runs one workload and checks that it measured what it is
// meant to: a throughput, one pod-group cycle per gang at least, and, with
// the constraint, placement evaluations. With a CPU profile, it reads the
// CPU per pod-group cycle from it.
func runPlacementOne(h *harness, run placementRun, rep int, o placementOptions) (placementResult, error) {
	tc := run.Kind.testCase(run.Cluster)
	runName := fmt.Sprintf("%s-%s-rep%d", tc, run.Side.Name, rep)
	g, items, err := runGroupWorkload(h, run.Side, tc, runName, o.Profile)
	if err != nil {
		return placementResult{}, fmt.Errorf("%s (%s) on %s: %w", tc, run.Kind.label(o.GangSize), run.Side.Name, err)
	}
	r := placementResultFrom(items)
	r.gangResult = g
	r.Size, r.Rep, r.Cluster, r.Kind = run.Kind.gangSize(o), rep, run.Cluster, run.Kind
	if o.Profile && run.Kind != placementUngrouped {
		if cpu, err := groupCycleCPU(h.profile(runName), r.groupAttempts()); err != nil {
			fmt.Printf("%s: no CPU per pod-group cycle: %v\n", runName, err)
		} else {
			r.GroupCPU = cpu
		}
	}
	return r, r.check(tc, o)
}

// placementGroupCycleFocus is the go tool pprof -focus that keeps the
// samples taken in a pod-group cycle: those whose stack holds the patched
// scheduler's (*Scheduler).scheduleOnePodGroup
// (k8s.io/kubernetes/pkg/scheduler). Work the cycle hands to other
// goroutines (the members' binding cycles) is not under it.
const placementGroupCycleFocus = `scheduler\.\(\*Scheduler\)\.scheduleOnePodGroup`

// groupCycleCPU is the CPU (ms) a run spent per pod-group cycle: the CPU
// seconds go tool pprof finds under placementGroupCycleFocus in its CPU
// profile, divided by its cycles. Go CPU profiles carry their symbols, so
// the profile is read without the test binary. An error when there is no
// profile, no cycle, or no sample in a cycle.
func groupCycleCPU(profile string, cycles float64) (float64, error) {
	if cycles <= 0 {
		return -1, fmt.Errorf("no pod-group cycles")
	}
	if _, err := os.Stat(profile); err != nil {
		return -1, err
	}
	cmd := exec.Command("go", "tool", "pprof", "-top", "-nodefraction=0", "-focus="+placementGroupCycleFocus, profile)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return -1, fmt.Errorf("go tool pprof %s: %v: %s", profile, err, strings.TrimSpace(string(out)))
	}
	seconds, err := pprofShownSeconds(string(out))
	if err != nil {
		return -1, fmt.Errorf("go tool pprof %s: %w", profile, err)
	}
	if seconds == 0 {
		return -1, fmt.Errorf("go tool pprof %s: no CPU sample under %s", profile, placementGroupCycleFocus)
	}
	return seconds * 1000 / cycles, nil
}

// pprofShownSeconds reads the CPU seconds of go tool pprof -top's output
// (stdout and stderr): the value of its "Showing nodes accounting for
// 2.5s, 20.33% of 12.3s total" line, which with -nodefraction=0 (every
// node shown) and a -focus is the CPU of the samples the focus keeps. An
// error when the focus matched no sample or there is no such line.
func pprofShownSeconds(out string) (float64, error) {
	if strings.Contains(out, "matched no samples") {
		return 0, fmt.Errorf("the focus matched no samples")
	}
	const prefix = "Showing nodes accounting for "
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
		if !ok {
			continue
		}
		value, _, _ := strings.Cut(rest, ",")
		seconds, err := parsePprofSeconds(strings.TrimSpace(value))
		if err != nil {
			return 0, fmt.Errorf("%q: %w", strings.TrimSpace(line), err)
		}
		return seconds, nil
	}
	return 0, fmt.Errorf("no %q line in pprof's output", strings.TrimSpace(prefix))
}

// pprofSecondUnits are the units in which pprof writes a CPU time
// (measurement.go's time units, scaled to the largest that keeps the value
// at 1 or more).
var pprofSecondUnits = map[string]float64{
	"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1, "mins": 60, "hrs": 3600,
}

// parsePprofSeconds parses a CPU time as pprof writes it: 1.23s, 450ms,
// 2.05hrs, or a bare 0.
func parsePprofSeconds(s string) (float64, error) {
	if s == "0" {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("%q is not a CPU time", s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	unit, ok := pprofSecondUnits[s[i:]]
	if err != nil || !ok {
		return 0, fmt.Errorf("%q is not a CPU time", s)
	}
	return v * unit, nil
}

// check refuses a run that did not measure its workload.
func (r placementResult) check(tc string, o placementOptions) error {
	if r.Throughput == 0 {
		return fmt.Errorf("%s on %s: no SchedulingThroughput (scheduler_perf samples it once a second: were all pods scheduled within a second? raise %s)", tc, r.Side, placementPodsFlag(r.Cluster))
	}
	if r.Kind == placementUngrouped {
		return nil
	}
	gangs := float64(o.gangsOn(r.Cluster))
	if r.groupAttempts() < gangs {
		return fmt.Errorf("%s on %s: %s pod-group cycles for %.0f gangs: the gangs were not scheduled as groups", tc, r.Side, orNA(r.groupAttempts(), "%.0f"), gangs)
	}
	if r.Kind == placementRack && r.evaluations() < gangs {
		return fmt.Errorf("%s on %s: %s placement evaluations for %.0f gangs: the rack constraint was not evaluated (is the placement algorithm in the patched tree?)", tc, r.Side, orNA(r.evaluations(), "%.0f"), gangs)
	}
	return nil
}

// placementPodsFlag is the flag that sets the measured pods on a cluster
// shape.
func placementPodsFlag(c placementCluster) string {
	if c.Loaded {
		return "-placement-loaded-pods"
	}
	return "-placement-pods"
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
		"so %d Pods a node) in racks: the node template names node *i* `%s<i>` and labels it `%s=rack-<i / nodes per rack>`. "+
		"Every workload first creates the PodGroup CRD (`%s`), the nodes and, for gangs, the PodGroups, and waits %s, unmeasured. "+
		"*Gangs of %d*: one PodGroup per gang (`gang.minCount: %d`; the pods carry `%s`). "+
		"*One rack*: the same PodGroups with `schedulingConstraints.topology: [{key: %s}]`. "+
		"Both run on the patched scheduler with `GangScheduling` and `TopologyAwareWorkloadScheduling` on. "+
		"*No group*: the same Pods without the label and no PodGroup, on vanilla (which knows no PodGroups), for reference.\n\n",
		o.Pods, placementPodCPU, podsPerPlacementNode, placementNodePrefix, placementRackLabel, gangCRDFile, gangSettle, o.GangSize, o.GangSize, gangPodGroupLabel, placementRackLabel)
	for _, c := range o.Clusters {
		if c.Loaded {
			b.WriteString(placementLoadedNote(o))
			break
		}
	}
	b.WriteString("*vs unconstrained*: throughput against the gangs without the constraint on the same cluster. " +
		"*Group cycles*: `scheduler_podgroup_schedule_attempts_total` (scheduled/all). " +
		"*Group attempt*: `scheduler_podgroup_scheduling_attempt_duration_seconds`, one pod-group cycle up to the decision (with the constraint: generating the racks, " +
		"evaluating candidates, scoring, and the commit of the chosen one). " +
		"*Decision*: `scheduler_placement_decision_duration_seconds{result=\"feasible\"}`, the placement decision alone: generating the racks, the room check, " +
		"evaluating candidates and scoring, up to the choice, without the commit. " +
		"*CPU / group cycle*: with `-placement-cpuprofile`, the CPU of the samples of the run's CPU profile taken under the scheduler's `(*Scheduler).scheduleOnePodGroup` " +
		"(`go tool pprof -top -nodefraction=0 -focus='" + placementGroupCycleFocus + "'`; the members' binding, on other goroutines, is not under it) " +
		"divided by the group cycles; n/a without a profile. " +
		"*Generated* and *evaluated* per gang: `scheduler_generated_placements_total` and `scheduler_placement_evaluations_total` (feasible + infeasible) " +
		"divided by the gangs; the scheduler stops evaluating once it has found its share of feasible racks (`percentageOfPlacementsToScore`, adaptive on the node count; " +
		"see docs/design-placement.md). *Evaluation*: `scheduler_placement_evaluation_duration_seconds`, one candidate rack tried by simulating the gang's pods on copies of its nodes (PreFilter, Filter), " +
		"by result; the mean is over all evaluations. *Pod e2e*: `scheduler_pod_scheduling_sli_duration_seconds`. " +
		"Percentiles are interpolated within the histogram buckets (powers of 2 from 1 ms for the group attempt, from 0.5 ms for a decision or an evaluation), so they are coarse; means are exact.\n\n")
	b.WriteString("| cluster | workload | side | pods/s | vs unconstrained | group cycles | group attempt p50 / p99 (ms) | group attempt mean (ms) | decision p50 / p99 (ms) | CPU / group cycle (ms) | generated / gang | evaluated / gang | feasible evaluation p50 / p99 (ms) | infeasible evaluation p50 / p99 (ms) | evaluation mean (ms) | pod e2e p50 / p99 (ms) |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range o.Clusters {
		gangs := float64(o.gangsOn(c))
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
			fmt.Fprintf(&b, "| %s | %s | %s | %.1f%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f / %.0f |\n",
				c, k.label(o.GangSize), r.Side, r.Throughput, throughputSpread(results, func(x placementResult) bool { return x.Cluster == c && x.Kind == k }), vs,
				cycles, p50p99(r.Group), groupMean, p50p99(r.Decision), orNA(r.GroupCPU, "%.1f"), generated, evaluated, p50p99(r.Feasible), p50p99(r.Infeasible), evalMean, r.SLI.P50, r.SLI.P99)
		}
	}
	b.WriteString("\nRatios (throughput unless said otherwise, medians):\n\n```\n")
	b.WriteString(placementRatios(results, o))
	b.WriteString("```\n")
	fmt.Fprintf(&b, "\nCommand: `%s`. Reproduce with the defaults: `make bench BENCH_ARGS='-suites placement'` (add `-reps 3` for medians, `-placement-cpuprofile` for a CPU profile of every run "+
		"and the CPU per group cycle). Raw data items, logs and profiles are in `_output/bench/runs/Placement*`.\n", o.Command)
	return b.String()
}

// placementLoadedNote describes the loaded shapes in the summary.
func placementLoadedNote(o placementOptions) string {
	var shares []string
	for _, c := range o.Clusters {
		if c.Loaded {
			shares = append(shares, fmt.Sprintf("%.1f %% of the CPU on %s (%d open racks of %d)", 100*c.fillShare(), c.flag(), c.openRacks(), c.Racks))
		}
	}
	return fmt.Sprintf("*Loaded* shapes (`-placement-clusters nodes/racks/%s`, \"<n>%% full\" in the cluster column): %d measured Pods (`-placement-loaded-pods`) instead, on a cluster filled first, unmeasured, "+
		"after the nodes and before the PodGroups: one fill Pod a node in namespace `%s`, created bound to it (`spec.nodeName: %s<i>`, never scheduled), "+
		"requesting %s and, by the node's rack, %dm CPU in the *open* racks (rack %% %d == %d: %d CPUs free a node, room for %d measured Pods) "+
		"and %dm in every other, *full*, rack (0.2 CPU free: no measured Pod fits), so that every node carries load and only the open racks can take a gang. "+
		"The fill Pods request %s. The gangs, constrained or not, and the Pods without a group all have to find room in the open racks.\n\n",
		placementLoadedSuffix, o.LoadedPods, placementFillNamespace, placementNodePrefix, placementFillMemory,
		placementFillOpenMilliCPU, placementOpenRackEvery, placementOpenRackEvery-1, (placementNodeMilliCPU-placementFillOpenMilliCPU)/1000, podsPerOpenNode,
		placementFillFullMilliCPU, strings.Join(shares, ", "))
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
		if okRack && okFree && rack.GroupCPU > 0 && free.GroupCPU > 0 {
			fmt.Fprintf(&b, "  one rack / unconstrained, CPU per group cycle  %.2fx\n", ratio(rack.GroupCPU, free.GroupCPU))
		}
		if okRack {
			p99 := "n/a"
			if rack.Group.Count > 0 {
				p99 = fmt.Sprintf("%.0f", rack.Group.P99)
			}
			fmt.Fprintf(&b, "  one rack group attempt p99  %s ms\n", p99)
			if rack.Decision.Count > 0 {
				fmt.Fprintf(&b, "  one rack decision p99       %.1f ms\n", rack.Decision.P99)
			}
		}
	}
	return b.String()
}
