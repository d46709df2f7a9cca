package main

import (
	"math"
	"slices"
	"sort"
)

// memValue picks one figure of a run, in bytes.
type memValue func(memRun) float64

func heapInuseOf(r memRun) float64 { return r.HeapInuse }
func heapAllocOf(r memRun) float64 { return r.HeapAlloc }
func peakRSSOf(r memRun) float64   { return r.PeakRSS }

// memSpreadStat is the median, minimum and maximum of some values.
type memSpreadStat struct {
	Median, Min, Max float64
	N                int
}

func memSpreadOf(values []float64) memSpreadStat {
	if len(values) == 0 {
		return memSpreadStat{}
	}
	return memSpreadStat{Median: medianOf(values), Min: slices.Min(values), Max: slices.Max(values), N: len(values)}
}

// memSpread is the spread of value over the runs of a workload on a side.
func memSpread(runs []memRun, workload, sideName string, value memValue) memSpreadStat {
	var vs []float64
	for _, r := range runs {
		if r.Workload == workload && r.Side == sideName {
			vs = append(vs, value(r))
		}
	}
	return memSpreadOf(vs)
}

// memRatios are value's patched/vanilla ratios of a workload, one for
// every repetition in which both sides ran, in repetition order.
func memRatios(runs []memRun, workload string, value memValue) []float64 {
	byRep := map[int]map[string]float64{}
	for _, r := range runs {
		if r.Workload != workload {
			continue
		}
		if byRep[r.Rep] == nil {
			byRep[r.Rep] = map[string]float64{}
		}
		byRep[r.Rep][r.Side] = value(r)
	}
	var reps []int
	for rep := range byRep {
		reps = append(reps, rep)
	}
	sort.Ints(reps)
	var ratios []float64
	for _, rep := range reps {
		p, okP := byRep[rep]["patched"]
		v, okV := byRep[rep]["vanilla"]
		if okP && okV && v > 0 {
			ratios = append(ratios, p/v)
		}
	}
	return ratios
}

// slopeFit is a least-squares line through the soak's heap samples taken
// at or after the warm-up.
type slopeFit struct {
	// N samples were fitted.
	N int
	// Slope is the fitted growth in MiB per hour; CI its 95 % confidence
	// half-width (t quantile of N-2 degrees of freedom times the slope's
	// standard error); Intercept the line's MiB at 0 s.
	Slope, CI, Intercept float64
	// Mean, Min and Max are the fitted samples' MiB.
	Mean, Min, Max float64
	// From and To are the first and last fitted sample's seconds.
	From, To float64
}

// fitSlope fits value (bytes) of the samples from warmup seconds on; ok is
// false with fewer than three such samples.
func fitSlope(samples []memSample, warmup float64, value func(memSample) float64) (fit slopeFit, ok bool) {
	var xs, ys []float64
	for _, s := range samples {
		if s.Seconds >= warmup {
			xs = append(xs, s.Seconds/3600)
			ys = append(ys, value(s)/mebi)
		}
	}
	n := len(xs)
	if n < 3 {
		return slopeFit{N: n}, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return slopeFit{N: n}, false
	}
	slope := sxy / sxx
	intercept := my - slope*mx
	var sse float64
	for i := range xs {
		e := ys[i] - (intercept + slope*xs[i])
		sse += e * e
	}
	se := math.Sqrt(sse / float64(n-2) / sxx)
	return slopeFit{N: n, Slope: slope, CI: tQuantile975(n-2) * se, Intercept: intercept,
		Mean: my, Min: slices.Min(ys), Max: slices.Max(ys), From: xs[0] * 3600, To: xs[n-1] * 3600}, true
}

// flat says whether the fitted slope is within maxSlope MiB/hour of zero.
func (f slopeFit) flat(maxSlope float64) bool { return math.Abs(f.Slope) <= maxSlope }

// verdict is "flat" when the slope is within maxSlope MiB/hour of zero,
// "growing" ("shrinking") when even its 95 % interval lies above (below)
// ±maxSlope, and "inconclusive" otherwise: the samples are too noisy for
// the soak's length to tell.
func (f slopeFit) verdict(maxSlope float64) string {
	switch {
	case f.flat(maxSlope):
		return "flat"
	case f.Slope-f.CI > maxSlope:
		return "growing"
	case f.Slope+f.CI < -maxSlope:
		return "shrinking"
	default:
		return "inconclusive"
	}
}

// tQuantile975 is the 97.5 % quantile of Student's t with df degrees of
// freedom (two-sided 95 %), from a table up to 30 and the normal's beyond.
func tQuantile975(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < 1:
		return math.Inf(1)
	case df < len(table):
		return table[df]
	case df < 60:
		return 2.0
	default:
		return 1.96
	}
}
