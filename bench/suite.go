package main

import (
	"fmt"
	"slices"
	"strings"
)

// A suite is one -suites entry that runs on scheduler_perf: its workloads
// (the test cases it adds to the configuration of a tree, and the files
// they read), its sides (the trees they run on) and its table (the summary
// it prints and writes). run plugs the chosen ones into one harness: it
// prepares them, compiles every tree they need once with all their test
// cases, then runs them one after the other.
type suite interface {
	// name is the suite's -suites entry.
	name() string
	// prepare checks the suite's options and reads what its test cases
	// need (the PodGroup CRD, upstream's configuration) before anything is
	// built; it returns the files they read in the workload package, by
	// name (nil for none).
	prepare(h *harness) (map[string][]byte, error)
	// trees are the trees to prepare: have, those of the suites before it
	// in the registry, with the suite's own.
	trees(have []string) []string
	// config is the suite's test cases in the scheduler_perf
	// configuration of a tree.
	config(tree string) string
	// run runs its workloads reps times, printing a line a run, and
	// prints and writes its table.
	run(h *harness, reps int) error
}

// alwaysConfigured is a suite whose test cases are in the configuration
// of every tree, whether it runs or not (they read no files). Its options
// are checked either way, since they shape the configuration.
type alwaysConfigured interface {
	suite
	inEveryTree()
}

// registry is every suite that runs on scheduler_perf, in the order
// -suites lists them and their test cases stand in the configuration.
func registry(o options, burst burstSuite) []suite {
	return []suite{
		burst,
		&apiSuite{o: o.API},
		gangSuite{o: o.Gangs},
		placementSuite{o: o.Placement},
		&upstreamSuite{o: o.Upstream},
		levelsSuite{o: o.Levels},
		preemptionSuite{o: o.Preemption},
	}
}

// memorySuite is the -suites entry of the memory suite, which runs apart
// from the registry's: it builds no scheduler_perf, it runs the real
// binaries (runMemory).
const memorySuite = "memory"

// chooseSuites returns the suites of all that list (comma-separated
// names) names, in all's order.
func chooseSuites(all []suite, list string) ([]suite, error) {
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		found := false
		for _, s := range all {
			found = found || s.name() == strings.TrimSpace(name)
		}
		if !found {
			var allowed []string
			for _, s := range all {
				allowed = append(allowed, s.name())
			}
			return nil, fmt.Errorf("unknown suite %q in -suites: allowed are %s", name, strings.Join(append(allowed, memorySuite), ", "))
		}
		want[strings.TrimSpace(name)] = true
	}
	var chosen []suite
	for _, s := range all {
		if want[s.name()] {
			chosen = append(chosen, s)
		}
	}
	return chosen, nil
}

// configured are the suites of all whose test cases the configuration
// holds: those chosen and those in every tree.
func configured(all, chosen []suite) []suite {
	names := map[string]bool{}
	for _, s := range chosen {
		names[s.name()] = true
	}
	var out []suite
	for _, s := range all {
		if _, always := s.(alwaysConfigured); always || names[s.name()] {
			out = append(out, s)
		}
	}
	return out
}

// runOrder is the order in which the chosen suites run: the registry's,
// the burst last (its table ends the output, as it always has).
func runOrder(chosen []suite) []suite {
	var first, last []suite
	for _, s := range chosen {
		if _, ok := s.(burstSuite); ok {
			last = append(last, s)
		} else {
			first = append(first, s)
		}
	}
	return append(first, last...)
}

// addTrees returns have with those of trees it does not hold, in order.
func addTrees(have []string, trees ...string) []string {
	for _, t := range trees {
		if !slices.Contains(have, t) {
			have = append(have, t)
		}
	}
	return have
}

// bothTrees are the trees of a suite that compares vanilla with patched
// on every workload: vanilla is prepared first, whatever the suites before
// it need.
func bothTrees() []string { return []string{"vanilla", "patched"} }
