package main

// repeat runs a suite's runs reps times: runs lists those of repetition
// rep (from 1), in the order they run; one runs one of them and prints its
// line. It returns the results in the order they ran and stops at the
// first error.
func repeat[W, R any](reps int, runs func(rep int) []W, one func(run W, rep int) (R, error)) ([]R, error) {
	var results []R
	for rep := 1; rep <= reps; rep++ {
		for _, run := range runs(rep) {
			r, err := one(run, rep)
			if err != nil {
				return nil, err
			}
			results = append(results, r)
		}
	}
	return results, nil
}

// onSide is a workload W of a suite on one of its sides.
type onSide[W any] struct {
	Workload W
	Side     side
}

// onSides lists every workload on every side, workload by workload, the
// sides in sidesForRep's order of repetition rep.
func onSides[W any](workloads []W, sides []side, rep int) []onSide[W] {
	var runs []onSide[W]
	for _, w := range workloads {
		for _, s := range sidesForRep(sides, rep) {
			runs = append(runs, onSide[W]{Workload: w, Side: s})
		}
	}
	return runs
}
