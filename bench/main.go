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
	"strconv"
	"strings"
)

func main() {
	memoryOpts := memoryFlags(flag.CommandLine)
	opts := optionFlags(flag.CommandLine)
	flag.Parse()
	if err := runFlags(commandLine(os.Args[1:]), memoryOpts, opts); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// runFlags runs the suites the parsed flags choose: the registry's (run),
// then the memory suite apart, each with command in its summary. The
// memory suite's options are checked first, and only when it runs.
func runFlags(command string, memoryOpts func() (memoryOptions, error), opts func(command string) (options, error)) error {
	o, optsErr := opts(command)
	otherSuites, runMem := takeSuite(o.Suites, memorySuite)
	var mem memoryOptions
	if runMem {
		var err error
		if mem, err = memoryOpts(); err != nil {
			return err
		}
		mem.Command = command
	}
	if optsErr != nil {
		return optsErr
	}
	if otherSuites != "" {
		o.Suites = otherSuites
		if err := run(o); err != nil {
			return err
		}
	}
	if !runMem {
		return nil
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return err
	}
	return runMemory(root, mem)
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

// run runs the suites o.Suites chooses, with their options: it checks
// them all, prepares every tree they need with the test cases of all of
// them, then runs one suite after the other.
func run(o options) error {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return err
	}
	sizes, err := parseSizes(o.Sizes)
	if err != nil {
		return err
	}
	if o.Reps < 1 {
		return fmt.Errorf("invalid -reps %d: must be at least 1", o.Reps)
	}
	sides, err := chooseSides(o.Sides)
	if err != nil {
		return err
	}
	all := registry(o, burstSuite{sizes: sizes, sides: sides, profileSize: o.ProfileSize, markdown: o.Markdown, plots: o.Plots})
	chosen, err := chooseSuites(all, o.Suites)
	if err != nil {
		return err
	}
	h := &harness{root: root, out: filepath.Join(root, "_output", "bench")}
	inConfig := configured(all, chosen)
	files := map[string][]byte{}
	for _, s := range inConfig {
		more, err := s.prepare(h)
		if err != nil {
			return err
		}
		maps.Copy(files, more)
	}
	var trees []string
	for _, s := range chosen {
		trees = s.trees(trees)
	}
	for _, tree := range trees {
		var config strings.Builder
		for _, s := range inConfig {
			config.WriteString(s.config(tree))
		}
		if err := h.prepare(tree, config.String(), files); err != nil {
			return fmt.Errorf("preparing the %s tree: %w", tree, err)
		}
	}
	for _, s := range runOrder(chosen) {
		if err := s.run(h, o.Reps); err != nil {
			return err
		}
	}
	return nil
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
