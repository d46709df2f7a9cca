package main

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestBurstConfig(t *testing.T) {
	for _, tc := range []struct {
		tree      string
		wantNames []string
		wantGates []map[string]bool
	}{
		{tree: "vanilla", wantNames: []string{"1000pods_vanilla"}, wantGates: []map[string]bool{nil}},
		{
			tree:      "patched",
			wantNames: []string{"1000pods_patched_gate_off", "1000pods_patched_no_slice_cache", "1000pods_patched_gate_on"},
			wantGates: []map[string]bool{
				{"SchedulerPreQueueingHints": false, "SchedulerDRASliceCache": false},
				{"SchedulerPreQueueingHints": true, "SchedulerDRASliceCache": false},
				{"SchedulerPreQueueingHints": true, "SchedulerDRASliceCache": true},
			},
		},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			var cases []struct {
				Name      string
				Workloads []struct {
					Name         string
					Labels       []string
					FeatureGates map[string]bool
					Params       map[string]int
				}
			}
			if err := yaml.Unmarshal([]byte(burstConfig(tc.tree, []int{1000})), &cases); err != nil {
				t.Fatalf("generated config does not parse: %v", err)
			}
			if len(cases) != 1 || cases[0].Name != "DRAClaimTemplateBurst" {
				t.Fatalf("want one DRAClaimTemplateBurst test case, got %+v", cases)
			}
			w := cases[0].Workloads
			if len(w) != len(tc.wantNames) {
				t.Fatalf("want %d workloads, got %d", len(tc.wantNames), len(w))
			}
			for i := range w {
				if w[i].Name != tc.wantNames[i] {
					t.Errorf("workload %d: name %q, want %q", i, w[i].Name, tc.wantNames[i])
				}
				if !reflect.DeepEqual(w[i].FeatureGates, tc.wantGates[i]) && (len(w[i].FeatureGates) > 0 || len(tc.wantGates[i]) > 0) {
					t.Errorf("workload %d: gates %v, want %v", i, w[i].FeatureGates, tc.wantGates[i])
				}
				if w[i].Params["pods"] != 1000 || w[i].Params["nodes"]*w[i].Params["maxClaimsPerNode"] < 1000 {
					t.Errorf("workload %d: params %v cannot fit 1000 pods", i, w[i].Params)
				}
			}
		})
	}
}

// TestBurstPairedRatios checks that the burst's ratios pair the sides
// within a repetition: repetition 1 is twice as fast on both sides as
// repetition 2, so unpaired medians would mix them.
func TestBurstPairedRatios(t *testing.T) {
	results := []result{
		{Side: "vanilla", Pods: 1000, Rep: 1, Throughput: 100},
		{Side: "patched-gate-on", Pods: 1000, Rep: 1, Throughput: 300},
		{Side: "vanilla", Pods: 1000, Rep: 2, Throughput: 50},
		{Side: "patched-gate-on", Pods: 1000, Rep: 2, Throughput: 125},
		{Side: "vanilla", Pods: 1000, Rep: 3, Throughput: 80},
		{Side: "patched-gate-on", Pods: 1000, Rep: 3, Throughput: 224},
	}
	chosen, err := chooseSides("vanilla,patched-gate-on")
	if err != nil {
		t.Fatal(err)
	}
	table := summarize(results, chosen, []int{1000}).table()
	want := "1000 pods: throughput patched-gate-on/vanilla 2.80× (2.50–3.00) (paired over 3 repetition(s): median (min–max))"
	if !strings.Contains(table, want) {
		t.Errorf("the table lacks %q:\n%s", want, table)
	}
	if strings.Contains(table, "patched-no-slice-cache/") {
		t.Errorf("the table has a ratio of a side that did not run:\n%s", table)
	}
}

func TestResultFrom(t *testing.T) {
	items := []dataItem{
		{Labels: map[string]string{"Metric": "SchedulingThroughput"}, Data: map[string]float64{"Average": 250}},
		{Labels: map[string]string{"Metric": "scheduler_queueing_hint_execution_duration_seconds", "plugin": "DynamicResources"}, Data: map[string]float64{"Count": 900}},
		{Labels: map[string]string{"Metric": "scheduler_event_handling_duration_seconds", "event": "resource.k8s.io/ResourceClaimAdd"}, Data: map[string]float64{"Count": 10, "Sum": 40}},
		{Labels: map[string]string{"Metric": "scheduler_event_handling_duration_seconds", "event": "resource.k8s.io/ResourceClaimUpdate"}, Data: map[string]float64{"Count": 20, "Sum": 2}},
		{Labels: map[string]string{"Metric": "scheduler_pod_scheduled_after_flush_total"}, Data: map[string]float64{"Value": 0}},
	}
	r := resultFrom(items)
	if r.Throughput != 250 || r.HintCalls != 900 || r.ClaimEvents != 30 || r.ClaimEventMillis != 42 || r.AfterFlush != 0 || r.PreHintEvals != -1 {
		t.Errorf("unexpected result %+v", r)
	}
}

func TestChooseSidesAndSizes(t *testing.T) {
	if _, err := chooseSides("vanilla,nightly"); err == nil || !strings.Contains(err.Error(), `unknown side "nightly"`) {
		t.Errorf("want an error naming the unknown side, got %v", err)
	}
	if _, err := parseSizes("1000,abc"); err == nil || !strings.Contains(err.Error(), `"abc"`) {
		t.Errorf("want an error naming the bad size, got %v", err)
	}
	got, err := chooseSides("patched-gate-on")
	if err != nil || len(got) != 1 || got[0].Tree != "patched" {
		t.Errorf("chooseSides(patched-gate-on) = %v, %v", got, err)
	}
}

func TestMedianResult(t *testing.T) {
	r := medianResult([]result{{Throughput: 3}, {Throughput: 1}, {Throughput: 2}})
	if r.Throughput != 2 {
		t.Errorf("median throughput %v, want 2", r.Throughput)
	}
}

func TestAPICallsConfig(t *testing.T) {
	for _, tc := range []struct {
		tree      string
		wantNames []string
	}{
		{tree: "vanilla", wantNames: []string{"vanilla"}},
		{tree: "patched", wantNames: []string{"patched_gate_off", "patched_gate_on"}},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			var cases []struct {
				Name             string
				WorkloadTemplate []map[string]any `json:"workloadTemplate"`
				Workloads        []struct {
					Name         string
					FeatureGates map[string]bool
					Params       map[string]int
				}
			}
			if err := yaml.Unmarshal([]byte(burstConfig(tc.tree, []int{1000})+apiCallsConfig(tc.tree, 1000, 100)), &cases); err != nil {
				t.Fatalf("generated config does not parse: %v", err)
			}
			if len(cases) != 5 || cases[1].Name != "APICallsUnschedulable200ms" || cases[2].Name != "APICallsUnschedulable100ms" || cases[3].Name != "APICallsNormal" || cases[4].Name != "APICallsBacklog" {
				t.Fatalf("want the burst case, two APICallsUnschedulable cases, APICallsNormal and APICallsBacklog, got %d cases", len(cases))
			}
			if backlog := cases[4].WorkloadTemplate[1]; backlog["opcode"] != "createPods" || backlog["count"] != float64(backlogPods) || backlog["namespace"] != "unschedulable" {
				t.Errorf("the backlog op %v must create %d Pods in their own namespace", backlog, backlogPods)
			}
			for i, ms := range []float64{200, 100} {
				churn := cases[1+i].WorkloadTemplate[1]
				if churn["opcode"] != "churn" || churn["namespace"] != "unschedulable" || churn["intervalMilliseconds"] != ms {
					t.Errorf("the unschedulable churn op %v must churn every %vms in its own namespace", churn, ms)
				}
			}
			for _, c := range cases[1:] {
				if w := c.Workloads[0]; len(w.Params) != 2 {
					t.Errorf("%s params %v: only nodes and pods, every param must be used", c.Name, w.Params)
				}
			}
			for _, c := range cases[1:] {
				var names []string
				for _, w := range c.Workloads {
					names = append(names, w.Name)
					if w.Params["pods"] != 1000 || w.Params["nodes"] != 100 {
						t.Errorf("%s/%s params %v", c.Name, w.Name, w.Params)
					}
					if tc.tree == "patched" && len(w.FeatureGates) != 1 {
						t.Errorf("%s/%s gates %v, want SchedulerAsyncAPICalls set", c.Name, w.Name, w.FeatureGates)
					}
				}
				if strings.Join(names, ",") != strings.Join(tc.wantNames, ",") {
					t.Errorf("%s workloads %v, want %v", c.Name, names, tc.wantNames)
				}
			}
		})
	}
}

// failingOptions are run's options for a run of suites that must fail
// before anything is built: no checkout (an empty directory), one burst
// size on vanilla, no summary, no plots, every suite's defaults.
func failingOptions(t *testing.T, suites string) options {
	o := defaultOptions()
	o.Root, o.Sizes, o.Sides, o.Suites = t.TempDir(), "1000", "vanilla", suites
	o.Markdown, o.Plots = "", ""
	return o
}

// TestRunRejectsBadFlags: flag values that cannot work fail before anything
// is built, with a message that says what is allowed.
func TestRunRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		sizes, sides, suites string
		reps, apiPods        int
		apiKeys              string
		want                 string
	}{
		{"zero reps", "1000", "vanilla", "burst", 0, 1000, "", "invalid -reps 0"},
		{"unknown suite", "1000", "vanilla", "bursts", 1, 1000, "", `unknown suite "bursts"`},
		{"too many api pods", "1000", "vanilla", "apicalls", 1, 5000, "", "invalid -api-pods 5000: must be between 1 and 4000"},
		{"no api pods", "1000", "vanilla", "apicalls", 1, 0, "", "invalid -api-pods 0"},
		{"unknown api workload", "1000", "vanilla", "apicalls", 1, 1000, "churn5-50ms,churn7", `unknown workload "churn7" in -api-workloads: allowed are churn5-50ms, churn10-50ms`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := failingOptions(t, tc.suites)
			o.Sizes, o.Reps, o.Sides = tc.sizes, tc.reps, tc.sides
			o.API = apiOptions{Pods: tc.apiPods, Workloads: tc.apiKeys}
			err := run(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestChooseAPIWorkloads: -api-workloads picks workloads by key and keeps
// the suite's order; empty picks them all.
func TestChooseAPIWorkloads(t *testing.T) {
	for _, tc := range []struct {
		keys string
		want []string
	}{
		{"", []string{"churn5-50ms", "churn10-50ms", "churn5-100ms", "churn5-150ms", "churn5-175ms", "normal-50ms", "normal", "backlog-qps50"}},
		{"normal, churn5-150ms", []string{"churn5-150ms", "normal"}},
		{"normal,normal", []string{"normal"}},
	} {
		got, err := chooseAPIWorkloads(tc.keys)
		if err != nil {
			t.Fatalf("chooseAPIWorkloads(%q): %v", tc.keys, err)
		}
		var keys []string
		for _, w := range got {
			keys = append(keys, w.Key)
		}
		if strings.Join(keys, ",") != strings.Join(tc.want, ",") {
			t.Errorf("chooseAPIWorkloads(%q) = %v, want %v", tc.keys, keys, tc.want)
		}
	}
}

func TestUnderRoot(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"docs/benchmarks.md", "/src/kspatch/docs/benchmarks.md"},
		{"/tmp/out.md", "/tmp/out.md"},
	} {
		if got := underRoot("/src/kspatch", tc.p); got != tc.want {
			t.Errorf("underRoot(%q) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestAPICallsSummary: rows take the median run's numbers, and the ratios
// pair the sides of one repetition, so a slow repetition (rep 2 here, every
// side at half speed) does not move them.
func TestAPICallsSummary(t *testing.T) {
	w := apiWorkloads[0]
	var results []apiResult
	for rep, speed := range []float64{1, 0.5, 1.1} {
		for side, pods := range map[string]float64{"vanilla": 100, "patched-gate-off": 110, "patched-gate-on": 250} {
			// The window gives pods × speed Pods/s, and 5 × speed status
			// writes/s; SchedulingThroughput, a tenth less.
			seconds := 1000 / (pods * speed)
			results = append(results, apiResult{Workload: w, Side: side, Rep: rep + 1, Throughput: 0.9 * pods * speed, StatusWrites: 20, BindingWrites: 1000,
				WindowPods: 1000, WindowSeconds: seconds, WindowStatusWrites: 5 * speed * seconds})
		}
	}
	// A repetition in which gate-on did not run has no pair; without a
	// window, its SchedulingThroughput stands for its throughput.
	results = append(results, apiResult{Workload: w, Side: "vanilla", Rep: 4, Throughput: 1})

	if got, want := ratioSummary(pairedRatios(results, func(r apiResult) bool { return r.Workload == w }, "patched-gate-on", "vanilla")), "2.50× (2.50–2.50)"; got != want {
		t.Errorf("gate on vs vanilla = %q, want %q", got, want)
	}
	if got, want := ratioSummary([]float64{1.2, 0.9}), "1.05× (0.90–1.20)"; got != want {
		t.Errorf("ratioSummary = %q, want %q", got, want)
	}
	if got, want := ratioSummary([]float64{1.2, 0.9, 2, 1}), "1.10× (0.90–2.00)"; got != want {
		t.Errorf("ratioSummary = %q, want %q", got, want)
	}
	if got := ratioSummary(nil); got != "" {
		t.Errorf("ratioSummary(nil) = %q, want empty", got)
	}
	md := apiMarkdown(&harness{root: t.TempDir()}, apiWorkloads[:1], results, 3, apiOptions{Pods: 1000, Command: "make bench BENCH_ARGS='-suites apicalls -reps 3'"})
	for _, row := range []string{
		// The write rate is the median run's (rep 1), its spread over
		// the runs with a window (not rep 4's).
		"| unschedulable churn 5/s, 50ms writes | vanilla | 100.0 (1–110) | 67.5 | 5.0 (2.5–5.5) | 0.02 | 1.00 |  |  | 1.00× |  |",
		"| unschedulable churn 5/s, 50ms writes | patched-gate-on | 250.0 (125–275) | 225.0 | 5.0 (2.5–5.5) | 0.02 | 1.00 |  |  | 2.50× (2.50–2.50) | 2.27× (2.27–2.27) |",
		"Command: `make bench BENCH_ARGS='-suites apicalls -reps 3'`.",
	} {
		if !strings.Contains(md, row) {
			t.Errorf("summary lacks row\n%s\nin\n%s", row, md)
		}
	}
}

// TestAPIResultFrom: the throughput window's data item gives the run's
// status-write rate.
func TestAPIResultFrom(t *testing.T) {
	r := apiResultFrom([]dataItem{
		{Labels: map[string]string{"Metric": "SchedulingThroughput"}, Data: map[string]float64{"Average": 200}},
		{Labels: map[string]string{"Metric": "kspatch_bench_throughput_window"}, Data: map[string]float64{"Pods": 999, "Seconds": 4, "statusWrites": 18, "bindingWrites": 990}},
		{Labels: map[string]string{"Metric": "kspatch_bench_pod_writes_total", "kind": "status"}, Data: map[string]float64{"Value": 30}},
	})
	if r.Throughput != 200 || r.StatusWrites != 30 || r.WindowSeconds != 4 || r.WindowStatusWrites != 18 {
		t.Errorf("apiResultFrom = %+v", r)
	}
	if got := r.throughput(); got != 249.75 {
		t.Errorf("throughput = %v, want the window's 249.75", got)
	}
	if got := r.statusWritesPerSecond(); got != 4.5 {
		t.Errorf("status writes/s = %v, want 4.5", got)
	}
	if got := (apiResult{WindowStatusWrites: 3}).statusWritesPerSecond(); got != 0 {
		t.Errorf("status writes/s without a window = %v, want 0", got)
	}
}

func TestSidesForRep(t *testing.T) {
	names := func(ss []side) string {
		var n []string
		for _, s := range ss {
			n = append(n, s.Name)
		}
		return strings.Join(n, ",")
	}
	for rep, want := range map[int]string{
		1: "vanilla,patched-gate-off,patched-gate-on",
		2: "patched-gate-on,patched-gate-off,vanilla",
		3: "vanilla,patched-gate-off,patched-gate-on",
	} {
		if got := names(sidesForRep(apiSides, rep)); got != want {
			t.Errorf("rep %d: %s, want %s", rep, got, want)
		}
	}
	if got := names(apiSides); got != "vanilla,patched-gate-off,patched-gate-on" {
		t.Errorf("sidesForRep changed its argument: %s", got)
	}
}

// TestAPIResultFromBacklogMetrics: APICallsBacklog's SLI percentiles and the
// binding queue wait are read from their data items; the other call types'
// waits are not taken for the binding's.
func TestAPIResultFromBacklogMetrics(t *testing.T) {
	items := []dataItem{
		{Labels: map[string]string{"Metric": "SchedulingThroughput"}, Data: map[string]float64{"Average": 120}},
		{Labels: map[string]string{"Metric": "scheduler_pod_scheduling_sli_duration_seconds"}, Data: map[string]float64{"Perc50": 12, "Perc99": 340}},
		{Labels: map[string]string{"Metric": "scheduler_async_api_call_queue_wait_seconds", "call_type": "pod_binding"}, Data: map[string]float64{"Perc99": 4.5}},
	}
	got := apiResultFrom(items)
	if got.Throughput != 120 || got.SLIp50 != 12 || got.SLIp99 != 340 || got.BindingWaitP99 != 4.5 {
		t.Errorf("apiResultFrom = %+v, want 120 pods/s, SLI 12/340 ms, binding wait 4.5 ms", got)
	}
	if got := apiResultFrom(items[:1]); got.SLIp99 != 0 || got.BindingWaitP99 != 0 {
		t.Errorf("without the metrics (vanilla, other workloads): %+v, want zeros", got)
	}
}
