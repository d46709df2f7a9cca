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

// miscOnly is upstream's files with only misc's, raw.
func miscOnly(raw string) upstreamFiles {
	return upstreamFiles{upstreamMiscDir: []byte(raw)}
}

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
		// configs are the Config of each workload of want; nil for all misc's.
		configs []string
		wantErr string
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
		{name: "a dra workload", list: "dra/SchedulingWithResourceClaimTemplate/5000pods_500nodes", size: "large",
			want: []string{"dra/SchedulingWithResourceClaimTemplate/5000pods_500nodes"}, configs: []string{"dra"}},
		{name: "misc and dra, a dra workload name with levels", list: " SchedulingBasic , dra/SteadyState/half/500nodes,dra/SchedulingWithResourceClaim/fast", size: "small",
			want:    []string{"SchedulingBasic/500Nodes", "dra/SteadyState/half/500nodes", "dra/SchedulingWithResourceClaim/fast"},
			configs: []string{"", "dra", "dra"}},
		{name: "misc/ prefix is misc's, each once", list: "misc/SchedulingBasic,SchedulingBasic/500Nodes,misc/Unschedulable/500Nodes/10Init/1kPods", size: "small",
			want: []string{"SchedulingBasic/500Nodes", "Unschedulable/500Nodes/10Init/1kPods"}, configs: []string{"", ""}},
		{name: "same names in misc and dra are two workloads", list: "SchedulingBasic/500Nodes,dra/SchedulingBasic/500Nodes,dra/SchedulingBasic/500Nodes", size: "large",
			want: []string{"SchedulingBasic/500Nodes", "dra/SchedulingBasic/500Nodes"}, configs: []string{"", "dra"}},
		{name: "dra has no presets", list: "dra/SchedulingWithResourceClaimTemplate", size: "large",
			wantErr: `invalid entry "dra/SchedulingWithResourceClaimTemplate" in -upstream-workloads: the presets are misc's; name a workload of upstream's test/integration/scheduler_perf/dra/performance-config.yaml as dra/TestCase/Workload`},
		{name: "dra without a test case", list: "dra/", size: "large", wantErr: `invalid entry "dra/" in -upstream-workloads: want TestCase, TestCase/Workload or Dir/TestCase/Workload (Dir one of misc, dra)`},
		{name: "dra without a workload", list: "dra/SchedulingWithResourceClaim/", size: "large", wantErr: `invalid entry "dra/SchedulingWithResourceClaim/" in -upstream-workloads`},
		{name: "unknown test case names the other files", list: "dra", size: "large",
			wantErr: `unknown workload "dra" in -upstream-workloads: allowed are SchedulingBasic, Unschedulable, PreemptionBasic, PreemptionAsync, SchedulingWithMixedChurn, SchedulingWhileGated, SchedulingDeletedPodsWithFinalizers, SchedulingDaemonset (each at its -upstream-size workload), or TestCase/Workload naming any workload of upstream's test/integration/scheduler_perf/misc/performance-config.yaml, or dra/TestCase/Workload naming any workload of upstream's test/integration/scheduler_perf/dra/performance-config.yaml`},
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
			for i, w := range got {
				want := ""
				if tc.configs != nil {
					want = tc.configs[i]
				}
				if w.Config != want {
					t.Errorf("%s: Config %q, want %q", w, w.Config, want)
				}
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
	config, resolved, err := upstreamConfig(miscOnly(upstreamSample), "0123456789abcdef", chosen)
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
	both := upstreamFiles{upstreamMiscDir: []byte(upstreamSample), "dra": []byte(upstreamDRASample)}
	draPath := "test/integration/scheduler_perf/dra/performance-config.yaml"
	for _, tc := range []struct {
		name   string
		files  upstreamFiles
		chosen upstreamWorkload
		want   string
	}{
		{"test case", both, upstreamWorkload{TestCase: "SchedulingBasics", Workload: "500Nodes"},
			`unknown test case "SchedulingBasics" in -upstream-workloads: allowed are SchedulingBasic, Unschedulable, SchedulingDeletedPodsWithFinalizers (the test cases of ` + upstreamConfigPath + `)`},
		{"workload", both, upstreamWorkload{TestCase: "Unschedulable", Workload: "5kNodes/100Init/1kPods"},
			`unknown workload "5kNodes/100Init/1kPods" of test case Unschedulable in -upstream-workloads: allowed are 500Nodes/10Init/1kPods, 5kNodes/100Init/10kPods_QueueingHintsEnabled (the workloads of Unschedulable in ` + upstreamConfigPath + `)`},
		{"misc only without the dra file", miscOnly(upstreamSample), upstreamWorkload{TestCase: "SchedulingBasics", Workload: "500Nodes"},
			`unknown test case "SchedulingBasics" in -upstream-workloads: allowed are SchedulingBasic, Unschedulable, SchedulingDeletedPodsWithFinalizers`},
		{"dra test case", both, upstreamWorkload{Config: "dra", TestCase: "Unschedulable", Workload: "500Nodes/10Init/1kPods"},
			`unknown test case "Unschedulable" in -upstream-workloads: allowed are SchedulingWithResourceClaimTemplate, SchedulingBasic (the test cases of ` + draPath + `)`},
		{"dra workload", both, upstreamWorkload{Config: "dra", TestCase: "SchedulingWithResourceClaimTemplate", Workload: "500Nodes"},
			`unknown workload "500Nodes" of test case SchedulingWithResourceClaimTemplate in -upstream-workloads: allowed are fast, 5000pods_500nodes (the workloads of SchedulingWithResourceClaimTemplate in ` + draPath + `)`},
		{"dra file not read", miscOnly(upstreamSample), upstreamWorkload{Config: "dra", TestCase: "SchedulingWithResourceClaimTemplate", Workload: "fast"},
			`dra/SchedulingWithResourceClaimTemplate/fast in -upstream-workloads: upstream's ` + draPath + ` was not read`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := upstreamConfig(tc.files, "ref", []upstreamWorkload{tc.chosen})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	for dir, want := range map[string]string{upstreamMiscDir: upstreamConfigPath + ": ", "dra": draPath + ": "} {
		files := upstreamFiles{upstreamMiscDir: []byte(upstreamSample), "dra": []byte(upstreamDRASample)}
		files[dir] = []byte("- name: [unclosed")
		if _, _, err := upstreamConfig(files, "ref", nil); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s does not parse: error %v, want one naming the file", dir, err)
		}
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
		config, resolved, err := upstreamConfig(upstreamFiles{upstreamMiscDir: raw}, "ref", all)
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
			o := failingOptions(t, "upstream")
			o.Upstream = tc.up
			err := run(o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// upstreamDRASample is shaped like upstream's dra/performance-config.yaml:
// template paths relative to the dra directory and to its parent, and a
// test case with the name of one of upstreamSample's.
const upstreamDRASample = `# comment
- name: SchedulingWithResourceClaimTemplate
  featureGates:
    DynamicResourceAllocation: true
  defaultPodTemplatePath: ../templates/pod-default.yaml
  workloadTemplate:
  - opcode: createNodes
    nodeTemplatePath: templates/node-with-dra-test-driver.yaml
    countParam: $nodesWithDRA
  - opcode: createResourceDriver
    driverName: test-driver.cdi.k8s.io
    nodes: scheduler-perf-dra-*
  - opcode: createAny
    templatePath: templates/deviceclass.yaml
  - opcode: createPods
    namespace: test
    countParam: $measurePods
    podTemplatePath: templates/pod-with-claim-template.yaml
    collectMetrics: true
  workloads:
  - name: fast
    featureGates:
      SchedulerQueueingHints: false
    labels: [integration-test, short]
    params:
      nodesWithDRA: 1
      measurePods: 10
  - name: 5000pods_500nodes
    labels: [performance]
    threshold: 40 # typically above 51
    params:
      nodesWithDRA: 500
      measurePods: 2500
- name: SchedulingBasic
  workloadTemplate:
  - opcode: createNodes
    nodeTemplatePath: templates/node-with-dra-test-driver.yaml
    countParam: $initNodes
  - opcode: churn
    mode: create
    templatePaths:
    - templates/resourceclaim.yaml
    - ../templates/pod-default.yaml
  workloads:
  - name: 500Nodes
    labels: [performance]
    params:
      initNodes: 500
`

// upstreamHeaders are the files the header comments of a generated
// configuration name, in order.
func upstreamHeaders(config string) []string {
	var files []string
	for _, m := range regexp.MustCompile(`(?m)^# Upstream's test cases from (\S+) at `).FindAllStringSubmatch(config, -1) {
		files = append(files, m[1])
	}
	return files
}

// TestUpstreamConfigDRA: workloads of the dra file run as upstream wrote
// them but for their labels, thresholds and template paths (relative to
// the bench package); a test case name chosen from both files runs as
// dra-Name from the dra file; misc's workloads come out as without the dra
// file.
func TestUpstreamConfigDRA(t *testing.T) {
	both := upstreamFiles{upstreamMiscDir: []byte(upstreamSample), "dra": []byte(upstreamDRASample)}
	draPath := "test/integration/scheduler_perf/dra/performance-config.yaml"
	for _, tc := range []struct {
		name   string
		files  upstreamFiles
		chosen []upstreamWorkload
		// wantHeaders are the files the config's header comments name.
		wantHeaders []string
		// wantCases are the generated test cases' names; wantCase the
		// resolved workloads' Case.
		wantCases, wantCase []string
		wantDetail          []string
		// wantYAML, when set, is the whole generated configuration.
		wantYAML string
		wantErr  string
	}{
		{
			name:        "a dra workload",
			files:       both,
			chosen:      []upstreamWorkload{{Config: "dra", TestCase: "SchedulingWithResourceClaimTemplate", Workload: "5000pods_500nodes"}},
			wantHeaders: []string{draPath},
			wantCases:   []string{"SchedulingWithResourceClaimTemplate"},
			wantCase:    []string{"SchedulingWithResourceClaimTemplate"},
			wantDetail:  []string{"measurePods=2500 nodesWithDRA=500; DynamicResourceAllocation=true"},
			wantYAML: `
- name: SchedulingWithResourceClaimTemplate
  featureGates:
    DynamicResourceAllocation: true
  defaultPodTemplatePath: ../templates/pod-default.yaml
  workloadTemplate:
  - opcode: createNodes
    nodeTemplatePath: ../dra/templates/node-with-dra-test-driver.yaml
    countParam: $nodesWithDRA
  - opcode: createResourceDriver
    driverName: test-driver.cdi.k8s.io
    nodes: scheduler-perf-dra-*
  - opcode: createAny
    templatePath: ../dra/templates/deviceclass.yaml
  - opcode: createPods
    namespace: test
    countParam: $measurePods
    podTemplatePath: ../dra/templates/pod-with-claim-template.yaml
    collectMetrics: true
  workloads:
  - name: 5000pods_500nodes
    labels: [kspatch]
    params:
      nodesWithDRA: 500
      measurePods: 2500
`,
		},
		{
			name:  "the same test case name in misc and dra",
			files: both,
			chosen: []upstreamWorkload{
				{Config: "dra", TestCase: "SchedulingBasic", Workload: "500Nodes"},
				{TestCase: "SchedulingBasic", Workload: "500Nodes"},
				{Config: "dra", TestCase: "SchedulingWithResourceClaimTemplate", Workload: "fast"},
			},
			wantHeaders: []string{upstreamConfigPath, draPath},
			wantCases:   []string{"SchedulingBasic", "SchedulingWithResourceClaimTemplate", "dra-SchedulingBasic"},
			wantCase:    []string{"dra-SchedulingBasic", "SchedulingBasic", "SchedulingWithResourceClaimTemplate"},
			wantDetail: []string{"initNodes=500", "initNodes=500 measurePods=1000",
				"measurePods=10 nodesWithDRA=1; DynamicResourceAllocation=true SchedulerQueueingHints=false"},
		},
		{
			name:        "misc's workloads with the dra file read",
			files:       both,
			chosen:      []upstreamWorkload{{TestCase: "Unschedulable", Workload: "500Nodes/10Init/1kPods"}, {TestCase: "SchedulingBasic", Workload: "500Nodes"}},
			wantHeaders: []string{upstreamConfigPath},
			wantCases:   []string{"SchedulingBasic", "Unschedulable"},
			wantCase:    []string{"Unschedulable", "SchedulingBasic"},
			wantDetail:  []string{"initNodes=500 measurePods=1000", "initNodes=500 measurePods=1000"},
		},
		{
			name: "a renamed test case that clashes",
			files: upstreamFiles{
				upstreamMiscDir: []byte("- name: SchedulingBasic\n  workloads:\n  - name: w\n- name: dra-SchedulingBasic\n  workloads:\n  - name: w\n"),
				"dra":           []byte("- name: SchedulingBasic\n  workloads:\n  - name: w\n"),
			},
			chosen: []upstreamWorkload{
				{TestCase: "SchedulingBasic", Workload: "w"},
				{TestCase: "dra-SchedulingBasic", Workload: "w"},
				{Config: "dra", TestCase: "SchedulingBasic", Workload: "w"},
			},
			wantErr: `test case SchedulingBasic of ` + draPath + ` and test case misc/dra-SchedulingBasic would both run as "dra-SchedulingBasic": choose one of them in -upstream-workloads`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, resolved, err := upstreamConfig(tc.files, "0123456789abcdef", tc.chosen)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := upstreamHeaders(config); !reflect.DeepEqual(got, tc.wantHeaders) {
				t.Errorf("headers name %q, want %q\n%s", got, tc.wantHeaders, config)
			}
			var got []map[string]any
			if err := yaml.Unmarshal([]byte(config), &got); err != nil {
				t.Fatalf("generated config does not parse: %v\n%s", err, config)
			}
			var names []string
			for _, c := range got {
				names = append(names, c["name"].(string))
			}
			if !reflect.DeepEqual(names, tc.wantCases) {
				t.Errorf("test cases %q, want %q", names, tc.wantCases)
			}
			if tc.wantYAML != "" {
				var want []map[string]any
				if err := yaml.Unmarshal([]byte(tc.wantYAML), &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					gotText, _ := yaml.Marshal(got)
					wantText, _ := yaml.Marshal(want)
					t.Errorf("generated\n%s\nwant\n%s", gotText, wantText)
				}
			}
			if len(resolved) != len(tc.chosen) {
				t.Fatalf("resolved %d workloads, want %d", len(resolved), len(tc.chosen))
			}
			for i, w := range resolved {
				c := tc.chosen[i]
				if w.Config != c.Config || w.TestCase != c.TestCase || w.Workload != c.Workload || w.Case != tc.wantCase[i] || w.Detail != tc.wantDetail[i] {
					t.Errorf("resolved %d = %+v, want %v with Case %q and Detail %q", i, w, c, tc.wantCase[i], tc.wantDetail[i])
				}
			}
			// Every workload of a test case is under the generated name it runs as.
			for _, w := range resolved {
				found := false
				for _, c := range got {
					if c["name"] == w.caseName() {
						if wl, _ := findUpstreamWorkload(c, w.Workload); wl != nil {
							found = true
						}
					}
				}
				if !found {
					t.Errorf("%s: no workload %s of a test case %s in the config", w, w.Workload, w.caseName())
				}
			}
		})
	}

	// Misc's part is the same as without the dra file.
	chosen := []upstreamWorkload{{TestCase: "SchedulingBasic", Workload: "500Nodes"}, {TestCase: "Unschedulable", Workload: "500Nodes/10Init/1kPods"}}
	withDRA, _, err := upstreamConfig(both, "ref", chosen)
	if err != nil {
		t.Fatal(err)
	}
	withoutDRA, _, err := upstreamConfig(miscOnly(upstreamSample), "ref", chosen)
	if err != nil {
		t.Fatal(err)
	}
	if withDRA != withoutDRA {
		t.Errorf("misc's workloads with the dra file read:\n%s\nwithout:\n%s", withDRA, withoutDRA)
	}
}

// TestRelocateTemplatePath: a path relative to upstream's directory is the
// same file relative to the bench package's, a sibling directory.
func TestRelocateTemplatePath(t *testing.T) {
	for _, tc := range []struct{ dir, path, want string }{
		{"dra", "templates/x.yaml", "../dra/templates/x.yaml"},
		{"dra", "./templates/x.yaml", "../dra/templates/x.yaml"},
		{"dra", "templates/../other/x.yaml", "../dra/other/x.yaml"},
		{"dra", "../templates/x.yaml", "../templates/x.yaml"},
		{"dra", "../misc/x.yaml", "../misc/x.yaml"},
		{"dra", "../kspatch/x.yaml", "x.yaml"},
		{"dra", "../../../../../x.yaml", "../../../../../x.yaml"},
		{"dra", "/abs/x.yaml", "/abs/x.yaml"},
		{"dra", "", ""},
		{"misc", "../templates/pod-default.yaml", "../templates/pod-default.yaml"},
		{"misc", "templates/x.yaml", "../misc/templates/x.yaml"},
	} {
		got, err := relocateTemplatePath(tc.path, tc.dir)
		if err != nil || got != tc.want {
			t.Errorf("relocateTemplatePath(%q, %q) = %q, %v; want %q", tc.path, tc.dir, got, err, tc.want)
		}
	}
}

// TestRelocateTemplatePaths: every template path of a test case is
// rewritten, wherever it is, and nothing else; the input is not changed.
func TestRelocateTemplatePaths(t *testing.T) {
	const sample = `
name: templates/not-a-path.yaml
defaultPodTemplatePath: templates/pod.yaml
templatePathology: templates/kept.yaml
workloadTemplate:
- opcode: createAny
  templatePath: templates/deviceclass.yaml
  namespace: templates
- opcode: createNodes
  nodeTemplatePath: ../templates/node-default.yaml
- opcode: createPods
  podTemplatePath: ./templates/pod.yaml
  persistentVolumeTemplatePath: templates/pv.yaml
  persistentVolumeClaimTemplatePath: /abs/pvc.yaml
- opcode: churn
  templatePaths:
  - templates/a.yaml
  - ../templates/b.yaml
  otherPaths: [templates/c.yaml]
- opcode: createNamespaces
  namespaceTemplatePath: templates/ns.yaml
  countParam: $namespaces
workloads:
- name: w
  params:
    templatePath: 3
`
	// want is the same for every directory but for its name, DIR.
	const want = `
name: templates/not-a-path.yaml
defaultPodTemplatePath: ../DIR/templates/pod.yaml
templatePathology: templates/kept.yaml
workloadTemplate:
- opcode: createAny
  templatePath: ../DIR/templates/deviceclass.yaml
  namespace: templates
- opcode: createNodes
  nodeTemplatePath: ../templates/node-default.yaml
- opcode: createPods
  podTemplatePath: ../DIR/templates/pod.yaml
  persistentVolumeTemplatePath: ../DIR/templates/pv.yaml
  persistentVolumeClaimTemplatePath: /abs/pvc.yaml
- opcode: churn
  templatePaths:
  - ../DIR/templates/a.yaml
  - ../templates/b.yaml
  otherPaths: [templates/c.yaml]
- opcode: createNamespaces
  namespaceTemplatePath: ../DIR/templates/ns.yaml
  countParam: $namespaces
workloads:
- name: w
  params:
    templatePath: 3
`
	for _, tc := range []struct{ dir, want string }{
		{"dra", strings.ReplaceAll(want, "DIR", "dra")},
		{"misc", strings.ReplaceAll(want, "DIR", "misc")},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			var in, original, want map[string]any
			for _, u := range []struct {
				text string
				into *map[string]any
			}{{sample, &in}, {sample, &original}, {tc.want, &want}} {
				if err := yaml.Unmarshal([]byte(u.text), u.into); err != nil {
					t.Fatal(err)
				}
			}
			got, err := relocateTemplatePaths(in, tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				gotText, _ := yaml.Marshal(got)
				wantText, _ := yaml.Marshal(want)
				t.Errorf("got\n%s\nwant\n%s", gotText, wantText)
			}
			if !reflect.DeepEqual(in, original) {
				t.Error("relocateTemplatePaths changed its input")
			}
		})
	}
}

// templatePathsIn are the template paths of a value of a configuration.
func templatePathsIn(v any) []string {
	var paths []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && isTemplatePathKey(k) {
				paths = append(paths, s)
			}
			if list, ok := e.([]any); ok && isTemplatePathKey(strings.TrimSuffix(k, "s")) {
				for _, item := range list {
					if s, ok := item.(string); ok {
						paths = append(paths, s)
					}
				}
			}
			paths = append(paths, templatePathsIn(e)...)
		}
	case []any:
		for _, e := range v {
			paths = append(paths, templatePathsIn(e)...)
		}
	}
	return paths
}

// TestUpstreamDRAInPinnedTree: every workload of the pinned release's dra
// file comes out with template paths that name its files from the bench
// package's directory, and its test cases join the other suites' and the
// misc presets' without a name clash. It needs `make upstream`; without
// the tree it is skipped.
func TestUpstreamDRAInPinnedTree(t *testing.T) {
	tree := filepath.Join("..", "_output", "kubernetes")
	files := upstreamFiles{}
	for _, dir := range upstreamConfigDirs {
		raw, err := os.ReadFile(filepath.Join(tree, upstreamConfigPathOf(dir)))
		if err != nil {
			t.Skipf("no Kubernetes tree (make upstream): %v", err)
		}
		files[dir] = raw
	}
	var source []map[string]any
	if err := yaml.Unmarshal(files["dra"], &source); err != nil {
		t.Fatal(err)
	}
	var all []upstreamWorkload
	for _, p := range upstreamPresets {
		all = append(all, upstreamWorkload{TestCase: p.TestCase, Workload: p.workload(upstreamLarge)})
	}
	for _, tc := range source {
		for _, w := range upstreamWorkloads(tc) {
			all = append(all, upstreamWorkload{Config: "dra", TestCase: tc["name"].(string), Workload: w["name"].(string)})
		}
	}
	config, resolved, err := upstreamConfig(files, "ref", all)
	if err != nil {
		t.Fatal(err)
	}
	if len(resolved) < len(upstreamPresets)+5 {
		t.Errorf("only %d workloads", len(resolved))
	}
	var cases []map[string]any
	if err := yaml.Unmarshal([]byte(config), &cases); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tc := range cases {
		for _, p := range templatePathsIn(tc) {
			if _, err := os.Stat(filepath.Join(tree, perfPkgDir, p)); err != nil {
				t.Errorf("%s: template path %s: %v", tc["name"], p, err)
			}
			if strings.HasPrefix(p, "../dra/") {
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no template path of the dra file in the config")
	}
	var names []struct{ Name string }
	combined := burstConfig("patched", []int{1000}) + apiCallsConfig("patched", 1000, 100) + gangsConfig("patched", defaultGangOptions()) + config
	if err := yaml.Unmarshal([]byte(combined), &names); err != nil {
		t.Fatalf("the combined config does not parse: %v", err)
	}
	seen := map[string]bool{}
	for _, c := range names {
		if seen[c.Name] {
			t.Errorf("test case %q twice", c.Name)
		}
		seen[c.Name] = true
	}
	if !seen["SchedulingWithResourceClaimTemplate"] || !seen["SchedulingBasic"] {
		t.Errorf("test cases %v", seen)
	}
}

func TestUpstreamRunNameDRA(t *testing.T) {
	w := upstreamWorkload{Config: "dra", TestCase: "SchedulingWithResourceClaimTemplate", Workload: "5000pods_500nodes", Case: "SchedulingWithResourceClaimTemplate"}
	if got, want := upstreamRunName(w, upstreamSides[0], 1), "Upstream-dra-SchedulingWithResourceClaimTemplate-5000pods_500nodes-vanilla-rep1"; got != want {
		t.Errorf("upstreamRunName = %q, want %q", got, want)
	}
}

// TestUpstreamMarkdownDRA: the table names a dra workload with its prefix,
// the text names the files the workloads come from and a workload that runs
// under another test case name.
func TestUpstreamMarkdownDRA(t *testing.T) {
	basic := upstreamWorkload{TestCase: "SchedulingBasic", Workload: "500Nodes", Case: "SchedulingBasic", Detail: "initNodes=500"}
	dra := upstreamWorkload{Config: "dra", TestCase: "SchedulingBasic", Workload: "500Nodes", Case: "dra-SchedulingBasic", Detail: "initNodes=500; DynamicResourceAllocation=true"}
	var results []upstreamResult
	for _, w := range []upstreamWorkload{basic, dra} {
		results = append(results,
			upstreamResult{Workload: w, Side: "vanilla", Rep: 1, Throughput: 100},
			upstreamResult{Workload: w, Side: "patched", Rep: 1, Throughput: 99})
	}
	md := upstreamMarkdown(&harness{root: t.TempDir()}, []upstreamWorkload{basic, dra}, results, 1, upstreamOptions{Size: "large", Command: "make bench"})
	for _, want := range []string{
		"from `test/integration/scheduler_perf/misc/performance-config.yaml` and `test/integration/scheduler_perf/dra/performance-config.yaml` (the workloads named dra/...) of the pinned release",
		"A test case of two files has the same name, so dra/SchedulingBasic/500Nodes runs as test case `dra-SchedulingBasic`.",
		"| SchedulingBasic/500Nodes | initNodes=500 | 100.0 | 99.0 | 0.99× | yes |",
		"| dra/SchedulingBasic/500Nodes | initNodes=500; DynamicResourceAllocation=true | 100.0 | 99.0 | 0.99× | yes |",
		"met on all 2 workloads.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks\n%s\nin\n%s", want, md)
		}
	}
	md = upstreamMarkdown(&harness{root: t.TempDir()}, []upstreamWorkload{basic}, results[:2], 1, upstreamOptions{Size: "large", Command: "make bench"})
	if !strings.Contains(md, "from `"+upstreamConfigPath+"` of the pinned release") || strings.Contains(md, "dra/performance-config.yaml") {
		t.Errorf("misc only summary:\n%s", md)
	}
	if strings.Contains(md, "runs as test case") {
		t.Errorf("misc only summary names a renamed test case:\n%s", md)
	}
}
