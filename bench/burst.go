package main

import (
	"fmt"
	"os"
)

// burstSuite is the DRA claim-template burst (KEP-6132; config.go,
// results.go): every size on every chosen side.
type burstSuite struct {
	sizes []int
	sides []side
	// profileSize is the size whose runs record profiles, 0 for none;
	// markdown and plots are -markdown and -plots.
	profileSize     int
	markdown, plots string
}

func (burstSuite) name() string { return "burst" }

// inEveryTree: the burst's test case is in every tree's configuration.
func (burstSuite) inEveryTree() {}

func (burstSuite) prepare(*harness) (map[string][]byte, error) { return nil, nil }

func (s burstSuite) trees(have []string) []string { return addTrees(have, treesOf(s.sides)...) }

func (s burstSuite) config(tree string) string { return burstConfig(tree, s.sizes) }

// run runs every size on every side reps times, prints the table and
// writes the plots and the markdown summary.
func (s burstSuite) run(h *harness, reps int) error {
	runs := func(rep int) []onSide[int] { return onSides(s.sizes, s.sides, rep) }
	results, err := repeat(reps, runs, func(run onSide[int], rep int) (result, error) {
		n, sd := run.Workload, run.Side
		r, err := h.runOne(sd, n, rep, s.profileSize == n)
		if err != nil {
			return result{}, fmt.Errorf("%s with %d pods: %w", sd.Name, n, err)
		}
		fmt.Printf("%-18s %5d pods  rep %d  %7.1f pods/s  %9.0f hint calls  %9.1f ms claim events\n",
			sd.Name, n, rep, r.Throughput, r.HintCalls, r.ClaimEventMillis)
		return r, nil
	})
	if err != nil {
		return err
	}
	sum := summarize(results, s.sides, s.sizes)
	fmt.Println()
	fmt.Print(sum.table())
	if s.plots != "" {
		if err := sum.plots(underRoot(h.root, s.plots)); err != nil {
			return err
		}
	}
	if s.markdown != "" {
		if err := os.WriteFile(underRoot(h.root, s.markdown), []byte(sum.markdown(h, s.plots, reps)), 0o644); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s\n", s.markdown)
	}
	return nil
}
