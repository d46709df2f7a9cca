package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// upstreamSample is shaped like upstream's misc/performance-config.yaml:
// test-case and workload feature gates, labels, thresholds, and workload
// names with "/" in them.
const upstreamSample = `# comment
- name: SchedulingBasic
  defaultPodTemplatePath: ../templates/pod-default.yaml
  workloadTemplate:
  - opcode: createNodes
    countParam: $initNodes
  - opcode: createPods
    countParam: $measurePods
    collectMetrics: true
  workloads:
  - name: 5Nodes
    featureGates:
      SchedulerQueueingHints: false
    labels: [integration-test, short]
    params:
      initNodes: 5
      measurePods: 10
  - name: 500Nodes
    labels: [performance, short]
    params:
      initNodes: 500
      measurePods: 1000
  - name: 5000Nodes_10000Pods_QueueingHintsEnabled
    featureGates:
      SchedulerQueueingHints: true
    labels: [performance]
    threshold: 270
    params:
      initNodes: 5000
      measurePods: 10000
- name: Unschedulable
  workloadTemplate:
  - opcode: createNodes
    countParam: $initNodes
  - opcode: churn
    mode: create
    templatePaths:
    - ../templates/pod-high-priority-large-cpu.yaml
    intervalMilliseconds: 200
  - opcode: createPods
    countParam: $measurePods
    podTemplatePath: ../templates/pod-default.yaml
    collectMetrics: true
  workloads:
  - name: 500Nodes/10Init/1kPods
    labels: [performance, short]
    params:
      initNodes: 500
      measurePods: 1000
  - name: 5kNodes/100Init/10kPods_QueueingHintsEnabled
    featureGates:
      SchedulerQueueingHints: true
    labels: [performance]
    threshold: 170
    params:
      initNodes: 5000
      measurePods: 10000
- name: SchedulingDeletedPodsWithFinalizers
  featureGates:
    SchedulerQueueingHints: true
  workloadTemplate:
  - opcode: createPods
    countParam: $measurePods
    collectMetrics: true
  workloads:
  - name: 1000Node_1000DeletingPods_QueueingHintsEnabled
    featureGates:
      SchedulerQueueingHints: true
    labels: [performance, short]
    params:
      measurePods: 1000
`

func workloadNames(ws []upstreamWorkload) []string {
	var names []string
	for _, w := range ws {
		names = append(names, w.String())
	}
	return names
}

func TestChooseUpstreamWorkloads(t *testing.T) {
	for _, tc := range []struct {
		name, list, size string
		want             []string
		wantErr          string
	}{
		{name: "defaults, large", size: "large", want: []string{
			"SchedulingBasic/5000Nodes_10000Pods_QueueingHintsEnabled",
			"Unschedulable/5kNodes/100Init/10kPods_QueueingHintsEnabled",
			"PreemptionBasic/1000Nodes_QueueingHintsEnabled",
			"PreemptionAsync/5000Nodes_AsyncPreemptionEnabled",
			"SchedulingWithMixedChurn/5000Nodes_10000Pods_QueueingHintsEnabled",
			"SchedulingWhileGated/1Node_10000GatedPods_QueueingHintsEnabled",
		}},
		{name: "defaults, small", list: " ", size: "small", want: []string{
			"SchedulingBasic/500Nodes",
			"Unschedulable/500Nodes/10Init/1kPods",
			"PreemptionBasic/1000Nodes_QueueingHintsEnabled",
			"PreemptionAsync/5000Nodes_AsyncPreemptionEnabled",
			"SchedulingWithMixedChurn/1000Nodes",
			"SchedulingWhileGated/1Node_10000GatedPods_QueueingHintsEnabled",
		}},
		{name: "test case at its size, then a named workload", list: "SchedulingBasic, Unschedulable/5kNodes/100Init/1kPods", size: "small",
			want: []string{"SchedulingBasic/500Nodes", "Unschedulable/5kNodes/100Init/1kPods"}},
		{name: "each once", list: "SchedulingBasic,SchedulingBasic/500Nodes,SchedulingBasic", size: "small", want: []string{"SchedulingBasic/500Nodes"}},
		{name: "not a default, by name", list: "SchedulingDaemonset", size: "large", want: []string{"SchedulingDaemonset/15000Nodes_QueueingHintsEnabled"}},
		{name: "bad size", size: "huge", wantErr: `invalid -upstream-size "huge": allowed are small, large`},
		{name: "unknown test case", list: "SchedulingBasic,Schedulingbasic", size: "large",
			wantErr: `unknown workload "Schedulingbasic" in -upstream-workloads: allowed are SchedulingBasic, Unschedulable, PreemptionBasic, PreemptionAsync, SchedulingWithMixedChurn, SchedulingWhileGated, SchedulingDeletedPodsWithFinalizers, SchedulingDaemonset (each at its -upstream-size workload), or TestCase/Workload`},
		{name: "no workload after the slash", list: "SchedulingBasic/", size: "large", wantErr: `invalid entry "SchedulingBasic/" in -upstream-workloads`},
		{name: "empty entry", list: "SchedulingBasic,,Unschedulable", size: "large", wantErr: `invalid entry "" in -upstream-workloads`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseUpstreamWorkloads(tc.list, tc.size)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if names := workloadNames(got); !reflect.DeepEqual(names, tc.want) {
				t.Errorf("got %q, want %q", names, tc.want)
			}
		})
	}
}

// TestUpstreamConfig: the generated configuration holds upstream's test
// cases as they are, with only the chosen workloads, labelled kspatch and
// without thresholds.
func TestUpstreamConfig(t *testing.T) {
	chosen := []upstreamWorkload{
		{TestCase: "Unschedulable", Workload: "5kNodes/100Init/10kPods_QueueingHintsEnabled"},
		{TestCase: "SchedulingBasic", Workload: "500Nodes"},
		{TestCase: "SchedulingBasic", Workload: "5000Nodes_10000Pods_QueueingHintsEnabled"},
		{TestCase: "SchedulingDeletedPodsWithFinalizers", Workload: "1000Node_1000DeletingPods_QueueingHintsEnabled"},
	}
	config, resolved, err := upstreamConfig([]byte(upstreamSample), "0123456789abcdef", chosen)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(config, "# Upstream's test cases from "+upstreamConfigPath+" at 0123456789ab ") {
		t.Errorf("config header:\n%s", config)
	}
	var source, got []map[string]any
	if err := yaml.Unmarshal([]byte(upstreamSample), &source); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(config), &got); err != nil {
		t.Fatalf("generated config does not parse: %v\n%s", err, config)
	}
	wantWorkloads := map[string][]string{
		"SchedulingBasic":                     {"500Nodes", "5000Nodes_10000Pods_QueueingHintsEnabled"},
		"Unschedulable":                       {"5kNodes/100Init/10kPods_QueueingHintsEnabled"},
		"SchedulingDeletedPodsWithFinalizers": {"1000Node_1000DeletingPods_QueueingHintsEnabled"},
	}
	// Test cases in the file's order, everything but the workloads as upstream has it.
	var names []string
	for i, tc := range got {
		names = append(names, tc["name"].(string))
		for k, v := range source[i] {
			if k != "workloads" && !reflect.DeepEqual(tc[k], v) {
				t.Errorf("%s: %s = %v, upstream has %v", tc["name"], k, tc[k], v)
			}
		}
		var ws []string
		for _, w := range upstreamWorkloads(tc) {
			name := w["name"].(string)
			ws = append(ws, name)
			if !reflect.DeepEqual(w["labels"], []any{"kspatch"}) {
				t.Errorf("%s/%s labels %v, want [kspatch]", tc["name"], name, w["labels"])
			}
			if _, ok := w["threshold"]; ok {
				t.Errorf("%s/%s keeps its threshold", tc["name"], name)
			}
			orig, _ := findUpstreamWorkload(source[i], name)
			for k, v := range orig {
				if k != "labels" && k != "threshold" && !reflect.DeepEqual(w[k], v) {
					t.Errorf("%s/%s: %s = %v, upstream has %v", tc["name"], name, k, w[k], v)
				}
			}
		}
		if want := wantWorkloads[tc["name"].(string)]; !reflect.DeepEqual(ws, want) {
			t.Errorf("%s workloads %q, want %q", tc["name"], ws, want)
		}
	}
	if want := []string{"SchedulingBasic", "Unschedulable", "SchedulingDeletedPodsWithFinalizers"}; !reflect.DeepEqual(names, want) {
		t.Errorf("test cases %q, want %q", names, want)
	}
	// The chosen workloads come back in their order, with what upstream sets.
	wantDetail := []string{
		"initNodes=5000 measurePods=10000; SchedulerQueueingHints=true",
		"initNodes=500 measurePods=1000",
		"initNodes=5000 measurePods=10000; SchedulerQueueingHints=true",
		"measurePods=1000; SchedulerQueueingHints=true",
	}
	for i, w := range resolved {
		if w.TestCase != chosen[i].TestCase || w.Workload != chosen[i].Workload || w.Detail != wantDetail[i] {
			t.Errorf("resolved %d = %+v, want %v with detail %q", i, w, chosen[i], wantDetail[i])
		}
	}
}

func TestUpstreamConfigRejectsUnknownNames(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chosen upstreamWorkload
		want   string
	}{
		{"test case", upstreamWorkload{TestCase: "SchedulingBasics", Workload: "500Nodes"},
			`unknown test case "SchedulingBasics" in -upstream-workloads: allowed are SchedulingBasic, Unschedulable, SchedulingDeletedPodsWithFinalizers`},
		{"workload", upstreamWorkload{TestCase: "Unschedulable", Workload: "5kNodes/100Init/1kPods"},
			`unknown workload "5kNodes/100Init/1kPods" of test case Unschedulable in -upstream-workloads: allowed are 500Nodes/10Init/1kPods, 5kNodes/100Init/10kPods_QueueingHintsEnabled`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := upstreamConfig([]byte(upstreamSample), "ref", []upstreamWorkload{tc.chosen})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, _, err := upstreamConfig([]byte("- name: [unclosed"), "ref", nil); err == nil {
		t.Error("a file that does not parse must be an error")
	}
}

// TestUpstreamPresetsInPinnedTree: every preset names a workload of the
// pinned release's file, sets only the release's default gates, and the
// suite's test cases join the other suites' without a name clash. It needs
// `make upstream`; without the tree it is skipped.
func TestUpstreamPresetsInPinnedTree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "_output", "kubernetes", upstreamConfigPath))
	if err != nil {
		t.Skipf("no Kubernetes tree (make upstream): %v", err)
	}
	for _, size := range []string{upstreamSmall, upstreamLarge} {
		var all []upstreamWorkload
		for _, p := range upstreamPresets {
			all = append(all, upstreamWorkload{TestCase: p.TestCase, Workload: p.workload(size)})
		}
		config, resolved, err := upstreamConfig(raw, "ref", all)
		if err != nil {
			t.Fatalf("%s: %v", size, err)
		}
		for _, w := range resolved {
			_, gates, _ := strings.Cut(w.Detail, "; ")
			for _, g := range strings.Fields(gates) {
				if g != "SchedulerQueueingHints=true" && g != "SchedulerAsyncPreemption=true" {
					t.Errorf("%s (%s) sets %s, which is not v1.33's default", w, size, g)
				}
			}
		}
		var cases []struct{ Name string }
		combined := burstConfig("patched", []int{1000}) + apiCallsConfig("patched", 1000, 100) + gangsConfig("patched", defaultGangOptions()) + config
		if err := yaml.Unmarshal([]byte(combined), &cases); err != nil {
			t.Fatalf("%s: the combined config does not parse: %v", size, err)
		}
		seen := map[string]bool{}
		for _, c := range cases {
			if seen[c.Name] {
				t.Errorf("%s: test case %q twice", size, c.Name)
			}
			seen[c.Name] = true
		}
		if !seen["SchedulingWhileGated"] || !seen["APICallsNormal"] {
			t.Errorf("%s: test cases %v", size, seen)
		}
	}
}

// TestBenchPattern: the pattern selects exactly the named workload, one
// anchored element per level, also when the workload name has levels of its
// own.
func TestBenchPattern(t *testing.T) {
	for _, tc := range []struct {
		testCase, workload, want string
		matches, misses          []string
	}{
		{"SchedulingBasic", "500Nodes", `^BenchmarkPerfScheduling$/^SchedulingBasic$/^500Nodes$`,
			[]string{"BenchmarkPerfScheduling/SchedulingBasic/500Nodes"},
			[]string{"BenchmarkPerfScheduling/SchedulingBasic/5000Nodes", "BenchmarkPerfScheduling/SchedulingBasic/500Nodes_x"}},
		{"Unschedulable", "5kNodes/100Init/10kPods", `^BenchmarkPerfScheduling$/^Unschedulable$/^5kNodes$/^100Init$/^10kPods$`,
			[]string{"BenchmarkPerfScheduling/Unschedulable/5kNodes/100Init/10kPods"},
			[]string{"BenchmarkPerfScheduling/Unschedulable/5kNodes/100Init/10kPods_QueueingHintsEnabled", "BenchmarkPerfScheduling/Unschedulable/5kNodes/20kInit/10kPods"}},
		{"APICallsNormal", "patched_gate_on", `^BenchmarkPerfScheduling$/^APICallsNormal$/^patched_gate_on$`,
			[]string{"BenchmarkPerfScheduling/APICallsNormal/patched_gate_on"}, nil},
		{"T", "a.b", `^BenchmarkPerfScheduling$/^T$/^a\.b$`, []string{"BenchmarkPerfScheduling/T/a.b"}, []string{"BenchmarkPerfScheduling/T/axb"}},
	} {
		pattern := benchPattern(tc.testCase, tc.workload)
		if pattern != tc.want {
			t.Errorf("benchPattern(%q, %q) = %q, want %q", tc.testCase, tc.workload, pattern, tc.want)
		}
		// The testing package matches element by element.
		match := func(name string) bool {
			elems, pats := strings.Split(name, "/"), strings.Split(pattern, "/")
			if len(elems) != len(pats) {
				return false
			}
			for i := range elems {
				if !regexp.MustCompile(pats[i]).MatchString(elems[i]) {
					return false
				}
			}
			return true
		}
		for _, name := range tc.matches {
			if !match(name) {
				t.Errorf("%s does not select %s", pattern, name)
			}
		}
		for _, name := range tc.misses {
			if match(name) {
				t.Errorf("%s selects %s", pattern, name)
			}
		}
	}
}

func TestUpstreamRunName(t *testing.T) {
	w := upstreamWorkload{TestCase: "Unschedulable", Workload: "5kNodes/100Init/10kPods"}
	if got, want := upstreamRunName(w, upstreamSides[1], 2), "Upstream-Unschedulable-5kNodes_100Init_10kPods-patched-rep2"; got != want {
		t.Errorf("upstreamRunName = %q, want %q", got, want)
	}
}

func TestMedianOf(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := medianOf(tc.values); got != tc.want {
			t.Errorf("medianOf(%v) = %v, want %v", tc.values, got, tc.want)
		}
	}
}

// TestUpstreamMarkdown: rows take the median runs and the paired ratios, so
// a repetition in which the machine was slow for both sides (rep 2) does
// not move the ratio; the goal line names the workloads that meet it and
// those that do not.
func TestUpstreamMarkdown(t *testing.T) {
	basic := upstreamWorkload{TestCase: "SchedulingBasic", Workload: "500Nodes", Detail: "initNodes=500 initPods=500 measurePods=1000"}
	gated := upstreamWorkload{TestCase: "SchedulingWhileGated", Workload: "1Node_10000GatedPods_QueueingHintsEnabled", Detail: "gatedPods=10000; SchedulerQueueingHints=true"}
	lone := upstreamWorkload{TestCase: "PreemptionBasic", Workload: "1000Nodes_QueueingHintsEnabled"}
	var results []upstreamResult
	for rep, speed := range []float64{1, 0.5, 1.1} {
		for _, r := range []struct {
			w    upstreamWorkload
			side string
			pods float64
		}{
			{w: basic, side: "vanilla", pods: 300},
			{w: basic, side: "patched", pods: 297},
			{w: gated, side: "vanilla", pods: 200},
			{w: gated, side: "patched", pods: 180},
		} {
			results = append(results, upstreamResult{Workload: r.w, Side: r.side, Rep: rep + 1, Throughput: r.pods * speed, Load: 1.5 + float64(rep)})
		}
	}
	// A workload whose patched run is missing has no pair.
	results = append(results, upstreamResult{Workload: lone, Side: "vanilla", Rep: 1, Throughput: 20})

	if v := upstreamVerdictOf(results, basic); !v.met() || len(v.Ratios) != 3 {
		t.Errorf("SchedulingBasic verdict %+v, want met with 3 ratios", v)
	}
	if v := upstreamVerdictOf(results, gated); v.met() {
		t.Errorf("SchedulingWhileGated verdict %+v, want missed", v)
	}
	if v := upstreamVerdictOf(results, lone); v.met() || len(v.Ratios) != 0 {
		t.Errorf("a workload without a pair: %+v", v)
	}

	command := "make bench BENCH_ARGS='-suites upstream -reps 3'"
	md := upstreamMarkdown(&harness{root: t.TempDir()}, []upstreamWorkload{basic, gated, lone}, results, 3,
		upstreamOptions{Size: "large", Command: command})
	for _, want := range []string{
		"# kspatch benchmarks: upstream's scheduler_perf workloads (performance conformance)",
		"3 repetition(s)",
		"load average at the end of the runs was 1.5–3.5",
		"`-upstream-size large`",
		"| workload | upstream parameters | vanilla pods/s | patched pods/s | patched/vanilla | ≥ 0.98× |",
		"| SchedulingBasic/500Nodes | initNodes=500 initPods=500 measurePods=1000 | 300.0 (150–330) | 297.0 (148–327) | 0.99× (0.99–0.99) | yes |",
		"| SchedulingWhileGated/1Node_10000GatedPods_QueueingHintsEnabled | gatedPods=10000; SchedulerQueueingHints=true | 200.0 (100–220) | 180.0 (90–198) | 0.90× (0.90–0.90) | **no** |",
		"| PreemptionBasic/1000Nodes_QueueingHintsEnabled |  | 20.0 | n/a | n/a | n/a |",
		"Goal ≥ 0.98× on every workload: met on 1 of 3 (SchedulingBasic/500Nodes); missed on SchedulingWhileGated/1Node_10000GatedPods_QueueingHintsEnabled (0.90×), PreemptionBasic/1000Nodes_QueueingHintsEnabled (no pair).",
		"Command: `" + command + "` (3 repetition(s)).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks\n%s\nin\n%s", want, md)
		}
	}
	if strings.Contains(md, "run `-reps 3` or more") {
		t.Error("with 3 repetitions the summary must not ask for more")
	}

	// One repetition, every workload at the goal: met on all, with the caveat.
	md = upstreamMarkdown(&harness{root: t.TempDir()}, []upstreamWorkload{basic}, results[:2], 1, upstreamOptions{Size: "small", Command: "make bench"})
	for _, want := range []string{"| SchedulingBasic/500Nodes | initNodes=500 initPods=500 measurePods=1000 | 300.0 | 297.0 | 0.99× | yes |",
		"Goal ≥ 0.98× on every workload: met on all 1 workloads.", "run `-reps 3` or more"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks\n%s\nin\n%s", want, md)
		}
	}
}

// TestRunRejectsBadUpstreamFlags: the upstream suite's flags are checked
// before anything is read or built.
func TestRunRejectsBadUpstreamFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		up   upstreamOptions
		want string
	}{
		{"size", upstreamOptions{Size: "xl"}, `invalid -upstream-size "xl": allowed are small, large`},
		{"workload", upstreamOptions{Size: "large", Workloads: "SchedulingBasic,Churn"}, `unknown workload "Churn" in -upstream-workloads: allowed are SchedulingBasic,`},
		{"no tree", defaultUpstreamOptions(), "the upstream suite reads " + upstreamConfigPath + " from the vanilla tree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(t.TempDir(), "1000", 1, "vanilla", "", "", 0, "upstream", defaultAPIOptions(), defaultGangOptions(), defaultPlacementOptions(), tc.up)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
