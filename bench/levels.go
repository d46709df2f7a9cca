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

	"sigs.k8s.io/yaml"
)

// The levels suite (issue #24 item 7, PodGroupTopologyLevels): gangs whose
// PodGroups name two topology levels, a Required block and a Preferred
// rack (spec.schedulingConstraints.topology: [{key:
// topology.kubernetes.io/block, mode: Required}, {key:
// topology.kubernetes.io/rack, mode: Preferred}]), against the same gangs
// with the single Required rack of the placement suite ([{key:
// topology.kubernetes.io/rack}]), on the same patched binary with
// GangScheduling, TopologyAwareWorkloadScheduling and
// PodGroupTopologyLevels on. The cluster is blocks of racks of fake nodes,
// filled first, unevenly, with bound pods (a seeded distribution: some
// racks nearly empty, some nearly full), so that the big gangs outgrow the
// racks that still have room and spill over several racks of a block.
//
// Besides the scheduler's metrics (the placement decision, the pod-group
// cycle, placements generated and evaluated per level, and the CPU per
// pod-group cycle from a CPU profile) it reports where every gang went:
// a scheduler plugin that only the suite's scheduler configuration
// enables (testdata/perfpkg/levels_placements_test.go) writes each bound
// member's node and the order in which the members were reserved, and the
// driver replays the gangs in that order on the known fill, so that it
// knows the free slots of every rack when each gang was decided, the
// fewest racks the gang could have used, and how many it used.
//
// Only the patched tree runs the suite: vanilla knows no PodGroup.

// The node labels of the two levels, and the PodGroups' topology keys.
const (
	levelsBlockLabel = "topology.kubernetes.io/block"
	levelsRackLabel  = "topology.kubernetes.io/rack"
)

// levelsNamespace holds the measured pods and their PodGroups,
// levelsFillNamespace the fill pods.
const (
	levelsNamespace     = "levels"
	levelsFillNamespace = "fill"
)

// levelsNodePrefix names the suite's nodes: node i is lv-node-<i>.
const levelsNodePrefix = "lv-node-"

// The node and pod shapes: nodes of 4 CPUs (node-default.yaml's 32Gi and
// 110 pods), members of 1 CPU (pod-default.yaml with 1000m, 500Mi), so a
// node has levelsSlotsPerNode slots, and a fill pod of 0 to 4 CPUs on
// every node.
const (
	levelsNodeMilliCPU = 4000
	levelsPodMilliCPU  = 1000
	levelsSlotsPerNode = levelsNodeMilliCPU / levelsPodMilliCPU
	levelsPodCPU       = "1000m"
	levelsFillMemory   = "500Mi"
)

// The fill's shape: the racks' used shares spread from levelsEmptiest to
// levelsFullest (see levelsRackUsed).
const (
	levelsEmptiest = 0.03
	levelsFullest  = 0.98
)

// The placement log: levels_placements_test.go, in the workload package,
// registers the plugin levelsLogPlugin, which the suite's scheduler
// configuration (levelsSchedulerConfigFile) enables; with
// $KSPATCH_BENCH_PLACEMENT_LOG set it appends a line per bound pod to that
// file (levelsLogFile in the run's directory).
const (
	levelsPluginFile          = "levels_placements_test.go"
	levelsLogPlugin           = "KspatchBenchPlacementLog"
	levelsLogEnv              = "KSPATCH_BENCH_PLACEMENT_LOG"
	levelsLogFile             = "placements.log"
	levelsRacksFile           = "racks.tsv"
	levelsSchedulerConfigFile = "levels-scheduler-config.yaml"
)

//go:embed testdata/perfpkg/levels_placements_test.go
var levelsPluginSource []byte

// levelsSide is the only side: the patched scheduler with the gates of
// gangs, placements and topology levels on.
var levelsSide = side{Name: "patched-gate-on", Tree: "patched", Gates: map[string]bool{
	"GangScheduling": true, "TopologyAwareWorkloadScheduling": true, "PodGroupTopologyLevels": true,
}}

// levelsGoalMillis is issue #24's goal for the placement decision's p99.
const levelsGoalMillis = 100

// levelsShape is the cluster: Blocks blocks of RacksPerBlock racks of
// NodesPerRack nodes. Node i is in rack i / NodesPerRack, rack r in block
// r / RacksPerBlock; rack and block names are unique in the cluster.
type levelsShape struct {
	Blocks, RacksPerBlock, NodesPerRack int
}

func (s levelsShape) racks() int         { return s.Blocks * s.RacksPerBlock }
func (s levelsShape) nodes() int         { return s.racks() * s.NodesPerRack }
func (s levelsShape) nodesPerBlock() int { return s.RacksPerBlock * s.NodesPerRack }
func (s levelsShape) rackSlots() int     { return s.NodesPerRack * levelsSlotsPerNode }
func (s levelsShape) rackOf(node int) int {
	return node / s.NodesPerRack
}
func (s levelsShape) blockOf(rack int) int { return rack / s.RacksPerBlock }

// id names the shape in test case names: 10b10r50n.
func (s levelsShape) id() string {
	return fmt.Sprintf("%db%dr%dn", s.Blocks, s.RacksPerBlock, s.NodesPerRack)
}

// flag is the shape as -levels-shape writes it: 10/10/50.
func (s levelsShape) flag() string {
	return fmt.Sprintf("%d/%d/%d", s.Blocks, s.RacksPerBlock, s.NodesPerRack)
}

// String describes the shape in the summary.
func (s levelsShape) String() string {
	return fmt.Sprintf("%d nodes: %d blocks × %d racks × %d nodes", s.nodes(), s.Blocks, s.RacksPerBlock, s.NodesPerRack)
}

// parseLevelsShape parses -levels-shape: blocks/racks per block/nodes per
// rack.
func parseLevelsShape(v string) (levelsShape, error) {
	parts := strings.Split(strings.TrimSpace(v), "/")
	bad := fmt.Errorf("invalid -levels-shape %q: must be blocks/racks per block/nodes per rack, such as 10/10/50", v)
	if len(parts) != 3 {
		return levelsShape{}, bad
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 1 {
			return levelsShape{}, bad
		}
		n[i] = x
	}
	return levelsShape{Blocks: n[0], RacksPerBlock: n[1], NodesPerRack: n[2]}, nil
}

// levelsOptions are the suite's flags.
type levelsOptions struct {
	Shape levelsShape
	// Fill is the share of the cluster's member slots the fill pods take;
	// Seed chooses which racks get which share.
	Fill float64
	Seed uint64
	// GangSizes are the pods per PodGroup (its minCount), each run as its
	// own workloads; Pods is the measured pods of each, a multiple of every
	// size (fewer with the single rack when not all its gangs fit).
	GangSizes []int
	Pods      int
	// Markdown is the summary to write, relative to the checkout; empty for
	// none.
	Markdown string
	// Profile records a CPU profile of every run, for the CPU per
	// pod-group cycle.
	Profile bool
	// PodsFirst creates the measured pods first and their PodGroups when
	// the measurement starts (groupTestCase.PodsFirst); the test cases'
	// names end in PodsFirst.
	PodsFirst bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

// defaultLevelsOptions are issue #24's: 5000 nodes in 10 blocks of 10
// racks of 50, 60% full, gangs of 32 and 128 in 4096 pods (128 and 32
// gangs), with a CPU profile.
func defaultLevelsOptions() levelsOptions {
	return levelsOptions{
		Shape: levelsShape{Blocks: 10, RacksPerBlock: 10, NodesPerRack: 50},
		Fill:  0.6, Seed: 1,
		GangSizes: []int{32, 128}, Pods: 4096,
		Markdown: "docs/benchmarks-levels.md",
		Profile:  true,
		Command:  "make bench BENCH_ARGS='-suites levels'",
	}
}

// validate checks the flags and that every gang with the two levels fits
// in a block of the filled cluster (otherwise its workload would never
// end). The gangs with the single rack run only as many as fit in racks.
func (o levelsOptions) validate() error {
	if o.Fill < 0 || o.Fill > 0.95 {
		return fmt.Errorf("invalid -levels-fill %v: must be between 0 and 0.95", o.Fill)
	}
	if len(o.GangSizes) == 0 {
		return fmt.Errorf("-levels-gang-sizes is empty")
	}
	if o.Pods < 1 {
		return fmt.Errorf("invalid -levels-pods %d: must be positive", o.Pods)
	}
	lay := o.layout()
	for _, size := range o.GangSizes {
		if o.Pods%size != 0 {
			return fmt.Errorf("-levels-pods %d is not a multiple of gang size %d: the last gang would never reach its minCount", o.Pods, size)
		}
		if fit := lay.gangsThatFit(size, false); fit < o.Pods/size {
			return fmt.Errorf("-levels-pods %d do not fit in %s %.0f%% full: its blocks hold %d gang(s) of %d, not %d; lower -levels-pods or -levels-fill",
				o.Pods, o.Shape.flag(), 100*o.Fill, fit, size, o.Pods/size)
		}
	}
	return nil
}

// layout is the filled cluster of the options.
func (o levelsOptions) layout() levelsLayout {
	return levelsLayout{Shape: o.Shape, RackUsed: levelsRackUsed(o.Shape, o.Fill, o.Seed)}
}

// levelsLayout is the cluster as the fill leaves it: the member slots the
// fill pods take in each rack.
type levelsLayout struct {
	Shape    levelsShape
	RackUsed []int
}

// nodeUsed is the slots node i's fill pod takes: its rack's used slots
// spread over the rack's nodes, the first ones taking one more.
func (l levelsLayout) nodeUsed(i int) int {
	u := l.RackUsed[l.Shape.rackOf(i)]
	n := l.Shape.NodesPerRack
	used := u / n
	if i%n < u%n {
		used++
	}
	return used
}

// rackFree is the free member slots of each rack before the measured pods.
func (l levelsLayout) rackFree() []int {
	free := make([]int, len(l.RackUsed))
	for r, u := range l.RackUsed {
		free[r] = l.Shape.rackSlots() - u
	}
	return free
}

// usedShare is the share of the cluster's member slots the fill takes.
func (l levelsLayout) usedShare() float64 {
	used := 0
	for _, u := range l.RackUsed {
		used += u
	}
	return float64(used) / float64(l.Shape.racks()*l.Shape.rackSlots())
}

// gangsThatFit is how many gangs of size fit one after the other in the
// filled cluster, each in one rack (inRack) or in one block: a domain with
// f free slots takes f / size of them, whatever the order, since a member
// takes one slot on any node.
func (l levelsLayout) gangsThatFit(size int, inRack bool) int {
	free := l.rackFree()
	if !inRack {
		blocks := make([]int, l.Shape.Blocks)
		for r, f := range free {
			blocks[l.Shape.blockOf(r)] += f
		}
		free = blocks
	}
	n := 0
	for _, f := range free {
		n += f / size
	}
	return n
}

// levelsRackUsed is the fill's used slots per rack: shares spread over
// [levelsEmptiest, levelsFullest] along a power curve whose mean is fill
// (share(q) = lo + (hi-lo)·q^a at the racks' quantiles q, a =
// (hi-lo)/(fill-lo) - 1: for 60%, a few racks about 5% used, many 70-98%),
// handed to the racks in a seeded random order, then evened out one slot
// at a time so that the racks hold exactly fill of the cluster's slots
// (rounded). The same shape, fill and seed always give the same racks. A
// fill outside (lo, hi) is the same share in every rack.
func levelsRackUsed(s levelsShape, fill float64, seed uint64) []int {
	racks, slots := s.racks(), s.rackSlots()
	target := int(math.Round(fill * float64(racks*slots)))
	rng := &splitMix{state: seed}
	order := rng.perm(racks)
	used := make([]int, racks)
	sum := 0
	for i, r := range order {
		share := fill
		if fill > levelsEmptiest && fill < levelsFullest {
			a := (levelsFullest-levelsEmptiest)/(fill-levelsEmptiest) - 1
			q := (float64(i) + 0.5) / float64(racks)
			share = levelsEmptiest + (levelsFullest-levelsEmptiest)*math.Pow(q, a)
		}
		used[r] = min(slots, max(0, int(math.Round(share*float64(slots)))))
		sum += used[r]
	}
	adjust := rng.perm(racks)
	for i := 0; sum != target; i++ {
		r := adjust[i%racks]
		switch {
		case sum < target && used[r] < slots:
			used[r]++
			sum++
		case sum > target && used[r] > 0:
			used[r]--
			sum--
		}
	}
	return used
}

// splitMix is the SplitMix64 generator: small, and the same on every Go
// version, so that a seed always gives the same fill.
type splitMix struct{ state uint64 }

func (s *splitMix) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// perm is a seeded permutation of 0..n-1 (Fisher-Yates).
func (s *splitMix) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(s.next() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// levelsKind is the constraint of a workload's PodGroups.
type levelsKind int

const (
	// levelsBlockRack: Required block, Preferred rack.
	levelsBlockRack levelsKind = iota
	// levelsRackOnly: a single Required rack (the placement suite's
	// constraint).
	levelsRackOnly
)

var levelsKinds = []levelsKind{levelsBlockRack, levelsRackOnly}

// testCase is the scheduler_perf test case of the kind for a gang size:
// Levels128BlockRack10b10r50n.
func (k levelsKind) testCase(size int, s levelsShape) string {
	return fmt.Sprintf("Levels%d%s%s", size, [...]string{"BlockRack", "Rack"}[k], s.id())
}

// testCase is the scheduler_perf test case of the kind for a gang size,
// with PodsFirst at the end when the options say so.
func (o levelsOptions) testCase(k levelsKind, size int) string {
	if o.PodsFirst {
		return k.testCase(size, o.Shape) + "PodsFirst"
	}
	return k.testCase(size, o.Shape)
}

// label describes the kind in the summary.
func (k levelsKind) label() string {
	if k == levelsRackOnly {
		return "required rack"
	}
	return "required block, preferred rack"
}

// topology is the PodGroup's spec.schedulingConstraints.topology.
func (k levelsKind) topology() string {
	if k == levelsRackOnly {
		return fmt.Sprintf("    - key: %s\n", levelsRackLabel)
	}
	return fmt.Sprintf("    - key: %s\n      mode: Required\n    - key: %s\n      mode: Preferred\n", levelsBlockLabel, levelsRackLabel)
}

// gangs is how many gangs of size the kind's workload runs: every one of
// -levels-pods with the two levels, as many as fit in racks with the
// single rack (0: none fits, the workload does not run).
func (o levelsOptions) gangs(k levelsKind, size int, lay levelsLayout) int {
	n := o.Pods / size
	if k == levelsRackOnly {
		n = min(n, lay.gangsThatFit(size, true))
	}
	return n
}

// levelsRun is one workload run of a repetition.
type levelsRun struct {
	Size, Gangs int
	Kind        levelsKind
}

// levelsRuns lists the runs of repetition rep, gang size by gang size: the
// two levels, then the single rack, in reverse order in even repetitions;
// a single rack none of whose gangs fits is left out.
func levelsRuns(o levelsOptions, lay levelsLayout, rep int) []levelsRun {
	var runs []levelsRun
	for _, size := range o.GangSizes {
		kinds := levelsKinds
		if rep%2 == 0 {
			kinds = []levelsKind{levelsRackOnly, levelsBlockRack}
		}
		for _, k := range kinds {
			if g := o.gangs(k, size, lay); g > 0 {
				runs = append(runs, levelsRun{Size: size, Gangs: g, Kind: k})
			}
		}
	}
	return runs
}

// levelsNodeTemplate is node-default.yaml's node named lv-node-<Index>,
// labelled with its block and rack.
func levelsNodeTemplate(s levelsShape) string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/levels.go); do not edit.
apiVersion: v1
kind: Node
metadata:
  name: %s{{.Index}}
  labels:
    %s: block-{{div .Index %d}}
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
`, levelsNodePrefix, levelsBlockLabel, s.nodesPerBlock(), levelsRackLabel, s.NodesPerRack, levelsNodeMilliCPU/1000)
}

// levelsFillTemplate is the fill pod of node Index: bound to it
// (spec.nodeName: never scheduled), requesting levelsFillMemory and the
// CPU of the node's used slots (layout.nodeUsed), 0 to 4 CPUs, by a chain
// of conditions on the node's rack (Index / nodes per rack) and its place
// in the rack.
func levelsFillTemplate(l levelsLayout) string {
	var b strings.Builder
	n := l.Shape.NodesPerRack
	fmt.Fprintf(&b, `# Generated by kspatch's bench driver (bench/levels.go); do not edit.
apiVersion: v1
kind: Pod
metadata:
  generateName: fill-
spec:
  nodeName: %s{{.Index}}
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    resources:
      requests:
        memory: %s
        cpu: {{ $rack := div .Index %d }}{{ $node := mod .Index %d }}`, levelsNodePrefix, levelsFillMemory, n, n)
	for r, u := range l.RackUsed {
		if r == 0 {
			b.WriteString("{{ if eq $rack 0 }}")
		} else {
			fmt.Fprintf(&b, "{{ else if eq $rack %d }}", r)
		}
		base, extra := u/n, u%n
		if extra == 0 {
			fmt.Fprintf(&b, "%dm", base*levelsPodMilliCPU)
		} else {
			fmt.Fprintf(&b, "{{ if lt $node %d }}%dm{{ else }}%dm{{ end }}", extra, (base+1)*levelsPodMilliCPU, base*levelsPodMilliCPU)
		}
	}
	b.WriteString("{{ end }}\n")
	return b.String()
}

// levelsPodGroupTemplate is PodGroup gang-<Index>, a gang of size pods
// with the kind's topology levels.
func levelsPodGroupTemplate(size int, k levelsKind) string {
	return podGroupTemplate("bench/levels.go", size, "") + "  schedulingConstraints:\n    topology:\n" + k.topology()
}

// levelsSchedulerConfig enables the placement log in the default profile;
// every other plugin and setting keeps its default.
func levelsSchedulerConfig() string {
	return fmt.Sprintf(`# Generated by kspatch's bench driver (bench/levels.go); do not edit.
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    reserve:
      enabled:
      - name: %[1]s
    postBind:
      enabled:
      - name: %[1]s
`, levelsLogPlugin)
}

const (
	levelsNodeFile = "levels-node.yaml"
	levelsFillFile = "levels-fill.yaml"
)

func levelsPodFile(size int) string { return fmt.Sprintf("levels-pod-%d.yaml", size) }

func levelsPodGroupFile(size int, k levelsKind) string {
	return fmt.Sprintf("levels-podgroup-%d-%s.yaml", size, [...]string{"blockrack", "rack"}[k])
}

// levelsFiles are the templates and files the suite's test cases read, by
// name in the workload package: the PodGroup CRD, the node and fill
// templates, a pod and two PodGroup templates per gang size, the
// scheduler configuration, and the placement log plugin's source.
func levelsFiles(crd []byte, o levelsOptions) (map[string][]byte, error) {
	if err := checkCRDTemplate(crd); err != nil {
		return nil, err
	}
	if err := checkLevelsCRD(crd); err != nil {
		return nil, err
	}
	files := map[string][]byte{
		gangCRDTemplate:           crd,
		levelsNodeFile:            []byte(levelsNodeTemplate(o.Shape)),
		levelsFillFile:            []byte(levelsFillTemplate(o.layout())),
		levelsSchedulerConfigFile: []byte(levelsSchedulerConfig()),
		levelsPluginFile:          levelsPluginSource,
	}
	for _, size := range o.GangSizes {
		files[levelsPodFile(size)] = []byte(memberPodTemplate("bench/levels.go", size, levelsPodCPU))
		for _, k := range levelsKinds {
			files[levelsPodGroupFile(size, k)] = []byte(levelsPodGroupTemplate(size, k))
		}
	}
	return files, nil
}

// checkLevelsCRD refuses a PodGroup CRD without topology levels: its
// schema would prune the levels' mode, and the API server would refuse
// (or the scheduler misread) the two-level PodGroups only after the
// cluster was built.
func checkLevelsCRD(crd []byte) error {
	var doc map[string]any
	if err := yaml.Unmarshal(crd, &doc); err != nil {
		return fmt.Errorf("%s: %w", gangCRDFile, err)
	}
	topology, ok := lookup(doc, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "schedulingConstraints", "properties", "topology").(map[string]any)
	if !ok {
		return fmt.Errorf("the levels suite needs topology levels, but %s has no spec.schedulingConstraints.topology", gangCRDFile)
	}
	if _, ok := lookup(topology, "items", "properties", "mode").(map[string]any); !ok {
		return fmt.Errorf("the levels suite needs topology levels (issue #24), but %s has no spec.schedulingConstraints.topology[].mode", gangCRDFile)
	}
	if m, ok := topology["maxItems"].(float64); ok && m < 2 {
		return fmt.Errorf("the levels suite needs two topology levels, but %s allows %v (maxItems)", gangCRDFile, m)
	}
	return nil
}

// lookup walks a decoded YAML document by map keys and list indexes; nil
// when a step is missing.
func lookup(v any, path ...any) any {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		case int:
			l, ok := v.([]any)
			if !ok || p >= len(l) {
				return nil
			}
			v = l[p]
		}
	}
	return v
}

// crdSuiteFiles prepares a suite whose files embed the PodGroup CRD: it
// validates the options, reads the CRD under root and builds the suite's
// files from it.
func crdSuiteFiles(root, suite string, validate func() error, build func(crd []byte) (map[string][]byte, error)) (map[string][]byte, error) {
	if err := validate(); err != nil {
		return nil, err
	}
	crd, err := os.ReadFile(filepath.Join(root, gangCRDFile))
	if err != nil {
		return nil, fmt.Errorf("the %s suite needs the PodGroup CRD: %w", suite, err)
	}
	return build(crd)
}

// levelsMetrics are the placement suite's metrics and those of the levels.
const levelsMetrics = placementMetrics + `      scheduler_generated_placements_by_level_total:
      - label: level
        values: [topology.kubernetes.io/rack, topology.kubernetes.io/block, cluster]
      scheduler_placement_evaluations_by_level_total:
      - label: level
        values: [topology.kubernetes.io/rack, topology.kubernetes.io/block, cluster]
      - label: result
        values: [feasible, infeasible, error]
`

// levelsConfig is the scheduler_perf configuration of the suite for a
// tree, appended to the other suites': one test case per gang size and
// kind, in the patched tree only.
func levelsConfig(tree string, o levelsOptions) string {
	if tree != levelsSide.Tree {
		return ""
	}
	var b strings.Builder
	lay := o.layout()
	for _, size := range o.GangSizes {
		for _, k := range levelsKinds {
			gangs := o.gangs(k, size, lay)
			if gangs == 0 {
				continue
			}
			tc := groupTestCase{Name: o.testCase(k, size), PodsFirst: o.PodsFirst, NodeTemplate: levelsNodeFile, SchedulerConfig: levelsSchedulerConfigFile,
				FillFile: levelsFillFile, FillNamespace: levelsFillNamespace, Fill: o.Shape.nodes(),
				PodGroupFile: levelsPodGroupFile(size, k), Namespace: levelsNamespace, PodFile: levelsPodFile(size), Metrics: levelsMetrics,
				Sides: []side{levelsSide}, Nodes: o.Shape.nodes(), Pods: gangs * size, Groups: gangs}
			tc.writeTo(&b)
		}
	}
	return b.String()
}

// levelsResult is one run of one workload of the suite.
type levelsResult struct {
	placementResult
	Constraint levelsKind
	Gangs      int
	// GeneratedByLevel is scheduler_generated_placements_by_level_total by
	// level, EvaluatedByLevel scheduler_placement_evaluations_by_level_total
	// by level and result; nil without the metric.
	GeneratedByLevel map[string]float64
	EvaluatedByLevel map[string]map[string]float64
	// Racks is where the gangs went, from the placement log.
	Racks rackStats
}

func levelsResultFrom(items []dataItem) levelsResult {
	r := levelsResult{placementResult: placementResultFrom(items)}
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "scheduler_generated_placements_by_level_total":
			if r.GeneratedByLevel == nil {
				r.GeneratedByLevel = map[string]float64{}
			}
			r.GeneratedByLevel[it.Labels["level"]] += it.Data["Value"]
		case "scheduler_placement_evaluations_by_level_total":
			if r.EvaluatedByLevel == nil {
				r.EvaluatedByLevel = map[string]map[string]float64{}
			}
			level := it.Labels["level"]
			if r.EvaluatedByLevel[level] == nil {
				r.EvaluatedByLevel[level] = map[string]float64{}
			}
			r.EvaluatedByLevel[level][it.Labels["result"]] += it.Data["Value"]
		}
	}
	return r
}

// levelsSuite is the levels suite: levelsRuns' workloads on levelsSide.
type levelsSuite struct{ o levelsOptions }

func (levelsSuite) name() string { return "levels" }

func (s levelsSuite) prepare(h *harness) (map[string][]byte, error) {
	return crdSuiteFiles(h.root, s.name(), s.o.validate, func(crd []byte) (map[string][]byte, error) { return levelsFiles(crd, s.o) })
}

// trees: the levels suite runs on the patched tree alone.
func (levelsSuite) trees(have []string) []string { return addTrees(have, levelsSide.Tree) }

func (s levelsSuite) config(tree string) string { return levelsConfig(tree, s.o) }

func (s levelsSuite) run(h *harness, reps int) error { return runLevels(h, reps, s.o) }

// runLevels runs every workload of the suite reps times and writes the
// markdown summary.
func runLevels(h *harness, reps int, o levelsOptions) error {
	lay := o.layout()
	fmt.Printf("==> levels suite: %s, %.1f%% of the member slots filled (seed %d)\n", o.Shape, 100*lay.usedShare(), o.Seed)
	runs := func(rep int) []levelsRun { return levelsRuns(o, lay, rep) }
	results, err := repeat(reps, runs, func(run levelsRun, rep int) (levelsResult, error) {
		r, err := runLevelsOne(h, run, rep, o, lay)
		if err != nil {
			return levelsResult{}, err
		}
		fmt.Printf("gangs of %-4d %-31s rep %d  %3d gangs  %s pods/s  decision p50/p99 %s/%s ms  CPU/group cycle %s ms  racks/gang mean %s max %d  over block minimum %d  (%s, load %.1f)\n",
			run.Size, run.Kind.label(), rep, run.Gangs, orNA(positiveOrNA(r.Throughput), "%.1f"), msOrNA(r.Decision, r.Decision.P50), msOrNA(r.Decision, r.Decision.P99),
			orNA(r.GroupCPU, "%.1f"), orNA(r.Racks.meanOrNA(), "%.2f"), r.Racks.Max, r.Racks.OverBlockMin, r.Wall.Round(time.Second), r.Load)
		for _, p := range r.Racks.Problems {
			fmt.Printf("  placement log: %s\n", p)
		}
		return r, nil
	})
	if err != nil {
		return err
	}
	return printAndWrite(h, levelsMarkdown(h, results, reps, o, lay), o.Markdown)
}

// positiveOrNA is v, or -1 (n/a) when it is not positive.
func positiveOrNA(v float64) float64 {
	if v <= 0 {
		return -1
	}
	return v
}

// runLevelsOne runs one workload with the placement log on, reads its
// metrics, the CPU per pod-group cycle from its profile, and where its
// gangs went; racks.tsv in the run's directory lists the gangs.
func runLevelsOne(h *harness, run levelsRun, rep int, o levelsOptions, lay levelsLayout) (levelsResult, error) {
	tc := o.testCase(run.Kind, run.Size)
	runName := fmt.Sprintf("%s-rep%d", tc, rep)
	logPath := filepath.Join(h.runDir(runName), levelsLogFile)
	start := time.Now()
	items, err := h.run(levelsSide.Tree, tc, apiWorkloadName(levelsSide), runName, []string{levelsLogEnv + "=" + logPath}, o.Profile)
	if err != nil {
		return levelsResult{}, fmt.Errorf("%s (gangs of %d, %s): %w", tc, run.Size, run.Kind.label(), err)
	}
	r := levelsResultFrom(items)
	r.Side, r.Wall, r.Load = levelsSide.Name, time.Since(start), loadAverage()
	r.Size, r.Rep, r.Constraint, r.Gangs = run.Size, rep, run.Kind, run.Gangs
	// With the pods first, the profile and the cycle count hold the pods'
	// refusals before their PodGroups existed: no CPU per cycle.
	if o.Profile && !o.PodsFirst {
		if cpu, err := groupCycleCPU(h.profile(runName), r.groupAttempts()); err != nil {
			fmt.Printf("%s: no CPU per pod-group cycle: %v\n", runName, err)
		} else {
			r.GroupCPU = cpu
		}
	}
	raw, err := os.ReadFile(logPath)
	if err != nil {
		r.Racks = rackStats{Problems: []string{fmt.Sprintf("no placement log: %v", err)}}
	} else {
		binds, problems := parsePlacementLog(string(raw))
		gangs := replayGangs(lay, run.Size, binds)
		r.Racks = summarizeRacks(gangs, run.Gangs)
		r.Racks.Problems = append(problems, r.Racks.Problems...)
		if err := os.WriteFile(filepath.Join(h.runDir(runName), levelsRacksFile), []byte(racksTSV(gangs)), 0o644); err != nil {
			return levelsResult{}, err
		}
	}
	return r, r.check(tc)
}

// check refuses a run that did not measure its workload: its gangs must
// have been scheduled as groups, with placement decisions.
func (r levelsResult) check(tc string) error {
	if r.groupAttempts() < float64(r.Gangs) {
		return fmt.Errorf("%s: %s pod-group cycles for %d gangs: the gangs were not scheduled as groups", tc, orNA(r.groupAttempts(), "%.0f"), r.Gangs)
	}
	if r.Decision.Count == 0 {
		return fmt.Errorf("%s: no placement decision measured (scheduler_placement_decision_duration_seconds{result=\"feasible\"}): is the placement algorithm with topology levels in the patched tree's HEAD?", tc)
	}
	return nil
}

// levelsBind is one line of the placement log: a bound pod, its node, its
// PodGroup, and when its last Reserve ran in the scheduler (a sequence
// number: the members of one pod-group cycle are reserved one after the
// other, before the next cycle starts).
type levelsBind struct {
	Seq              int64
	Pod, Node, Group string
}

// parsePlacementLog reads the placement log: "<seq> <namespace>/<pod>
// <node> <group>" per line (group "-" for a pod without one). Lines it
// cannot read are returned as problems.
func parsePlacementLog(text string) ([]levelsBind, []string) {
	var binds []levelsBind
	var problems []string
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		var seq int64
		var err error
		if len(f) == 4 {
			seq, err = strconv.ParseInt(f[0], 10, 64)
		}
		if len(f) != 4 || err != nil {
			problems = append(problems, fmt.Sprintf("line %d %q: want <seq> <namespace>/<pod> <node> <group>", i+1, line))
			continue
		}
		binds = append(binds, levelsBind{Seq: seq, Pod: f[1], Node: f[2], Group: f[3]})
	}
	return binds, problems
}

// gangPlacement is where one gang went, and the fewest racks it could
// have used when it was decided.
type gangPlacement struct {
	Group string
	// Order is the gang's first Reserve (its members' lowest sequence
	// number); gangs are replayed in that order.
	Order int64
	Pods  int
	// PerRack is the gang's pods by rack, Blocks the blocks it used.
	PerRack map[int]int
	Blocks  []int
	// BlockMin is the fewest racks of its block (the block holding most
	// of its pods) that could hold the gang at the time: their free slots,
	// most first, until they add up to the gang's size; ClusterMin the
	// same in the best block. 0 when no rack set could hold it (the
	// replay disagrees with the scheduler).
	BlockMin, ClusterMin int
	// Problem says why the gang is left out of the comparison; empty
	// when it is not.
	Problem string
}

// Racks is the number of racks the gang used.
func (g gangPlacement) Racks() int { return len(g.PerRack) }

// replayGangs groups the bound pods by gang and replays the gangs in
// decision order on the filled cluster: before each gang, the free slots
// of every rack (the fill and the gangs before it taken out) give the
// fewest racks it could use; then its pods take their slots.
func replayGangs(lay levelsLayout, size int, binds []levelsBind) []gangPlacement {
	s := lay.Shape
	free := make([]int, s.nodes())
	for i := range free {
		free[i] = levelsSlotsPerNode - lay.nodeUsed(i)
	}
	byGroup := map[string]*gangPlacement{}
	nodesOf := map[string][]int{}
	var order []*gangPlacement
	for _, b := range binds {
		g := byGroup[b.Group]
		if g == nil {
			g = &gangPlacement{Group: b.Group, Order: b.Seq, PerRack: map[int]int{}}
			byGroup[b.Group] = g
			order = append(order, g)
		}
		if b.Seq >= 0 && (g.Order < 0 || b.Seq < g.Order) {
			g.Order = b.Seq
		}
		g.Pods++
		i, ok := levelsNodeIndex(b.Node, s.nodes())
		if !ok {
			g.Problem = fmt.Sprintf("pod %s on node %s, which is not one of the suite's", b.Pod, b.Node)
			continue
		}
		nodesOf[b.Group] = append(nodesOf[b.Group], i)
		g.PerRack[s.rackOf(i)]++
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Order < order[j].Order })
	var gangs []gangPlacement
	for _, g := range order {
		if g.Problem == "" && g.Pods != size {
			g.Problem = fmt.Sprintf("%d pods bound, not %d", g.Pods, size)
		}
		rackFree := make([]int, s.racks())
		for i, f := range free {
			rackFree[s.rackOf(i)] += f
		}
		blockPods := map[int]int{}
		for r, n := range g.PerRack {
			blockPods[s.blockOf(r)] += n
		}
		home := -1
		for b, n := range blockPods {
			g.Blocks = append(g.Blocks, b)
			if home < 0 || n > blockPods[home] || n == blockPods[home] && b < home {
				home = b
			}
		}
		sort.Ints(g.Blocks)
		for b := 0; b < s.Blocks; b++ {
			m := fewestRacks(rackFree[b*s.RacksPerBlock:(b+1)*s.RacksPerBlock], g.Pods)
			if b == home {
				g.BlockMin = m
			}
			if m > 0 && (g.ClusterMin == 0 || m < g.ClusterMin) {
				g.ClusterMin = m
			}
		}
		for _, i := range nodesOf[g.Group] {
			free[i]--
			if free[i] < 0 && g.Problem == "" {
				g.Problem = fmt.Sprintf("node %s%d holds more pods than the replay has room for", levelsNodePrefix, i)
			}
		}
		if g.Problem == "" && g.BlockMin == 0 {
			g.Problem = "no set of racks of its block had room for it in the replay"
		}
		gangs = append(gangs, *g)
	}
	return gangs
}

// levelsNodeIndex is i of node lv-node-<i>, if it is one of n.
func levelsNodeIndex(node string, n int) (int, bool) {
	rest, ok := strings.CutPrefix(node, levelsNodePrefix)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil && i >= 0 && i < n && strconv.Itoa(i) == rest
}

// fewestRacks is the fewest of the racks (their free slots) that hold
// pods together: the racks with the most room first. 0 when all of them
// cannot.
func fewestRacks(free []int, pods int) int {
	sorted := append([]int(nil), free...)
	sort.Sort(sort.Reverse(sort.IntSlice(sorted)))
	room := 0
	for i, f := range sorted {
		room += f
		if room >= pods {
			return i + 1
		}
	}
	return 0
}

// rackStats sums up where a run's gangs went.
type rackStats struct {
	// Gangs is the gangs in the placement log, Compared those the replay
	// compares with their minimum (no problem), Expected the gangs the
	// workload created.
	Gangs, Compared, Expected int
	// OneRack is the compared gangs in one rack; Total and Max their racks
	// in all and the most one used; Dist the gangs by racks used.
	OneRack, Total, Max int
	Dist                map[int]int
	// OverBlockMin is the gangs that used more racks than the fewest of
	// their block could hold them; OverClusterMin more than the fewest of
	// any block; SpilledOverFit those split although one rack could hold
	// them; CrossBlock those spread over more than one block.
	OverBlockMin, OverClusterMin, SpilledOverFit, CrossBlock int
	// WorstOver is the gang furthest over its block's minimum, as "gang-3:
	// 4 racks, 3 would do"; empty when none is over.
	WorstOver string
	Problems  []string
}

// meanOrNA is the mean racks per compared gang, -1 without any.
func (s rackStats) meanOrNA() float64 {
	if s.Compared == 0 {
		return -1
	}
	return float64(s.Total) / float64(s.Compared)
}

// summarizeRacks sums up the replayed gangs of a run that created
// expected gangs.
func summarizeRacks(gangs []gangPlacement, expected int) rackStats {
	s := rackStats{Gangs: len(gangs), Expected: expected, Dist: map[int]int{}}
	worst := 0
	for _, g := range gangs {
		if g.Problem != "" {
			s.Problems = append(s.Problems, fmt.Sprintf("%s: %s", g.Group, g.Problem))
			continue
		}
		n := g.Racks()
		s.Compared++
		s.Total += n
		s.Max = max(s.Max, n)
		s.Dist[n]++
		if n == 1 {
			s.OneRack++
		}
		if over := n - g.BlockMin; over > 0 {
			s.OverBlockMin++
			if over > worst {
				worst = over
				s.WorstOver = fmt.Sprintf("%s: %d racks, %d would do", g.Group, n, g.BlockMin)
			}
		}
		if n > g.ClusterMin {
			s.OverClusterMin++
		}
		if n > 1 && g.ClusterMin == 1 {
			s.SpilledOverFit++
		}
		if len(g.Blocks) > 1 {
			s.CrossBlock++
		}
	}
	if len(gangs) != expected {
		s.Problems = append(s.Problems, fmt.Sprintf("%d gangs in the placement log, %d created", len(gangs), expected))
	}
	return s
}

// dist is the gangs by racks used: "1 rack: 20, 2 racks: 9".
func (s rackStats) dist() string {
	if len(s.Dist) == 0 {
		return "n/a"
	}
	var keys []int
	for k := range s.Dist {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d×%d", s.Dist[k], k))
	}
	return strings.Join(parts, ", ")
}

// racksTSV lists the replayed gangs, in decision order.
func racksTSV(gangs []gangPlacement) string {
	var b strings.Builder
	b.WriteString("order\tgang\tpods\tblocks\tracks\tpods by rack\tfewest racks in its block\tfewest racks in any block\tproblem\n")
	for i, g := range gangs {
		var racks []int
		for r := range g.PerRack {
			racks = append(racks, r)
		}
		sort.Slice(racks, func(a, c int) bool {
			if g.PerRack[racks[a]] != g.PerRack[racks[c]] {
				return g.PerRack[racks[a]] > g.PerRack[racks[c]]
			}
			return racks[a] < racks[c]
		})
		var perRack, blocks []string
		for _, r := range racks {
			perRack = append(perRack, fmt.Sprintf("rack-%d=%d", r, g.PerRack[r]))
		}
		for _, bl := range g.Blocks {
			blocks = append(blocks, fmt.Sprintf("block-%d", bl))
		}
		fmt.Fprintf(&b, "%d\t%s\t%d\t%s\t%d\t%s\t%d\t%d\t%s\n", i+1, g.Group, g.Pods, strings.Join(blocks, ","), g.Racks(), strings.Join(perRack, ","), g.BlockMin, g.ClusterMin, g.Problem)
	}
	return b.String()
}

// levelsMedian returns the run with the median throughput of a gang size
// and kind.
func levelsMedian(results []levelsResult, size int, k levelsKind) (levelsResult, bool) {
	return medianRun(results, func(r levelsResult) bool { return r.Size == size && r.Constraint == k })
}

// worstDecisionP99 is the highest decision p99 of the runs of a gang size
// and kind (ms), -1 without any.
func worstDecisionP99(results []levelsResult, size int, k levelsKind) float64 {
	worst := -1.0
	for _, r := range results {
		if r.Size == size && r.Constraint == k && r.Decision.Count > 0 {
			worst = max(worst, r.Decision.P99)
		}
	}
	return worst
}

// decisionBucket is the bucket of scheduler_placement_decision_duration_seconds
// (ExponentialBuckets(0.0005, 2, 18), in ms: (lo, hi]) an interpolated
// percentile lies in: the true percentile lies in the same bucket.
func decisionBucket(ms float64) (lo, hi float64) {
	hi = 0.5
	for i := 1; i < 18 && ms > hi; i++ {
		lo, hi = hi, hi*2
	}
	return lo, hi
}

// goalVerdict judges a decision p99 (ms) against levelsGoalMillis: met when
// its whole bucket is within the goal, missed when all of it is above,
// undecided when the bucket straddles the goal (the histogram cannot tell).
func goalVerdict(p99 float64) string {
	if p99 < 0 {
		return "n/a"
	}
	lo, hi := decisionBucket(p99)
	switch {
	case hi <= levelsGoalMillis:
		return "met"
	case lo >= levelsGoalMillis:
		return "missed"
	}
	return fmt.Sprintf("undecided (in the %g–%g ms bucket)", lo, hi)
}

// byLevel formats a per-level count per gang: "rack 100.0, block 10.0".
func byLevel(counts map[string]float64, gangs int) string {
	if counts == nil || gangs == 0 {
		return "n/a"
	}
	var parts []string
	for _, level := range levelsOrder(counts) {
		parts = append(parts, fmt.Sprintf("%s %.1f", levelName(level), counts[level]/float64(gangs)))
	}
	if len(parts) == 0 {
		return "n/a"
	}
	return strings.Join(parts, ", ")
}

// levelsOrder lists the levels of a count with a non-zero value,
// narrowest first: rack, block, cluster, then any other.
func levelsOrder(counts map[string]float64) []string {
	rank := map[string]int{levelsRackLabel: 0, levelsBlockLabel: 1, "cluster": 2}
	var levels []string
	for level, v := range counts {
		if v > 0 {
			levels = append(levels, level)
		}
	}
	sort.Slice(levels, func(i, j int) bool {
		ri, oki := rank[levels[i]]
		rj, okj := rank[levels[j]]
		if oki != okj {
			return oki
		}
		if ri != rj {
			return ri < rj
		}
		return levels[i] < levels[j]
	})
	return levels
}

// levelName shortens a level's label key in the summary.
func levelName(level string) string {
	return strings.TrimPrefix(level, "topology.kubernetes.io/")
}

// evaluatedByLevel formats the evaluations per gang by level, feasible +
// infeasible (+ errors when any).
func evaluatedByLevel(counts map[string]map[string]float64, gangs int) string {
	if counts == nil || gangs == 0 {
		return "n/a"
	}
	totals := map[string]float64{}
	for level, byResult := range counts {
		for _, v := range byResult {
			totals[level] += v
		}
	}
	var parts []string
	for _, level := range levelsOrder(totals) {
		c := counts[level]
		part := fmt.Sprintf("%s %.1f + %.1f", levelName(level), c["feasible"]/float64(gangs), c["infeasible"]/float64(gangs))
		if c["error"] > 0 {
			part += fmt.Sprintf(" + %.1f errors", c["error"]/float64(gangs))
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "n/a"
	}
	return strings.Join(parts, ", ")
}

// levelsLayoutNote describes the fill: how the racks' used shares spread,
// and how many gangs of each size fit in one rack or one block at the
// start.
func levelsLayoutNote(o levelsOptions, lay levelsLayout) string {
	bounds := []float64{0.1, 0.4, 0.7, 0.9}
	names := []string{"under 10%", "10–40%", "40–70%", "70–90%", "90% or more"}
	counts := make([]int, len(names))
	for _, u := range lay.RackUsed {
		share := float64(u) / float64(lay.Shape.rackSlots())
		i := sort.SearchFloat64s(bounds, share)
		if i < len(bounds) && share == bounds[i] {
			i++
		}
		counts[i]++
	}
	var spread []string
	for i, n := range counts {
		spread = append(spread, fmt.Sprintf("%s: %d", names[i], n))
	}
	var fits []string
	for _, size := range o.GangSizes {
		racks := 0
		for _, f := range lay.rackFree() {
			if f >= size {
				racks++
			}
		}
		fits = append(fits, fmt.Sprintf("gangs of %d: %d racks have room for one, the racks hold %d one after the other, the blocks %d", size, racks, lay.gangsThatFit(size, true), lay.gangsThatFit(size, false)))
	}
	return fmt.Sprintf("Racks by used share: %s. At the start, %s.\n\n", strings.Join(spread, ", "), strings.Join(fits, "; "))
}

func levelsMarkdown(h *harness, results []levelsResult, reps int, o levelsOptions, lay levelsLayout) string {
	var b strings.Builder
	var runs []gangResult
	for _, r := range results {
		runs = append(runs, r.gangResult)
	}
	s := o.Shape
	b.WriteString(groupSuiteHeader(h, "topology levels (issue #24)", "bench/levels.go", reps, runs))
	fmt.Fprintf(&b, "%s (`-levels-shape %s`): node *i* is `%s<i>` with 4 CPUs, 32Gi (scheduler_perf's `node-default.yaml`), labelled `%s=block-<i / %d>` and `%s=rack-<i / %d>`. "+
		"Before anything is measured, every node gets one Pod in namespace `%s`, created bound to it (`spec.nodeName`, never scheduled), requesting %s and 0 to 4 CPUs, "+
		"so that the fill takes %.1f%% of the cluster's 1-CPU slots (`-levels-fill %g`), spread unevenly over the racks: their used shares follow a power curve from %.0f%% to %.0f%% whose mean is the fill, "+
		"handed to the racks in a seeded order (`-levels-seed %d`), the same on every run. ",
		s, s.flag(), levelsNodePrefix, levelsBlockLabel, s.nodesPerBlock(), levelsRackLabel, s.NodesPerRack, levelsFillNamespace, levelsFillMemory,
		100*lay.usedShare(), o.Fill, 100*levelsEmptiest, 100*levelsFullest, o.Seed)
	b.WriteString(levelsLayoutNote(o, lay))
	order := fmt.Sprintf("Then the PodGroup CRD (`%s`), one PodGroup per gang (`gang.minCount` = gang size) and a wait of %s, unmeasured, and the measured Pods "+
		"(`pod-default.yaml` with %s CPU, 500Mi; `%s=gang-<i>`) created at once: %d per gang size (`-levels-pods`). ",
		gangCRDFile, gangSettle, levelsPodCPU, gangPodGroupLabel, o.Pods)
	if o.PodsFirst {
		order = fmt.Sprintf("Then the PodGroup CRD (`%s`) and the Pods (`pod-default.yaml` with %s CPU, 500Mi; `%s=gang-<i>`), %d per gang size (`-levels-pods`), "+
			"before their PodGroups, and a wait of %s: unmeasured, the scheduler sets each pod aside until its PodGroup exists. "+
			"The measurement starts with the PodGroups, one per gang (`gang.minCount` = gang size), created at once, and ends when every pod is bound (`-levels-pods-first`): "+
			"the API server does not create the pods on the same 2 CPUs while the gangs are decided. "+
			"The scheduler refuses each pod once while its PodGroup is missing (\"PodGroup … does not exist\"), before the measurement; "+
			"the pod-group cycle counter is read whole, so *group cycles* counts those refusals too, and the CPU profile covers them: *CPU / group cycle* is n/a. ",
			gangCRDFile, levelsPodCPU, gangPodGroupLabel, o.Pods, podsFirstSettle)
	}
	b.WriteString(order)
	fmt.Fprintf(&b, "*Required block, preferred rack*: `schedulingConstraints.topology: [{key: %s, mode: Required}, {key: %s, mode: Preferred}]`. "+
		"*Required rack*: `[{key: %s}]`, the single level of the placement suite, with as many of the gangs as fit one after the other in one rack each (*gangs* column). "+
		"Both run on the same patched binary with `GangScheduling`, `TopologyAwareWorkloadScheduling` and `PodGroupTopologyLevels` on, each workload on a fresh cluster.\n\n",
		levelsBlockLabel, levelsRackLabel, levelsRackLabel)
	b.WriteString("*Decision*: `scheduler_placement_decision_duration_seconds{result=\"feasible\"}`, the placement decision alone (generating the candidates of every level, the room check, " +
		"evaluating and scoring them, up to the choice; without the commit). " +
		fmt.Sprintf("*p99 ≤ %d ms*: the goal of issue #24, judged on the worst p99 of the runs: *met* when the histogram bucket the p99 lies in ends at or below the goal, *missed* when it starts at or above it, "+
			"*undecided* when the bucket straddles it (buckets double from 0.5 ms: 64–128 ms holds 100 ms). ", levelsGoalMillis) +
		"*Group attempt*: `scheduler_podgroup_scheduling_attempt_duration_seconds`, the whole pod-group cycle (decision and commit). " +
		"*CPU / group cycle*: the CPU of the run's CPU profile under `(*Scheduler).scheduleOnePodGroup` (`go tool pprof -top -nodefraction=0 -focus='" + placementGroupCycleFocus + "'`) divided by the group cycles; " +
		"n/a without `-levels-cpuprofile`. " +
		"*Generated* and *evaluated* per gang, by level: `scheduler_generated_placements_by_level_total` and `scheduler_placement_evaluations_by_level_total` (feasible + infeasible) divided by the gangs; " +
		"n/a where the scheduler has no such count (a group without a Preferred level). Percentiles are interpolated within the histogram buckets, so they are coarse.\n\n")
	b.WriteString("| gang size | constraint | gangs | pods/s | group cycles | decision p50 / p99 (ms) | p99 ≤ 100 ms | group attempt p50 / p99 (ms) | CPU / group cycle (ms) | generated / gang | evaluated / gang |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---|---:|---:|---|---|\n")
	each := func(row func(size int, k levelsKind, r levelsResult)) {
		for _, size := range o.GangSizes {
			for _, k := range levelsKinds {
				if r, ok := levelsMedian(results, size, k); ok {
					row(size, k, r)
				}
			}
		}
	}
	each(func(size int, k levelsKind, r levelsResult) {
		cycles := "n/a"
		if r.GroupAttempts != nil {
			cycles = fmt.Sprintf("%.0f/%.0f", r.GroupAttempts["scheduled"], r.groupAttempts())
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %s%s | %s | %s | %s | %s | %s | %s | %s |\n",
			size, k.label(), r.Gangs, orNA(positiveOrNA(r.Throughput), "%.1f"), throughputSpread(results, func(x levelsResult) bool { return x.Size == size && x.Constraint == k }),
			cycles, p50p99(r.Decision), goalVerdict(worstDecisionP99(results, size, k)), p50p99(r.Group), orNA(r.GroupCPU, "%.1f"),
			byLevel(r.GeneratedByLevel, r.Gangs), evaluatedByLevel(r.EvaluatedByLevel, r.Gangs))
	})
	b.WriteString("\nWhere the gangs went, from the placement log (the same runs): a scheduler plugin that only this suite enables (`bench/testdata/perfpkg/" + levelsPluginFile + "`, " +
		"Reserve and PostBind) writes each bound member's node and when it was reserved; the driver replays the gangs in the order they were decided on the known fill, " +
		"so that it knows every rack's free slots when each gang was decided. " +
		"*Fewest racks*: the racks with the most free slots first, until they hold the gang: in the block the gang went to (*over its block's minimum*: gangs that used more racks than that), " +
		"and in the best block (*over the cluster's minimum*: more racks than any block needed; *split although one rack fit*: a rack anywhere had room for the whole gang). " +
		"*Racks used*: gangs × racks. Each run's gangs are listed in `_output/bench/runs/<test case>-rep<n>/" + levelsRacksFile + "`.\n\n")
	b.WriteString("| gang size | constraint | gangs | in one rack | racks / gang (mean / max) | racks used | over its block's minimum | over the cluster's minimum | split although one rack fit | across blocks |\n")
	b.WriteString("|---:|---|---:|---:|---:|---|---:|---:|---:|---:|\n")
	each(func(size int, k levelsKind, r levelsResult) {
		st := r.Racks
		if st.Compared == 0 {
			fmt.Fprintf(&b, "| %d | %s | %d | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n", size, k.label(), r.Gangs)
			return
		}
		over := fmt.Sprintf("%d", st.OverBlockMin)
		if st.WorstOver != "" {
			over += " (worst " + st.WorstOver + ")"
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %.2f / %d | %s | %s | %d | %d | %d |\n",
			size, k.label(), st.Compared, st.OneRack, st.meanOrNA(), st.Max, st.dist(), over, st.OverClusterMin, st.SpilledOverFit, st.CrossBlock)
	})
	var problems []string
	each(func(size int, k levelsKind, r levelsResult) {
		for _, p := range r.Racks.Problems {
			problems = append(problems, fmt.Sprintf("gangs of %d, %s: %s", size, k.label(), p))
		}
	})
	if len(problems) > 0 {
		b.WriteString("\nLeft out of the comparison:\n\n")
		for _, p := range problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	}
	b.WriteString("\nGoals (issue #24 item 7):\n\n```\n")
	b.WriteString(levelsGoals(results, o))
	b.WriteString("```\n")
	fmt.Fprintf(&b, "\nCommand: `%s`. Reproduce with the defaults: `make bench BENCH_ARGS='-suites levels'` (add `-reps 3` for medians; `-levels-shape`, `-levels-fill`, `-levels-seed`, "+
		"`-levels-gang-sizes` and `-levels-pods` change the cluster and the gangs, e.g. `-levels-shape 2/5/5 -levels-gang-sizes 8,24 -levels-pods 48` for a 50-node smoke run). "+
		"Raw data items, logs, profiles, placement logs and `%s` are in `_output/bench/runs/Levels*`.\n", o.Command, levelsRacksFile)
	return b.String()
}

// levelsGoals judges the runs against issue #24's goals: the decision p99
// of the two levels, and no gang over its minimum racks.
func levelsGoals(results []levelsResult, o levelsOptions) string {
	var b strings.Builder
	for _, size := range o.GangSizes {
		for _, k := range levelsKinds {
			r, ok := levelsMedian(results, size, k)
			if !ok {
				continue
			}
			p99 := worstDecisionP99(results, size, k)
			fmt.Fprintf(&b, "gangs of %d, %s, %d nodes:\n", size, k.label(), o.Shape.nodes())
			fmt.Fprintf(&b, "  decision p99 <= %d ms   %s (worst p99 %s ms)\n", levelsGoalMillis, goalVerdict(p99), orNA(p99, "%.1f"))
			st := r.Racks
			switch {
			case st.Compared == 0:
				b.WriteString("  racks over the minimum  n/a (no placement log)\n")
			case st.OverBlockMin == 0:
				fmt.Fprintf(&b, "  racks over the minimum  none (%d gangs, at most %d rack(s) each)\n", st.Compared, st.Max)
			default:
				fmt.Fprintf(&b, "  racks over the minimum  %d of %d gangs (worst %s)\n", st.OverBlockMin, st.Compared, st.WorstOver)
			}
		}
	}
	return b.String()
}
