package main

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMemoryFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, o memoryOptions)
		err   string
	}{
		{name: "defaults are the issue's sizes", check: func(t *testing.T, o memoryOptions) {
			if o.Pods != 50000 || o.Nodes != 5000 || o.DRAPods != 5000 || o.Gangs != 300 || o.GangSize != 32 || o.Soak != 20*time.Minute ||
				o.SoakInterval != 30*time.Second || o.Reps != 3 || o.SoakReps != 1 || !slices.Equal(o.Workloads, memWorkloads) {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{name: "quick", args: []string{"-memory-quick"}, check: func(t *testing.T, o memoryOptions) {
			if o.Pods != 2000 || o.Nodes != 200 || o.Gangs != 20 || o.Soak != 3*time.Minute || o.Reps != 1 || !strings.HasPrefix(o.Markdown, "_output/") {
				t.Errorf("quick: %+v", o)
			}
		}},
		{name: "quick keeps what is given", args: []string{"-memory-quick", "-memory-pods", "3000", "-memory-reps", "2", "-memory-markdown", "x.md"}, check: func(t *testing.T, o memoryOptions) {
			if o.Pods != 3000 || o.Reps != 2 || o.Markdown != "x.md" || o.Nodes != 200 {
				t.Errorf("quick with flags: %+v", o)
			}
		}},
		{name: "workloads in the order given, once", args: []string{"-memory-workloads", "soak,pending,soak"}, check: func(t *testing.T, o memoryOptions) {
			if !slices.Equal(o.Workloads, []string{"soak", "pending"}) {
				t.Errorf("workloads %v", o.Workloads)
			}
		}},
		{name: "one side", args: []string{"-memory-sides", "patched"}, check: func(t *testing.T, o memoryOptions) {
			if got := o.sides(); len(got) != 1 || got[0].Name != "patched" {
				t.Errorf("sides %v", got)
			}
		}},
		{name: "unknown side", args: []string{"-memory-sides", "vanilla,patched-gate-on"}, err: `unknown side "patched-gate-on"`},
		{name: "unknown workload", args: []string{"-memory-workloads", "pending,burst"}, err: `unknown workload "burst"`},
		{name: "no reps", args: []string{"-memory-reps", "0"}, err: "-memory-reps 0"},
		{name: "more racks than nodes", args: []string{"-memory-gang-racks", "2000"}, err: "-memory-gang-racks 2000"},
		{name: "soak of one interval", args: []string{"-memory-soak", "30s"}, err: "at least two intervals"},
		{name: "warm-up eats the soak", args: []string{"-memory-soak-warmup", "19m40s"}, err: "-memory-soak-warmup"},
		{name: "zero rate", args: []string{"-memory-soak-rate", "0"}, err: "-memory-soak-rate 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("bench", flag.ContinueOnError)
			get := memoryFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			o, err := get()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}

func TestMemloadArgs(t *testing.T) {
	o := defaultMemoryOptions()
	for _, tc := range []struct {
		workload string
		want     []string
	}{
		{"pending", []string{"-workload pending", "-nodes 5000", "-pods 50000", "-scheduler-qps 500", "-unschedulable-flush 1h0m0s"}},
		{"dra", []string{"-workload dra", "-pods 5000"}},
		{"gangs", []string{"-gangs 300", "-gang-size 32", "-gang-nodes 1000", "-gang-racks 50"}},
		{"soak", []string{"-nodes 200", "-duration 20m0s", "-interval 30s", "-rate 5", "-lifetime 1m0s", "-timeout 50m0s"}},
	} {
		got := " " + strings.Join(o.memloadArgs(tc.workload), " ") + " "
		for _, w := range tc.want {
			if !strings.Contains(got, " "+w+" ") {
				t.Errorf("%s: args %q lack %q", tc.workload, got, w)
			}
		}
	}
}

func TestParseMemRun(t *testing.T) {
	for _, tc := range []struct {
		name, json, err string
	}{
		{"pending", `{"workload":"pending","side":"vanilla","heapInuseBytes":1048576,"heapAllocBytes":1,"peakRSSBytes":2097152,"pods":10}`, ""},
		{"soak", `{"workload":"soak","side":"patched","heapInuseBytes":1,"peakRSSBytes":1,"samples":[{"seconds":0,"heapInuseBytes":1},{"seconds":30,"heapInuseBytes":1}]}`, ""},
		{"soak of one sample", `{"workload":"soak","side":"patched","heapInuseBytes":1,"peakRSSBytes":1,"samples":[{"seconds":0}]}`, "1 sample(s)"},
		{"no heap", `{"workload":"pending","side":"vanilla","peakRSSBytes":1}`, "no heap in use"},
		{"no side", `{"workload":"pending","heapInuseBytes":1,"peakRSSBytes":1}`, "no workload or side"},
		{"not JSON", `heap`, "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseMemRun([]byte(tc.json))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.HeapInuse <= 0 {
				t.Errorf("heap in use %v", r.HeapInuse)
			}
		})
	}
}

func memRunsFixture() []memRun {
	return []memRun{
		{Workload: "pending", Side: "vanilla", Rep: 1, HeapInuse: 100 * mebi, HeapAlloc: 100 * mebi, PeakRSS: 200 * mebi},
		{Workload: "pending", Side: "patched", Rep: 1, HeapInuse: 105 * mebi, HeapAlloc: 105 * mebi, PeakRSS: 220 * mebi},
		{Workload: "pending", Side: "patched", Rep: 2, HeapInuse: 120 * mebi, HeapAlloc: 120 * mebi, PeakRSS: 230 * mebi},
		{Workload: "pending", Side: "vanilla", Rep: 2, HeapInuse: 100 * mebi, HeapAlloc: 100 * mebi, PeakRSS: 200 * mebi},
		{Workload: "pending", Side: "vanilla", Rep: 3, HeapInuse: 110 * mebi, HeapAlloc: 110 * mebi, PeakRSS: 210 * mebi},
		{Workload: "dra", Side: "vanilla", Rep: 1, HeapInuse: 50 * mebi, HeapAlloc: 50 * mebi, PeakRSS: 90 * mebi},
	}
}

func TestMemRatiosAndSpread(t *testing.T) {
	runs := memRunsFixture()
	got := memRatios(runs, "pending", heapInuseOf)
	// Repetition 3 has no patched run: it has no ratio.
	if want := []float64{1.05, 1.2}; !floatsNear(got, want) {
		t.Errorf("heap ratios %v, want %v", got, want)
	}
	if got := memRatios(runs, "dra", heapInuseOf); len(got) != 0 {
		t.Errorf("dra ratios %v, want none (no patched run)", got)
	}
	s := memSpread(runs, "pending", "vanilla", peakRSSOf)
	if s.N != 3 || s.Median != 200*mebi || s.Min != 200*mebi || s.Max != 210*mebi {
		t.Errorf("spread %+v", s)
	}
	if s := memSpread(runs, "gangs", "vanilla", peakRSSOf); s.N != 0 || mibSpread(s) != "–" {
		t.Errorf("spread of no runs %+v", s)
	}
	if got := mibSpread(memSpread(runs, "pending", "patched", heapInuseOf)); got != "112.5 (105.0–120.0)" {
		t.Errorf("mibSpread %q", got)
	}
}

func floatsNear(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func TestFitSlope(t *testing.T) {
	line := func(mibPerHour, base float64, wobble []float64) []memSample {
		var s []memSample
		for i := range 41 {
			sec := float64(i * 30)
			y := base + mibPerHour*sec/3600
			if len(wobble) > 0 {
				y += wobble[i%len(wobble)]
			}
			s = append(s, memSample{Seconds: sec, HeapInuse: y * mebi})
		}
		return s
	}
	heap := func(s memSample) float64 { return s.HeapInuse }
	for _, tc := range []struct {
		name       string
		samples    []memSample
		warmup     float64
		slope      float64
		ciMax      float64
		n          int
		flat, fits bool
		verdict    string
		tol        float64 // of the slope; 0: 0.5
	}{
		{name: "exact growth", samples: line(12, 50, nil), warmup: 300, slope: 12, ciMax: 1e-6, n: 31, fits: true, verdict: "growing"},
		{name: "exact shrinking", samples: line(-12, 50, nil), warmup: 300, slope: -12, ciMax: 1e-6, n: 31, fits: true, verdict: "shrinking"},
		{name: "flat with noise", samples: line(0, 50, []float64{0.5, -0.5, 0.2, -0.2}), warmup: 300, slope: 0, ciMax: 3, n: 31, flat: true, fits: true, verdict: "flat"},
		{name: "noise hides a slope", samples: line(8, 50, []float64{6, -6, 4, -4, 0, 5, -5}), warmup: 300, slope: 8, ciMax: 60, n: 31, fits: true, verdict: "inconclusive", tol: 5},
		{name: "warm-up growth left out", samples: append(line(600, 10, nil)[:11], line(0, 60, nil)[11:]...), warmup: 300, slope: 0, ciMax: 1e-6, n: 31, flat: true, fits: true},
		{name: "too few after the warm-up", samples: line(0, 50, nil), warmup: 1150, n: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fit, ok := fitSlope(tc.samples, tc.warmup, heap)
			if ok != tc.fits || fit.N != tc.n {
				t.Fatalf("ok %v, N %d; want %v, %d", ok, fit.N, tc.fits, tc.n)
			}
			if !ok {
				return
			}
			tol := tc.tol
			if tol == 0 {
				tol = 0.5
			}
			if math.Abs(fit.Slope-tc.slope) > tol {
				t.Errorf("slope %.3f MiB/h, want %.3f", fit.Slope, tc.slope)
			}
			if fit.CI > tc.ciMax {
				t.Errorf("confidence half-width %.3f, want at most %.3f", fit.CI, tc.ciMax)
			}
			if fit.flat(5) != tc.flat {
				t.Errorf("flat(5) = %v, want %v", fit.flat(5), tc.flat)
			}
			if tc.verdict != "" && fit.verdict(5) != tc.verdict {
				t.Errorf("verdict(5) = %q, want %q", fit.verdict(5), tc.verdict)
			}
			if fit.From != tc.warmup && fit.From < tc.warmup {
				t.Errorf("fit starts at %v s, before the warm-up %v", fit.From, tc.warmup)
			}
		})
	}
	if got := tQuantile975(1); got != 12.706 {
		t.Errorf("t(1) = %v", got)
	}
	if got := tQuantile975(1000); got != 1.96 {
		t.Errorf("t(1000) = %v", got)
	}
}

func TestMemGoal(t *testing.T) {
	for _, tc := range []struct {
		workload string
		ratios   []float64
		want     string
	}{
		{"pending", []float64{1.02, 1.05, 1.01}, "met"},
		{"dra", []float64{1.02, 1.12, 1.01}, "met by the median; one repetition above 1.10×"},
		{"pending", []float64{1.2, 1.15, 1.11}, "**above** 1.10×"},
		{"gangs", []float64{1.5}, "none (vanilla has no pod-group cycle)"},
	} {
		if got := memGoal(tc.workload, tc.ratios, 1.10); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.workload, tc.ratios, got, tc.want)
		}
	}
}

func TestTakeSuite(t *testing.T) {
	for _, tc := range []struct {
		in, rest string
		found    bool
	}{
		{"memory", "", true},
		{"burst,memory,gangs", "burst,gangs", true},
		{"burst,apicalls", "burst,apicalls", false},
		{" memory ,levels", "levels", true},
	} {
		rest, found := takeSuite(tc.in, "memory")
		if rest != tc.rest || found != tc.found {
			t.Errorf("takeSuite(%q) = %q, %v; want %q, %v", tc.in, rest, found, tc.rest, tc.found)
		}
	}
}

func TestMemoryMarkdownKeepsNotes(t *testing.T) {
	o := defaultMemoryOptions()
	o.Workloads = []string{"pending", "soak"}
	o.Plots, o.Markdown = t.TempDir(), filepath.Join(t.TempDir(), "docs", "benchmarks-memory.md")
	o.Command = "make bench BENCH_ARGS='-suites memory'"
	runs := memRunsFixture()
	var samples []memSample
	for i := range 41 {
		samples = append(samples, memSample{Seconds: float64(i * 30), HeapInuse: 50 * mebi, HeapAlloc: 40 * mebi})
	}
	for _, side := range []string{"vanilla", "patched"} {
		runs = append(runs, memRun{Workload: "soak", Side: side, Rep: 1, HeapInuse: 40 * mebi, HeapAlloc: 40 * mebi, PeakRSS: 90 * mebi, Samples: samples, Created: 6000, Deleted: 5700})
	}
	res := memResults{Date: "2026-11-27 22:00 UTC", CPUs: 2, Go: "go1.26", Commit: "abc", Versions: map[string]string{"vanilla": "Kubernetes v1.33.13", "patched": "Kubernetes v1.33.13-kspatch.3"}, Options: o, Runs: runs}
	if err := writeMemoryReport("/", res); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(o.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| pending | vanilla | 100.0 (100.0–110.0) |", "| pending | 1.12× (1.05–1.20) |", "**above** 1.10×",
		"| vanilla | 1 | 6000 / 5700 | 31 | 40.0 (40.0–40.0) | +0.00 ± 0.00 | +0.00 ± 0.00 | 90.0 | flat |", "![scheduler heap in use after GC during the soak](", o.Command, memNotesMarker} {
		if !strings.Contains(string(first), want) {
			t.Errorf("summary lacks %q:\n%s", want, first)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Plots, memSoakPlot)); err != nil {
		t.Errorf("no soak plot: %v", err)
	}
	notes := "\n\n## Notes\n\nWhy the ratio is what it is.\n"
	if err := os.WriteFile(o.Markdown, append(first, notes...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeMemoryReport("/", res); err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(o.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(second), memNotesMarker+"\n"+notes) || strings.Count(string(second), memNotesMarker) != 1 {
		t.Errorf("the notes were not kept once after the marker:\n%s", second)
	}
}

func TestPlotLink(t *testing.T) {
	for _, tc := range []struct{ md, plots, want string }{
		{"docs/benchmarks-memory.md", "docs/bench", "bench/memory-soak.png"},
		{"_output/bench/memory/quick.md", "_output/bench/memory", "memory-soak.png"},
	} {
		if got := plotLink(tc.md, tc.plots); got != tc.want {
			t.Errorf("plotLink(%q, %q) = %q, want %q", tc.md, tc.plots, got, tc.want)
		}
	}
}
