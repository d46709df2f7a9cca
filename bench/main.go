// Command bench is kspatch's `make bench`: it runs scheduler_perf workloads on
// the vanilla tree (the pinned release plus the build fix-up) and on the
// patched tree in one run, alternating sides so that machine noise hits both
// alike, and reports per workload each side's throughput and scheduler
// metrics, the ratios between sides, a markdown summary and PNG plots.
//
// Both trees get the same test-only harness: bench/scheduler_perf-data-items.patch
// (histogram counts and sums, counters in the data items) and the workload
// package in bench/testdata/perfpkg with a generated performance-config.yaml.
// They live in git worktrees under _output/bench, so _output/kubernetes stays
// exactly the series.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	var (
		root      = flag.String("root", "..", "the kspatch checkout")
		sizesFlag = flag.String("sizes", "1000,2000,5000", "burst sizes (pods), comma-separated")
		reps      = flag.Int("reps", 1, "runs per side and size; sides alternate within each repetition")
		sideNames = flag.String("sides", "vanilla,patched-gate-off,patched-gate-on", "sides to run, comma-separated")
		mdOut     = flag.String("markdown", "docs/benchmarks.md", "markdown summary to write (relative to -root); empty for none")
		plotDir   = flag.String("plots", "docs/bench", "directory for the PNG plots (relative to -root); empty for none")
		profile   = flag.Int("cpuprofile-size", 0, "also record a CPU profile of each side at this burst size")
		suites    = flag.String("suites", "burst,apicalls", "suites to run: burst (DRA claim-template burst, KEP-6132), apicalls (API call latency, KEP-5229)")
		apiPods   = flag.Int("api-pods", 1000, "measured pods of the apicalls suite")
		apiMD     = flag.String("apicalls-markdown", "docs/benchmarks-apicalls.md", "markdown summary of the apicalls suite (relative to -root); empty for none")
	)
	flag.Parse()
	if err := run(*root, *sizesFlag, *reps, *sideNames, *mdOut, *plotDir, *profile, *suites, *apiPods, *apiMD); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

func run(root, sizesFlag string, reps int, sideNames, mdOut, plotDir string, profileSize int, suites string, apiPods int, apiMD string) error {
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
	runBurst, runAPI := false, false
	for _, s := range strings.Split(suites, ",") {
		switch strings.TrimSpace(s) {
		case "burst":
			runBurst = true
		case "apicalls":
			runAPI = true
		default:
			return fmt.Errorf("unknown suite %q in -suites: allowed are burst, apicalls", s)
		}
	}
	if apiPods < 1 || apiPods > apiNodes*podsPerAPINode {
		return fmt.Errorf("invalid -api-pods %d: must be between 1 and %d (the apicalls suite's %d nodes hold %d of its pods each)", apiPods, apiNodes*podsPerAPINode, apiNodes, podsPerAPINode)
	}
	h := &harness{root: root, out: filepath.Join(root, "_output", "bench")}
	trees := treesOf(chosen)
	if runAPI {
		trees = []string{"vanilla", "patched"}
	}
	for _, tree := range trees {
		if err := h.prepare(tree, sizes, apiPods); err != nil {
			return fmt.Errorf("preparing the %s tree: %w", tree, err)
		}
	}
	if runAPI {
		if err := runAPICalls(h, reps, apiPods, apiMD); err != nil {
			return err
		}
	}
	if !runBurst {
		return nil
	}
	var results []result
	for rep := 1; rep <= reps; rep++ {
		for _, n := range sizes {
			for _, s := range chosen {
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
		if err := sum.plots(filepath.Join(root, plotDir)); err != nil {
			return err
		}
	}
	if mdOut != "" {
		if err := os.WriteFile(filepath.Join(root, mdOut), []byte(sum.markdown(h, plotDir, reps)), 0o644); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s\n", mdOut)
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
