package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// result is what one run of one workload measured.
type result struct {
	Side string
	Pods int
	Rep  int
	Wall time.Duration
	// Throughput is scheduler_perf's SchedulingThroughput average (pods/s).
	Throughput float64
	// HintCalls is how many DynamicResources QueueingHintFns ran.
	HintCalls float64
	// ClaimEvents and ClaimEventMillis are the count and total duration of
	// ResourceClaim add/update event handling (scheduler_event_handling_duration_seconds).
	ClaimEvents, ClaimEventMillis float64
	// AfterFlush is scheduler_pod_scheduled_after_flush_total, PreHintEvals
	// scheduler_pre_queueing_hint_evaluations_total; -1 where the build has
	// no such metric (vanilla).
	AfterFlush, PreHintEvals float64
}

func resultFrom(items []dataItem) result {
	r := result{AfterFlush: -1, PreHintEvals: -1}
	for _, it := range items {
		switch it.Labels["Metric"] {
		case "SchedulingThroughput":
			r.Throughput = it.Data["Average"]
		case "scheduler_queueing_hint_execution_duration_seconds":
			r.HintCalls += it.Data["Count"]
		case "scheduler_event_handling_duration_seconds":
			r.ClaimEvents += it.Data["Count"]
			r.ClaimEventMillis += it.Data["Sum"]
		case "scheduler_pod_scheduled_after_flush_total":
			r.AfterFlush = it.Data["Value"]
		case "scheduler_pre_queueing_hint_evaluations_total":
			r.PreHintEvals = it.Data["Value"]
		}
	}
	return r
}

// summary holds the median of each side and size over the repetitions.
type summary struct {
	sides  []side
	sizes  []int
	median map[string]map[int]result // side -> pods -> median result
	all    []result
}

func summarize(results []result, chosen []side, sizes []int) *summary {
	s := &summary{sides: chosen, sizes: sizes, median: map[string]map[int]result{}, all: results}
	groups := map[string]map[int][]result{}
	for _, r := range results {
		if groups[r.Side] == nil {
			groups[r.Side] = map[int][]result{}
		}
		groups[r.Side][r.Pods] = append(groups[r.Side][r.Pods], r)
	}
	for name, bySize := range groups {
		s.median[name] = map[int]result{}
		for n, rs := range bySize {
			s.median[name][n] = medianResult(rs)
		}
	}
	return s
}

// medianResult takes the run with the median throughput (so the numbers of
// one row come from one run).
func medianResult(rs []result) result {
	sorted := append([]result(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Throughput < sorted[j].Throughput })
	return sorted[len(sorted)/2]
}

func (s *summary) get(sideName string, pods int) (result, bool) {
	r, ok := s.median[sideName][pods]
	return r, ok
}

func orNA(v float64, format string) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

// table is the per-run table printed at the end of `make bench`.
func (s *summary) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s %-18s %12s %14s %10s %16s %11s\n", "pods", "side", "pods/s", "DRA hint calls", "calls/pod", "claim events ms", "after flush")
	for _, n := range s.sizes {
		for _, sd := range s.sides {
			r, ok := s.get(sd.Name, n)
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "%-6d %-18s %12.1f %14.0f %10.1f %16.1f %11s\n", n, sd.Name, r.Throughput, r.HintCalls,
				r.HintCalls/float64(n), r.ClaimEventMillis, orNA(r.AfterFlush, "%.0f"))
		}
	}
	b.WriteString("\n")
	for _, n := range s.sizes {
		on, okOn := s.get("patched-gate-on", n)
		off, okOff := s.get("patched-gate-off", n)
		if okOn && okOff {
			fmt.Fprintf(&b, "%5d pods: claim event time gate-off/gate-on %.1fx, hint calls gate-off/gate-on %.1fx (medians)\n",
				n, ratio(off.ClaimEventMillis, on.ClaimEventMillis), ratio(off.HintCalls, on.HintCalls))
		}
		for _, pair := range burstRatios {
			ofSize := func(r result) bool { return r.Pods == n }
			if ratios := pairedRatios(s.all, ofSize, pair[0], pair[1]); len(ratios) > 0 {
				fmt.Fprintf(&b, "%5d pods: throughput %s/%s %s (paired over %d repetition(s): median (min–max))\n",
					n, pair[0], pair[1], ratioSummary(ratios), len(ratios))
			}
		}
	}
	return b.String()
}

// burstSidesText says what the burst's sides are (bench/config.go).
const burstSidesText = "Sides: *vanilla* is v1.33.13; *patched-gate-off* the patched scheduler with the burst's kspatch gates " +
	"(`SchedulerPreQueueingHints`, `SchedulerDRASliceCache`) off; *patched-no-slice-cache* KEP-6132 alone " +
	"(the patched scheduler before the dra-speed block); *patched-gate-on* both gates on, the defaults. " +
	"Ratios pair the sides within a repetition (docs/dra-performance.md has the profiles).\n\n"

// burstRatios are the throughput ratios the burst reports, numerator
// first, each paired within a repetition.
var burstRatios = [][2]string{
	{"patched-gate-on", "vanilla"},
	{"patched-no-slice-cache", "vanilla"},
	{"patched-gate-on", "patched-no-slice-cache"},
	{"patched-gate-off", "vanilla"},
}

func (r result) throughput() float64 { return r.Throughput }
func (r result) sideName() string    { return r.Side }
func (r result) repetition() int     { return r.Rep }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// markdown is docs/benchmarks.md.
func (s *summary) markdown(h *harness, plotDir string, reps int) string {
	var b strings.Builder
	goVersion, _ := exec.Command("go", "version").Output()
	vanillaRef, _ := h.treeRef("vanilla")
	patchedRef, _ := h.treeRef("patched")
	fmt.Fprintf(&b, "# kspatch benchmarks\n\nGenerated by `make bench` (bench/) on %s: %d CPUs, %s. "+
		"Vanilla tree %s (v1.33.13 + build fix-up), patched tree %s. Each row is the median of %d run(s); "+
		"the sides take turns within a repetition, in reverse order in every other one.\n\n", time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(),
		strings.TrimSpace(string(goVersion)), short(vanillaRef), short(patchedRef), reps)
	b.WriteString("## DRA claim-template burst (KEP-6132)\n\n")
	b.WriteString("N pods with ResourceClaimTemplates created at once (scheduler_perf workload `DRAClaimTemplateBurst`, " +
		"bench/config.go); every pod fits once its claim exists. *DRA hint calls*: DynamicResources QueueingHintFn " +
		"executions; *claim events ms*: total `scheduler_event_handling_duration_seconds` for ResourceClaim add/update; " +
		"*after flush*: `scheduler_pod_scheduled_after_flush_total`.\n\n")
	b.WriteString(burstSidesText)
	b.WriteString("| pods | side | pods/s | DRA hint calls | calls/pod | claim events (ms) | after flush |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, n := range s.sizes {
		for _, sd := range s.sides {
			if r, ok := s.get(sd.Name, n); ok {
				fmt.Fprintf(&b, "| %d | %s | %.1f | %.0f | %.1f | %.1f | %s |\n", n, sd.Name, r.Throughput, r.HintCalls,
					r.HintCalls/float64(n), r.ClaimEventMillis, orNA(r.AfterFlush, "%.0f"))
			}
		}
	}
	b.WriteString("\nRatios:\n\n```\n")
	b.WriteString(s.table()[strings.Index(s.table(), "\n\n")+2:])
	b.WriteString("```\n")
	if plotDir != "" {
		fmt.Fprintf(&b, "\n![throughput against burst size](%s)\n\n![DRA QueueingHintFn calls against burst size](%s)\n",
			relFromDocs(plotDir, "burst-throughput.png"), relFromDocs(plotDir, "burst-hint-calls.png"))
	}
	b.WriteString("\nReproduce: `make bench` (all sizes), or e.g. `make bench BENCH_ARGS='-sizes 1000 -reps 3'`. " +
		"Raw data items and logs of every run are in `_output/bench/runs/`.\n")
	return b.String()
}

func short(ref string) string {
	if len(ref) > 12 {
		return ref[:12]
	}
	return ref
}

// relFromDocs turns a plot path relative to the checkout into one relative to docs/.
func relFromDocs(plotDir, file string) string {
	p := strings.TrimPrefix(plotDir+"/"+file, "docs/")
	return p
}

// printAndWrite prints a suite's markdown summary and writes it to path
// (relative to the checkout unless absolute); an empty path writes nothing.
func printAndWrite(h *harness, md, path string) error {
	fmt.Println()
	fmt.Print(md)
	if path == "" {
		return nil
	}
	if err := os.WriteFile(underRoot(h.root, path), []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s\n", path)
	return nil
}
