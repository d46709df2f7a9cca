package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// gangCase is the part of a generated scheduler_perf test case the tests
// read.
type gangCase struct {
	Name             string
	WorkloadTemplate []map[string]any `json:"workloadTemplate"`
	MetricsCollector struct {
		Metrics map[string][]struct {
			Label  string
			Values []string
		}
	} `json:"metricsCollectorConfig"`
	Workloads []struct {
		Name         string
		Labels       []string
		FeatureGates map[string]bool
		Params       map[string]int
	}
}

func TestGangsConfig(t *testing.T) {
	o := defaultGangOptions()
	for _, tc := range []struct {
		tree string
		// want: test case -> workloads, in order.
		want map[string][]string
	}{
		{tree: "vanilla", want: map[string][]string{"GangsUngrouped": {"vanilla"}}},
		{tree: "patched", want: map[string][]string{
			"GangsUngrouped": {"patched_gate_off", "patched_gate_on"},
			"Gangs8":         {"patched_gate_on"},
			"Gangs32":        {"patched_gate_on"},
		}},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			var cases []gangCase
			if err := yaml.UnmarshalStrict([]byte(gangsConfig(tc.tree, o)), &cases); err != nil {
				t.Fatalf("generated config does not parse: %v", err)
			}
			if len(cases) != len(tc.want) {
				t.Fatalf("want test cases %v, got %d", tc.want, len(cases))
			}
			for _, c := range cases {
				wantNames, ok := tc.want[c.Name]
				if !ok {
					t.Fatalf("unexpected test case %q", c.Name)
				}
				size := 0
				if c.Name != "GangsUngrouped" {
					size = map[string]int{"Gangs8": 8, "Gangs32": 32}[c.Name]
				}
				checkGangOps(t, c, size)
				if _, ok := c.MetricsCollector.Metrics["scheduler_podgroup_scheduling_attempt_duration_seconds"]; !ok {
					t.Errorf("%s does not collect the pod-group attempt duration", c.Name)
				}
				if m := c.MetricsCollector.Metrics["scheduler_podgroup_schedule_attempts_total"]; len(m) != 1 || m[0].Label != "result" || len(m[0].Values) != 3 {
					t.Errorf("%s must collect the pod-group attempts by result, got %+v", c.Name, m)
				}
				api := c.MetricsCollector.Metrics["apiserver_request_duration_seconds"]
				if len(api) != 3 || api[2].Label != "subresource" || !reflect.DeepEqual(api[2].Values, []string{"", "binding"}) {
					t.Errorf("%s must collect the API server's latency of Pod creations and bindings, got %+v", c.Name, api)
				}
				var names []string
				for _, w := range c.Workloads {
					names = append(names, w.Name)
					if len(w.Labels) != 1 || w.Labels[0] != "kspatch" {
						t.Errorf("%s/%s labels %v: the harness filters on kspatch", c.Name, w.Name, w.Labels)
					}
					wantParams := map[string]int{"nodes": 500, "pods": 2048}
					if size > 0 {
						wantParams["groups"] = 2048 / size
					}
					if !reflect.DeepEqual(w.Params, wantParams) {
						t.Errorf("%s/%s params %v, want %v (every param used)", c.Name, w.Name, w.Params, wantParams)
					}
					switch w.Name {
					case "vanilla":
						if len(w.FeatureGates) != 0 {
							t.Errorf("vanilla does not know the kspatch gates, got %v", w.FeatureGates)
						}
					case "patched_gate_off":
						if on, ok := w.FeatureGates["GangScheduling"]; !ok || on || len(w.FeatureGates) != 1 {
							t.Errorf("%s/%s gates %v, want GangScheduling off", c.Name, w.Name, w.FeatureGates)
						}
					case "patched_gate_on":
						if on := w.FeatureGates["GangScheduling"]; !on || len(w.FeatureGates) != 1 {
							t.Errorf("%s/%s gates %v, want GangScheduling on", c.Name, w.Name, w.FeatureGates)
						}
					}
				}
				if strings.Join(names, ",") != strings.Join(wantNames, ",") {
					t.Errorf("%s workloads %v, want %v", c.Name, names, wantNames)
				}
			}
		})
	}
}

// checkGangOps: the CRD first, then the nodes, the PodGroups (gangs only, in
// the pods' namespace), an unmeasured wait, and the measured pods.
func checkGangOps(t *testing.T, c gangCase, size int) {
	t.Helper()
	ops := c.WorkloadTemplate
	want := []string{"createAny", "createNodes", "sleep", "createPods"}
	if size > 0 {
		want = []string{"createAny", "createNodes", "createAny", "sleep", "createPods"}
	}
	var got []string
	for _, op := range ops {
		got = append(got, op["opcode"].(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s ops %v, want %v", c.Name, got, want)
	}
	if ops[0]["templatePath"] != gangCRDTemplate || ops[0]["namespace"] != nil {
		t.Errorf("%s: first op %v must create the (cluster-scoped) CRD", c.Name, ops[0])
	}
	if ops[1]["countParam"] != "$nodes" {
		t.Errorf("%s: createNodes %v", c.Name, ops[1])
	}
	pods := ops[len(ops)-1]
	if pods["namespace"] != gangNamespace || pods["countParam"] != "$pods" || pods["collectMetrics"] != true || pods["podTemplatePath"] != gangPodFile(size) {
		t.Errorf("%s: createPods %v", c.Name, pods)
	}
	if size > 0 {
		pg := ops[2]
		if pg["templatePath"] != gangPodGroupFile(size) || pg["namespace"] != gangNamespace || pg["countParam"] != "$groups" {
			t.Errorf("%s: PodGroups op %v must create $groups PodGroups in the pods' namespace", c.Name, pg)
		}
	}
}

// TestAllConfigsParse: the suites share one performance-config.yaml; the
// test case names must be unique.
func TestAllConfigsParse(t *testing.T) {
	for _, tree := range []string{"vanilla", "patched"} {
		var cases []struct{ Name string }
		config := burstConfig(tree, []int{1000}) + apiCallsConfig(tree, 1000, 100) + gangsConfig(tree, defaultGangOptions())
		if err := yaml.Unmarshal([]byte(config), &cases); err != nil {
			t.Fatalf("%s: the combined config does not parse: %v", tree, err)
		}
		seen := map[string]bool{}
		for _, c := range cases {
			if seen[c.Name] {
				t.Errorf("%s: test case %q twice", tree, c.Name)
			}
			seen[c.Name] = true
		}
		if !seen["GangsUngrouped"] || !seen["DRAClaimTemplateBurst"] || !seen["APICallsNormal"] {
			t.Errorf("%s: test cases %v", tree, seen)
		}
	}
}

// render executes a template the way scheduler_perf does (text/template
// with div and mod) and decodes the YAML.
func render(t *testing.T, text string, index, count int) map[string]any {
	t.Helper()
	tmpl, err := template.New("object").Funcs(template.FuncMap{
		"div": func(a, b int) int { return a / b },
		"mod": func(a, b int) int { return a % b },
	}).Parse(text)
	if err != nil {
		t.Fatalf("template does not parse: %v", err)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, map[string]any{"Index": index, "Count": count}); err != nil {
		t.Fatalf("template does not execute: %v", err)
	}
	var obj map[string]any
	if err := yaml.UnmarshalStrict(buf.Bytes(), &obj); err != nil {
		t.Fatalf("rendered template is not YAML: %v\n%s", err, buf.String())
	}
	return obj
}

func TestGangTemplates(t *testing.T) {
	plain := render(t, gangPodTemplate(0), 0, 64)
	if md := plain["metadata"].(map[string]any); md["labels"] != nil {
		t.Errorf("the pod without a group has labels %v", md["labels"])
	}
	for _, tc := range []struct{ size, index int }{{8, 0}, {8, 7}, {8, 8}, {32, 31}, {32, 63}} {
		pod := render(t, gangPodTemplate(tc.size), tc.index, 64)
		md := pod["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		wantGroup := "gang-" + itoa(tc.index/tc.size)
		if labels[gangPodGroupLabel] != wantGroup {
			t.Errorf("gangs of %d, pod %d: labels %v, want %s=%s", tc.size, tc.index, labels, gangPodGroupLabel, wantGroup)
		}
		// The same pod as without a group, but for the label.
		delete(md, "labels")
		if !reflect.DeepEqual(pod, plain) {
			t.Errorf("gangs of %d: pod %v differs from the pod without a group %v beyond the label", tc.size, pod, plain)
		}

		pg := render(t, gangPodGroupTemplate(tc.size), tc.index/tc.size, 64/tc.size)
		if pg["apiVersion"] != "scheduling.kspatch.io/v1alpha1" || pg["kind"] != "PodGroup" {
			t.Errorf("PodGroup template %v", pg)
		}
		if name := pg["metadata"].(map[string]any)["name"]; name != wantGroup {
			t.Errorf("PodGroup %d named %v, want %s", tc.index/tc.size, name, wantGroup)
		}
		gang := pg["spec"].(map[string]any)["schedulingPolicy"].(map[string]any)["gang"].(map[string]any)
		if gang["minCount"] != float64(tc.size) {
			t.Errorf("gangs of %d: minCount %v", tc.size, gang["minCount"])
		}
	}
}

func itoa(n int) string { return joinInts([]int{n}) }

// TestGangFiles: the suite ships the checkout's CRD, which scheduler_perf
// reads as a template, and one pod and PodGroup template per size.
func TestGangFiles(t *testing.T) {
	if _, err := gangFiles([]byte("description: {{ oops }}"), []int{8}); err == nil || !strings.Contains(err.Error(), "'{{'") {
		t.Errorf("a CRD with '{{' must be refused, got %v", err)
	}
	crd, err := os.ReadFile(filepath.Join("..", gangCRDFile))
	if err != nil {
		t.Skipf("no checkout around bench/: %v", err)
	}
	files, err := gangFiles(crd, []int{8, 32})
	if err != nil {
		t.Fatalf("the checkout's CRD: %v", err)
	}
	obj := render(t, string(files[gangCRDTemplate]), 0, 1)
	spec := obj["spec"].(map[string]any)
	if obj["kind"] != "CustomResourceDefinition" || spec["group"] != "scheduling.kspatch.io" || spec["scope"] != "Namespaced" {
		t.Errorf("%s is not the namespaced PodGroup CRD", gangCRDFile)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	for _, want := range []string{gangCRDTemplate, "gangs-pod-ungrouped.yaml", "gangs-pod-8.yaml", "gangs-podgroup-8.yaml", "gangs-pod-32.yaml", "gangs-podgroup-32.yaml"} {
		if files[want] == nil {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if len(files) != 6 {
		t.Errorf("files %v", names)
	}
}

func TestGangRuns(t *testing.T) {
	var got []string
	for _, r := range gangRuns([]int{8, 32}) {
		got = append(got, gangTestCase(r.Size)+"/"+r.Side.Name)
	}
	want := "GangsUngrouped/vanilla,GangsUngrouped/patched-gate-off,GangsUngrouped/patched-gate-on,Gangs8/patched-gate-on,Gangs32/patched-gate-on"
	if strings.Join(got, ",") != want {
		t.Errorf("runs %v, want %s", got, want)
	}
}

// TestParsePositiveSizes: -gang-sizes, -levels-gang-sizes and
// -preemption-gang-sizes keep each size once, in order, and name the flag
// of an entry that is not a positive number.
func TestParsePositiveSizes(t *testing.T) {
	for _, tc := range []struct {
		flag, v string
		want    []int
		err     string
	}{
		{"gang-sizes", "8, 32,8", []int{8, 32}, ""},
		{"levels-gang-sizes", "32, 128,32", []int{32, 128}, ""},
		{"preemption-gang-sizes", " 8,32,8 ", []int{8, 32}, ""},
		{"gang-sizes", "0", nil, `invalid -gang-sizes entry "0": must be a positive number of pods per gang`},
		{"gang-sizes", "8,x", nil, `invalid -gang-sizes entry "x"`},
		{"gang-sizes", "", nil, `invalid -gang-sizes entry ""`},
		{"levels-gang-sizes", "32,0", nil, `invalid -levels-gang-sizes entry "0"`},
		{"preemption-gang-sizes", "", nil, `invalid -preemption-gang-sizes entry ""`},
		{"preemption-gang-sizes", "0", nil, `invalid -preemption-gang-sizes entry "0"`},
		{"preemption-gang-sizes", "8,x", nil, `invalid -preemption-gang-sizes entry "x"`},
		{"preemption-gang-sizes", "-1", nil, `invalid -preemption-gang-sizes entry "-1"`},
	} {
		got, err := parsePositiveSizes(tc.flag, tc.v)
		if tc.err == "" && (err != nil || !reflect.DeepEqual(got, tc.want)) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("parsePositiveSizes(%q, %q) = %v, %v; want %v, %q", tc.flag, tc.v, got, err, tc.want, tc.err)
		}
	}
}

func TestGangResultFrom(t *testing.T) {
	items := []dataItem{
		{Labels: map[string]string{"Metric": "SchedulingThroughput"}, Data: map[string]float64{"Average": 300}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_schedule_attempts_total", "result": "scheduled"}, Data: map[string]float64{"Value": 64}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_schedule_attempts_total", "result": "error"}, Data: map[string]float64{"Value": 1}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_scheduling_attempt_duration_seconds"}, Data: map[string]float64{"Perc50": 30, "Perc90": 50, "Perc99": 60, "Average": 32, "Count": 65}},
		{Labels: map[string]string{"Metric": "scheduler_scheduling_attempt_duration_seconds", "result": "scheduled"}, Data: map[string]float64{"Perc50": 4, "Perc99": 20, "Count": 2048}},
		{Labels: map[string]string{"Metric": "scheduler_scheduling_algorithm_duration_seconds"}, Data: map[string]float64{"Average": 1.5, "Count": 2048}},
		{Labels: map[string]string{"Metric": "scheduler_pod_scheduling_sli_duration_seconds"}, Data: map[string]float64{"Perc50": 900, "Perc99": 4000, "Count": 2048}},
		{Labels: map[string]string{"Metric": "kspatch_bench_pod_writes_total", "kind": "status"}, Data: map[string]float64{"Value": 12}},
		{Labels: map[string]string{"Metric": "apiserver_request_duration_seconds", "verb": "POST", "resource": "pods", "subresource": ""}, Data: map[string]float64{"Perc50": 7, "Count": 2048}},
		{Labels: map[string]string{"Metric": "apiserver_request_duration_seconds", "verb": "POST", "resource": "pods", "subresource": "binding"}, Data: map[string]float64{"Perc50": 9, "Count": 2048}},
		{Labels: map[string]string{"Metric": "apiserver_request_total", "verb": "PATCH", "resource": "podgroups", "subresource": "status"}, Data: map[string]float64{"Value": 70}},
		{Labels: map[string]string{"Metric": "apiserver_request_total", "verb": "PATCH", "resource": "events", "subresource": "status"}, Data: map[string]float64{"Value": 0}},
		{Labels: map[string]string{"Metric": "apiserver_request_total", "verb": "POST", "resource": "events", "subresource": ""}, Data: map[string]float64{"Value": 2100}},
		{Labels: map[string]string{"Metric": "apiserver_request_total", "verb": "POST", "resource": "podgroups", "subresource": ""}, Data: map[string]float64{"Value": 64}},
	}
	r := gangResultFrom(items)
	if r.Throughput != 300 || r.groupAttempts() != 65 || r.GroupAttempts["scheduled"] != 64 {
		t.Errorf("throughput or attempts: %+v", r)
	}
	if r.Group != (latency{P50: 30, P90: 50, P99: 60, Avg: 32, Count: 65}) {
		t.Errorf("group latency %+v", r.Group)
	}
	if r.PodAttempt.P99 != 20 || r.Algorithm.Avg != 1.5 || r.SLI.P50 != 900 || r.StatusWrites != 12 || r.PodCreate.P50 != 7 || r.Binding.P50 != 9 || r.PodGroupStatusWrites != 70 || r.Events != 2100 {
		t.Errorf("per-pod latencies %+v %+v %+v", r.PodAttempt, r.Algorithm, r.SLI)
	}
	// Vanilla and the gate off have no pod-group metrics.
	v := gangResultFrom(items[:1])
	if v.groupAttempts() != -1 || v.Group.Count != 0 || msOrNA(v.Group, v.Group.P50) != "n/a" {
		t.Errorf("without pod-group metrics: %+v", v)
	}
}

func TestGangMarkdown(t *testing.T) {
	h := &harness{root: t.TempDir()}
	o := gangOptions{Sizes: []int{8}, Pods: 64, Nodes: 10, Command: "make bench BENCH_ARGS='-suites gangs -gang-pods 64'"}
	results := []gangResult{
		{Size: 0, Side: "vanilla", Throughput: 200, Load: 6},
		{Size: 0, Side: "vanilla", Throughput: 100, Load: 1.5},
		{Size: 0, Side: "vanilla", Throughput: 150},
		{Size: 0, Side: "patched-gate-off", Throughput: 150},
		{Size: 0, Side: "patched-gate-on", Throughput: 150, GroupAttempts: map[string]float64{}},
		{Size: 8, Side: "patched-gate-on", Throughput: 75, GroupAttempts: map[string]float64{"scheduled": 8, "unschedulable": 1},
			Group: latency{P50: 16, P90: 30, P99: 31, Avg: 16, Count: 8}, StatusWrites: 8,
			PodCreate: latency{P50: 3}, Binding: latency{P50: 4}, PodGroupStatusWrites: 12, Events: 128},
	}
	md := gangMarkdown(h, results, 3, o)
	for _, want := range []string{
		"| no group | vanilla | 150.0 (100–200) | 1.00× | n/a | n/a | n/a | n/a |",
		"| gangs of 8 | patched-gate-on | 75.0 | 0.50× | 8/9 | 16.0 / 30.0 / 31.0 | 16.0 | 2.00 |",
		"| gangs of 8 | patched-gate-on | 0.00 | 3.0 / 4.0 | 0.125 | 1.50 | 2.00 |",
		"gangs of 8:    gate-on/vanilla (no group) 0.50x",
		"Command: `make bench BENCH_ARGS='-suites gangs -gang-pods 64'`",
		"64 measured Pods",
		"load average at the end of the runs was 1.5–6.0",
		"Extra pod-group cycles (1 for 8 gangs of 8)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestGangOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    gangOptions
		want string
	}{
		{"defaults", defaultGangOptions(), ""},
		{"incomplete gang", gangOptions{Sizes: []int{8, 32}, Pods: 2000, Nodes: 500}, "-gang-pods 2000 is not a multiple of gang size 32"},
		{"too many pods", gangOptions{Sizes: []int{8}, Pods: 800, Nodes: 10}, "invalid -gang-pods 800: must be between 1 and 400"},
		{"no nodes", gangOptions{Sizes: []int{8}, Pods: 8, Nodes: 0}, "invalid -gang-nodes 0"},
		{"no sizes", gangOptions{Pods: 8, Nodes: 1}, "-gang-sizes is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("validate: %v, want %q", err, tc.want)
			}
		})
	}
	// run refuses them before building anything.
	bad := defaultGangOptions()
	bad.Pods = 100
	o := failingOptions(t, "gangs")
	o.Gangs = bad
	if err := run(o); err == nil || !strings.Contains(err.Error(), "not a multiple of gang size 8") {
		t.Errorf("run: %v", err)
	}
	if err := run(failingOptions(t, "gangs")); err == nil || !strings.Contains(err.Error(), "needs the PodGroup CRD") {
		t.Errorf("run without a checkout: %v, want an error about the CRD", err)
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "make bench"},
		{[]string{"-root", "/work/main"}, "make bench"},
		{[]string{"-root=/x", "-suites", "gangs", "-reps", "3"}, "make bench BENCH_ARGS='-suites gangs -reps 3'"},
		{[]string{"-suites", "gangs", "-gangs-markdown", ""}, `make bench BENCH_ARGS='-suites gangs -gangs-markdown ""'`},
	} {
		if got := commandLine(tc.args); got != tc.want {
			t.Errorf("commandLine(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestExtraCyclesNote(t *testing.T) {
	o := gangOptions{Sizes: []int{8, 32}, Pods: 256}
	exact := []gangResult{
		{Size: 8, Side: gangSideOn, GroupAttempts: map[string]float64{"scheduled": 32}},
		{Size: 32, Side: gangSideOn, GroupAttempts: map[string]float64{"scheduled": 8}},
	}
	if note := extraCyclesNote(exact, o); note != "" {
		t.Errorf("one cycle per gang needs no note, got %q", note)
	}
	extra := []gangResult{
		{Size: 8, Side: gangSideOn, GroupAttempts: map[string]float64{"scheduled": 32, "unschedulable": 3}},
		{Size: 32, Side: gangSideOn, GroupAttempts: map[string]float64{"scheduled": 8}},
	}
	if note := extraCyclesNote(extra, o); !strings.Contains(note, "(3 for 32 gangs of 8)") {
		t.Errorf("note %q", note)
	}
}
