package main

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestSuiteHarness: which suites a -suites list runs, in which order, on
// which trees, and whose test cases the configuration holds.
func TestSuiteHarness(t *testing.T) {
	noVanilla := defaultOptions()
	noVanilla.Preemption.Vanilla = false
	for _, tc := range []struct {
		suites, sides string
		o             options
		// runs are the suites in the order they run, trees the trees
		// prepared, configured the suites in the configuration.
		runs, trees, configured string
	}{
		{"burst,apicalls", "vanilla,patched-gate-on", defaultOptions(), "apicalls,burst", "vanilla,patched", "burst,apicalls"},
		{"burst", "patched-gate-on,vanilla", defaultOptions(), "burst", "patched,vanilla", "burst,apicalls"},
		{"burst,gangs", "patched-gate-on,vanilla", defaultOptions(), "gangs,burst", "vanilla,patched", "burst,apicalls,gangs"},
		{"levels", "vanilla", defaultOptions(), "levels", "patched", "burst,apicalls,levels"},
		{"preemption,levels", "vanilla", defaultOptions(), "levels,preemption", "patched,vanilla", "burst,apicalls,levels,preemption"},
		{"burst,preemption", "patched-gate-on", noVanilla, "preemption,burst", "patched", "burst,apicalls,preemption"},
		{" upstream , burst,placement,upstream", "vanilla", defaultOptions(), "placement,upstream,burst", "vanilla,patched", "burst,apicalls,placement,upstream"},
	} {
		t.Run(tc.suites, func(t *testing.T) {
			sides, err := chooseSides(tc.sides)
			if err != nil {
				t.Fatal(err)
			}
			all := registry(tc.o, burstSuite{sizes: []int{1000}, sides: sides})
			chosen, err := chooseSuites(all, tc.suites)
			if err != nil {
				t.Fatal(err)
			}
			var trees []string
			for _, s := range chosen {
				trees = s.trees(trees)
			}
			if got := suiteNames(runOrder(chosen)); got != tc.runs {
				t.Errorf("runs %s, want %s", got, tc.runs)
			}
			if got := strings.Join(trees, ","); got != tc.trees {
				t.Errorf("trees %s, want %s", got, tc.trees)
			}
			if got := suiteNames(configured(all, chosen)); got != tc.configured {
				t.Errorf("configured %s, want %s", got, tc.configured)
			}
		})
	}
}

func suiteNames(suites []suite) string {
	var names []string
	for _, s := range suites {
		names = append(names, s.name())
	}
	return strings.Join(names, ",")
}

// TestChooseSuites: an unknown entry is refused with the list of every
// suite, the memory suite's last.
func TestChooseSuites(t *testing.T) {
	all := registry(defaultOptions(), burstSuite{})
	for _, tc := range []struct{ list, bad string }{
		{"bursts", "bursts"},
		{"burst,", ""},
		// run never sees it: main takes it out first.
		{"memory", "memory"},
	} {
		_, err := chooseSuites(all, tc.list)
		want := fmt.Sprintf("unknown suite %q in -suites: allowed are burst, apicalls, gangs, placement, upstream, levels, preemption, memory", tc.bad)
		if err == nil || err.Error() != want {
			t.Errorf("chooseSuites(%q): %v, want %s", tc.list, err, want)
		}
	}
}

// TestRepeat: the runs of every repetition in order, each with its
// repetition; the first error stops them.
func TestRepeat(t *testing.T) {
	sides := []side{{Name: "a"}, {Name: "b"}}
	var ran []string
	runs := func(rep int) []onSide[int] { return onSides([]int{1, 2}, sides, rep) }
	got, err := repeat(2, runs, func(run onSide[int], rep int) (string, error) {
		r := fmt.Sprintf("%d%s%d", run.Workload, run.Side.Name, rep)
		ran = append(ran, r)
		return r, nil
	})
	want := []string{"1a1", "1b1", "2a1", "2b1", "1b2", "1a2", "2b2", "2a2"}
	if err != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(ran, want) {
		t.Errorf("repeat = %v, %v (ran %v), want %v", got, err, ran, want)
	}
	ran = nil
	stop := errors.New("stop")
	got, err = repeat(3, runs, func(run onSide[int], rep int) (string, error) {
		ran = append(ran, fmt.Sprintf("%d%s%d", run.Workload, run.Side.Name, rep))
		if len(ran) == 3 {
			return "", stop
		}
		return "", nil
	})
	if !errors.Is(err, stop) || got != nil || len(ran) != 3 {
		t.Errorf("repeat with an error = %v, %v after %v", got, err, ran)
	}
}
