package main

import "flag"

// options are what run runs: the checkout, the burst's flags, -reps,
// -suites and the options of every suite that runs on scheduler_perf (the
// memory suite has its own, memoryOptions).
type options struct {
	// Root is the kspatch checkout.
	Root string
	// Sizes are the burst sizes (pods), comma-separated; Sides the burst's
	// sides, comma-separated.
	Sizes, Sides string
	// Reps is the runs per side and workload.
	Reps int
	// Markdown is the burst's summary and Plots the directory of its PNG
	// plots (relative to Root unless absolute); empty for none.
	Markdown, Plots string
	// ProfileSize is the burst size whose runs record a CPU and an
	// allocation profile; 0 for none.
	ProfileSize int
	// Suites are the suites to run, comma-separated.
	Suites string
	// The options of the suites.
	API        apiOptions
	Gangs      gangOptions
	Placement  placementOptions
	Upstream   upstreamOptions
	Levels     levelsOptions
	Preemption preemptionOptions
}

// defaultOptions are the flags' defaults.
func defaultOptions() options {
	return options{
		Root: "..", Sizes: "1000,2000,5000", Sides: "vanilla,patched-gate-off,patched-no-slice-cache,patched-gate-on", Reps: 1,
		Markdown: "docs/benchmarks.md", Plots: "docs/bench", Suites: defaultSuites,
		API: defaultAPIOptions(), Gangs: defaultGangOptions(), Placement: defaultPlacementOptions(), Upstream: defaultUpstreamOptions(),
		Levels: defaultLevelsOptions(), Preemption: defaultPreemptionOptions(),
	}
}

// optionFlags registers the flags of options on fs and returns a function
// that, after fs.Parse, returns the options, with command (the command
// line that repeats the run) in every suite's summary.
func optionFlags(fs *flag.FlagSet) func(command string) (options, error) {
	o := defaultOptions()
	fs.StringVar(&o.Root, "root", o.Root, "the kspatch checkout")
	fs.StringVar(&o.Sizes, "sizes", o.Sizes, "burst sizes (pods), comma-separated")
	fs.IntVar(&o.Reps, "reps", o.Reps, "runs per side and size; sides take turns within each repetition, in reverse order in even ones")
	fs.StringVar(&o.Sides, "sides", o.Sides, "sides to run, comma-separated")
	fs.StringVar(&o.Markdown, "markdown", o.Markdown, "markdown summary to write (relative to -root unless absolute); empty for none")
	fs.StringVar(&o.Plots, "plots", o.Plots, "directory for the PNG plots (relative to -root unless absolute); empty for none")
	fs.IntVar(&o.ProfileSize, "cpuprofile-size", o.ProfileSize, "also record a CPU and an allocation profile (cpu.pprof, mem.pprof) of each side at this burst size")
	fs.StringVar(&o.Suites, "suites", o.Suites, "suites to run: burst (DRA claim-template burst, KEP-6132), apicalls (API call latency, KEP-5229), gangs (gang scheduling, KEP-5732), placement (topology-aware placement of gangs, issue #8), upstream (upstream's scheduler_perf misc and DRA workloads, vanilla vs patched, issue #20), levels (gangs with a required block and a preferred rack against a required rack, issue #24; patched tree only), preemption (gangs preempting as one unit on a full cluster against the same pods without a group, WorkloadAwarePreemption), memory (heap after GC and peak RSS of the real binaries, vanilla and patched, issue #43; -memory-* flags)")
	fs.IntVar(&o.API.Pods, "api-pods", o.API.Pods, "measured pods of the apicalls suite")
	fs.StringVar(&o.API.Markdown, "apicalls-markdown", o.API.Markdown, "markdown summary of the apicalls suite (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.API.Profile, "api-cpuprofile", o.API.Profile, "apicalls suite: record a CPU profile of every run (cpu.pprof in its run directory)")
	fs.StringVar(&o.API.Workloads, "api-workloads", o.API.Workloads, "apicalls suite: workloads to run, comma-separated keys (churn5-50ms, churn10-50ms, churn5-100ms, churn5-150ms, churn5-175ms, normal-50ms, normal, backlog-qps50); empty for all")
	gangSizes := fs.String("gang-sizes", joinInts(o.Gangs.Sizes), "gangs suite: pods per gang (each gang's PodGroup has minCount = its size), comma-separated")
	fs.IntVar(&o.Gangs.Pods, "gang-pods", o.Gangs.Pods, "gangs suite: measured pods of every workload; a multiple of every gang size")
	fs.IntVar(&o.Gangs.Nodes, "gang-nodes", o.Gangs.Nodes, "gangs suite: fake nodes")
	fs.StringVar(&o.Gangs.Markdown, "gangs-markdown", o.Gangs.Markdown, "markdown summary of the gangs suite (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.Gangs.Profile, "gang-cpuprofile", o.Gangs.Profile, "gangs suite: record a CPU profile of every run (cpu.pprof in its run directory)")
	clusters := fs.String("placement-clusters", formatPlacementClusters(o.Placement.Clusters), "placement suite: cluster shapes as nodes/racks (racks of equal size), or nodes/racks/loaded for the same shape about 90% full first (one bound fill pod a node; only every tenth rack has room for gangs), comma-separated")
	fs.IntVar(&o.Placement.GangSize, "placement-gang-size", o.Placement.GangSize, "placement suite: pods per gang (its PodGroup's minCount)")
	fs.IntVar(&o.Placement.Pods, "placement-pods", o.Placement.Pods, "placement suite: measured pods of every workload on a shape that is not loaded; a multiple of the gang size")
	fs.IntVar(&o.Placement.LoadedPods, "placement-loaded-pods", o.Placement.LoadedPods, "placement suite: measured pods of every workload on a loaded shape (nodes/racks/loaded); a multiple of the gang size, whose gangs fit in the open racks")
	fs.StringVar(&o.Placement.Markdown, "placement-markdown", o.Placement.Markdown, "markdown summary of the placement suite (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.Placement.Profile, "placement-cpuprofile", o.Placement.Profile, "placement suite: record a CPU profile of every run (cpu.pprof in its run directory) and report the CPU per pod-group cycle from it")
	fs.StringVar(&o.Upstream.Workloads, "upstream-workloads", o.Upstream.Workloads, "upstream suite: workloads to run, comma-separated: a test case ("+upstreamPresetNames()+") at its -upstream-size workload, TestCase/Workload naming any workload of upstream's misc/performance-config.yaml, or dra/TestCase/Workload naming any workload of upstream's dra/performance-config.yaml (misc/ may prefix the first two); empty for "+upstreamDefaultNames())
	fs.StringVar(&o.Upstream.Size, "upstream-size", o.Upstream.Size, "upstream suite: the workload each test case runs: small (about 1000 measured pods, a quick check) or large (5000 nodes and 10000 measured pods where upstream has them)")
	fs.StringVar(&o.Upstream.Markdown, "upstream-markdown", o.Upstream.Markdown, "markdown summary of the upstream suite (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.Upstream.Profile, "upstream-cpuprofile", o.Upstream.Profile, "upstream suite: record a CPU profile of every run (cpu.pprof in its run directory)")
	shape := fs.String("levels-shape", o.Levels.Shape.flag(), "levels suite: the cluster as blocks/racks per block/nodes per rack (4-CPU nodes)")
	fs.Float64Var(&o.Levels.Fill, "levels-fill", o.Levels.Fill, "levels suite: share of the cluster's 1-CPU slots the fill pods take before the gangs, spread unevenly over the racks (0 to 0.95)")
	fs.Uint64Var(&o.Levels.Seed, "levels-seed", o.Levels.Seed, "levels suite: seed of the fill's distribution over the racks")
	levelsSizes := fs.String("levels-gang-sizes", joinInts(o.Levels.GangSizes), "levels suite: pods per gang (its PodGroup's minCount), comma-separated; each size is its own workloads")
	fs.IntVar(&o.Levels.Pods, "levels-pods", o.Levels.Pods, "levels suite: measured pods of every workload with the two levels, a multiple of every gang size; the required rack runs as many of its gangs as fit in racks")
	fs.StringVar(&o.Levels.Markdown, "levels-markdown", o.Levels.Markdown, "markdown summary of the levels suite (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.Levels.Profile, "levels-cpuprofile", o.Levels.Profile, "levels suite: record a CPU profile of every run (cpu.pprof in its run directory) for the CPU per pod-group cycle")
	fs.BoolVar(&o.Levels.PodsFirst, "levels-pods-first", o.Levels.PodsFirst, "levels suite: create the measured pods first, unmeasured, and measure from the creation of their PodGroups (test cases ...PodsFirst)")
	fs.IntVar(&o.Preemption.Nodes, "preemption-nodes", o.Preemption.Nodes, "preemption suite: fake 4-CPU nodes, filled completely with 1-CPU pods of priority 0 first")
	preemptionSizes := fs.String("preemption-gang-sizes", joinInts(o.Preemption.GangSizes), "preemption suite: pods per gang (its PodGroup's minCount), comma-separated; each size is its own workloads")
	fs.IntVar(&o.Preemption.Pods, "preemption-pods", o.Preemption.Pods, "preemption suite: measured 1-CPU pods of priority 100 of every workload, a multiple of every gang size")
	fs.IntVar(&o.Preemption.RackNodes, "preemption-rack-nodes", o.Preemption.RackNodes, "preemption suite: nodes per rack of the variant whose gangs must stay in one rack; 0 for no such variant")
	fs.BoolVar(&o.Preemption.Vanilla, "preemption-vanilla", o.Preemption.Vanilla, "preemption suite: also run the pods without a group on the vanilla tree")
	fs.StringVar(&o.Preemption.Markdown, "preemption-markdown", o.Preemption.Markdown, "markdown summary of the preemption suite (relative to -root unless absolute); empty for none")
	fs.BoolVar(&o.Preemption.Profile, "preemption-cpuprofile", o.Preemption.Profile, "preemption suite: record a CPU profile of every run (cpu.pprof in its run directory)")
	return func(command string) (options, error) {
		var err error
		if o.Gangs.Sizes, err = parsePositiveSizes("gang-sizes", *gangSizes); err != nil {
			return o, err
		}
		if o.Placement.Clusters, err = parsePlacementClusters(*clusters); err != nil {
			return o, err
		}
		if o.Levels.Shape, err = parseLevelsShape(*shape); err != nil {
			return o, err
		}
		if o.Levels.GangSizes, err = parsePositiveSizes("levels-gang-sizes", *levelsSizes); err != nil {
			return o, err
		}
		if o.Preemption.GangSizes, err = parsePositiveSizes("preemption-gang-sizes", *preemptionSizes); err != nil {
			return o, err
		}
		o.API.Command, o.Gangs.Command, o.Placement.Command, o.Upstream.Command, o.Levels.Command, o.Preemption.Command =
			command, command, command, command, command, command
		return o, nil
	}
}
