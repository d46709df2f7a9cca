package main

import (
	_ "embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The preemption suite (KEP-5732 "Integration with Workload Aware
// Preemption", gate WorkloadAwarePreemption): a cluster of fake 4-CPU
// nodes filled completely with bound 1-CPU Pods of priority 0, then gangs
// of 1-CPU members of priority 100 created at once, which fit only by
// preempting: each gang preempts as one unit. Against them, the same Pods
// without a group (default preemption, one Pod at a time) on the same
// patched binary, and on vanilla. And, unless -preemption-rack-nodes is 0,
// the same gangs kept in one rack (PodGroup topology key
// topology.kubernetes.io/rack), so that preemption searches the racks.
//
// The measured Pods are created in a burst, all at once, as in the other
// suites: the makespan and the throughput measure the preemption path under
// load (gangs deciding while the victims of the gangs before them are still
// leaving), and a gang's time from creation to bound includes its wait
// behind the others.
//
// scheduler_perf runs no kubelet: a bound Pod deleted with a grace period
// keeps its deletionTimestamp forever and its room never frees up. The
// fill Pods, like upstream's PreemptionBasic's pod-low-priority.yaml, have
// terminationGracePeriodSeconds: 0, so the scheduler's deletion of a
// victim (DeleteOptions without a grace period: the Pod's own applies)
// removes it from the API server at once (pkg/registry/core/pod's
// CheckGracefulDelete and the generic store's graceless path); no reaper
// is needed.
//
// What the suite measures comes from an observer plugin that only its
// scheduler configuration enables (testdata/perfpkg/preemption_observer_test.go):
// it logs, from the scheduler's Pod informer, when every measured Pod
// appeared, was nominated and bound, and when every fill Pod was marked
// as a victim and deleted. The driver derives per gang (per Pod without a
// group) the time from creation until all members are bound and the
// victims, and for the run the makespan, the throughput and the victims
// beyond the minimum.

// The node and pod shapes: nodes of 4 CPUs (node-default.yaml's 32Gi and
// 110 pods) holding preemptionSlotsPerNode 1-CPU fill Pods, members and
// Pods without a group of 1 CPU (500Mi).
const (
	preemptionNodeCPU      = 4
	preemptionSlotsPerNode = 4
	preemptionPodCPU       = "1000m"
	preemptionPodMemory    = "500Mi"
)

// The priorities: the fill is the lowest, every measured Pod above it.
const (
	preemptionFillPriority = 0
	preemptionPriority     = 100
)

// preemptionNamespace holds the measured Pods and their PodGroups,
// preemptionFillNamespace the fill.
const (
	preemptionNamespace     = "preemption"
	preemptionFillNamespace = "fill"
)

// preemptionNodePrefix names the suite's nodes: node i is pr-node-<i>.
const preemptionNodePrefix = "pr-node-"

// The observer: preemption_observer_test.go registers the plugin
// preemptionLogPlugin, which the suite's scheduler configuration enables;
// with $KSPATCH_BENCH_PREEMPTION_LOG set it writes preemptionLogFile in
// the run's directory. preemptionUnitsFile lists the gangs (Pods) of a run.
const (
	preemptionPluginFile          = "preemption_observer_test.go"
	preemptionLogPlugin           = "KspatchBenchPreemptionLog"
	preemptionLogEnv              = "KSPATCH_BENCH_PREEMPTION_LOG"
	preemptionLogFile             = "preemption.log"
	preemptionUnitsFile           = "units.tsv"
	preemptionSchedulerConfigFile = "preemption-scheduler-config.yaml"
	preemptionNodeFile            = "preemption-node.yaml"
	preemptionFillFile            = "preemption-fill.yaml"
)

//go:embed testdata/perfpkg/preemption_observer_test.go
var preemptionPluginSource []byte

// preemptionSides: vanilla runs the Pods without a group only; the patched
// scheduler runs everything with the gates of gangs, their preemption and
// their topology on (the defaults, set so that the run says so).
var preemptionSides = []side{
	{Name: "vanilla", Tree: "vanilla"},
	{Name: "patched-gate-on", Tree: "patched", Gates: map[string]bool{
		"GangScheduling": true, "WorkloadAwarePreemption": true, "TopologyAwareWorkloadScheduling": true,
	}},
}

var preemptionPatched = preemptionSides[1]

// preemptionOptions are the suite's flags.
type preemptionOptions struct {
	// Nodes are the fake nodes, all filled.
	Nodes int
	// GangSizes are the pods per PodGroup (its minCount), each its own
	// workloads; Pods the measured pods of every workload, a multiple of
	// every size.
	GangSizes []int
	Pods      int
	// RackNodes is the nodes per rack of the variant whose gangs must stay
	// in one rack; 0 runs no such variant.
	RackNodes int
	// Vanilla also runs the Pods without a group on the vanilla tree.
	Vanilla bool
	// Markdown is the summary to write, relative to the checkout; empty
	// for none.
	Markdown string
	// Profile records a CPU profile of every run.
	Profile bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

// defaultPreemptionOptions are the issue's: 500 nodes, gangs of 8 and 32
// in 512 pods (64 and 16 gangs), the rack variant with racks of 50 nodes,
// and vanilla's default preemption of the same Pods.
func defaultPreemptionOptions() preemptionOptions {
	return preemptionOptions{
		Nodes: 500, GangSizes: []int{8, 32}, Pods: 512, RackNodes: 50, Vanilla: true,
		Markdown: "docs/benchmarks-preemption.md",
		Command:  "make bench BENCH_ARGS='-suites preemption'",
	}
}

// slots is the cluster's 1-CPU slots, all taken by the fill.
func (o preemptionOptions) slots() int { return o.Nodes * preemptionSlotsPerNode }

// racks is the racks of the rack variant, 0 without it.
func (o preemptionOptions) racks() int {
	if o.RackNodes <= 0 {
		return 0
	}
	return o.Nodes / o.RackNodes
}

// validate checks the flags: the measured pods must fit in the cluster
// once every fill Pod is gone, every gang must be complete, and with the
// rack variant, every gang must fit in a rack and all of them in the
// racks one after the other (otherwise a workload would never end).
func (o preemptionOptions) validate() error {
	if o.Nodes < 1 {
		return fmt.Errorf("invalid -preemption-nodes %d: must be at least 1", o.Nodes)
	}
	if o.Pods < 1 || o.Pods > o.slots() {
		return fmt.Errorf("invalid -preemption-pods %d: must be between 1 and %d (%d nodes of %d 1-CPU slots)", o.Pods, o.slots(), o.Nodes, preemptionSlotsPerNode)
	}
	if len(o.GangSizes) == 0 {
		return fmt.Errorf("-preemption-gang-sizes is empty")
	}
	for _, k := range o.GangSizes {
		if o.Pods%k != 0 {
			return fmt.Errorf("-preemption-pods %d is not a multiple of gang size %d: the last gang would never reach its minCount", o.Pods, k)
		}
	}
	if o.RackNodes < 0 {
		return fmt.Errorf("invalid -preemption-rack-nodes %d: must be 0 (no rack variant) or positive", o.RackNodes)
	}
	if o.RackNodes > 0 {
		if o.Nodes%o.RackNodes != 0 {
			return fmt.Errorf("-preemption-nodes %d is not a multiple of -preemption-rack-nodes %d: the racks must be of equal size", o.Nodes, o.RackNodes)
		}
		rackSlots := o.RackNodes * preemptionSlotsPerNode
		for _, k := range o.GangSizes {
			if fit := o.racks() * (rackSlots / k); fit < o.Pods/k {
				return fmt.Errorf("gangs of %d in one rack: %d racks of %d slots hold %d of them, not %d; lower -preemption-pods or raise -preemption-rack-nodes (0: no rack variant)",
					k, o.racks(), rackSlots, fit, o.Pods/k)
			}
		}
	}
	return nil
}

// preemptionKind is what a workload's measured Pods are.
type preemptionKind int

const (
	// preemptionPlain: Pods without a group, default preemption.
	preemptionPlain preemptionKind = iota
	// preemptionGang: gangs without a topology constraint.
	preemptionGang
	// preemptionGangRack: gangs kept in one rack.
	preemptionGangRack
)

// testCase is the scheduler_perf test case of a kind and gang size.
func (k preemptionKind) testCase(size int) string {
	switch k {
	case preemptionGang:
		return fmt.Sprintf("GangPreemption%d", size)
	case preemptionGangRack:
		return fmt.Sprintf("GangPreemption%dRack", size)
	}
	return "GangPreemptionPlain"
}

// label describes a workload in the summary.
func (k preemptionKind) label(size int) string {
	switch k {
	case preemptionGang:
		return fmt.Sprintf("gangs of %d", size)
	case preemptionGangRack:
		return fmt.Sprintf("gangs of %d, one rack", size)
	}
	return "no group"
}

// unit is what a row's latencies and victims are per.
func (k preemptionKind) unit() string {
	if k == preemptionPlain {
		return "pod"
	}
	return "gang"
}

// preemptionRun is one workload run of a repetition.
type preemptionRun struct {
	Kind preemptionKind
	Size int // pods per gang; 1 for Pods without a group
	Side side
}

// units is how many gangs (Pods) the run creates.
func (r preemptionRun) units(o preemptionOptions) int { return o.Pods / r.Size }

// preemptionWorkloads lists the suite's workloads in their order: the Pods
// without a group (on vanilla, then patched), then every gang size
// without a constraint, then every gang size in one rack.
func preemptionWorkloads(o preemptionOptions) []preemptionRun {
	var runs []preemptionRun
	if o.Vanilla {
		runs = append(runs, preemptionRun{Kind: preemptionPlain, Size: 1, Side: preemptionSides[0]})
	}
	runs = append(runs, preemptionRun{Kind: preemptionPlain, Size: 1, Side: preemptionPatched})
	for _, k := range o.GangSizes {
		runs = append(runs, preemptionRun{Kind: preemptionGang, Size: k, Side: preemptionPatched})
	}
	if o.RackNodes > 0 {
		for _, k := range o.GangSizes {
			runs = append(runs, preemptionRun{Kind: preemptionGangRack, Size: k, Side: preemptionPatched})
		}
	}
	return runs
}

// preemptionRuns lists the runs of repetition rep: the workloads in their
// order, reversed in even repetitions.
func preemptionRuns(o preemptionOptions, rep int) []preemptionRun {
	runs := preemptionWorkloads(o)
	if rep%2 == 0 {
		for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
			runs[i], runs[j] = runs[j], runs[i]
		}
	}
	return runs
}

// preemptionNodeTemplate is node-default.yaml's node named pr-node-<Index>,
// labelled with its rack when there are racks.
func preemptionNodeTemplate(rackNodes int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by kspatch's bench driver (bench/preemption.go); do not edit.\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s{{.Index}}\n", preemptionNodePrefix)
	if rackNodes > 0 {
		fmt.Fprintf(&b, "  labels:\n    %s: rack-{{div .Index %d}}\n", levelsRackLabel, rackNodes)
	}
	fmt.Fprintf(&b, `spec: {}
status:
  capacity:
    pods: "110"
    cpu: "%d"
    memory: 32Gi
  conditions:
  - status: "True"
    type: Ready
  phase: Running
`, preemptionNodeCPU)
	return b.String()
}

// preemptionFillTemplate is fill Pod Index: bound to node Index /
// preemptionSlotsPerNode (spec.nodeName: never scheduled), 1 CPU, priority
// 0, and a grace period of 0 so that a victim's deletion removes it at
// once (no kubelet finishes a graceful deletion in scheduler_perf).
func preemptionFillTemplate() string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/preemption.go); do not edit.
apiVersion: v1
kind: Pod
metadata:
  generateName: fill-
spec:
  nodeName: %s{{div .Index %d}}
  priority: %d
  terminationGracePeriodSeconds: 0
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    resources:
      limits:
        cpu: %[4]s
        memory: %[5]s
      requests:
        cpu: %[4]s
        memory: %[5]s
`, preemptionNodePrefix, preemptionSlotsPerNode, preemptionFillPriority, preemptionPodCPU, preemptionPodMemory)
}

// preemptionPodTemplate is a measured Pod of priority 100 with 1 CPU;
// with size > 0, Pods Index 0..size-1 are members of PodGroup gang-0, the
// next size of gang-1, and so on.
func preemptionPodTemplate(size int) string {
	var b strings.Builder
	b.WriteString("# Generated by kspatch's bench driver (bench/preemption.go); do not edit.\napiVersion: v1\nkind: Pod\nmetadata:\n  generateName: pod-\n")
	if size > 0 {
		fmt.Fprintf(&b, "  labels:\n    %s: gang-{{div .Index %d}}\n", gangPodGroupLabel, size)
	}
	fmt.Fprintf(&b, `spec:
  priority: %d
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    resources:
      limits:
        cpu: %[2]s
        memory: %[3]s
      requests:
        cpu: %[2]s
        memory: %[3]s
`, preemptionPriority, preemptionPodCPU, preemptionPodMemory)
	return b.String()
}

// preemptionSchedulerConfig enables the observer in the default profile
// (at PostBind, where it does nothing); every other plugin and setting
// keeps its default.
func preemptionSchedulerConfig() string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/preemption.go); do not edit.
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    postBind:
      enabled:
      - name: %s
`, preemptionLogPlugin)
}

func preemptionPodFile(k preemptionKind, size int) string {
	if k == preemptionPlain {
		return "preemption-pod-plain.yaml"
	}
	return fmt.Sprintf("preemption-pod-%d.yaml", size)
}

func preemptionPodGroupFile(k preemptionKind, size int) string {
	if k == preemptionGangRack {
		return fmt.Sprintf("preemption-podgroup-%d-rack.yaml", size)
	}
	return fmt.Sprintf("preemption-podgroup-%d.yaml", size)
}

// preemptionFiles are the templates and files the suite's test cases read,
// by name in the workload package.
func preemptionFiles(crd []byte, o preemptionOptions) (map[string][]byte, error) {
	if err := checkCRDTemplate(crd); err != nil {
		return nil, err
	}
	files := map[string][]byte{
		gangCRDTemplate:                       crd,
		preemptionNodeFile:                    []byte(preemptionNodeTemplate(o.RackNodes)),
		preemptionFillFile:                    []byte(preemptionFillTemplate()),
		preemptionSchedulerConfigFile:         []byte(preemptionSchedulerConfig()),
		preemptionPluginFile:                  preemptionPluginSource,
		preemptionPodFile(preemptionPlain, 1): []byte(preemptionPodTemplate(0)),
	}
	for _, k := range o.GangSizes {
		files[preemptionPodFile(preemptionGang, k)] = []byte(preemptionPodTemplate(k))
		files[preemptionPodGroupFile(preemptionGang, k)] = []byte(podGroupTemplate("bench/preemption.go", k, ""))
		if o.RackNodes > 0 {
			files[preemptionPodGroupFile(preemptionGangRack, k)] = []byte(podGroupTemplate("bench/preemption.go", k, levelsRackLabel))
		}
	}
	return files, nil
}

// preemptionTrees are the trees the suite runs on.
func preemptionTrees(o preemptionOptions) []string {
	if o.Vanilla {
		return []string{"vanilla", "patched"}
	}
	return []string{"patched"}
}

// preemptionMetrics are collected while the measured Pods are scheduled.
// The pod-group ones exist only on the patched scheduler.
const preemptionMetrics = `  metricsCollectorConfig:
    metrics:
      scheduler_podgroup_schedule_attempts_total:
      - label: result
        values: [scheduled, unschedulable, error]
      scheduler_podgroup_preemption_attempts_total:
      - label: result
        values: [preempting, not_helpful, waiting, not_allowed, error]
      scheduler_podgroup_preemption_victims:
      scheduler_preemption_attempts_total:
      scheduler_preemption_victims:
      scheduler_schedule_attempts_total:
      - label: result
        values: [scheduled, unschedulable, error]
      scheduler_pod_scheduling_sli_duration_seconds:
`

// preemptionConfig is the scheduler_perf configuration of the suite for a
// tree, appended to the other suites': one test case per workload kind and
// gang size, each with the workloads of the tree's sides.
func preemptionConfig(tree string, o preemptionOptions) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, w := range preemptionWorkloads(o) {
		name := w.Kind.testCase(w.Size)
		if seen[name] {
			continue
		}
		seen[name] = true
		tc := groupTestCase{Name: name, NodeTemplate: preemptionNodeFile, SchedulerConfig: preemptionSchedulerConfigFile,
			FillFile: preemptionFillFile, FillNamespace: preemptionFillNamespace, Fill: o.slots(),
			Namespace: preemptionNamespace, PodFile: preemptionPodFile(w.Kind, w.Size), Metrics: preemptionMetrics,
			Nodes: o.Nodes, Pods: o.Pods}
		if w.Kind != preemptionPlain {
			tc.PodGroupFile, tc.Groups = preemptionPodGroupFile(w.Kind, w.Size), o.Pods/w.Size
		}
		for _, x := range preemptionWorkloads(o) {
			if x.Kind == w.Kind && x.Size == w.Size && x.Side.Tree == tree {
				tc.Sides = append(tc.Sides, x.Side)
			}
		}
		tc.writeTo(&b)
	}
	return b.String()
}

// preemptionEvent is one line of the observer's log.
type preemptionEvent struct {
	// At is the wall clock in Unix nanoseconds.
	At int64
	// Kind is add, nominate, bind, victim or delete.
	Kind string
	// Pod is namespace/name.
	Pod string
	// Arg is the pod group of an add ("-" without one), the node of the
	// others ("-" without one).
	Arg string
	// Message is a victim's DisruptionTarget message.
	Message string
}

// parsePreemptionLog reads the observer's log; lines it cannot read are
// returned as problems.
func parsePreemptionLog(text string) ([]preemptionEvent, []string) {
	var events []preemptionEvent
	var problems []string
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		bad := func() {
			problems = append(problems, fmt.Sprintf("line %d %q: want <ns> add|nominate|bind|victim|delete <namespace>/<pod> <group or node> [<message>]", i+1, line))
		}
		if len(f) < 4 || !strings.Contains(f[2], "/") {
			bad()
			continue
		}
		at, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			bad()
			continue
		}
		e := preemptionEvent{At: at, Kind: f[1], Pod: f[2], Arg: f[3]}
		switch e.Kind {
		case "add", "nominate", "bind", "delete":
			if len(f) != 4 {
				bad()
				continue
			}
		case "victim":
			if len(f) < 5 {
				bad()
				continue
			}
			e.Message = strings.Join(f[4:], " ")
		default:
			bad()
			continue
		}
		events = append(events, e)
	}
	return events, problems
}

// preemptingGroup is the pod group a victim's DisruptionTarget message
// names ("<scheduler>: preempting to accommodate pod group <ns>/<name>",
// the patched scheduler's gang preemption); empty for default preemption
// ("... a higher priority pod"), which names no preemptor.
func preemptingGroup(message string) string {
	_, group, ok := strings.Cut(message, "accommodate pod group ")
	if !ok {
		return ""
	}
	if f := strings.Fields(group); len(f) > 0 {
		return f[0]
	}
	return ""
}

// namespaceOf is the namespace of "namespace/name".
func namespaceOf(pod string) string {
	ns, _, _ := strings.Cut(pod, "/")
	return ns
}

// preemptionUnitStat is one gang (or Pod without a group) of a run.
type preemptionUnitStat struct {
	// Key is the gang's namespace/PodGroup, or the Pod's namespace/name.
	Key string
	// Pods are the members seen, Bound those bound.
	Pods, Bound int
	// Created is its first member's appearance, Nominated its first
	// nomination (0: none), Done its last member's binding (0: not all
	// bound); Unix nanoseconds.
	Created, Nominated, Done int64
	// Victims are the fill Pods whose DisruptionTarget names the gang
	// (gangs only).
	Victims int
}

// complete reports whether all size members were bound.
func (u preemptionUnitStat) complete(size int) bool {
	return u.Pods == size && u.Bound == size && u.Done > 0
}

// preemptionStats sums up a run's log.
type preemptionStats struct {
	// Units are the gangs (Pods) seen, Expected those created, Complete
	// those with every member bound.
	Units, Expected, Complete int
	// Pods and Bound are the measured Pods seen and bound.
	Pods, Bound int
	// Makespan is the seconds from the first measured Pod's appearance to
	// the last one's binding.
	Makespan float64
	// Latency is, over the complete units, creation until every member is
	// bound; ToNomination, over the units nominated, creation until the
	// first member's nomination (ms).
	Latency, ToNomination spread
	// Victims are the fill Pods marked as victims (DisruptionTarget),
	// Deleted those deleted; DeletedLate those deleted after the last
	// binding. Attributed is the victims whose message names a pod group;
	// VictimsPerGang their spread over the gangs.
	Victims, Deleted, DeletedLate, Attributed int
	VictimsPerGang                            spread
	// List is the units in creation order.
	List     []preemptionUnitStat
	Problems []string
}

// throughput is the bound measured Pods per second of makespan, -1 without.
func (s preemptionStats) throughput() float64 {
	if s.Makespan <= 0 || s.Bound == 0 {
		return -1
	}
	return float64(s.Bound) / s.Makespan
}

// excess is the fill Pods deleted beyond the one slot each bound measured
// Pod needs: every node is full of 1-CPU fill Pods, so a 1-CPU Pod frees
// exactly one.
func (s preemptionStats) excess() int { return s.Deleted - s.Bound }

// spread is a distribution's nearest-rank percentiles and maximum.
type spread struct {
	N                       int
	P50, P99, Max, Min, Avg float64
}

// spreadOf is the spread of values (unsorted); N is 0 without any.
func spreadOf(values []float64) spread {
	if len(values) == 0 {
		return spread{}
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(v)))) - 1
		return v[max(0, min(i, len(v)-1))]
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return spread{N: len(v), P50: rank(50), P99: rank(99), Max: v[len(v)-1], Min: v[0], Avg: sum / float64(len(v))}
}

// summarizePreemption sums up a run's events: size is the pods per gang
// (1 for Pods without a group, each its own unit), expected the units
// created.
func summarizePreemption(events []preemptionEvent, size, expected int) preemptionStats {
	s := preemptionStats{Expected: expected}
	units := map[string]*preemptionUnitStat{}
	unitOf := map[string]*preemptionUnitStat{}
	var order []*preemptionUnitStat
	var first, last int64
	victims := map[string]bool{}
	byGroup := map[string]int{}
	var deletes []int64
	for _, e := range events {
		switch namespaceOf(e.Pod) {
		case preemptionNamespace:
			switch e.Kind {
			case "add":
				if unitOf[e.Pod] != nil {
					continue
				}
				key := e.Pod
				if size > 1 {
					if e.Arg == "-" {
						s.Problems = append(s.Problems, fmt.Sprintf("pod %s of a gang workload has no pod group", e.Pod))
						continue
					}
					key = preemptionNamespace + "/" + e.Arg
				}
				u := units[key]
				if u == nil {
					u = &preemptionUnitStat{Key: key, Created: e.At}
					units[key] = u
					order = append(order, u)
				}
				u.Pods++
				u.Created = min(u.Created, e.At)
				unitOf[e.Pod] = u
				s.Pods++
				if first == 0 || e.At < first {
					first = e.At
				}
			case "nominate":
				if u := unitOf[e.Pod]; u != nil && (u.Nominated == 0 || e.At < u.Nominated) {
					u.Nominated = e.At
				}
			case "bind":
				u := unitOf[e.Pod]
				if u == nil {
					s.Problems = append(s.Problems, fmt.Sprintf("pod %s bound but never seen without a node", e.Pod))
					continue
				}
				u.Bound++
				u.Done = max(u.Done, e.At)
				s.Bound++
				last = max(last, e.At)
			}
		case preemptionFillNamespace:
			switch e.Kind {
			case "victim":
				if victims[e.Pod] {
					continue
				}
				victims[e.Pod] = true
				s.Victims++
				if g := preemptingGroup(e.Message); g != "" {
					byGroup[g]++
					s.Attributed++
				}
			case "delete":
				s.Deleted++
				deletes = append(deletes, e.At)
			}
		}
	}
	for _, at := range deletes {
		if last > 0 && at > last {
			s.DeletedLate++
		}
	}
	if first > 0 && last > first {
		s.Makespan = float64(last-first) / 1e9
	}
	var latency, toNom, perGang []float64
	for _, u := range order {
		if size > 1 {
			u.Victims = byGroup[u.Key]
			perGang = append(perGang, float64(u.Victims))
		}
		if u.complete(size) {
			s.Complete++
			latency = append(latency, float64(u.Done-u.Created)/1e6)
		} else {
			s.Problems = append(s.Problems, fmt.Sprintf("%s: %d of %d pods seen, %d bound", u.Key, u.Pods, size, u.Bound))
		}
		if u.Nominated > 0 {
			toNom = append(toNom, float64(u.Nominated-u.Created)/1e6)
		}
		s.List = append(s.List, *u)
	}
	s.Units = len(order)
	s.Latency, s.ToNomination, s.VictimsPerGang = spreadOf(latency), spreadOf(toNom), spreadOf(perGang)
	if s.Units != expected {
		s.Problems = append(s.Problems, fmt.Sprintf("%d %ss in the log, %d created", s.Units, unitWord(size), expected))
	}
	return s
}

func unitWord(size int) string {
	if size > 1 {
		return "gang"
	}
	return "pod"
}

// unitsTSV lists a run's units in creation order, times in ms from the
// first one's creation.
func unitsTSV(s preemptionStats) string {
	var b strings.Builder
	b.WriteString("unit\tpods\tbound\tcreated (ms)\tfirst nominated (ms)\tall bound (ms)\tcreation to bound (ms)\tvictims named\n")
	var t0 int64
	for _, u := range s.List {
		if t0 == 0 || u.Created < t0 {
			t0 = u.Created
		}
	}
	ms := func(at int64) string {
		if at == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", float64(at-t0)/1e6)
	}
	for _, u := range s.List {
		total := "-"
		if u.Done > 0 {
			total = fmt.Sprintf("%.1f", float64(u.Done-u.Created)/1e6)
		}
		fmt.Fprintf(&b, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%d\n", u.Key, u.Pods, u.Bound, ms(u.Created), ms(u.Nominated), ms(u.Done), total, u.Victims)
	}
	return b.String()
}

// countHist is a histogram of counts in a data item: its samples and
// their sum (scheduler_perf multiplies every value but the count by 1000,
// as if the histogram were of seconds: Sum is undone here). Count is -1
// without the metric.
type countHist struct{ Count, Sum float64 }

func (h countHist) mean() float64 {
	if h.Count <= 0 {
		return -1
	}
	return h.Sum / h.Count
}

// preemptionResult is one run of one workload of the suite.
type preemptionResult struct {
	gangResult
	Kind  preemptionKind
	Units int
	Stats preemptionStats
	// GroupPreemptions is scheduler_podgroup_preemption_attempts_total by
	// result, PodAttempts scheduler_schedule_attempts_total by result (nil
	// without the metric); PodPreemptions scheduler_preemption_attempts_total
	// (-1 without). GroupVictims and PodVictims are
	// scheduler_podgroup_preemption_victims and scheduler_preemption_victims.
	GroupPreemptions, PodAttempts map[string]float64
	PodPreemptions                float64
	GroupVictims, PodVictims      countHist
}

func preemptionResultFrom(items []dataItem) preemptionResult {
	r := preemptionResult{gangResult: gangResultFrom(items), PodPreemptions: -1, GroupVictims: countHist{Count: -1}, PodVictims: countHist{Count: -1}}
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "scheduler_podgroup_preemption_attempts_total":
			if r.GroupPreemptions == nil {
				r.GroupPreemptions = map[string]float64{}
			}
			r.GroupPreemptions[it.Labels["result"]] += it.Data["Value"]
		case "scheduler_schedule_attempts_total":
			if r.PodAttempts == nil {
				r.PodAttempts = map[string]float64{}
			}
			r.PodAttempts[it.Labels["result"]] += it.Data["Value"]
		case "scheduler_preemption_attempts_total":
			r.PodPreemptions = max(r.PodPreemptions, 0) + it.Data["Value"]
		case "scheduler_podgroup_preemption_victims":
			r.GroupVictims = countHist{Count: it.Data["Count"], Sum: it.Data["Sum"] / 1000}
		case "scheduler_preemption_victims":
			r.PodVictims = countHist{Count: it.Data["Count"], Sum: it.Data["Sum"] / 1000}
		}
	}
	return r
}

// check refuses a run that did not measure what it should: every unit
// complete, every measured Pod bound, victims deleted, and gangs that
// preempted as groups.
func (r preemptionResult) check(tc string, pods int) error {
	s := r.Stats
	if s.Bound != pods || s.Complete != r.Units {
		return fmt.Errorf("%s: %d of %d pods bound and %d of %d %ss complete in the observer's log (%s)", tc, s.Bound, pods, s.Complete, r.Units, r.Kind.unit(), strings.Join(firstN(s.Problems, 3), "; "))
	}
	if s.Deleted < pods {
		return fmt.Errorf("%s: %d fill pods deleted for %d pods: on a full cluster every pod needs a victim; did the fill take every slot?", tc, s.Deleted, pods)
	}
	if r.Kind != preemptionPlain && r.GroupPreemptions["preempting"] == 0 {
		return fmt.Errorf("%s: no pod-group preemption (scheduler_podgroup_preemption_attempts_total{result=\"preempting\"} is %s): is WorkloadAwarePreemption in the patched tree's HEAD?",
			tc, orNA(totalOrNA(r.GroupPreemptions), "%.0f"))
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string(nil), s[:n]...), fmt.Sprintf("%d more", len(s)-n))
	}
	return s
}

// preemptionSuite is the preemption suite: preemptionRuns' workloads.
type preemptionSuite struct{ o preemptionOptions }

func (preemptionSuite) name() string { return "preemption" }

func (s preemptionSuite) prepare(h *harness) (map[string][]byte, error) {
	return crdSuiteFiles(h.root, s.name(), s.o.validate, func(crd []byte) (map[string][]byte, error) { return preemptionFiles(crd, s.o) })
}

func (s preemptionSuite) trees(have []string) []string {
	return addTrees(have, preemptionTrees(s.o)...)
}

func (s preemptionSuite) config(tree string) string { return preemptionConfig(tree, s.o) }

func (s preemptionSuite) run(h *harness, reps int) error { return runPreemption(h, reps, s.o) }

// runPreemption runs every workload of the suite reps times and writes the
// markdown summary.
func runPreemption(h *harness, reps int, o preemptionOptions) error {
	fmt.Printf("==> preemption suite: %d nodes of %d CPUs filled with %d bound 1-CPU pods of priority %d; %d measured pods of priority %d per workload\n",
		o.Nodes, preemptionNodeCPU, o.slots(), preemptionFillPriority, o.Pods, preemptionPriority)
	runs := func(rep int) []preemptionRun { return preemptionRuns(o, rep) }
	results, err := repeat(reps, runs, func(run preemptionRun, rep int) (preemptionResult, error) {
		r, err := runPreemptionOne(h, run, rep, o)
		if err != nil {
			return preemptionResult{}, err
		}
		s := r.Stats
		fmt.Printf("%-22s %-16s rep %d  %4d %ss  %s pods/s  makespan %.2f s  creation→bound p50/p99 %s/%s ms  victims/%s %s (excess %d)  (%s, load %.1f)\n",
			run.Kind.label(run.Size), run.Side.Name, rep, r.Units, run.Kind.unit(), orNA(s.throughput(), "%.1f"), s.Makespan,
			spreadMs(s.Latency, s.Latency.P50), spreadMs(s.Latency, s.Latency.P99), run.Kind.unit(), orNA(float64(s.Deleted)/float64(r.Units), "%.2f"), s.excess(),
			r.Wall.Round(time.Second), r.Load)
		return r, nil
	})
	if err != nil {
		return err
	}
	return printAndWrite(h, preemptionMarkdown(h, results, reps, o), o.Markdown)
}

// runPreemptionOne runs one workload with the observer on, reads its
// metrics and its log; units.tsv in the run's directory lists its gangs
// (Pods).
func runPreemptionOne(h *harness, run preemptionRun, rep int, o preemptionOptions) (preemptionResult, error) {
	tc := run.Kind.testCase(run.Size)
	runName := fmt.Sprintf("%s-%s-rep%d", tc, run.Side.Name, rep)
	logPath := filepath.Join(h.runDir(runName), preemptionLogFile)
	start := time.Now()
	items, err := h.run(run.Side.Tree, tc, apiWorkloadName(run.Side), runName, []string{preemptionLogEnv + "=" + logPath}, o.Profile)
	if err != nil {
		return preemptionResult{}, fmt.Errorf("%s (%s) on %s: %w", tc, run.Kind.label(run.Size), run.Side.Name, err)
	}
	r := preemptionResultFrom(items)
	r.Side, r.Wall, r.Load = run.Side.Name, time.Since(start), loadAverage()
	r.Size, r.Rep, r.Kind, r.Units = run.Size, rep, run.Kind, run.units(o)
	raw, err := os.ReadFile(logPath)
	if err != nil {
		return preemptionResult{}, fmt.Errorf("%s on %s: no observer log: %w", tc, run.Side.Name, err)
	}
	events, problems := parsePreemptionLog(string(raw))
	r.Stats = summarizePreemption(events, run.Size, r.Units)
	r.Stats.Problems = append(problems, r.Stats.Problems...)
	r.Throughput = r.Stats.throughput()
	if err := os.WriteFile(filepath.Join(h.runDir(runName), preemptionUnitsFile), []byte(unitsTSV(r.Stats)), 0o644); err != nil {
		return preemptionResult{}, err
	}
	return r, r.check(tc, o.Pods)
}

// spreadMs formats one value of a spread of milliseconds, n/a without any.
func spreadMs(s spread, v float64) string {
	if s.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", v)
}

// preemptionMedian returns the run with the median throughput of a
// workload on a side.
func preemptionMedian(results []preemptionResult, k preemptionKind, size int, sideName string) (preemptionResult, bool) {
	return medianRun(results, func(r preemptionResult) bool { return r.Kind == k && r.Size == size && r.Side == sideName })
}

// preemptionRows calls row for every workload and side that ran, in the
// suite's order, with its median run.
func preemptionRows(results []preemptionResult, o preemptionOptions, row func(w preemptionRun, r preemptionResult)) {
	for _, w := range preemptionWorkloads(o) {
		if r, ok := preemptionMedian(results, w.Kind, w.Size, w.Side.Name); ok {
			row(w, r)
		}
	}
}

// victimsPerUnit is "8.00" for Pods without a group, "8.00 (8–9)" for
// gangs: the fill Pods deleted per unit, and the spread of the victims
// each gang's DisruptionTarget messages name.
func victimsPerUnit(r preemptionResult) string {
	s := r.Stats
	if r.Units == 0 {
		return "n/a"
	}
	v := fmt.Sprintf("%.2f", float64(s.Deleted)/float64(r.Units))
	if r.Kind != preemptionPlain && s.VictimsPerGang.N > 0 {
		v += fmt.Sprintf(" (%.0f–%.0f)", s.VictimsPerGang.Min, s.VictimsPerGang.Max)
	}
	return v
}

// attemptsByResult formats a counter by result: "preempting 64, waiting 2"
// (zeros left out; "0" when all are; n/a without the metric).
func attemptsByResult(m map[string]float64, order []string) string {
	if m == nil {
		return "n/a"
	}
	var parts []string
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
}

var (
	groupPreemptionResults = []string{"preempting", "waiting", "not_helpful", "not_allowed", "error"}
	attemptResults         = []string{"scheduled", "unschedulable", "error"}
)

func preemptionMarkdown(h *harness, results []preemptionResult, reps int, o preemptionOptions) string {
	var b strings.Builder
	var runs []gangResult
	for _, r := range results {
		runs = append(runs, r.gangResult)
	}
	b.WriteString(groupSuiteHeader(h, "gang preemption (WorkloadAwarePreemption)", "bench/preemption.go", reps, runs))
	racks := ""
	if o.RackNodes > 0 {
		racks = fmt.Sprintf(", labelled `%s=rack-<i / %d>` (%d racks of %d nodes)", levelsRackLabel, o.RackNodes, o.racks(), o.RackNodes)
	}
	fmt.Fprintf(&b, "%d fake nodes (`-preemption-nodes`): node *i* is `%s<i>` with %d CPUs, 32Gi (scheduler_perf's `node-default.yaml`)%s. "+
		"Before anything is measured, the cluster is filled completely: %d Pods in namespace `%s`, %d per node, created bound to it (`spec.nodeName`, never scheduled), "+
		"each requesting %s CPU and %s, with priority %d and `terminationGracePeriodSeconds: 0` (as upstream's PreemptionBasic's low-priority Pods: scheduler_perf runs no kubelet, "+
		"and a victim deleted with a grace period would stay Terminating and keep its room; with 0 the API server removes it at once). "+
		"Then the PodGroup CRD (`%s`), for gangs one PodGroup per gang (`gang.minCount` = gang size), a wait of %s, unmeasured, and the measured Pods, "+
		"%d per workload (`-preemption-pods`), all created at once (a burst): %s CPU, %s, priority %d, in namespace `%s`. "+
		"Every measured Pod fits only where a fill Pod goes.\n\n",
		o.Nodes, preemptionNodePrefix, preemptionNodeCPU, racks, o.slots(), preemptionFillNamespace, preemptionSlotsPerNode, preemptionPodCPU, preemptionPodMemory, preemptionFillPriority,
		gangCRDFile, gangSettle, o.Pods, preemptionPodCPU, preemptionPodMemory, preemptionPriority, preemptionNamespace)
	b.WriteString("*No group*: the Pods without a label and without PodGroups, each preempting alone (default preemption, the DefaultPreemption plugin), on vanilla and on the patched scheduler. " +
		"*Gangs of k*: Pods labelled `" + gangPodGroupLabel + "=gang-<i>`, k per PodGroup; a gang that does not fit preempts as one unit (the pod-group cycle's preemption). ")
	if o.RackNodes > 0 {
		b.WriteString("*One rack*: the same gangs with `schedulingConstraints.topology: [{key: " + levelsRackLabel + "}]`, so that the preemption searches the racks. ")
	}
	b.WriteString("The patched runs set `GangScheduling`, `WorkloadAwarePreemption` and `TopologyAwareWorkloadScheduling` on (their defaults); each workload runs on a fresh cluster.\n\n")
	fmt.Fprintf(&b, "*Victims*: a node holds %d fill Pods of 1 CPU and nothing else, so a 1-CPU Pod needs exactly one victim wherever it goes: a gang of k needs k victims, a Pod without a group one. "+
		"Fewer cannot make room, more is room preempted and not used (*excess*: fill Pods deleted beyond the bound measured Pods).\n\n", preemptionSlotsPerNode)
	b.WriteString("The times come from an observer plugin that only this suite's scheduler configuration enables (`bench/testdata/perfpkg/" + preemptionPluginFile + "`): " +
		"from the scheduler's own Pod informer it logs when each measured Pod appeared (its creation, plus the watch delay of the API server in the same process), was nominated and was bound, " +
		"and when each fill Pod got `DisruptionTarget` and was deleted. *Creation → bound*: per gang, from its first member's creation until its last member is bound; per Pod without a group, its own; " +
		"nearest-rank percentiles over the gangs (Pods) and the maximum. *Creation → nominated*: until the first member's `nominatedNodeName` (the preemption decided). " +
		"*Makespan*: first measured Pod created to last bound; *pods/s* the measured Pods over it. " +
		"*Victims / unit*: fill Pods deleted per gang (per Pod), and in brackets the fewest and most a gang's preemptions named (the gang in each victim's `DisruptionTarget` message). " +
		"Each run's gangs (Pods) are listed in `_output/bench/runs/<test case>-<side>-rep<n>/" + preemptionUnitsFile + "`.\n\n")
	b.WriteString("How to read it: *victims / unit* is k for gangs of k and 1 for Pods without a group when the preemption is exact, and *excess* 0; " +
		"a positive excess is room preempted and not used (a Pod that lost the room it was nominated to and preempted again, or a gang that preempted twice). " +
		"Gangs bind only whole, so a gang's *creation → bound* is that of its slowest member, and in a burst it includes the wait behind the gangs decided before it; " +
		"compare the makespans (the ratios below) rather than a gang's time with a Pod's. " +
		"A *max* of minutes is a gang that stalled: with *chosen > deleted* (second table), victims the scheduler chose were never deleted, and the gang waited " +
		"(*waiting* preemptions) until the unschedulable Pods were flushed back to the queue (5 minutes) and it preempted again.\n\n")
	b.WriteString("| workload | side | gangs / pods | pods/s | makespan (s) | creation → bound p50 / p99 / max (ms) | creation → nominated p50 / p99 (ms) | victims / unit | victims (excess) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	preemptionRows(results, o, func(w preemptionRun, r preemptionResult) {
		s := r.Stats
		keep := func(x preemptionResult) bool { return x.Kind == w.Kind && x.Size == w.Size && x.Side == w.Side.Name }
		fmt.Fprintf(&b, "| %s | %s | %d %ss | %s%s | %.2f | %s / %s / %s | %s / %s | %s | %d (%+d) |\n",
			w.Kind.label(w.Size), w.Side.Name, r.Units, w.Kind.unit(), orNA(r.Throughput, "%.1f"), throughputSpread(results, keep), s.Makespan,
			spreadMs(s.Latency, s.Latency.P50), spreadMs(s.Latency, s.Latency.P99), spreadMs(s.Latency, s.Latency.Max),
			spreadMs(s.ToNomination, s.ToNomination.P50), spreadMs(s.ToNomination, s.ToNomination.P99),
			victimsPerUnit(r), s.Deleted, s.excess())
	})
	b.WriteString("\nThe scheduler's own counts in the same runs. *Group cycles*: `scheduler_podgroup_schedule_attempts_total` (scheduled/all). " +
		"*Pod attempts*: `scheduler_schedule_attempts_total` (scheduled/all; a gang member's attempt counts too). " +
		"*Group preemptions*: `scheduler_podgroup_preemption_attempts_total` by result (*waiting*: the victims of the gang's earlier preemption are still leaving). " +
		"*Pod preemptions*: `scheduler_preemption_attempts_total` (default preemption's PostFilter runs). " +
		"*Victims / preemption*: the mean of `scheduler_podgroup_preemption_victims` (gangs) or `scheduler_preemption_victims` (Pods); " +
		"*chosen / deleted*: their sum, the victims the scheduler chose, against the fill Pods deleted (fewer deleted than chosen: deletions that never happened, and a gang waiting for them). " +
		"*Pod e2e*: `scheduler_pod_scheduling_sli_duration_seconds` p50 / p99 (from the Pod's first entry into the queue to bound; interpolated within the histogram's buckets).\n\n")
	b.WriteString("| workload | side | group cycles | pod attempts | group preemptions | pod preemptions | victims / preemption | chosen / deleted | pod e2e p50 / p99 (ms) |\n")
	b.WriteString("|---|---|---:|---:|---|---:|---:|---:|---:|\n")
	preemptionRows(results, o, func(w preemptionRun, r preemptionResult) {
		cycles, attempts := "n/a", "n/a"
		if r.GroupAttempts != nil {
			cycles = fmt.Sprintf("%.0f/%.0f", r.GroupAttempts["scheduled"], r.groupAttempts())
		}
		if r.PodAttempts != nil {
			attempts = fmt.Sprintf("%.0f/%.0f", r.PodAttempts["scheduled"], totalOrNA(r.PodAttempts))
		}
		victims := r.PodVictims
		if w.Kind != preemptionPlain {
			victims = r.GroupVictims
		}
		chosen := "n/a"
		if victims.Count >= 0 {
			chosen = fmt.Sprintf("%.0f / %d", victims.Sum, r.Stats.Deleted)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			w.Kind.label(w.Size), w.Side.Name, cycles, attempts, attemptsByResult(r.GroupPreemptions, groupPreemptionResults),
			orNA(r.PodPreemptions, "%.0f"), orNA(victims.mean(), "%.2f"), chosen, p50p99(r.SLI))
	})
	var problems []string
	preemptionRows(results, o, func(w preemptionRun, r preemptionResult) {
		if r.Stats.DeletedLate > 0 {
			problems = append(problems, fmt.Sprintf("%s on %s: %d fill pods deleted after the last measured pod was bound", w.Kind.label(w.Size), w.Side.Name, r.Stats.DeletedLate))
		}
		for _, p := range firstN(r.Stats.Problems, 5) {
			problems = append(problems, fmt.Sprintf("%s on %s: %s", w.Kind.label(w.Size), w.Side.Name, p))
		}
	})
	if len(problems) > 0 {
		b.WriteString("\nNotes from the observer's logs:\n\n")
		for _, p := range problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	}
	b.WriteString("\nRatios (medians; *paired*: over the repetitions, runs of the same repetition):\n\n```\n")
	b.WriteString(preemptionRatios(results, o))
	b.WriteString("```\n")
	fmt.Fprintf(&b, "\nCommand: `%s`. Reproduce with the defaults: `make bench BENCH_ARGS='-suites preemption'` (add `-reps 3` for medians; `-preemption-nodes`, `-preemption-gang-sizes`, "+
		"`-preemption-pods` and `-preemption-rack-nodes` change the cluster and the gangs, e.g. `-preemption-nodes 50 -preemption-pods 64 -preemption-rack-nodes 10` for a 50-node smoke run; "+
		"`-preemption-vanilla=false` skips vanilla, `-preemption-cpuprofile` records a CPU profile of every run). "+
		"Raw data items, logs, the observer's `%s` and `%s` are in `_output/bench/runs/GangPreemption*`.\n", o.Command, preemptionLogFile, preemptionUnitsFile)
	return b.String()
}

// preemptionRatios compares the patched scheduler's Pods without a group
// with vanilla's (throughput, paired), and every gang workload with the
// patched Pods without a group (makespan and victims per pod).
func preemptionRatios(results []preemptionResult, o preemptionOptions) string {
	var b strings.Builder
	plain, okPlain := preemptionMedian(results, preemptionPlain, 1, preemptionPatched.Name)
	if o.Vanilla {
		ratios := pairedRatios(results, func(r preemptionResult) bool { return r.Kind == preemptionPlain }, preemptionPatched.Name, "vanilla")
		if s := ratioSummary(ratios); s != "" {
			fmt.Fprintf(&b, "%-22s throughput patched/vanilla %s (paired)\n", "no group:", s)
		}
	}
	for _, w := range preemptionWorkloads(o) {
		if w.Kind == preemptionPlain {
			continue
		}
		g, ok := preemptionMedian(results, w.Kind, w.Size, w.Side.Name)
		if !ok || !okPlain {
			continue
		}
		fmt.Fprintf(&b, "%-22s makespan %.2f× the pods without a group (%.2f s / %.2f s), victims per pod %.2f against %.2f\n",
			w.Kind.label(w.Size)+":", ratio(g.Stats.Makespan, plain.Stats.Makespan), g.Stats.Makespan, plain.Stats.Makespan,
			ratio(float64(g.Stats.Deleted), float64(g.Stats.Bound)), ratio(float64(plain.Stats.Deleted), float64(plain.Stats.Bound)))
	}
	return b.String()
}

// pairedRun for preemptionResult: the side and repetition of its gangResult.
func (r preemptionResult) sideName() string { return r.Side }
func (r preemptionResult) repetition() int  { return r.Rep }
