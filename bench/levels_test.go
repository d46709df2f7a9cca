package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// smokeLevelsOptions is a 50-node run: 2 blocks of 5 racks of 5 nodes
// (20 slots a rack), gangs of 8 and 24, 48 pods each.
func smokeLevelsOptions() levelsOptions {
	o := defaultLevelsOptions()
	o.Shape = levelsShape{Blocks: 2, RacksPerBlock: 5, NodesPerRack: 5}
	o.GangSizes = []int{8, 24}
	o.Pods = 48
	return o
}

// TestLevelsRackUsed: the default fill takes exactly 60% of the 20000
// slots, racks range from nearly empty to nearly full, and the seed alone
// decides which rack gets what.
func TestLevelsRackUsed(t *testing.T) {
	s := defaultLevelsOptions().Shape
	used := levelsRackUsed(s, 0.6, 1)
	if len(used) != 100 {
		t.Fatalf("%d racks, want 100", len(used))
	}
	sum, lo, hi := 0, s.rackSlots(), 0
	for _, u := range used {
		if u < 0 || u > s.rackSlots() {
			t.Fatalf("rack with %d used slots of %d", u, s.rackSlots())
		}
		sum += u
		lo, hi = min(lo, u), max(hi, u)
	}
	if sum != 12000 {
		t.Errorf("%d slots used, want 12000 (60%% of 20000)", sum)
	}
	if lo > 20 || hi < 190 {
		t.Errorf("used slots range %d–%d of 200: want some racks nearly empty (≤ 10%%) and some nearly full (≥ 95%%)", lo, hi)
	}
	if again := levelsRackUsed(s, 0.6, 1); !reflect.DeepEqual(again, used) {
		t.Errorf("the same seed gave another fill")
	}
	other := levelsRackUsed(s, 0.6, 2)
	if reflect.DeepEqual(other, used) {
		t.Errorf("seed 2 gave the fill of seed 1")
	}
	// The same shares, handed to other racks.
	a, b := append([]int(nil), used...), append([]int(nil), other...)
	sort.Ints(a)
	sort.Ints(b)
	diff := 0
	for i := range a {
		diff = max(diff, a[i]-b[i], b[i]-a[i])
	}
	if diff > 2 {
		t.Errorf("the seeds' shares differ by up to %d slots; want the same curve (up to the evening out)", diff)
	}
	// The curve is pinned: rack 0's share with seed 1 (a change of the
	// generator or the curve changes every published fill).
	if used[0] != 80 || used[99] != 56 {
		t.Errorf("racks 0 and 99 use %d and %d slots, want 80 and 56 (seed 1)", used[0], used[99])
	}
	for _, fill := range []float64{0, 0.01, 0.3, 0.95} {
		sum := 0
		for _, u := range levelsRackUsed(s, fill, 7) {
			sum += u
		}
		if want := int(fill*20000 + 0.5); sum != want {
			t.Errorf("fill %v: %d slots used, want %d", fill, sum, want)
		}
	}
	for _, u := range levelsRackUsed(s, 0.01, 7) {
		if u != 2 {
			t.Errorf("fill 1%% (below the curve's lowest share): rack with %d used slots, want 2 in every rack", u)
			break
		}
	}
}

// TestLevelsNodeUsed: the nodes of a rack share its used slots, 0 to 4
// each, the first ones taking one more.
func TestLevelsNodeUsed(t *testing.T) {
	lay := defaultLevelsOptions().layout()
	s := lay.Shape
	perRack := make([]int, s.racks())
	for i := 0; i < s.nodes(); i++ {
		u := lay.nodeUsed(i)
		if u < 0 || u > levelsSlotsPerNode {
			t.Fatalf("node %d uses %d slots", i, u)
		}
		if i%s.NodesPerRack > 0 && u > lay.nodeUsed(i-1) {
			t.Errorf("node %d uses more than the node before it", i)
		}
		perRack[s.rackOf(i)] += u
	}
	if !reflect.DeepEqual(perRack, lay.RackUsed) {
		t.Errorf("the nodes' used slots do not add up to their racks'")
	}
	lay = levelsLayout{Shape: levelsShape{Blocks: 1, RacksPerBlock: 2, NodesPerRack: 3}, RackUsed: []int{7, 12}}
	var got []int
	for i := 0; i < 6; i++ {
		got = append(got, lay.nodeUsed(i))
	}
	if want := []int{3, 2, 2, 4, 4, 4}; !reflect.DeepEqual(got, want) {
		t.Errorf("nodes use %v, want %v", got, want)
	}
}

// TestLevelsFillTemplate: fill pod i is bound to node lv-node-<i> and
// requests the CPU of its used slots, on the default shape and a small one.
func TestLevelsFillTemplate(t *testing.T) {
	for _, o := range []levelsOptions{defaultLevelsOptions(), smokeLevelsOptions()} {
		lay := o.layout()
		fill := renderer(t, levelsFillTemplate(lay))
		for i := 0; i < o.Shape.nodes(); i++ {
			pod := fill(i, o.Shape.nodes())
			spec := pod["spec"].(map[string]any)
			if pod["kind"] != "Pod" || spec["nodeName"] != fmt.Sprintf("lv-node-%d", i) {
				t.Fatalf("fill pod %d: %v, want it bound to lv-node-%d", i, pod, i)
			}
			if md := pod["metadata"].(map[string]any); md["generateName"] != "fill-" || md["namespace"] != nil {
				t.Fatalf("fill pod %d metadata %v", i, md)
			}
			resources := spec["containers"].([]any)[0].(map[string]any)["resources"].(map[string]any)
			want := map[string]any{"requests": map[string]any{"cpu": fmt.Sprintf("%dm", 1000*lay.nodeUsed(i)), "memory": "500Mi"}}
			if !reflect.DeepEqual(resources, want) {
				t.Fatalf("%s, fill pod %d (rack %d): resources %v, want %v", o.Shape.flag(), i, o.Shape.rackOf(i), resources, want)
			}
		}
	}
}

func TestLevelsNodeTemplate(t *testing.T) {
	s := defaultLevelsOptions().Shape
	text := levelsNodeTemplate(s)
	for _, tc := range []struct{ index, block, rack int }{{0, 0, 0}, {49, 0, 0}, {50, 0, 1}, {499, 0, 9}, {500, 1, 10}, {4999, 9, 99}} {
		node := render(t, text, tc.index, s.nodes())
		md := node["metadata"].(map[string]any)
		want := map[string]any{levelsBlockLabel: fmt.Sprintf("block-%d", tc.block), levelsRackLabel: fmt.Sprintf("rack-%d", tc.rack)}
		if !reflect.DeepEqual(md["labels"], want) || md["name"] != fmt.Sprintf("lv-node-%d", tc.index) {
			t.Errorf("node %d: metadata %v, want name lv-node-%d and labels %v", tc.index, md, tc.index, want)
		}
		if s.rackOf(tc.index) != tc.rack || s.blockOf(tc.rack) != tc.block {
			t.Errorf("node %d: rackOf/blockOf disagree with the labels", tc.index)
		}
		capacity := node["status"].(map[string]any)["capacity"].(map[string]any)
		if !reflect.DeepEqual(capacity, map[string]any{"pods": "110", "cpu": "4", "memory": "32Gi"}) {
			t.Errorf("capacity %v", capacity)
		}
	}
}

func TestLevelsPodGroupTemplates(t *testing.T) {
	for _, tc := range []struct {
		kind levelsKind
		want []any
	}{
		{levelsBlockRack, []any{map[string]any{"key": levelsBlockLabel, "mode": "Required"}, map[string]any{"key": levelsRackLabel, "mode": "Preferred"}}},
		{levelsRackOnly, []any{map[string]any{"key": levelsRackLabel}}},
	} {
		pg := render(t, levelsPodGroupTemplate(128, tc.kind), 3, 32)
		if name := dig(t, pg, "metadata", "name"); name != "gang-3" {
			t.Errorf("%s: name %v", tc.kind.label(), name)
		}
		if mc := dig(t, pg, "spec", "schedulingPolicy", "gang", "minCount"); mc != float64(128) {
			t.Errorf("%s: minCount %v", tc.kind.label(), mc)
		}
		if got := dig(t, pg, "spec", "schedulingConstraints", "topology"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: topology %v, want %v", tc.kind.label(), got, tc.want)
		}
	}
	// Members of gang i carry its label.
	pod := render(t, memberPodTemplate("bench/levels.go", 128, levelsPodCPU), 300, 4096)
	if got := dig(t, pod, "metadata", "labels", gangPodGroupLabel); got != "gang-2" {
		t.Errorf("pod 300 of gangs of 128 joins %v, want gang-2", got)
	}
}

// TestLevelsPodGroupMatchesCRD: the two-level PodGroup uses only fields of
// the checkout's CRD, and the levels suite refuses a CRD without levels.
func TestLevelsPodGroupMatchesCRD(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", gangCRDFile))
	if err != nil {
		t.Skipf("no checkout around bench/: %v", err)
	}
	if err := checkLevelsCRD(raw); err != nil {
		if !strings.Contains(err.Error(), "issue #24") && !strings.Contains(err.Error(), "maxItems") {
			t.Fatalf("checkLevelsCRD: %v", err)
		}
		t.Skipf("the checkout's CRD has no topology levels yet: %v", err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	schema := dig(t, crd, "spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec").(map[string]any)
	for _, k := range levelsKinds {
		pg := render(t, levelsPodGroupTemplate(32, k), 0, 1)
		checkSchemaFields(t, pg["spec"], schema, "spec")
	}
}

func TestCheckLevelsCRD(t *testing.T) {
	crd := func(topology string) []byte {
		return []byte("spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        properties:\n          spec:\n            properties:\n              schedulingConstraints:\n                properties:\n" + topology)
	}
	for _, tc := range []struct {
		name, topology, want string
	}{
		{"levels", "                  topology:\n                    maxItems: 4\n                    items:\n                      properties:\n                        key: {type: string}\n                        mode: {type: string}\n", ""},
		{"no maxItems", "                  topology:\n                    items:\n                      properties:\n                        mode: {type: string}\n", ""},
		{"no mode", "                  topology:\n                    maxItems: 1\n                    items:\n                      properties:\n                        key: {type: string}\n", "topology[].mode"},
		{"one level", "                  topology:\n                    maxItems: 1\n                    items:\n                      properties:\n                        mode: {type: string}\n", "allows 1 (maxItems)"},
		{"no topology", "                  other: {}\n", "no spec.schedulingConstraints.topology"},
	} {
		err := checkLevelsCRD(crd(tc.topology))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := checkLevelsCRD([]byte("{")); err == nil {
		t.Errorf("a CRD that is not YAML must be refused")
	}
}

// levelsCase is a test case of the generated configuration, read strictly.
type levelsCase struct {
	Name                string
	SchedulerConfigPath string           `json:"schedulerConfigPath"`
	WorkloadTemplate    []map[string]any `json:"workloadTemplate"`
	MetricsCollector    struct {
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

func TestLevelsConfig(t *testing.T) {
	o := defaultLevelsOptions()
	if levelsConfig("vanilla", o) != "" {
		t.Errorf("the vanilla tree got levels test cases")
	}
	var cases []levelsCase
	config := levelsConfig("patched", o)
	if err := yaml.UnmarshalStrict([]byte(config), &cases); err != nil {
		t.Fatalf("generated config does not parse: %v\n%s", err, config)
	}
	// Gangs of 128 with a single rack: only the 21 that fit in racks.
	want := map[string]int{"Levels32BlockRack10b10r50n": 128, "Levels32Rack10b10r50n": 128, "Levels128BlockRack10b10r50n": 32, "Levels128Rack10b10r50n": 21}
	if len(cases) != len(want) {
		t.Fatalf("test cases %d, want %v", len(cases), want)
	}
	for _, c := range cases {
		gangs, ok := want[c.Name]
		if !ok {
			t.Fatalf("unexpected test case %q", c.Name)
		}
		size, kind := c.sizeAndKind()
		if c.SchedulerConfigPath != levelsSchedulerConfigFile {
			t.Errorf("%s: schedulerConfigPath %q, want %q (the placement log)", c.Name, c.SchedulerConfigPath, levelsSchedulerConfigFile)
		}
		if got := c.opcodes(); got != "createAny,createNodes,createPods,createAny,sleep,createPods" {
			t.Fatalf("%s ops %s", c.Name, got)
		}
		wt := c.WorkloadTemplate
		if wt[1]["nodeTemplatePath"] != levelsNodeFile || wt[1]["countParam"] != "$nodes" {
			t.Errorf("%s: nodes %v", c.Name, wt[1])
		}
		if !reflect.DeepEqual(wt[2], map[string]any{"opcode": "createPods", "namespace": "fill", "countParam": "$fill", "podTemplatePath": levelsFillFile}) {
			t.Errorf("%s: fill %v (unmeasured)", c.Name, wt[2])
		}
		if wt[3]["templatePath"] != levelsPodGroupFile(size, kind) || wt[3]["namespace"] != levelsNamespace {
			t.Errorf("%s: PodGroups %v", c.Name, wt[3])
		}
		if wt[5]["podTemplatePath"] != levelsPodFile(size) || wt[5]["collectMetrics"] != true || wt[5]["namespace"] != levelsNamespace {
			t.Errorf("%s: pods %v", c.Name, wt[5])
		}
		metrics := c.MetricsCollector.Metrics
		for _, m := range []string{"scheduler_placement_decision_duration_seconds", "scheduler_podgroup_scheduling_attempt_duration_seconds", "scheduler_podgroup_schedule_attempts_total"} {
			if _, ok := metrics[m]; !ok {
				t.Errorf("%s does not collect %s", c.Name, m)
			}
		}
		levels := []string{levelsRackLabel, levelsBlockLabel, "cluster"}
		if m := metrics["scheduler_generated_placements_by_level_total"]; len(m) != 1 || m[0].Label != "level" || !reflect.DeepEqual(m[0].Values, levels) {
			t.Errorf("%s: generated by level %+v", c.Name, m)
		}
		if m := metrics["scheduler_placement_evaluations_by_level_total"]; len(m) != 2 || !reflect.DeepEqual(m[0].Values, levels) || m[1].Label != "result" || len(m[1].Values) != 3 {
			t.Errorf("%s: evaluations by level %+v", c.Name, m)
		}
		if len(c.Workloads) != 1 {
			t.Fatalf("%s: workloads %+v", c.Name, c.Workloads)
		}
		w := c.Workloads[0]
		if w.Name != "patched_gate_on" || !reflect.DeepEqual(w.Labels, []string{"kspatch"}) {
			t.Errorf("%s: workload %s %v", c.Name, w.Name, w.Labels)
		}
		if wantGates := map[string]bool{"GangScheduling": true, "TopologyAwareWorkloadScheduling": true, "PodGroupTopologyLevels": true}; !reflect.DeepEqual(w.FeatureGates, wantGates) {
			t.Errorf("%s: gates %v", c.Name, w.FeatureGates)
		}
		if wantParams := map[string]int{"nodes": 5000, "fill": 5000, "pods": gangs * size, "groups": gangs}; !reflect.DeepEqual(w.Params, wantParams) {
			t.Errorf("%s: params %v, want %v", c.Name, w.Params, wantParams)
		}
	}
	// -levels-pods-first: the pods first, unmeasured; the measurement
	// from the PodGroups' creation until every pod is bound.
	first := defaultLevelsOptions()
	first.PodsFirst = true
	cases = nil
	config = levelsConfig("patched", first)
	if err := yaml.UnmarshalStrict([]byte(config), &cases); err != nil {
		t.Fatalf("generated config does not parse: %v\n%s", err, config)
	}
	if len(cases) != len(want) {
		t.Fatalf("pods first: test cases %d, want %d", len(cases), len(want))
	}
	for _, c := range cases {
		base, ok := strings.CutSuffix(c.Name, "PodsFirst")
		if _, known := want[base]; !ok || !known {
			t.Fatalf("pods first: unexpected test case %q", c.Name)
		}
		size, kind := c.sizeAndKind()
		if got := c.opcodes(); got != "createAny,createNodes,createPods,createPods,sleep,startCollectingMetrics,createAny,barrier,stopCollectingMetrics" {
			t.Fatalf("pods first: %s ops %s", c.Name, got)
		}
		wt := c.WorkloadTemplate
		if !reflect.DeepEqual(wt[3], map[string]any{"opcode": "createPods", "namespace": levelsNamespace, "countParam": "$pods", "podTemplatePath": levelsPodFile(size), "skipWaitToCompletion": true}) {
			t.Errorf("pods first: %s: pods %v (unmeasured, not waited for)", c.Name, wt[3])
		}
		if wt[4]["duration"] != podsFirstSettle {
			t.Errorf("pods first: %s: settle %v", c.Name, wt[4])
		}
		if !reflect.DeepEqual(wt[5]["namespaces"], []any{levelsNamespace}) || !reflect.DeepEqual(wt[7]["namespaces"], []any{levelsNamespace}) {
			t.Errorf("pods first: %s: the measurement and the barrier cover %v and %v, want [%s]", c.Name, wt[5]["namespaces"], wt[7]["namespaces"], levelsNamespace)
		}
		if wt[6]["templatePath"] != levelsPodGroupFile(size, kind) || wt[6]["namespace"] != levelsNamespace || wt[6]["countParam"] != "$groups" {
			t.Errorf("pods first: %s: PodGroups %v", c.Name, wt[6])
		}
	}
	// A gang size no rack has room for: no single-rack test case.
	o.GangSizes = []int{300}
	o.Pods = 600
	if got := levelsConfig("patched", o); strings.Contains(got, "Levels300Rack") || !strings.Contains(got, "Levels300BlockRack") {
		t.Errorf("gangs of 300 (a rack holds 200):\n%s", got)
	}
}

// TestAllConfigsParseWithLevels: every suite's test cases in one
// performance-config.yaml, with unique names.
func TestAllConfigsParseWithLevels(t *testing.T) {
	for _, tree := range []string{"vanilla", "patched"} {
		config := burstConfig(tree, []int{1000}) + apiCallsConfig(tree, 1000, 100) + gangsConfig(tree, defaultGangOptions()) +
			placementConfig(tree, defaultPlacementOptions()) + levelsConfig(tree, defaultLevelsOptions()) + levelsConfig(tree, smokeLevelsOptions()) + levelsConfig(tree, levelsPodsFirst(defaultLevelsOptions()))
		var cases []struct{ Name string }
		if err := yaml.Unmarshal([]byte(config), &cases); err != nil {
			t.Fatalf("%s: %v", tree, err)
		}
		seen := map[string]bool{}
		for _, c := range cases {
			if seen[c.Name] {
				t.Errorf("%s: test case %q twice", tree, c.Name)
			}
			seen[c.Name] = true
		}
		if (tree == "patched") != seen["Levels128BlockRack10b10r50n"] || (tree == "patched") != seen["Levels8Rack2b5r5n"] {
			t.Errorf("%s: test cases %v", tree, seen)
		}
	}
	// The other suites' test cases keep scheduler_perf's default
	// configuration.
	if strings.Contains(gangsConfig("patched", defaultGangOptions())+placementConfig("patched", defaultPlacementOptions()), "schedulerConfigPath") {
		t.Errorf("the gangs or placement suite got a scheduler configuration")
	}
}

// TestLevelsSchedulerConfig: the configuration enables, at Reserve and
// PostBind, the plugin the workload package registers under that name.
func TestLevelsSchedulerConfig(t *testing.T) {
	var cfg struct {
		APIVersion string
		Kind       string
		Profiles   []struct {
			SchedulerName string
			Plugins       map[string]struct {
				Enabled []struct{ Name string }
			}
		}
	}
	if err := yaml.UnmarshalStrict([]byte(levelsSchedulerConfig()), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.APIVersion != "kubescheduler.config.k8s.io/v1" || cfg.Kind != "KubeSchedulerConfiguration" || len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "default-scheduler" {
		t.Fatalf("config %+v", cfg)
	}
	for _, point := range []string{"reserve", "postBind"} {
		e := cfg.Profiles[0].Plugins[point].Enabled
		if len(e) != 1 || e[0].Name != levelsLogPlugin {
			t.Errorf("%s enables %+v, want %s", point, e, levelsLogPlugin)
		}
	}
	src := string(levelsPluginSource)
	for _, want := range []string{
		fmt.Sprintf("placementLogName  = %q", levelsLogPlugin),
		fmt.Sprintf("placementLogEnv   = %q", levelsLogEnv),
		fmt.Sprintf("placementLogGroup = %q", gangPodGroupLabel),
		`"%d %s/%s %s %s\n"`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the plugin's source has no %s", want)
		}
	}
}

// TestLevelsPluginSource: the plugin is Go of the workload package, and
// the package hands what it registers to scheduler_perf.
func TestLevelsPluginSource(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, levelsPluginFile, levelsPluginSource, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "kspatch" {
		t.Errorf("package %s, want kspatch", f.Name.Name)
	}
	methods := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			methods[fd.Name.Name] = true
		}
	}
	for _, m := range []string{"Name", "Reserve", "Unreserve", "PostBind"} {
		if !methods[m] {
			t.Errorf("the plugin has no %s", m)
		}
	}
	main, err := parser.ParseFile(fset, "kspatch_test.go", perfPackage, 0)
	if err != nil {
		t.Fatal(err)
	}
	if main.Name.Name != f.Name.Name {
		t.Errorf("packages %s and %s", main.Name.Name, f.Name.Name)
	}
	if !strings.Contains(string(perfPackage), "var outOfTreePlugins frameworkruntime.Registry") ||
		!strings.Contains(string(perfPackage), `perf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", "kspatch", outOfTreePlugins)`) {
		t.Errorf("kspatch_test.go does not hand outOfTreePlugins to scheduler_perf")
	}
}

func TestLevelsFiles(t *testing.T) {
	crd := []byte("spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        properties:\n          spec:\n            properties:\n              schedulingConstraints:\n                properties:\n                  topology:\n                    items:\n                      properties:\n                        mode: {type: string}\n")
	o := defaultLevelsOptions()
	files, err := levelsFiles(crd, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{gangCRDTemplate, levelsPluginFile, levelsFillFile, levelsNodeFile, "levels-pod-128.yaml", "levels-pod-32.yaml",
		"levels-podgroup-128-blockrack.yaml", "levels-podgroup-128-rack.yaml", "levels-podgroup-32-blockrack.yaml", "levels-podgroup-32-rack.yaml", levelsSchedulerConfigFile}
	sort.Strings(want)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if string(files[levelsPluginFile]) != string(levelsPluginSource) || string(files[gangCRDTemplate]) != string(crd) {
		t.Errorf("plugin or CRD file")
	}
	if _, err := levelsFiles([]byte("description: {{ oops }}"), o); err == nil || !strings.Contains(err.Error(), "'{{'") {
		t.Errorf("a CRD with '{{': %v", err)
	}
	if _, err := levelsFiles([]byte("kind: CustomResourceDefinition\n"), o); err == nil || !strings.Contains(err.Error(), "needs topology levels") {
		t.Errorf("a CRD without levels: %v", err)
	}
	// With the gangs and placement suites, the same CRD file.
	more, err := placementFiles(crd, defaultPlacementOptions())
	if err != nil {
		t.Fatal(err)
	}
	if string(more[gangCRDTemplate]) != string(files[gangCRDTemplate]) {
		t.Errorf("placement and levels write different %s", gangCRDTemplate)
	}
	// The suite's prepare reads the CRD and returns them.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(gangCRDFile)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, gangCRDFile), crd, 0o644); err != nil {
		t.Fatal(err)
	}
	if all, err := (levelsSuite{o: o}).prepare(&harness{root: root}); err != nil || len(all) != len(want) {
		t.Errorf("prepare: %d files, %v", len(all), err)
	}
}

func TestParseLevelsFlags(t *testing.T) {
	s, err := parseLevelsShape("10/10/50")
	if err != nil || s != (levelsShape{10, 10, 50}) || s.flag() != "10/10/50" || s.id() != "10b10r50n" || s.nodes() != 5000 || s.racks() != 100 {
		t.Errorf("10/10/50: %+v, %v", s, err)
	}
	if s.String() != "5000 nodes: 10 blocks × 10 racks × 50 nodes" {
		t.Errorf("String %q", s)
	}
	for _, bad := range []string{"", "10/10", "10/10/50/1", "0/10/50", "a/b/c", "10/-1/50"} {
		if _, err := parseLevelsShape(bad); err == nil || !strings.Contains(err.Error(), "-levels-shape") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestLevelsOptionsValidate(t *testing.T) {
	with := func(change func(*levelsOptions)) levelsOptions {
		o := defaultLevelsOptions()
		change(&o)
		return o
	}
	for _, tc := range []struct {
		name string
		o    levelsOptions
		want string
	}{
		{"defaults", defaultLevelsOptions(), ""},
		{"smoke", smokeLevelsOptions(), ""},
		{"no fill", with(func(o *levelsOptions) { o.Fill = 0 }), ""},
		{"fill too high", with(func(o *levelsOptions) { o.Fill = 0.99 }), "invalid -levels-fill 0.99"},
		{"negative fill", with(func(o *levelsOptions) { o.Fill = -0.1 }), "invalid -levels-fill"},
		{"no sizes", with(func(o *levelsOptions) { o.GangSizes = nil }), "-levels-gang-sizes is empty"},
		{"no pods", with(func(o *levelsOptions) { o.Pods = 0 }), "invalid -levels-pods 0"},
		{"not a multiple", with(func(o *levelsOptions) { o.Pods = 4000 }), "not a multiple of gang size 128"},
		// The blocks hold 58 gangs of 128 at 60%.
		{"too many gangs", with(func(o *levelsOptions) { o.Pods = 128 * 59 }), "hold 58 gang(s) of 128, not 59"},
		{"just enough", with(func(o *levelsOptions) { o.Pods = 128 * 58; o.GangSizes = []int{128} }), ""},
		{"gang bigger than a block", with(func(o *levelsOptions) { o.GangSizes = []int{2048}; o.Pods = 2048 }), "hold 0 gang(s) of 2048"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("validate: %v, want %q", err, tc.want)
			}
		})
	}
	// run refuses them before building anything, and needs the CRD.
	bad := with(func(o *levelsOptions) { o.Pods = 100 })
	o := failingOptions(t, "levels")
	o.Levels = bad
	if err := run(o); err == nil || !strings.Contains(err.Error(), "-levels-pods 100 is not a multiple") {
		t.Errorf("run: %v", err)
	}
	if err := run(failingOptions(t, "levels")); err == nil || !strings.Contains(err.Error(), "the levels suite needs the PodGroup CRD") {
		t.Errorf("run without a checkout: %v", err)
	}
}

func TestLevelsGangsThatFit(t *testing.T) {
	lay := levelsLayout{Shape: levelsShape{Blocks: 2, RacksPerBlock: 2, NodesPerRack: 2}, RackUsed: []int{0, 3, 8, 2}}
	// Free slots per rack 8, 5, 0, 6; per block 13, 6.
	for _, tc := range []struct {
		size          int
		inRack, block int
	}{{1, 19, 19}, {5, 3, 3}, {6, 2, 3}, {7, 1, 1}, {9, 0, 1}, {14, 0, 0}} {
		if got := lay.gangsThatFit(tc.size, true); got != tc.inRack {
			t.Errorf("gangs of %d in racks: %d, want %d", tc.size, got, tc.inRack)
		}
		if got := lay.gangsThatFit(tc.size, false); got != tc.block {
			t.Errorf("gangs of %d in blocks: %d, want %d", tc.size, got, tc.block)
		}
	}
	o := defaultLevelsOptions()
	dl := o.layout()
	if o.gangs(levelsBlockRack, 128, dl) != 32 || o.gangs(levelsRackOnly, 128, dl) != 21 || o.gangs(levelsRackOnly, 32, dl) != 128 {
		t.Errorf("default gangs: %d, %d, %d", o.gangs(levelsBlockRack, 128, dl), o.gangs(levelsRackOnly, 128, dl), o.gangs(levelsRackOnly, 32, dl))
	}
}

func TestLevelsRuns(t *testing.T) {
	o := defaultLevelsOptions()
	lay := o.layout()
	name := func(runs []levelsRun) string {
		var s []string
		for _, r := range runs {
			s = append(s, fmt.Sprintf("%s/%d", r.Kind.testCase(r.Size, o.Shape), r.Gangs))
		}
		return strings.Join(s, " ")
	}
	if got, want := name(levelsRuns(o, lay, 1)), "Levels32BlockRack10b10r50n/128 Levels32Rack10b10r50n/128 Levels128BlockRack10b10r50n/32 Levels128Rack10b10r50n/21"; got != want {
		t.Errorf("rep 1: %s, want %s", got, want)
	}
	if got, want := name(levelsRuns(o, lay, 2)), "Levels32Rack10b10r50n/128 Levels32BlockRack10b10r50n/128 Levels128Rack10b10r50n/21 Levels128BlockRack10b10r50n/32"; got != want {
		t.Errorf("rep 2: %s, want %s", got, want)
	}
	o.GangSizes, o.Pods = []int{300}, 600
	if got, want := name(levelsRuns(o, lay, 1)), "Levels300BlockRack10b10r50n/2"; got != want {
		t.Errorf("gangs of 300: %s, want %s", got, want)
	}
}

func TestParsePlacementLog(t *testing.T) {
	binds, problems := parsePlacementLog("3 levels/pod-a lv-node-7 gang-0\n\n-1 levels/pod-b lv-node-8 gang-0\nbad line\nx levels/p n g\n")
	want := []levelsBind{{Seq: 3, Pod: "levels/pod-a", Node: "lv-node-7", Group: "gang-0"}, {Seq: -1, Pod: "levels/pod-b", Node: "lv-node-8", Group: "gang-0"}}
	if !reflect.DeepEqual(binds, want) {
		t.Errorf("binds %+v, want %+v", binds, want)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "line 4") || !strings.Contains(problems[1], "line 5") {
		t.Errorf("problems %v", problems)
	}
}

func TestFewestRacks(t *testing.T) {
	for _, tc := range []struct {
		free       []int
		pods, want int
	}{{[]int{10, 50, 30}, 40, 1}, {[]int{10, 50, 30}, 51, 2}, {[]int{10, 50, 30}, 80, 2}, {[]int{10, 50, 30}, 81, 3}, {[]int{10, 50, 30}, 91, 0}, {nil, 1, 0}} {
		if got := fewestRacks(tc.free, tc.pods); got != tc.want {
			t.Errorf("fewestRacks(%v, %d) = %d, want %d", tc.free, tc.pods, got, tc.want)
		}
	}
}

// binds makes placement log lines: a gang's pods from seq on, on nodes.
func binds(group string, seq int64, nodes ...int) []levelsBind {
	var out []levelsBind
	for i, n := range nodes {
		out = append(out, levelsBind{Seq: seq + int64(i), Pod: fmt.Sprintf("levels/%s-%d", group, i), Node: fmt.Sprintf("lv-node-%d", n), Group: group})
	}
	return out
}

// TestReplayGangs: 2 blocks of 2 racks of 2 nodes (8 slots a rack); the
// fill leaves racks 0-3 with 8, 5, 2 and 6 free slots.
func TestReplayGangs(t *testing.T) {
	lay := levelsLayout{Shape: levelsShape{Blocks: 2, RacksPerBlock: 2, NodesPerRack: 2}, RackUsed: []int{0, 3, 6, 2}}
	// Nodes' free slots: rack 0: 4 4; rack 1: 2 3; rack 2: 1 1; rack 3: 3 3.
	var log []levelsBind
	// Decided second (seq 10): 6 pods. Racks free then: 2 (rack 0 after
	// gang-a), 5, 2, 6: rack 3 alone holds it; it took racks 1 and 0.
	log = append(log, binds("gang-b", 10, 2, 2, 3, 3, 3, 1)...)
	// Decided first (seq 1), logged later: 6 pods in rack 0 (holds 8).
	log = append(log, binds("gang-a", 1, 0, 0, 0, 0, 1, 1)...)
	// Decided third: 6 pods; racks free 1, 0, 2, 6: rack 3 again holds it;
	// it used racks 2 and 3 (two blocks).
	log = append(log, binds("gang-c", 20, 4, 5, 6, 6, 6, 7)...)
	gangs := replayGangs(lay, 6, log)
	var got []string
	for _, g := range gangs {
		got = append(got, fmt.Sprintf("%s racks=%d blocks=%v blockMin=%d clusterMin=%d %s", g.Group, g.Racks(), g.Blocks, g.BlockMin, g.ClusterMin, g.Problem))
	}
	want := []string{
		"gang-a racks=1 blocks=[0] blockMin=1 clusterMin=1 ",
		"gang-b racks=2 blocks=[0] blockMin=2 clusterMin=1 ",
		"gang-c racks=2 blocks=[1] blockMin=1 clusterMin=1 ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replay:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st := summarizeRacks(gangs, 3)
	if st.Compared != 3 || st.OneRack != 1 || st.Max != 2 || st.Total != 5 || st.OverBlockMin != 1 || st.OverClusterMin != 2 || st.SpilledOverFit != 2 || st.CrossBlock != 0 ||
		st.WorstOver != "gang-c: 2 racks, 1 would do" || len(st.Problems) != 0 || st.dist() != "1×1, 2×2" || st.meanOrNA() != 5.0/3 {
		t.Errorf("stats %+v (dist %s)", st, st.dist())
	}

	// Problems: a short gang, a node outside the suite, a node over its
	// room; a gang across blocks.
	log = binds("short", 1, 0, 0)
	log = append(log, binds("foreign", 5, 0, 0, 0, 0, 0)...)
	log = append(log, levelsBind{Seq: 9, Pod: "levels/x", Node: "other-node", Group: "foreign"})
	log = append(log, binds("crowded", 20, 2, 2, 2, 3, 3, 3)...)
	log = append(log, binds("wide", 30, 1, 1, 7, 7, 7, 6)...)
	gangs = replayGangs(lay, 6, log)
	problems := map[string]string{}
	for _, g := range gangs {
		problems[g.Group] = g.Problem
	}
	if !strings.Contains(problems["short"], "2 pods bound, not 6") || !strings.Contains(problems["foreign"], "other-node") ||
		!strings.Contains(problems["crowded"], "lv-node-2 holds more pods") || problems["wide"] != "" {
		t.Errorf("problems %v", problems)
	}
	st = summarizeRacks(gangs, 5)
	if st.Compared != 1 || st.CrossBlock != 1 || len(st.Problems) != 4 || !strings.Contains(st.Problems[3], "4 gangs in the placement log, 5 created") {
		t.Errorf("stats %+v", st)
	}
	tsv := racksTSV(gangs)
	if !strings.HasPrefix(tsv, "order\tgang\tpods\tblocks\tracks\tpods by rack\t") || !strings.Contains(tsv, "\twide\t6\tblock-0,block-1\t2\track-3=4,rack-0=2\t") {
		t.Errorf("racks.tsv:\n%s", tsv)
	}
	if none := summarizeRacks(nil, 0); none.meanOrNA() != -1 || none.dist() != "n/a" {
		t.Errorf("no gangs: %+v", none)
	}
}

func TestLevelsNodeIndex(t *testing.T) {
	for _, tc := range []struct {
		node string
		i    int
		ok   bool
	}{{"lv-node-0", 0, true}, {"lv-node-4999", 4999, true}, {"lv-node-5000", 0, false}, {"lv-node-07", 0, false}, {"pl-node-1", 0, false}, {"lv-node-", 0, false}} {
		i, ok := levelsNodeIndex(tc.node, 5000)
		if ok != tc.ok || ok && i != tc.i {
			t.Errorf("%s: %d %v", tc.node, i, ok)
		}
	}
}

func TestGoalVerdict(t *testing.T) {
	for _, tc := range []struct {
		p99  float64
		want string
	}{
		{-1, "n/a"}, {0.3, "met"}, {40, "met"}, {64, "met"}, {64.1, "undecided (in the 64–128 ms bucket)"}, {99, "undecided (in the 64–128 ms bucket)"},
		{128, "undecided (in the 64–128 ms bucket)"}, {128.5, "missed"}, {900, "missed"}, {1e6, "missed"},
	} {
		if got := goalVerdict(tc.p99); got != tc.want {
			t.Errorf("p99 %v: %q, want %q", tc.p99, got, tc.want)
		}
	}
	if lo, hi := decisionBucket(0.2); lo != 0 || hi != 0.5 {
		t.Errorf("first bucket (%v, %v]", lo, hi)
	}
	if lo, hi := decisionBucket(1e9); hi != 0.5*(1<<17) || lo != hi/2 {
		t.Errorf("last bucket (%v, %v]", lo, hi)
	}
}

func levelsItems() []dataItem {
	items := placementItems()
	return append(items,
		dataItem{Labels: map[string]string{"Metric": "scheduler_generated_placements_by_level_total", "level": levelsRackLabel}, Data: map[string]float64{"Value": 3200}},
		dataItem{Labels: map[string]string{"Metric": "scheduler_generated_placements_by_level_total", "level": levelsBlockLabel}, Data: map[string]float64{"Value": 320}},
		dataItem{Labels: map[string]string{"Metric": "scheduler_generated_placements_by_level_total", "level": "cluster"}, Data: map[string]float64{"Value": 0}},
		dataItem{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_by_level_total", "level": levelsRackLabel, "result": "feasible"}, Data: map[string]float64{"Value": 64}},
		dataItem{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_by_level_total", "level": levelsRackLabel, "result": "infeasible"}, Data: map[string]float64{"Value": 640}},
		dataItem{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_by_level_total", "level": levelsBlockLabel, "result": "feasible"}, Data: map[string]float64{"Value": 32}},
		dataItem{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_by_level_total", "level": levelsBlockLabel, "result": "error"}, Data: map[string]float64{"Value": 16}},
	)
}

func TestLevelsResultFrom(t *testing.T) {
	r := levelsResultFrom(levelsItems())
	if r.Throughput != 80 || r.Decision.P99 != 40 || r.groupAttempts() != 32 {
		t.Errorf("placement metrics %+v", r.placementResult)
	}
	if !reflect.DeepEqual(r.GeneratedByLevel, map[string]float64{levelsRackLabel: 3200, levelsBlockLabel: 320, "cluster": 0}) {
		t.Errorf("generated %v", r.GeneratedByLevel)
	}
	if got := byLevel(r.GeneratedByLevel, 32); got != "rack 100.0, block 10.0" {
		t.Errorf("byLevel %q", got)
	}
	if got := evaluatedByLevel(r.EvaluatedByLevel, 32); got != "rack 2.0 + 20.0, block 1.0 + 0.0 + 0.5 errors" {
		t.Errorf("evaluatedByLevel %q", got)
	}
	if byLevel(nil, 32) != "n/a" || evaluatedByLevel(nil, 32) != "n/a" || byLevel(map[string]float64{"cluster": 0}, 32) != "n/a" {
		t.Errorf("n/a without the metrics")
	}
	if got := levelsOrder(map[string]float64{"zone": 1, "cluster": 1, levelsBlockLabel: 1, levelsRackLabel: 1, "host": 1}); !reflect.DeepEqual(got, []string{levelsRackLabel, levelsBlockLabel, "cluster", "host", "zone"}) {
		t.Errorf("levelsOrder %v", got)
	}
	// Without by-level metrics (a group without a Preferred level).
	if r := levelsResultFrom(placementItems()); r.GeneratedByLevel != nil || r.EvaluatedByLevel != nil {
		t.Errorf("by-level counts from nothing")
	}
}

func TestLevelsResultCheck(t *testing.T) {
	r := levelsResultFrom(levelsItems())
	r.Gangs = 32
	if err := r.check("tc"); err != nil {
		t.Errorf("check: %v", err)
	}
	r.Gangs = 33
	if err := r.check("tc"); err == nil || !strings.Contains(err.Error(), "32 pod-group cycles for 33 gangs") {
		t.Errorf("too few cycles: %v", err)
	}
	r.Gangs = 32
	r.Decision = latency{}
	if err := r.check("tc"); err == nil || !strings.Contains(err.Error(), "no placement decision measured") {
		t.Errorf("no decision: %v", err)
	}
	// No throughput (a smoke run over within a second) is not an error.
	r = levelsResultFrom(levelsItems())
	r.Gangs, r.Throughput = 32, 0
	if err := r.check("tc"); err != nil {
		t.Errorf("no throughput: %v", err)
	}
}

func TestLevelsMarkdown(t *testing.T) {
	h := &harness{root: t.TempDir()}
	o := defaultLevelsOptions()
	o.Command = "make bench BENCH_ARGS='-suites levels -reps 2'"
	lay := o.layout()
	mk := func(run levelsRun, rep int, tp, p99 float64, racks rackStats) levelsResult {
		r := levelsResultFrom(levelsItems())
		r.Side, r.Size, r.Rep, r.Constraint, r.Gangs, r.Throughput, r.Load = "patched-gate-on", run.Size, rep, run.Kind, run.Gangs, tp, 1.2
		r.Decision.P99 = p99
		r.GroupCPU = -1
		r.Racks = racks
		return r
	}
	clean := rackStats{Gangs: 128, Compared: 128, Expected: 128, OneRack: 128, Total: 128, Max: 1, Dist: map[int]int{1: 128}}
	spilled := rackStats{Gangs: 32, Compared: 32, Expected: 32, OneRack: 21, Total: 44, Max: 3, Dist: map[int]int{1: 21, 2: 10, 3: 1},
		OverBlockMin: 1, OverClusterMin: 2, SpilledOverFit: 0, CrossBlock: 0, WorstOver: "gang-30: 3 racks, 2 would do"}
	rack128 := rackStats{Gangs: 21, Compared: 21, Expected: 21, OneRack: 21, Total: 21, Max: 1, Dist: map[int]int{1: 21}}
	cpu := mk(levelsRun{Size: 32, Gangs: 128, Kind: levelsBlockRack}, 1, 300, 40, clean)
	cpu.GroupCPU = 12.34
	results := []levelsResult{
		cpu, mk(levelsRun{Size: 32, Gangs: 128, Kind: levelsBlockRack}, 2, 200, 70, clean),
		mk(levelsRun{Size: 32, Gangs: 128, Kind: levelsRackOnly}, 1, 310, 30, clean),
		mk(levelsRun{Size: 128, Gangs: 32, Kind: levelsBlockRack}, 1, 150, 300, spilled),
		mk(levelsRun{Size: 128, Gangs: 21, Kind: levelsRackOnly}, 1, 0, 50, rack128),
	}
	results[4].Racks.Problems = []string{"gang-3: 2 pods bound, not 128"}
	md := levelsMarkdown(h, results, 2, o, lay)
	for _, want := range []string{
		"# kspatch benchmarks: topology levels (issue #24)\n",
		"5000 nodes: 10 blocks × 10 racks × 50 nodes (`-levels-shape 10/10/50`)",
		"so that the fill takes 60.0% of the cluster's 1-CPU slots (`-levels-fill 0.6`)",
		"Racks by used share: under 10%: 2, 10–40%: 22, 40–70%: 35, 70–90%: 28, 90% or more: 13. At the start, gangs of 32: 79 racks have room for one, the racks hold 202 one after the other, the blocks 246; gangs of 128: 21 racks have room for one, the racks hold 21 one after the other, the blocks 58.",
		"| gang size | constraint | gangs | pods/s | group cycles | decision p50 / p99 (ms) | p99 ≤ 100 ms | group attempt p50 / p99 (ms) | CPU / group cycle (ms) | generated / gang | evaluated / gang |\n|---:|---|---:|---:|---:|---:|---|---:|---:|---|---|\n",
		// The median of two runs is the faster (upper) one; the verdict
		// takes the worst p99 of both.
		"| 32 | required block, preferred rack | 128 | 300.0 (200–300) | 32/32 | 20.0 / 40.0 | undecided (in the 64–128 ms bucket) | 300.0 / 900.0 | 12.3 | rack 25.0, block 2.5 | rack 0.5 + 5.0, block 0.2 + 0.0 + 0.1 errors |",
		"| 32 | required rack | 128 | 310.0 | 32/32 | 20.0 / 30.0 | met |",
		"| 128 | required block, preferred rack | 32 | 150.0 | 32/32 | 20.0 / 300.0 | missed |",
		"| 128 | required rack | 21 | n/a | 32/32 |",
		"| gang size | constraint | gangs | in one rack | racks / gang (mean / max) | racks used | over its block's minimum | over the cluster's minimum | split although one rack fit | across blocks |\n",
		"| 32 | required block, preferred rack | 128 | 128 | 1.00 / 1 | 128×1 | 0 | 0 | 0 | 0 |",
		"| 128 | required block, preferred rack | 32 | 21 | 1.38 / 3 | 21×1, 10×2, 1×3 | 1 (worst gang-30: 3 racks, 2 would do) | 2 | 0 | 0 |",
		"Left out of the comparison:\n\n- gangs of 128, required rack: gang-3: 2 pods bound, not 128\n",
		"gangs of 32, required block, preferred rack, 5000 nodes:\n  decision p99 <= 100 ms   undecided (in the 64–128 ms bucket) (worst p99 70.0 ms)\n  racks over the minimum  none (128 gangs, at most 1 rack(s) each)\n",
		"gangs of 128, required block, preferred rack, 5000 nodes:\n  decision p99 <= 100 ms   missed (worst p99 300.0 ms)\n  racks over the minimum  1 of 32 gangs (worst gang-30: 3 racks, 2 would do)\n",
		"Command: `make bench BENCH_ARGS='-suites levels -reps 2'`.",
		"`_output/bench/runs/Levels*`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// A run without a placement log.
	results[2].Racks = rackStats{Problems: []string{"no placement log: missing"}}
	md = levelsMarkdown(h, results, 2, o, lay)
	for _, want := range []string{"| 32 | required rack | 128 | n/a | n/a | n/a | n/a | n/a | n/a | n/a |", "racks over the minimum  n/a (no placement log)", "- gangs of 32, required rack: no placement log: missing"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

func TestLevelsLayoutNoteBounds(t *testing.T) {
	o := defaultLevelsOptions()
	o.Shape = levelsShape{Blocks: 1, RacksPerBlock: 5, NodesPerRack: 5}
	o.GangSizes = []int{10}
	lay := levelsLayout{Shape: o.Shape, RackUsed: []int{0, 2, 8, 14, 18}} // 0%, 10%, 40%, 70%, 90%
	note := levelsLayoutNote(o, lay)
	if want := "Racks by used share: under 10%: 1, 10–40%: 1, 40–70%: 1, 70–90%: 1, 90% or more: 1."; !strings.Contains(note, want) {
		t.Errorf("note %q, want %q", note, want)
	}
	if want := "gangs of 10: 3 racks have room for one, the racks hold 4 one after the other, the blocks 5"; !strings.Contains(note, want) {
		t.Errorf("note %q, want %q", note, want)
	}
}

// renderer parses a template once, as scheduler_perf does each time, and
// renders it for an Index and Count.
func renderer(t *testing.T, text string) func(index, count int) map[string]any {
	t.Helper()
	tmpl, err := template.New("object").Funcs(template.FuncMap{
		"div": func(a, b int) int { return a / b },
		"mod": func(a, b int) int { return a % b },
	}).Parse(text)
	if err != nil {
		t.Fatalf("template does not parse: %v", err)
	}
	return func(index, count int) map[string]any {
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
}

func levelsPodsFirst(o levelsOptions) levelsOptions {
	o.PodsFirst = true
	return o
}

// sizeAndKind reads a default levels test case's gang size (32 or 128) and
// kind from its name.
func (c levelsCase) sizeAndKind() (int, levelsKind) {
	size, kind := 32, levelsBlockRack
	if strings.HasPrefix(c.Name, "Levels128") {
		size = 128
	}
	if !strings.Contains(c.Name, "BlockRack") {
		kind = levelsRackOnly
	}
	return size, kind
}

// opcodes lists the test case's operations, ","-separated.
func (c levelsCase) opcodes() string {
	var ops []string
	for _, op := range c.WorkloadTemplate {
		ops = append(ops, op["opcode"].(string))
	}
	return strings.Join(ops, ",")
}
