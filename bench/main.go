// Command bench is kspatch's `make bench`: it runs scheduler_perf workloads on
// the vanilla tree (the pinned release plus the build fix-up) and on the
// patched tree in one run, alternating sides so that machine noise hits both
// alike, and reports per workload each side's throughput and scheduler
// metrics, the ratios between sides, a markdown summary and PNG plots.
//
// Suites (-suites): burst (DRA claim-template burst, KEP-6132;
// docs/benchmarks.md), apicalls (API call latency, KEP-5229;
// docs/benchmarks-apicalls.md), gangs (gangs of PodGroup members against
// the same pods without a group, KEP-5732; docs/benchmarks-gangs.md) and
// placement (gangs kept in one rack against the same gangs without the
// constraint, issue #8; docs/benchmarks-placement.md) and upstream
// (upstream's own scheduler_perf workloads from
// test/integration/scheduler_perf/misc/performance-config.yaml, vanilla
// against patched with every gate at its default, goal >= 0.98x, issue #20;
// docs/benchmarks-upstream.md) and levels (gangs kept in one block and
// preferably one rack of a filled cluster, against the same gangs in one
// rack, issue #24; docs/benchmarks-levels.md) and preemption (gangs of
// PodGroup members preempting as one unit on a full cluster, against the
// same pods without a group, WorkloadAwarePreemption;
// docs/benchmarks-preemption.md) and memory (the real kube-scheduler
// binaries, vanilla and patched, each against a fresh local control plane:
// heap in use after GC and peak RSS, issue #43; bench/memory.go,
// docs/benchmarks-memory.md). The default is burst,apicalls; gangs,
// placement, upstream, levels, preemption and memory run on request
// (-suites gangs,placement,upstream,levels,preemption,memory).
//
// Both trees get the same test-only harness: bench/scheduler_perf-data-items.patch
// (histogram counts and sums, counters in the data items; counted and delayed
// Pod writes; createAny retries an object whose kind is not in discovery yet,
// as right after its CRD was created) and the workload
// package in bench/testdata/perfpkg with a generated performance-config.yaml.
// They live in git worktrees under _output/bench, so _output/kubernetes stays
// exactly the series.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	var (
		root      = flag.String("root", "..", "the kspatch checkout")
		sizesFlag = flag.String("sizes", "1000,2000,5000", "burst sizes (pods), comma-separated")
		reps      = flag.Int("reps", 1, "runs per side and size; sides take turns within each repetition, in reverse order in even ones")
		sideNames = flag.String("sides", "vanilla,patched-gate-off,patched-no-slice-cache,patched-gate-on", "sides to run, comma-separated")
		mdOut     = flag.String("markdown", "docs/benchmarks.md", "markdown summary to write (relative to -root unless absolute); empty for none")
		plotDir   = flag.String("plots", "docs/bench", "directory for the PNG plots (relative to -root unless absolute); empty for none")
		profile   = flag.Int("cpuprofile-size", 0, "also record a CPU and an allocation profile (cpu.pprof, mem.pprof) of each side at this burst size")
		suites    = flag.String("suites", defaultSuites, "suites to run: burst (DRA claim-template burst, KEP-6132), apicalls (API call latency, KEP-5229), gangs (gang scheduling, KEP-5732), placement (topology-aware placement of gangs, issue #8), upstream (upstream's scheduler_perf misc and DRA workloads, vanilla vs patched, issue #20), levels (gangs with a required block and a preferred rack against a required rack, issue #24; patched tree only), preemption (gangs preempting as one unit on a full cluster against the same pods without a group, WorkloadAwarePreemption), memory (heap after GC and peak RSS of the real binaries, vanilla and patched, issue #43; -memory-* flags)")
		apiPods   = flag.Int("api-pods", defaultAPIOptions().Pods, "measured pods of the apicalls suite")
		apiMD     = flag.String("apicalls-markdown", defaultAPIOptions().Markdown, "markdown summary of the apicalls suite (relative to -root unless absolute); empty for none")
		apiProf   = flag.Bool("api-cpuprofile", false, "apicalls suite: record a CPU profile of every run (cpu.pprof in its run directory)")
		apiKeys   = flag.String("api-workloads", "", "apicalls suite: workloads to run, comma-separated keys (churn5-50ms, churn10-50ms, churn5-100ms, churn5-150ms, churn5-175ms, normal-50ms, normal, backlog-qps50); empty for all")
		gangSizes = flag.String("gang-sizes", joinInts(defaultGangOptions().Sizes), "gangs suite: pods per gang (each gang's PodGroup has minCount = its size), comma-separated")
		gangPods  = flag.Int("gang-pods", defaultGangOptions().Pods, "gangs suite: measured pods of every workload; a multiple of every gang size")
		gangNodes = flag.Int("gang-nodes", defaultGangOptions().Nodes, "gangs suite: fake nodes")
		gangMD    = flag.String("gangs-markdown", defaultGangOptions().Markdown, "markdown summary of the gangs suite (relative to -root unless absolute); empty for none")
		gangProf  = flag.Bool("gang-cpuprofile", false, "gangs suite: record a CPU profile of every run (cpu.pprof in its run directory)")
		plClust   = flag.String("placement-clusters", formatPlacementClusters(defaultPlacementOptions().Clusters), "placement suite: cluster shapes as nodes/racks (racks of equal size), or nodes/racks/loaded for the same shape about 90% full first (one bound fill pod a node; only every tenth rack has room for gangs), comma-separated")
		plGang    = flag.Int("placement-gang-size", defaultPlacementOptions().GangSize, "placement suite: pods per gang (its PodGroup's minCount)")
		plPods    = flag.Int("placement-pods", defaultPlacementOptions().Pods, "placement suite: measured pods of every workload on a shape that is not loaded; a multiple of the gang size")
		plLoaded  = flag.Int("placement-loaded-pods", defaultPlacementOptions().LoadedPods, "placement suite: measured pods of every workload on a loaded shape (nodes/racks/loaded); a multiple of the gang size, whose gangs fit in the open racks")
		plMD      = flag.String("placement-markdown", defaultPlacementOptions().Markdown, "markdown summary of the placement suite (relative to -root unless absolute); empty for none")
		plProf    = flag.Bool("placement-cpuprofile", false, "placement suite: record a CPU profile of every run (cpu.pprof in its run directory) and report the CPU per pod-group cycle from it")
		upKeys    = flag.String("upstream-workloads", "", "upstream suite: workloads to run, comma-separated: a test case ("+upstreamPresetNames()+") at its -upstream-size workload, TestCase/Workload naming any workload of upstream's misc/performance-config.yaml, or dra/TestCase/Workload naming any workload of upstream's dra/performance-config.yaml (misc/ may prefix the first two); empty for "+upstreamDefaultNames())
		upSize    = flag.String("upstream-size", defaultUpstreamOptions().Size, "upstream suite: the workload each test case runs: small (about 1000 measured pods, a quick check) or large (5000 nodes and 10000 measured pods where upstream has them)")
		upMD      = flag.String("upstream-markdown", defaultUpstreamOptions().Markdown, "markdown summary of the upstream suite (relative to -root unless absolute); empty for none")
		upProf    = flag.Bool("upstream-cpuprofile", false, "upstream suite: record a CPU profile of every run (cpu.pprof in its run directory)")
		lvShape   = flag.String("levels-shape", defaultLevelsOptions().Shape.flag(), "levels suite: the cluster as blocks/racks per block/nodes per rack (4-CPU nodes)")
		lvFill    = flag.Float64("levels-fill", defaultLevelsOptions().Fill, "levels suite: share of the cluster's 1-CPU slots the fill pods take before the gangs, spread unevenly over the racks (0 to 0.95)")
		lvSeed    = flag.Uint64("levels-seed", defaultLevelsOptions().Seed, "levels suite: seed of the fill's distribution over the racks")
		lvSizes   = flag.String("levels-gang-sizes", joinInts(defaultLevelsOptions().GangSizes), "levels suite: pods per gang (its PodGroup's minCount), comma-separated; each size is its own workloads")
		lvPods    = flag.Int("levels-pods", defaultLevelsOptions().Pods, "levels suite: measured pods of every workload with the two levels, a multiple of every gang size; the required rack runs as many of its gangs as fit in racks")
		lvMD      = flag.String("levels-markdown", defaultLevelsOptions().Markdown, "markdown summary of the levels suite (relative to -root unless absolute); empty for none")
		lvProf    = flag.Bool("levels-cpuprofile", defaultLevelsOptions().Profile, "levels suite: record a CPU profile of every run (cpu.pprof in its run directory) for the CPU per pod-group cycle")
		lvFirst   = flag.Bool("levels-pods-first", false, "levels suite: create the measured pods first, unmeasured, and measure from the creation of their PodGroups (test cases ...PodsFirst)")
		prNodes   = flag.Int("preemption-nodes", defaultPreemptionOptions().Nodes, "preemption suite: fake 4-CPU nodes, filled completely with 1-CPU pods of priority 0 first")
		prSizes   = flag.String("preemption-gang-sizes", joinInts(defaultPreemptionOptions().GangSizes), "preemption suite: pods per gang (its PodGroup's minCount), comma-separated; each size is its own workloads")
		prPods    = flag.Int("preemption-pods", defaultPreemptionOptions().Pods, "preemption suite: measured 1-CPU pods of priority 100 of every workload, a multiple of every gang size")
		prRack    = flag.Int("preemption-rack-nodes", defaultPreemptionOptions().RackNodes, "preemption suite: nodes per rack of the variant whose gangs must stay in one rack; 0 for no such variant")
		prVanilla = flag.Bool("preemption-vanilla", defaultPreemptionOptions().Vanilla, "preemption suite: also run the pods without a group on the vanilla tree")
		prMD      = flag.String("preemption-markdown", defaultPreemptionOptions().Markdown, "markdown summary of the preemption suite (relative to -root unless absolute); empty for none")
		prProf    = flag.Bool("preemption-cpuprofile", false, "preemption suite: record a CPU profile of every run (cpu.pprof in its run directory)")
	)
	memoryOpts := memoryFlags(flag.CommandLine)
	flag.Parse()
	otherSuites, runMem := takeSuite(*suites, "memory")
	var mem memoryOptions
	if runMem {
		var err error
		if mem, err = memoryOpts(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
	}
	sizes, err := parseGangSizes(*gangSizes)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
	clusters, err := parsePlacementClusters(*plClust)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
	lvShapeParsed, err := parseLevelsShape(*lvShape)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
	lvSizesParsed, err := parseLevelsGangSizes(*lvSizes)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
	prSizesParsed, err := parsePreemptionGangSizes(*prSizes)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
	command := commandLine(os.Args[1:])
	gangs := gangOptions{Sizes: sizes, Pods: *gangPods, Nodes: *gangNodes, Markdown: *gangMD, Profile: *gangProf, Command: command}
	placement := placementOptions{Clusters: clusters, GangSize: *plGang, Pods: *plPods, LoadedPods: *plLoaded, Markdown: *plMD, Profile: *plProf, Command: command}
	api := apiOptions{Pods: *apiPods, Markdown: *apiMD, Workloads: *apiKeys, Profile: *apiProf, Command: command}
	up := upstreamOptions{Workloads: *upKeys, Size: *upSize, Markdown: *upMD, Profile: *upProf, Command: command}
	levels := levelsOptions{Shape: lvShapeParsed, Fill: *lvFill, Seed: *lvSeed, GangSizes: lvSizesParsed, Pods: *lvPods, Markdown: *lvMD, Profile: *lvProf, PodsFirst: *lvFirst, Command: command}
	preemption := preemptionOptions{Nodes: *prNodes, GangSizes: prSizesParsed, Pods: *prPods, RackNodes: *prRack, Vanilla: *prVanilla, Markdown: *prMD, Profile: *prProf, Command: command}
	if otherSuites != "" {
		if err := run(*root, *sizesFlag, *reps, *sideNames, *mdOut, *plotDir, *profile, otherSuites, api, gangs, placement, up, levels, preemption); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
	}
	if runMem {
		mem.Command = command
		root, err := filepath.Abs(*root)
		if err == nil {
			err = runMemory(root, mem)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
	}
}

// takeSuite removes name from a comma-separated list of suites and says
// whether it was there. The memory suite runs apart from the others: it
// builds no scheduler_perf, it runs the real binaries.
func takeSuite(suites, name string) (rest string, found bool) {
	var kept []string
	for _, s := range strings.Split(suites, ",") {
		if strings.TrimSpace(s) == name {
			found = true
			continue
		}
		kept = append(kept, s)
	}
	return strings.Join(kept, ","), found
}

// defaultSuites are the suites `make bench` runs without -suites. The gangs
// suite is not among them: it is five runs of 2048 pods on 500 nodes per
// repetition (about 2 minutes on 2 cores, plus building both trees'
// scheduler_perf), which a plain `make bench` need not pay for while the
// burst and apicalls suites are what most changes touch; run it with
// -suites gangs (or -suites burst,apicalls,gangs). The placement suite is
// not among them either: nine runs per repetition, six of them on 5000
// nodes (three of those filled with 5000 pods first); run it with -suites
// placement. Nor is the upstream suite: twelve runs per repetition at its
// default size, most of them on 5000 nodes (an estimated half hour on 2
// cores); run it with -suites upstream. Nor is the levels suite: four runs
// per repetition on 5000 nodes filled with 5000 pods first, each with up
// to 4096 measured pods; run it with -suites levels. Nor is the preemption
// suite: six runs per repetition on 500 nodes filled with 2000 pods first;
// run it with -suites preemption.
const defaultSuites = "burst,apicalls"

// commandLine is the make command that repeats a run with args (bench's
// arguments; -root is the checkout make passes).
func commandLine(args []string) string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-root" || a == "--root" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-root=") || strings.HasPrefix(a, "--root=") {
			continue
		}
		if a == "" || strings.ContainsAny(a, " \t'\"$\\") {
			a = strconv.Quote(a)
		}
		kept = append(kept, a)
	}
	if len(kept) == 0 {
		return "make bench"
	}
	return "make bench BENCH_ARGS='" + strings.Join(kept, " ") + "'"
}

// run runs the suites chosen by suites with their options; preemption is
// the preemption suite's, its defaults when none is given (the other
// suites' tests pass none).
func run(root, sizesFlag string, reps int, sideNames, mdOut, plotDir string, profileSize int, suites string, api apiOptions, gangs gangOptions, placement placementOptions, up upstreamOptions, levels levelsOptions, preemption ...preemptionOptions) error {
	pre := defaultPreemptionOptions()
	if len(preemption) > 0 {
		pre = preemption[0]
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	sizes, err := parseSizes(sizesFlag)
	if err != nil {
		return err
	}
	if reps < 1 {
		return fmt.Errorf("invalid -reps %d: must be at least 1", reps)
	}
	chosen, err := chooseSides(sideNames)
	if err != nil {
		return err
	}
	runBurst, runAPI, runGang, runPlace, runUp, runLevel, runPre := false, false, false, false, false, false, false
	for _, s := range strings.Split(suites, ",") {
		switch strings.TrimSpace(s) {
		case "burst":
			runBurst = true
		case "apicalls":
			runAPI = true
		case "gangs":
			runGang = true
		case "placement":
			runPlace = true
		case "upstream":
			runUp = true
		case "levels":
			runLevel = true
		case "preemption":
			runPre = true
		default:
			return fmt.Errorf("unknown suite %q in -suites: allowed are burst, apicalls, gangs, placement, upstream, levels, preemption, memory", s)
		}
	}
	files, err := groupSuiteFiles(root, runGang, runPlace, gangs, placement)
	if err != nil {
		return err
	}
	if runLevel {
		if files, err = levelsSuiteFiles(root, files, levels); err != nil {
			return err
		}
	}
	if runPre {
		if files, err = preemptionSuiteFiles(root, files, pre); err != nil {
			return err
		}
	}
	apiChosen, err := api.validate()
	if err != nil {
		return err
	}
	var upChosen []upstreamWorkload
	if runUp {
		if upChosen, err = up.validate(); err != nil {
			return err
		}
	}
	h := &harness{root: root, out: filepath.Join(root, "_output", "bench")}
	var upConfig string
	if runUp {
		raw, ref, err := upstreamSource(h)
		if err != nil {
			return fmt.Errorf("the upstream suite reads %s from the vanilla tree: %w", upstreamConfigPath, err)
		}
		if upConfig, upChosen, err = upstreamConfig(raw, ref, upChosen); err != nil {
			return err
		}
	}
	var trees []string
	if runBurst {
		trees = treesOf(chosen)
	}
	if runAPI || runGang || runPlace || runUp {
		trees = []string{"vanilla", "patched"}
	}
	if runLevel && !slices.Contains(trees, levelsSide.Tree) {
		// The levels suite runs on the patched tree alone.
		trees = append(trees, levelsSide.Tree)
	}
	if runPre {
		for _, tree := range preemptionTrees(pre) {
			if !slices.Contains(trees, tree) {
				trees = append(trees, tree)
			}
		}
	}
	for _, tree := range trees {
		config := burstConfig(tree, sizes) + apiCallsConfig(tree, api.Pods, apiNodes)
		if runGang {
			config += gangsConfig(tree, gangs)
		}
		if runPlace {
			config += placementConfig(tree, placement)
		}
		config += upConfig
		if runLevel {
			config += levelsConfig(tree, levels)
		}
		if runPre {
			config += preemptionConfig(tree, pre)
		}
		if err := h.prepare(tree, config, files); err != nil {
			return fmt.Errorf("preparing the %s tree: %w", tree, err)
		}
	}
	if runAPI {
		if err := runAPICalls(h, apiChosen, reps, api); err != nil {
			return err
		}
	}
	if runGang {
		if err := runGangs(h, reps, gangs); err != nil {
			return err
		}
	}
	if runPlace {
		if err := runPlacement(h, reps, placement); err != nil {
			return err
		}
	}
	if runUp {
		if err := runUpstream(h, upChosen, reps, up); err != nil {
			return err
		}
	}
	if runLevel {
		if err := runLevels(h, reps, levels); err != nil {
			return err
		}
	}
	if runPre {
		if err := runPreemption(h, reps, pre); err != nil {
			return err
		}
	}
	if !runBurst {
		return nil
	}
	var results []result
	for rep := 1; rep <= reps; rep++ {
		for _, n := range sizes {
			for _, s := range sidesForRep(chosen, rep) {
				r, err := h.runOne(s, n, rep, profileSize == n)
				if err != nil {
					return fmt.Errorf("%s with %d pods: %w", s.Name, n, err)
				}
				fmt.Printf("%-18s %5d pods  rep %d  %7.1f pods/s  %9.0f hint calls  %9.1f ms claim events\n",
					s.Name, n, rep, r.Throughput, r.HintCalls, r.ClaimEventMillis)
				results = append(results, r)
			}
		}
	}
	sum := summarize(results, chosen, sizes)
	fmt.Println()
	fmt.Print(sum.table())
	if plotDir != "" {
		if err := sum.plots(underRoot(root, plotDir)); err != nil {
			return err
		}
	}
	if mdOut != "" {
		if err := os.WriteFile(underRoot(root, mdOut), []byte(sum.markdown(h, plotDir, reps)), 0o644); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s\n", mdOut)
	}
	return nil
}

// groupSuiteFiles validates the options of the pod-group suites that run
// and returns their templates for the workload package (nil when neither
// runs). Both read the checkout's PodGroup CRD.
func groupSuiteFiles(root string, runGang, runPlace bool, gangs gangOptions, placement placementOptions) (map[string][]byte, error) {
	if !runGang && !runPlace {
		return nil, nil
	}
	if runGang {
		if err := gangs.validate(); err != nil {
			return nil, err
		}
	}
	if runPlace {
		if err := placement.validate(); err != nil {
			return nil, err
		}
	}
	crd, err := os.ReadFile(filepath.Join(root, gangCRDFile))
	if err != nil {
		suite := "gangs"
		if !runGang {
			suite = "placement"
		}
		return nil, fmt.Errorf("the %s suite needs the PodGroup CRD: %w", suite, err)
	}
	files := map[string][]byte{}
	if runGang {
		more, err := gangFiles(crd, gangs.Sizes)
		if err != nil {
			return nil, err
		}
		maps.Copy(files, more)
	}
	if runPlace {
		more, err := placementFiles(crd, placement)
		if err != nil {
			return nil, err
		}
		maps.Copy(files, more)
	}
	return files, nil
}

func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid -sizes entry %q: must be a positive number of pods", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func chooseSides(names string) ([]side, error) {
	var chosen []side
	for _, name := range strings.Split(names, ",") {
		found := false
		for _, s := range sides {
			if s.Name == strings.TrimSpace(name) {
				chosen = append(chosen, s)
				found = true
			}
		}
		if !found {
			var all []string
			for _, s := range sides {
				all = append(all, s.Name)
			}
			return nil, fmt.Errorf("unknown side %q in -sides: allowed are %s", name, strings.Join(all, ", "))
		}
	}
	return chosen, nil
}

func treesOf(chosen []side) []string {
	var trees []string
	seen := map[string]bool{}
	for _, s := range chosen {
		if !seen[s.Tree] {
			seen[s.Tree] = true
			trees = append(trees, s.Tree)
		}
	}
	return trees
}
