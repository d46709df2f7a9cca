package main

import (
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

	"sigs.k8s.io/yaml"
)

// smokePreemptionOptions is a 50-node run: 200 slots, 64 pods (8 gangs of
// 8, 2 of 32), racks of 10 nodes (40 slots).
func smokePreemptionOptions() preemptionOptions {
	o := defaultPreemptionOptions()
	o.Nodes, o.Pods, o.RackNodes = 50, 64, 10
	return o
}

func TestPreemptionOptionsValidate(t *testing.T) {
	for _, o := range []preemptionOptions{defaultPreemptionOptions(), smokePreemptionOptions()} {
		if err := o.validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	if o := defaultPreemptionOptions(); o.slots() != 2000 || o.racks() != 10 {
		t.Errorf("defaults: %d slots, %d racks", o.slots(), o.racks())
	}
	for _, tc := range []struct {
		change func(*preemptionOptions)
		want   string
	}{
		{func(o *preemptionOptions) { o.Nodes = 0 }, "invalid -preemption-nodes 0"},
		{func(o *preemptionOptions) { o.Pods = 2048 }, "invalid -preemption-pods 2048: must be between 1 and 2000"},
		{func(o *preemptionOptions) { o.Pods = 0 }, "invalid -preemption-pods 0"},
		{func(o *preemptionOptions) { o.GangSizes = nil }, "-preemption-gang-sizes is empty"},
		{func(o *preemptionOptions) { o.Pods = 520 }, "-preemption-pods 520 is not a multiple of gang size 32"},
		{func(o *preemptionOptions) { o.RackNodes = -1 }, "invalid -preemption-rack-nodes -1"},
		{func(o *preemptionOptions) { o.RackNodes = 30 }, "not a multiple of -preemption-rack-nodes 30"},
		// Racks of 5 nodes hold 20 slots: no gang of 32 fits.
		{func(o *preemptionOptions) { o.RackNodes = 5 }, "gangs of 32 in one rack: 100 racks of 20 slots hold 0 of them, not 16"},
		// Racks of 10 nodes (40 slots) hold one gang of 32 each: 50, not 60.
		{func(o *preemptionOptions) { o.RackNodes, o.Pods = 10, 1920 }, "gangs of 32 in one rack: 50 racks of 40 slots hold 50 of them, not 60"},
	} {
		o := defaultPreemptionOptions()
		tc.change(&o)
		if err := o.validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", o, err, tc.want)
		}
	}
	// No rack variant: any gang size that fits the cluster.
	o := defaultPreemptionOptions()
	o.RackNodes, o.GangSizes, o.Pods = 0, []int{500}, 2000
	if err := o.validate(); err != nil || o.racks() != 0 {
		t.Errorf("no rack variant: %v", err)
	}
}

func TestPreemptionTemplates(t *testing.T) {
	node := render(t, preemptionNodeTemplate(50), 123, 500)
	meta := node["metadata"].(map[string]any)
	if meta["name"] != "pr-node-123" || !reflect.DeepEqual(meta["labels"], map[string]any{levelsRackLabel: "rack-2"}) {
		t.Errorf("node metadata %v", meta)
	}
	if c := node["status"].(map[string]any)["capacity"].(map[string]any); c["cpu"] != "4" || c["pods"] != "110" {
		t.Errorf("node capacity %v", c)
	}
	if meta := render(t, preemptionNodeTemplate(0), 7, 10)["metadata"].(map[string]any); meta["name"] != "pr-node-7" || meta["labels"] != nil {
		t.Errorf("node without racks: %v", meta)
	}
	// Fill pods 0-3 on node 0, 4-7 on node 1: four 1-CPU pods fill a node.
	for index, node := range map[int]string{0: "pr-node-0", 3: "pr-node-0", 4: "pr-node-1", 1999: "pr-node-499"} {
		spec := render(t, preemptionFillTemplate(), index, 2000)["spec"].(map[string]any)
		if spec["nodeName"] != node {
			t.Errorf("fill %d on %v, want %s", index, spec["nodeName"], node)
		}
		if spec["priority"] != float64(0) || spec["terminationGracePeriodSeconds"] != float64(0) {
			t.Errorf("fill %d: priority %v, grace %v; want 0 and 0", index, spec["priority"], spec["terminationGracePeriodSeconds"])
		}
		req := spec["containers"].([]any)[0].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)
		if req["cpu"] != "1000m" {
			t.Errorf("fill cpu %v", req["cpu"])
		}
	}
	plain := render(t, preemptionPodTemplate(0), 9, 64)
	if plain["metadata"].(map[string]any)["labels"] != nil || plain["spec"].(map[string]any)["priority"] != float64(100) {
		t.Errorf("plain pod %v", plain)
	}
	member := render(t, preemptionPodTemplate(8), 17, 64)
	if l := member["metadata"].(map[string]any)["labels"]; !reflect.DeepEqual(l, map[string]any{gangPodGroupLabel: "gang-2"}) {
		t.Errorf("member 17 of gangs of 8: labels %v", l)
	}
	if member["spec"].(map[string]any)["priority"] != float64(100) {
		t.Errorf("member priority %v", member["spec"])
	}
	files, err := preemptionFiles([]byte("kind: CustomResourceDefinition\n"), defaultPreemptionOptions())
	if err != nil {
		t.Fatal(err)
	}
	pg := render(t, string(files[preemptionPodGroupFile(preemptionGangRack, 32)]), 3, 16)
	spec := pg["spec"].(map[string]any)
	if pg["metadata"].(map[string]any)["name"] != "gang-3" || spec["schedulingPolicy"].(map[string]any)["gang"].(map[string]any)["minCount"] != float64(32) {
		t.Errorf("rack PodGroup %v", pg)
	}
	if topo := spec["schedulingConstraints"].(map[string]any)["topology"]; !reflect.DeepEqual(topo, []any{map[string]any{"key": levelsRackLabel}}) {
		t.Errorf("rack PodGroup topology %v", topo)
	}
	if spec := render(t, string(files[preemptionPodGroupFile(preemptionGang, 8)]), 0, 64)["spec"].(map[string]any); spec["schedulingConstraints"] != nil {
		t.Errorf("PodGroup without a constraint: %v", spec)
	}
}

func TestPreemptionFiles(t *testing.T) {
	crd := []byte("kind: CustomResourceDefinition\n")
	files, err := preemptionFiles(crd, defaultPreemptionOptions())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{gangCRDTemplate, preemptionPluginFile, preemptionFillFile, preemptionNodeFile, preemptionSchedulerConfigFile,
		"preemption-pod-plain.yaml", "preemption-pod-8.yaml", "preemption-pod-32.yaml",
		"preemption-podgroup-8.yaml", "preemption-podgroup-32.yaml", "preemption-podgroup-8-rack.yaml", "preemption-podgroup-32-rack.yaml"}
	sort.Strings(want)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if string(files[preemptionPluginFile]) != string(preemptionPluginSource) || string(files[gangCRDTemplate]) != string(crd) {
		t.Errorf("plugin or CRD file")
	}
	o := defaultPreemptionOptions()
	o.RackNodes = 0
	if files, _ := preemptionFiles(crd, o); files["preemption-podgroup-8-rack.yaml"] != nil || len(files) != len(want)-2 {
		t.Errorf("without the rack variant: %d files", len(files))
	}
	if _, err := preemptionFiles([]byte("description: {{ oops }}"), o); err == nil || !strings.Contains(err.Error(), "'{{'") {
		t.Errorf("a CRD with '{{': %v", err)
	}
	// The suite's prepare reads the CRD and returns them.
	root := t.TempDir()
	if _, err := (preemptionSuite{o: defaultPreemptionOptions()}).prepare(&harness{root: root}); err == nil || !strings.Contains(err.Error(), "the preemption suite needs the PodGroup CRD") {
		t.Errorf("without the CRD: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(gangCRDFile)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, gangCRDFile), crd, 0o644); err != nil {
		t.Fatal(err)
	}
	if all, err := (preemptionSuite{o: defaultPreemptionOptions()}).prepare(&harness{root: root}); err != nil || len(all) != len(want) {
		t.Errorf("prepare: %d files, %v", len(all), err)
	}
	bad := defaultPreemptionOptions()
	bad.Pods = 100
	if _, err := (preemptionSuite{o: bad}).prepare(&harness{root: root}); err == nil || !strings.Contains(err.Error(), "not a multiple of gang size 8") {
		t.Errorf("bad options: %v", err)
	}
}

// TestPreemptionSchedulerConfig: the configuration enables, at PostBind,
// the plugin the observer's source registers under that name, and the
// source is Go of the workload package that logs what the driver reads.
func TestPreemptionSchedulerConfig(t *testing.T) {
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
	if err := yaml.UnmarshalStrict([]byte(preemptionSchedulerConfig()), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.APIVersion != "kubescheduler.config.k8s.io/v1" || cfg.Kind != "KubeSchedulerConfiguration" || len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "default-scheduler" {
		t.Fatalf("config %+v", cfg)
	}
	if e := cfg.Profiles[0].Plugins["postBind"].Enabled; len(e) != 1 || e[0].Name != preemptionLogPlugin || len(cfg.Profiles[0].Plugins) != 1 {
		t.Errorf("plugins %+v, want %s at postBind", cfg.Profiles[0].Plugins, preemptionLogPlugin)
	}
	src := string(preemptionPluginSource)
	for _, want := range []string{
		fmt.Sprintf("preemptionLogName  = %q", preemptionLogPlugin),
		fmt.Sprintf("preemptionLogEnv   = %q", preemptionLogEnv),
		fmt.Sprintf("preemptionLogGroup = %q", gangPodGroupLabel),
		`p.write("add %s/%s %s"`, `p.write("nominate %s/%s %s"`, `p.write("bind %s/%s %s"`, `p.write("victim %s/%s %s %s"`, `p.write("delete %s/%s %s"`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the observer's source has no %s", want)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, preemptionPluginFile, preemptionPluginSource, 0)
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
	for _, m := range []string{"Name", "PostBind", "add", "update", "delete"} {
		if !methods[m] {
			t.Errorf("the observer has no %s", m)
		}
	}
	// The levels suite's plugin lives in the same package: distinct names.
	levels, err := parser.ParseFile(fset, levelsPluginFile, levelsPluginSource, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, file := range []*ast.File{f, levels} {
		for name := range file.Scope.Objects {
			if names[name] {
				t.Errorf("%s is declared by both plugins", name)
			}
			names[name] = true
		}
	}
}

func TestPreemptionConfig(t *testing.T) {
	o := defaultPreemptionOptions()
	var cases []levelsCase
	if err := yaml.UnmarshalStrict([]byte(preemptionConfig("vanilla", o)), &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Name != "GangPreemptionPlain" || len(cases[0].Workloads) != 1 || cases[0].Workloads[0].Name != "vanilla" || cases[0].Workloads[0].FeatureGates != nil {
		t.Fatalf("vanilla test cases %+v", cases)
	}
	config := preemptionConfig("patched", o)
	cases = nil
	if err := yaml.UnmarshalStrict([]byte(config), &cases); err != nil {
		t.Fatalf("generated config does not parse: %v\n%s", err, config)
	}
	want := map[string]int{"GangPreemptionPlain": 0, "GangPreemption8": 8, "GangPreemption32": 32, "GangPreemption8Rack": 8, "GangPreemption32Rack": 32}
	if len(cases) != len(want) {
		t.Fatalf("test cases %d, want %v", len(cases), want)
	}
	for _, c := range cases {
		size, ok := want[c.Name]
		if !ok {
			t.Fatalf("unexpected test case %q", c.Name)
		}
		if c.SchedulerConfigPath != preemptionSchedulerConfigFile {
			t.Errorf("%s: schedulerConfigPath %q", c.Name, c.SchedulerConfigPath)
		}
		var ops []string
		for _, op := range c.WorkloadTemplate {
			ops = append(ops, op["opcode"].(string))
		}
		wantOps := "createAny,createNodes,createPods,createAny,sleep,createPods"
		if size == 0 {
			wantOps = "createAny,createNodes,createPods,sleep,createPods"
		}
		if got := strings.Join(ops, ","); got != wantOps {
			t.Fatalf("%s ops %s, want %s", c.Name, got, wantOps)
		}
		wt := c.WorkloadTemplate
		if wt[1]["nodeTemplatePath"] != preemptionNodeFile {
			t.Errorf("%s: nodes %v", c.Name, wt[1])
		}
		if !reflect.DeepEqual(wt[2], map[string]any{"opcode": "createPods", "namespace": "fill", "countParam": "$fill", "podTemplatePath": preemptionFillFile}) {
			t.Errorf("%s: fill %v (unmeasured)", c.Name, wt[2])
		}
		last := wt[len(wt)-1]
		kind := preemptionGang
		switch {
		case size == 0:
			kind = preemptionPlain
		case strings.HasSuffix(c.Name, "Rack"):
			kind = preemptionGangRack
		}
		if last["podTemplatePath"] != preemptionPodFile(kind, size) || last["collectMetrics"] != true || last["namespace"] != preemptionNamespace {
			t.Errorf("%s: pods %v", c.Name, last)
		}
		if size > 0 && (wt[3]["templatePath"] != preemptionPodGroupFile(kind, size) || wt[3]["namespace"] != preemptionNamespace) {
			t.Errorf("%s: PodGroups %v", c.Name, wt[3])
		}
		for _, m := range []string{"scheduler_podgroup_preemption_attempts_total", "scheduler_podgroup_preemption_victims", "scheduler_preemption_attempts_total", "scheduler_preemption_victims", "scheduler_schedule_attempts_total"} {
			if _, ok := c.MetricsCollector.Metrics[m]; !ok {
				t.Errorf("%s does not collect %s", c.Name, m)
			}
		}
		if len(c.Workloads) != 1 {
			t.Fatalf("%s: workloads %+v", c.Name, c.Workloads)
		}
		w := c.Workloads[0]
		if w.Name != "patched_gate_on" || !reflect.DeepEqual(w.FeatureGates, map[string]bool{"GangScheduling": true, "WorkloadAwarePreemption": true, "TopologyAwareWorkloadScheduling": true}) {
			t.Errorf("%s: workload %s gates %v", c.Name, w.Name, w.FeatureGates)
		}
		wantParams := map[string]int{"nodes": 500, "fill": 2000, "pods": 512}
		if size > 0 {
			wantParams["groups"] = 512 / size
		}
		if !reflect.DeepEqual(w.Params, wantParams) {
			t.Errorf("%s: params %v, want %v", c.Name, w.Params, wantParams)
		}
	}
	// Without vanilla or racks.
	o.Vanilla, o.RackNodes = false, 0
	if got := preemptionConfig("vanilla", o); got != "" {
		t.Errorf("vanilla without -preemption-vanilla:\n%s", got)
	}
	if got := preemptionConfig("patched", o); strings.Contains(got, "Rack") {
		t.Errorf("rack test cases without -preemption-rack-nodes")
	}
	if !reflect.DeepEqual(preemptionTrees(o), []string{"patched"}) || !reflect.DeepEqual(preemptionTrees(defaultPreemptionOptions()), []string{"vanilla", "patched"}) {
		t.Errorf("trees")
	}
}

// TestAllConfigsParseWithPreemption: every suite's test cases in one
// performance-config.yaml, with unique names.
func TestAllConfigsParseWithPreemption(t *testing.T) {
	for _, tree := range []string{"vanilla", "patched"} {
		config := burstConfig(tree, []int{1000}) + apiCallsConfig(tree, 1000, 100) + gangsConfig(tree, defaultGangOptions()) +
			placementConfig(tree, defaultPlacementOptions()) + levelsConfig(tree, defaultLevelsOptions()) + preemptionConfig(tree, defaultPreemptionOptions())
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
		if !seen["GangPreemptionPlain"] || (tree == "patched") != seen["GangPreemption32Rack"] {
			t.Errorf("%s: test cases %v", tree, seen)
		}
	}
}

func TestPreemptionRuns(t *testing.T) {
	o := defaultPreemptionOptions()
	label := func(runs []preemptionRun) string {
		var s []string
		for _, r := range runs {
			s = append(s, r.Kind.testCase(r.Size)+"/"+r.Side.Name)
		}
		return strings.Join(s, " ")
	}
	odd := "GangPreemptionPlain/vanilla GangPreemptionPlain/patched-gate-on GangPreemption8/patched-gate-on GangPreemption32/patched-gate-on GangPreemption8Rack/patched-gate-on GangPreemption32Rack/patched-gate-on"
	if got := label(preemptionRuns(o, 1)); got != odd {
		t.Errorf("rep 1: %s", got)
	}
	if got := label(preemptionRuns(o, 2)); got != "GangPreemption32Rack/patched-gate-on GangPreemption8Rack/patched-gate-on GangPreemption32/patched-gate-on GangPreemption8/patched-gate-on GangPreemptionPlain/patched-gate-on GangPreemptionPlain/vanilla" {
		t.Errorf("rep 2: %s", got)
	}
	// Reversing a repetition leaves the workloads' order alone.
	if got := label(preemptionWorkloads(o)); got != odd {
		t.Errorf("workloads after rep 2: %s", got)
	}
	o.Vanilla, o.RackNodes = false, 0
	if got := label(preemptionRuns(o, 1)); got != "GangPreemptionPlain/patched-gate-on GangPreemption8/patched-gate-on GangPreemption32/patched-gate-on" {
		t.Errorf("no vanilla, no racks: %s", got)
	}
	r := preemptionRun{Kind: preemptionGang, Size: 32}
	if r.units(defaultPreemptionOptions()) != 16 || (preemptionRun{Kind: preemptionPlain, Size: 1}).units(defaultPreemptionOptions()) != 512 {
		t.Errorf("units")
	}
	if preemptionGangRack.label(8) != "gangs of 8, one rack" || preemptionPlain.label(1) != "no group" || preemptionGang.unit() != "gang" || preemptionPlain.unit() != "pod" {
		t.Errorf("labels")
	}
}

func TestParsePreemptionLog(t *testing.T) {
	text := "100 add preemption/pod-a gang-0\n" +
		"\n" +
		"150 victim fill/fill-x pr-node-3 default-scheduler: preempting to accommodate pod group preemption/gang-0\n" +
		"160 delete fill/fill-x pr-node-3\n" +
		"170 nominate preemption/pod-a pr-node-3\n" +
		"200 bind preemption/pod-a pr-node-3\n" +
		"garbage\n" +
		"x add preemption/pod-b -\n" +
		"1 add preemption/pod-c - extra\n" +
		"1 victim fill/fill-y pr-node-1\n" +
		"1 evict fill/fill-y pr-node-1\n" +
		"1 add nopod -\n"
	events, problems := parsePreemptionLog(text)
	want := []preemptionEvent{
		{At: 100, Kind: "add", Pod: "preemption/pod-a", Arg: "gang-0"},
		{At: 150, Kind: "victim", Pod: "fill/fill-x", Arg: "pr-node-3", Message: "default-scheduler: preempting to accommodate pod group preemption/gang-0"},
		{At: 160, Kind: "delete", Pod: "fill/fill-x", Arg: "pr-node-3"},
		{At: 170, Kind: "nominate", Pod: "preemption/pod-a", Arg: "pr-node-3"},
		{At: 200, Kind: "bind", Pod: "preemption/pod-a", Arg: "pr-node-3"},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events %+v", events)
	}
	if len(problems) != 6 || !strings.HasPrefix(problems[0], `line 7 "garbage"`) {
		t.Errorf("problems %q", problems)
	}
	for msg, group := range map[string]string{
		"default-scheduler: preempting to accommodate pod group preemption/gang-7": "preemption/gang-7",
		"default-scheduler: preempting to accommodate a higher priority pod":       "",
		"accommodate pod group ": "",
	} {
		if got := preemptingGroup(msg); got != group {
			t.Errorf("preemptingGroup(%q) = %q, want %q", msg, got, group)
		}
	}
}

// gangLog is the log of gangs of size on a full cluster: gang g's members
// appear at g ms (+ i µs), its first member is nominated 10 ms later and
// member i binds at g+20+i ms; each member has one victim, named in its
// DisruptionTarget message and deleted 15 ms after the gang appeared.
func gangLog(gangs, size int) string {
	var b strings.Builder
	ms := int64(1_000_000)
	for g := 0; g < gangs; g++ {
		base := int64(g+1) * ms
		for i := 0; i < size; i++ {
			fmt.Fprintf(&b, "%d add preemption/pod-%d-%d gang-%d\n", base+int64(i)*1000, g, i, g)
		}
		for i := 0; i < size; i++ {
			fmt.Fprintf(&b, "%d victim fill/fill-%d-%d pr-node-%d default-scheduler: preempting to accommodate pod group preemption/gang-%d\n", base+5*ms, g, i, g, g)
			fmt.Fprintf(&b, "%d delete fill/fill-%d-%d pr-node-%d\n", base+15*ms, g, i, g)
			fmt.Fprintf(&b, "%d nominate preemption/pod-%d-%d pr-node-%d\n", base+10*ms+int64(i), g, i, g)
		}
		for i := 0; i < size; i++ {
			fmt.Fprintf(&b, "%d bind preemption/pod-%d-%d pr-node-%d\n", base+int64(20+i)*ms, g, i, g)
		}
	}
	return b.String()
}

func TestSummarizePreemptionGangs(t *testing.T) {
	events, problems := parsePreemptionLog(gangLog(4, 8))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	s := summarizePreemption(events, 8, 4)
	if s.Units != 4 || s.Complete != 4 || s.Pods != 32 || s.Bound != 32 || len(s.Problems) != 0 {
		t.Fatalf("stats %+v", s)
	}
	// Every gang: created at its first member, bound at its last (27 ms
	// later); first nominated 10 ms in.
	if s.Latency.N != 4 || s.Latency.P50 != 27 || s.Latency.Max != 27 || s.ToNomination.P50 != 10 {
		t.Errorf("latency %+v, to nomination %+v", s.Latency, s.ToNomination)
	}
	// From 1 ms (gang 0 appears) to 4+27 ms (gang 3's last member).
	if s.Makespan != 0.030 || s.throughput() != 32/0.030 {
		t.Errorf("makespan %v, throughput %v", s.Makespan, s.throughput())
	}
	if s.Deleted != 32 || s.Victims != 32 || s.Attributed != 32 || s.excess() != 0 || s.DeletedLate != 0 {
		t.Errorf("victims %+v", s)
	}
	if s.VictimsPerGang.Min != 8 || s.VictimsPerGang.Max != 8 || s.List[2].Victims != 8 || s.List[2].Key != "preemption/gang-2" {
		t.Errorf("victims per gang %+v, %+v", s.VictimsPerGang, s.List[2])
	}
	tsv := unitsTSV(s)
	if !strings.Contains(tsv, "preemption/gang-1\t8\t8\t1.0\t11.0\t28.0\t27.0\t8\n") {
		t.Errorf("units.tsv:\n%s", tsv)
	}
	// A gang with a member never bound, an extra victim deleted after the
	// last binding, and a victim named twice.
	text := gangLog(2, 4) + "100000000 add preemption/pod-late gang-1\n" +
		"100000001 victim fill/extra pr-node-9 default-scheduler: preempting to accommodate pod group preemption/gang-0\n" +
		"100000002 victim fill/extra pr-node-9 default-scheduler: preempting to accommodate pod group preemption/gang-0\n" +
		"100000003 delete fill/extra pr-node-9\n"
	events, _ = parsePreemptionLog(text)
	s = summarizePreemption(events, 4, 3)
	if s.Complete != 1 || s.Bound != 8 || s.Pods != 9 || s.Deleted != 9 || s.excess() != 1 || s.DeletedLate != 1 || s.Victims != 9 {
		t.Errorf("incomplete run %+v", s)
	}
	if s.VictimsPerGang.Min != 4 || s.VictimsPerGang.Max != 5 {
		t.Errorf("victims per gang %+v", s.VictimsPerGang)
	}
	if len(s.Problems) != 2 || s.Problems[0] != "preemption/gang-1: 5 of 4 pods seen, 4 bound" || s.Problems[1] != "2 gangs in the log, 3 created" {
		t.Errorf("problems %q", s.Problems)
	}
	// A member without its group's label.
	events, _ = parsePreemptionLog("1 add preemption/pod-x -\n2 bind preemption/pod-x n\n")
	if s := summarizePreemption(events, 4, 0); len(s.Problems) != 2 || !strings.Contains(s.Problems[0], "has no pod group") || !strings.Contains(s.Problems[1], "bound but never seen") {
		t.Errorf("problems %q", s.Problems)
	}
}

func TestSummarizePreemptionPlain(t *testing.T) {
	// Three pods, default preemption (no group in the message); other
	// namespaces are ignored.
	text := "1000000 add preemption/a -\n2000000 add preemption/b -\n3000000 add preemption/c -\n" +
		"4000000 victim fill/x pr-node-0 default-scheduler: preempting to accommodate a higher priority pod\n" +
		"4000001 delete fill/x pr-node-0\n4000002 delete fill/y pr-node-0\n4000003 delete fill/z pr-node-1\n" +
		"5000000 nominate preemption/a pr-node-0\n" +
		"6000000 bind preemption/a pr-node-0\n9000000 bind preemption/b pr-node-0\n41000000 bind preemption/c pr-node-1\n" +
		"1 add other/pod -\n50000000 delete other/pod -\n"
	events, _ := parsePreemptionLog(text)
	s := summarizePreemption(events, 1, 3)
	if s.Units != 3 || s.Complete != 3 || len(s.Problems) != 0 {
		t.Fatalf("stats %+v", s)
	}
	if s.Latency.P50 != 7 || s.Latency.P99 != 38 || s.Latency.Max != 38 || s.Latency.Min != 5 || s.ToNomination.N != 1 || s.ToNomination.P50 != 4 {
		t.Errorf("latency %+v, to nomination %+v", s.Latency, s.ToNomination)
	}
	if s.Deleted != 3 || s.Attributed != 0 || s.Victims != 1 || s.VictimsPerGang.N != 0 || s.excess() != 0 {
		t.Errorf("victims %+v", s)
	}
	if s.Makespan != 0.040 {
		t.Errorf("makespan %v", s.Makespan)
	}
	if (preemptionStats{}).throughput() != -1 {
		t.Errorf("throughput of nothing")
	}
}

func TestSpreadOf(t *testing.T) {
	if s := spreadOf(nil); s.N != 0 {
		t.Errorf("empty %+v", s)
	}
	var v []float64
	for i := 100; i >= 1; i-- {
		v = append(v, float64(i))
	}
	if s := spreadOf(v); s.P50 != 50 || s.P99 != 99 || s.Max != 100 || s.Min != 1 || s.Avg != 50.5 || v[0] != 100 {
		t.Errorf("1..100: %+v (input sorted: %v)", s, v[0] != 100)
	}
	if s := spreadOf([]float64{3, 1}); s.P50 != 1 || s.P99 != 3 {
		t.Errorf("two values %+v", s)
	}
	if s := spreadOf([]float64{7}); s.P50 != 7 || s.P99 != 7 || s.Max != 7 {
		t.Errorf("one value %+v", s)
	}
}

func preemptionItems() []dataItem {
	return []dataItem{
		{Labels: map[string]string{"Metric": "SchedulingThroughput"}, Data: map[string]float64{"Average": 50}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_schedule_attempts_total", "result": "scheduled"}, Data: map[string]float64{"Value": 8}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_schedule_attempts_total", "result": "unschedulable"}, Data: map[string]float64{"Value": 8}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_preemption_attempts_total", "result": "preempting"}, Data: map[string]float64{"Value": 8}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_preemption_attempts_total", "result": "waiting"}, Data: map[string]float64{"Value": 2}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_preemption_attempts_total", "result": "error"}, Data: map[string]float64{"Value": 0}},
		// scheduler_perf reports the histogram's sum ×1000.
		{Labels: map[string]string{"Metric": "scheduler_podgroup_preemption_victims"}, Data: map[string]float64{"Count": 8, "Sum": 64000, "Average": 8000}},
		{Labels: map[string]string{"Metric": "scheduler_preemption_attempts_total"}, Data: map[string]float64{"Value": 0}},
		{Labels: map[string]string{"Metric": "scheduler_preemption_victims"}, Data: map[string]float64{"Count": 0, "Sum": 0}},
		{Labels: map[string]string{"Metric": "scheduler_schedule_attempts_total", "result": "scheduled"}, Data: map[string]float64{"Value": 64}},
		{Labels: map[string]string{"Metric": "scheduler_schedule_attempts_total", "result": "unschedulable"}, Data: map[string]float64{"Value": 64}},
		{Labels: map[string]string{"Metric": "scheduler_pod_scheduling_sli_duration_seconds"}, Data: map[string]float64{"Perc50": 900, "Perc99": 1800, "Count": 64}},
	}
}

func TestPreemptionResultFrom(t *testing.T) {
	r := preemptionResultFrom(preemptionItems())
	if r.groupAttempts() != 16 || !reflect.DeepEqual(r.GroupPreemptions, map[string]float64{"preempting": 8, "waiting": 2, "error": 0}) {
		t.Errorf("group metrics %v %v", r.GroupAttempts, r.GroupPreemptions)
	}
	if r.GroupVictims.mean() != 8 || r.PodVictims.mean() != -1 || r.PodPreemptions != 0 || totalOrNA(r.PodAttempts) != 128 || r.SLI.P99 != 1800 {
		t.Errorf("result %+v", r)
	}
	if got := attemptsByResult(r.GroupPreemptions, groupPreemptionResults); got != "preempting 8, waiting 2" {
		t.Errorf("attemptsByResult %q", got)
	}
	if attemptsByResult(nil, groupPreemptionResults) != "n/a" || attemptsByResult(map[string]float64{"error": 0}, groupPreemptionResults) != "0" {
		t.Errorf("attemptsByResult of nothing")
	}
	// Vanilla: no pod-group metrics.
	r = preemptionResultFrom(preemptionItems()[7:])
	if r.GroupPreemptions != nil || r.GroupAttempts != nil || r.GroupVictims.Count != -1 || r.GroupVictims.mean() != -1 {
		t.Errorf("vanilla %+v", r)
	}
	if r = preemptionResultFrom(nil); r.PodPreemptions != -1 {
		t.Errorf("nothing: %+v", r)
	}
}

func TestPreemptionResultCheck(t *testing.T) {
	events, _ := parsePreemptionLog(gangLog(8, 8))
	good := preemptionResultFrom(preemptionItems())
	good.Kind, good.Size, good.Units, good.Stats = preemptionGang, 8, 8, summarizePreemption(events, 8, 8)
	if err := good.check("tc", 64); err != nil {
		t.Errorf("check: %v", err)
	}
	r := good
	r.GroupPreemptions = map[string]float64{"not_helpful": 8}
	if err := r.check("tc", 64); err == nil || !strings.Contains(err.Error(), "no pod-group preemption") {
		t.Errorf("no group preemption: %v", err)
	}
	r = good
	if err := r.check("tc", 72); err == nil || !strings.Contains(err.Error(), "64 of 72 pods bound") {
		t.Errorf("pods missing: %v", err)
	}
	r = good
	r.Stats.Deleted = 10
	if err := r.check("tc", 64); err == nil || !strings.Contains(err.Error(), "10 fill pods deleted for 64 pods") {
		t.Errorf("too few victims: %v", err)
	}
	// Pods without a group need no pod-group preemption.
	r = good
	r.Kind, r.GroupPreemptions = preemptionPlain, nil
	r.Units = 8
	if err := r.check("tc", 64); err != nil {
		t.Errorf("plain: %v", err)
	}
}

func TestPreemptionMarkdown(t *testing.T) {
	h := &harness{root: t.TempDir()}
	o := smokePreemptionOptions()
	o.GangSizes = []int{8}
	o.Command = "make bench BENCH_ARGS='-suites preemption -reps 2'"
	mk := func(k preemptionKind, size int, s side, rep int, log string) preemptionResult {
		events, _ := parsePreemptionLog(log)
		r := preemptionResultFrom(preemptionItems())
		r.Kind, r.Size, r.Side, r.Rep, r.Units, r.Load = k, size, s.Name, rep, o.Pods/size, 1.5
		r.Stats = summarizePreemption(events, size, r.Units)
		r.Throughput = r.Stats.throughput()
		return r
	}
	var plainLog strings.Builder
	for i := 0; i < 64; i++ {
		fmt.Fprintf(&plainLog, "%d add preemption/p%d -\n%d delete fill/f%d n\n%d bind preemption/p%d n\n", 1_000_000, i, 2_000_000, i, int64(1+i)*1_000_000+1_000_000, i)
	}
	van := preemptionSides[0]
	results := []preemptionResult{
		mk(preemptionPlain, 1, van, 1, plainLog.String()),
		mk(preemptionPlain, 1, preemptionPatched, 1, plainLog.String()),
		mk(preemptionGang, 8, preemptionPatched, 1, gangLog(8, 8)),
		mk(preemptionGangRack, 8, preemptionPatched, 1, gangLog(8, 8)+"999000000 delete fill/late n\n"),
		mk(preemptionPlain, 1, van, 2, plainLog.String()),
		mk(preemptionPlain, 1, preemptionPatched, 2, plainLog.String()),
	}
	results[0].Throughput, results[4].Throughput = 50, 40
	md := preemptionMarkdown(h, results, 2, o)
	for _, want := range []string{
		"# kspatch benchmarks: gang preemption (WorkloadAwarePreemption)\n",
		"50 fake nodes (`-preemption-nodes`): node *i* is `pr-node-<i>` with 4 CPUs, 32Gi (scheduler_perf's `node-default.yaml`), labelled `topology.kubernetes.io/rack=rack-<i / 10>` (5 racks of 10 nodes).",
		"200 Pods in namespace `fill`, 4 per node",
		"`terminationGracePeriodSeconds: 0`",
		"64 per workload (`-preemption-pods`), all created at once (a burst)",
		"| workload | side | gangs / pods | pods/s | makespan (s) | creation → bound p50 / p99 / max (ms) | creation → nominated p50 / p99 (ms) | victims / unit | victims (excess) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
		// Vanilla's two runs: the median is the faster one (50 pods/s).
		"| no group | vanilla | 64 pods | 50.0 (40–50) | 0.06 | 32 / 64 / 64 | n/a / n/a | 1.00 | 64 (+0) |",
		"| gangs of 8 | patched-gate-on | 8 gangs | 1882.4 | 0.03 | 27 / 27 / 27 | 10 / 10 | 8.00 (8–8) | 64 (+0) |",
		"| gangs of 8, one rack | patched-gate-on | 8 gangs | 1882.4 | 0.03 | 27 / 27 / 27 | 10 / 10 | 8.12 (8–8) | 65 (+1) |",
		"| workload | side | group cycles | pod attempts | group preemptions | pod preemptions | victims / preemption | chosen / deleted | pod e2e p50 / p99 (ms) |\n",
		"| gangs of 8 | patched-gate-on | 8/16 | 64/128 | preempting 8, waiting 2 | 0 | 8.00 | 64 / 64 | 900.0 / 1800.0 |",
		// The pods' victims histogram has no samples.
		"| no group | vanilla | 8/16 | 64/128 | preempting 8, waiting 2 | 0 | n/a | 0 / 64 | 900.0 / 1800.0 |",
		"- gangs of 8, one rack on patched-gate-on: 1 fill pods deleted after the last measured pod was bound\n",
		"no group:              throughput patched/vanilla 22.50× (20.00–25.00) (paired)\n",
		"| no group | patched-gate-on | 64 pods | 1000.0 (1000–1000) |",
		"gangs of 8:            makespan 0.53× the pods without a group (0.03 s / 0.06 s), victims per pod 1.00 against 1.00\n",
		"gangs of 8, one rack:  makespan 0.53× the pods without a group (0.03 s / 0.06 s), victims per pod 1.02 against 1.00\n",
		"Command: `make bench BENCH_ARGS='-suites preemption -reps 2'`.",
		"`_output/bench/runs/GangPreemption*`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestRunRejectsBadPreemptionFlags(t *testing.T) {
	bad := defaultPreemptionOptions()
	bad.Pods = 100
	o := failingOptions(t, "preemption")
	o.Preemption = bad
	if err := run(o); err == nil || !strings.Contains(err.Error(), "-preemption-pods 100 is not a multiple of gang size 8") {
		t.Errorf("bad pods: %v", err)
	}
	if err := run(failingOptions(t, "preemption")); err == nil || !strings.Contains(err.Error(), "the preemption suite needs the PodGroup CRD") {
		t.Errorf("no CRD, default options: %v", err)
	}
}
