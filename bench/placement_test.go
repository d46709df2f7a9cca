package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestPlacementConfig(t *testing.T) {
	o := defaultPlacementOptions()
	bothGates := map[string]bool{"GangScheduling": true, "TopologyAwareWorkloadScheduling": true}
	for _, tc := range []struct {
		tree string
		// want: test case -> its only workload.
		want map[string]string
	}{
		{tree: "vanilla", want: map[string]string{"PlacementUngrouped500n50r": "vanilla", "PlacementUngrouped5000n100r": "vanilla"}},
		{tree: "patched", want: map[string]string{
			"PlacementGangs500n50r": "patched_gate_on", "PlacementRack500n50r": "patched_gate_on",
			"PlacementGangs5000n100r": "patched_gate_on", "PlacementRack5000n100r": "patched_gate_on",
		}},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			config := placementConfig(tc.tree, o)
			var cases []gangCase
			if err := yaml.UnmarshalStrict([]byte(config), &cases); err != nil {
				t.Fatalf("generated config does not parse: %v\n%s", err, config)
			}
			if len(cases) != len(tc.want) {
				t.Fatalf("want test cases %v, got %d", tc.want, len(cases))
			}
			for _, c := range cases {
				wantWorkload, ok := tc.want[c.Name]
				if !ok {
					t.Fatalf("unexpected test case %q", c.Name)
				}
				cluster, kind := placementCaseOf(t, c.Name, o)
				checkPlacementOps(t, c, cluster, kind)
				metrics := c.MetricsCollector.Metrics
				if _, ok := metrics["scheduler_podgroup_scheduling_attempt_duration_seconds"]; !ok {
					t.Errorf("%s does not collect the pod-group attempt duration", c.Name)
				}
				if m := metrics["scheduler_placement_evaluation_duration_seconds"]; len(m) != 1 || m[0].Label != "result" || !reflect.DeepEqual(m[0].Values, []string{"feasible", "infeasible"}) {
					t.Errorf("%s must collect the placement evaluation duration by result, got %+v", c.Name, m)
				}
				if m := metrics["scheduler_placement_evaluations_total"]; len(m) != 1 || len(m[0].Values) != 3 {
					t.Errorf("%s must count the placement evaluations by result, got %+v", c.Name, m)
				}
				if _, ok := metrics["scheduler_generated_placements_total"]; !ok {
					t.Errorf("%s does not count the generated placements", c.Name)
				}
				if len(c.Workloads) != 1 || c.Workloads[0].Name != wantWorkload {
					t.Fatalf("%s workloads %+v, want %s", c.Name, c.Workloads, wantWorkload)
				}
				w := c.Workloads[0]
				if len(w.Labels) != 1 || w.Labels[0] != "kspatch" {
					t.Errorf("%s/%s labels %v: the harness filters on kspatch", c.Name, w.Name, w.Labels)
				}
				wantParams := map[string]int{"nodes": cluster.Nodes, "pods": 1024}
				if kind != placementUngrouped {
					wantParams["groups"] = 1024 / 32
				}
				if !reflect.DeepEqual(w.Params, wantParams) {
					t.Errorf("%s/%s params %v, want %v (every param used)", c.Name, w.Name, w.Params, wantParams)
				}
				wantGates := bothGates
				if w.Name == "vanilla" {
					wantGates = nil
				}
				if len(w.FeatureGates) != len(wantGates) || len(wantGates) > 0 && !reflect.DeepEqual(w.FeatureGates, wantGates) {
					t.Errorf("%s/%s gates %v, want %v", c.Name, w.Name, w.FeatureGates, wantGates)
				}
			}
			// The two gates are written in one order, so that the file is
			// the same on every run.
			if tc.tree == "patched" && !strings.Contains(config, "    featureGates:\n      GangScheduling: true\n      TopologyAwareWorkloadScheduling: true\n") {
				t.Errorf("gates not sorted:\n%s", config)
			}
		})
	}
}

// placementCaseOf finds the cluster shape and kind a test case name stands
// for.
func placementCaseOf(t *testing.T, name string, o placementOptions) (placementCluster, placementKind) {
	t.Helper()
	for _, c := range o.Clusters {
		for _, k := range placementKinds {
			if k.testCase(c) == name {
				return c, k
			}
		}
	}
	t.Fatalf("no cluster and kind for test case %q", name)
	return placementCluster{}, 0
}

// checkPlacementOps: the CRD, the racked nodes, the PodGroups (gangs only,
// with or without the constraint, in the pods' namespace), an unmeasured
// wait, and the measured pods.
func checkPlacementOps(t *testing.T, c gangCase, cluster placementCluster, kind placementKind) {
	t.Helper()
	ops := c.WorkloadTemplate
	want := []string{"createAny", "createNodes", "sleep", "createPods"}
	if kind != placementUngrouped {
		want = []string{"createAny", "createNodes", "createAny", "sleep", "createPods"}
	}
	var got []string
	for _, op := range ops {
		got = append(got, op["opcode"].(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s ops %v, want %v", c.Name, got, want)
	}
	if ops[0]["templatePath"] != gangCRDTemplate {
		t.Errorf("%s: first op %v must create the CRD", c.Name, ops[0])
	}
	if ops[1]["countParam"] != "$nodes" || ops[1]["nodeTemplatePath"] != placementNodeFile(cluster.perRack()) {
		t.Errorf("%s: createNodes %v, want the template of racks of %d", c.Name, ops[1], cluster.perRack())
	}
	size := kind.gangSize(defaultPlacementOptions())
	pods := ops[len(ops)-1]
	if pods["namespace"] != placementNamespace || pods["countParam"] != "$pods" || pods["collectMetrics"] != true || pods["podTemplatePath"] != placementPodFile(size) {
		t.Errorf("%s: createPods %v", c.Name, pods)
	}
	if kind != placementUngrouped {
		pg := ops[2]
		if pg["templatePath"] != placementPodGroupFile(kind, size) || pg["namespace"] != placementNamespace || pg["countParam"] != "$groups" {
			t.Errorf("%s: PodGroups op %v must create $groups PodGroups (%s) in the pods' namespace", c.Name, pg, placementPodGroupFile(kind, size))
		}
	}
}

// TestAllConfigsParseWithPlacement: the four suites share one
// performance-config.yaml; the test case names must be unique.
func TestAllConfigsParseWithPlacement(t *testing.T) {
	for _, tree := range []string{"vanilla", "patched"} {
		var cases []struct{ Name string }
		config := burstConfig(tree, []int{1000}) + apiCallsConfig(tree, 1000, 100) + gangsConfig(tree, defaultGangOptions()) + placementConfig(tree, defaultPlacementOptions())
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
		if !seen["GangsUngrouped"] || !seen["DRAClaimTemplateBurst"] || (tree == "vanilla") != seen["PlacementUngrouped500n50r"] || (tree == "patched") != seen["PlacementRack5000n100r"] {
			t.Errorf("%s: test cases %v", tree, seen)
		}
	}
}

func TestPlacementNodeTemplate(t *testing.T) {
	for _, tc := range []struct{ perRack, index, count int }{{10, 0, 500}, {10, 9, 500}, {10, 10, 500}, {10, 499, 500}, {50, 49, 5000}, {50, 4999, 5000}} {
		node := render(t, placementNodeTemplate(tc.perRack), tc.index, tc.count)
		md := node["metadata"].(map[string]any)
		labels := md["labels"].(map[string]any)
		if want := fmt.Sprintf("rack-%d", tc.index/tc.perRack); labels[placementRackLabel] != want {
			t.Errorf("racks of %d, node %d: labels %v, want %s=%s", tc.perRack, tc.index, labels, placementRackLabel, want)
		}
		if node["kind"] != "Node" || md["generateName"] != "scheduler-perf-" {
			t.Errorf("node %v", node)
		}
		capacity := node["status"].(map[string]any)["capacity"].(map[string]any)
		if !reflect.DeepEqual(capacity, map[string]any{"pods": "110", "cpu": "4", "memory": "32Gi"}) {
			t.Errorf("capacity %v, want node-default.yaml's", capacity)
		}
	}
	// The last node of each default shape is in the last rack.
	for _, c := range defaultPlacementOptions().Clusters {
		node := render(t, placementNodeTemplate(c.perRack()), c.Nodes-1, c.Nodes)
		labels := node["metadata"].(map[string]any)["labels"].(map[string]any)
		if want := fmt.Sprintf("rack-%d", c.Racks-1); labels[placementRackLabel] != want {
			t.Errorf("%s: last node in %v, want %s", c, labels[placementRackLabel], want)
		}
	}
}

func TestPlacementPodTemplates(t *testing.T) {
	plain := render(t, memberPodTemplate("bench/placement.go", 0, placementPodCPU), 0, 1024)
	container := plain["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	resources := container["resources"].(map[string]any)
	for _, kind := range []string{"requests", "limits"} {
		if got := resources[kind].(map[string]any)["cpu"]; got != "1000m" {
			t.Errorf("pod cpu %s %v, want 1000m (4 pods on a 4-CPU node)", kind, got)
		}
	}
	if podsPerPlacementNode != 4 {
		t.Errorf("podsPerPlacementNode %d: a 4-CPU node holds 4 pods of 1 CPU", podsPerPlacementNode)
	}
	member := render(t, memberPodTemplate("bench/placement.go", 32, placementPodCPU), 33, 1024)
	md := member["metadata"].(map[string]any)
	if labels := md["labels"].(map[string]any); labels[gangPodGroupLabel] != "gang-1" {
		t.Errorf("pod 33 labels %v, want %s=gang-1", labels, gangPodGroupLabel)
	}
	delete(md, "labels")
	if !reflect.DeepEqual(member, plain) {
		t.Errorf("member %v differs from the pod without a group %v beyond the label", member, plain)
	}
	// gangs.go's pods are unchanged by the shared template: 100m.
	gang := render(t, gangPodTemplate(0), 0, 1)
	if cpu := gang["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)["cpu"]; cpu != "100m" {
		t.Errorf("gangs pod cpu %v, want 100m", cpu)
	}
}

func TestPlacementPodGroupTemplates(t *testing.T) {
	free := render(t, podGroupTemplate("bench/placement.go", 32, ""), 3, 32)
	rack := render(t, podGroupTemplate("bench/placement.go", 32, placementRackLabel), 3, 32)
	if name := rack["metadata"].(map[string]any)["name"]; name != "gang-3" {
		t.Errorf("PodGroup 3 named %v", name)
	}
	spec := rack["spec"].(map[string]any)
	topology := spec["schedulingConstraints"].(map[string]any)["topology"].([]any)
	if len(topology) != 1 || topology[0].(map[string]any)["key"] != placementRackLabel {
		t.Errorf("topology %v, want [{key: %s}]", topology, placementRackLabel)
	}
	if gang := spec["schedulingPolicy"].(map[string]any)["gang"].(map[string]any); gang["minCount"] != float64(32) {
		t.Errorf("minCount %v", gang["minCount"])
	}
	if free["spec"].(map[string]any)["schedulingConstraints"] != nil {
		t.Errorf("the unconstrained PodGroup has constraints: %v", free)
	}
	// The same PodGroup but for the constraint.
	delete(spec, "schedulingConstraints")
	if !reflect.DeepEqual(rack, free) {
		t.Errorf("constrained %v differs from unconstrained %v beyond the constraint", rack, free)
	}
	// gangs.go's PodGroups are unchanged by the shared template.
	if gangPodGroupTemplate(8) != strings.Replace(podGroupTemplate("bench/placement.go", 8, ""), "placement.go", "gangs.go", 1) {
		t.Errorf("gangs PodGroup template:\n%s", gangPodGroupTemplate(8))
	}
}

// TestPlacementPodGroupMatchesCRD: the constrained PodGroup uses only
// fields of the checkout's CRD schema, and the rack label is a topology key
// the CRD accepts.
func TestPlacementPodGroupMatchesCRD(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", gangCRDFile))
	if err != nil {
		t.Skipf("no checkout around bench/: %v", err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	schema := dig(t, crd, "spec", "versions", 0, "schema", "openAPIV3Schema").(map[string]any)
	pg := render(t, podGroupTemplate("bench/placement.go", 32, placementRackLabel), 0, 1)
	checkSchemaFields(t, pg["spec"], dig(t, schema, "properties", "spec").(map[string]any), "spec")

	key := dig(t, schema, "properties", "spec", "properties", "schedulingConstraints", "properties", "topology", "items", "properties", "key").(map[string]any)
	rule := dig(t, key, "x-kubernetes-validations", 0, "rule").(string)
	pattern, ok := strings.CutPrefix(rule, "self.matches('")
	pattern, ok2 := strings.CutSuffix(pattern, "')")
	if !ok || !ok2 {
		t.Fatalf("topology key rule %q is not self.matches('...')", rule)
	}
	// A CEL string literal: '\\.' is the regular expression \.
	re, err := regexp.Compile(strings.ReplaceAll(pattern, `\\`, `\`))
	if err != nil {
		t.Fatalf("topology key rule %q: %v", rule, err)
	}
	if !re.MatchString(placementRackLabel) {
		t.Errorf("the CRD refuses topology key %s (rule %s)", placementRackLabel, rule)
	}
}

// dig walks a decoded YAML document by map keys and list indexes.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok || m[p] == nil {
				t.Fatalf("no %q in %v", p, v)
			}
			v = m[p]
		case int:
			l, ok := v.([]any)
			if !ok || len(l) <= p {
				t.Fatalf("no [%d] in %v", p, v)
			}
			v = l[p]
		}
	}
	return v
}

// checkSchemaFields checks that every field of obj is a property of its
// OpenAPI schema, down through objects and arrays.
func checkSchemaFields(t *testing.T, obj any, schema map[string]any, path string) {
	t.Helper()
	switch obj := obj.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for name, v := range obj {
			sub, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s.%s is not in the CRD schema", path, name)
				continue
			}
			checkSchemaFields(t, v, sub, path+"."+name)
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, v := range obj {
			checkSchemaFields(t, v, items, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// TestPlacementFiles: the checkout's CRD, one node template per rack size,
// the pods and the PodGroups with and without the constraint.
func TestPlacementFiles(t *testing.T) {
	if _, err := placementFiles([]byte("description: {{ oops }}"), defaultPlacementOptions()); err == nil || !strings.Contains(err.Error(), "'{{'") {
		t.Errorf("a CRD with '{{' must be refused, got %v", err)
	}
	o := defaultPlacementOptions()
	o.Clusters = append(o.Clusters, placementCluster{Nodes: 1000, Racks: 100})
	files, err := placementFiles([]byte("kind: CustomResourceDefinition\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{gangCRDTemplate, "placement-node-10perrack.yaml", "placement-node-50perrack.yaml", "placement-pod-32.yaml", "placement-pod-ungrouped.yaml",
		"placement-podgroup-32-rack.yaml", "placement-podgroup-32.yaml"}
	sort.Strings(want)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v (1000/100 shares the template of racks of 10)", names, want)
	}
	if !strings.Contains(string(files["placement-podgroup-32-rack.yaml"]), placementRackLabel) || strings.Contains(string(files["placement-podgroup-32.yaml"]), "schedulingConstraints") {
		t.Errorf("PodGroup templates swapped")
	}
	// With the gangs suite in the same run, both write the same CRD file.
	gangFileSet, err := gangFiles([]byte("kind: CustomResourceDefinition\n"), []int{8})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range gangFileSet {
		if other, ok := files[name]; ok && string(other) != string(content) {
			t.Errorf("gangs and placement write different %s", name)
		}
	}
}

func TestPlacementRuns(t *testing.T) {
	var got []string
	for _, r := range placementRuns(defaultPlacementOptions().Clusters) {
		got = append(got, r.Kind.testCase(r.Cluster)+"/"+r.Side.Name)
	}
	want := "PlacementUngrouped500n50r/vanilla,PlacementGangs500n50r/patched-gate-on,PlacementRack500n50r/patched-gate-on," +
		"PlacementUngrouped5000n100r/vanilla,PlacementGangs5000n100r/patched-gate-on,PlacementRack5000n100r/patched-gate-on"
	if strings.Join(got, ",") != want {
		t.Errorf("runs %v, want %s", got, want)
	}
}

func TestParsePlacementClusters(t *testing.T) {
	got, err := parsePlacementClusters(" 500/50, 5000/100")
	if err != nil || !reflect.DeepEqual(got, defaultPlacementOptions().Clusters) {
		t.Errorf("parsePlacementClusters = %v, %v", got, err)
	}
	if s := formatPlacementClusters(got); s != "500/50,5000/100" {
		t.Errorf("formatPlacementClusters = %q", s)
	}
	for _, bad := range []string{"500", "500/0", "x/5", "500/50,", "0/1", ""} {
		if _, err := parsePlacementClusters(bad); err == nil || !strings.Contains(err.Error(), "-placement-clusters") {
			t.Errorf("parsePlacementClusters(%q): %v, want an error naming -placement-clusters", bad, err)
		}
	}
}

func TestPlacementOptionsValidate(t *testing.T) {
	with := func(f func(*placementOptions)) placementOptions {
		o := defaultPlacementOptions()
		f(&o)
		return o
	}
	for _, tc := range []struct {
		name string
		o    placementOptions
		want string
	}{
		{"defaults", defaultPlacementOptions(), ""},
		{"every rack full", with(func(o *placementOptions) { o.Pods = 1600 }), ""},
		{"incomplete gang", with(func(o *placementOptions) { o.Pods = 1000 }), "invalid -placement-pods 1000: must be a positive multiple of the gang size 32"},
		{"more gangs than racks", with(func(o *placementOptions) { o.Pods = 1632 }), "a rack of 10 nodes holds 40 pods, 1 gang(s) of 32, so the 50 racks hold 50 of the 51 gangs"},
		{"racks too small", with(func(o *placementOptions) { o.Clusters = []placementCluster{{Nodes: 100, Racks: 50}} }), "a rack of 2 nodes holds 8 pods, 0 gang(s) of 32"},
		{"uneven racks", with(func(o *placementOptions) { o.Clusters = []placementCluster{{Nodes: 500, Racks: 30}} }), "racks of equal size"},
		{"twice", with(func(o *placementOptions) { o.Clusters = append(o.Clusters, o.Clusters[0]) }), "has 500/50 twice"},
		{"no clusters", with(func(o *placementOptions) { o.Clusters = nil }), "-placement-clusters is empty"},
		{"no gang", with(func(o *placementOptions) { o.GangSize = 0 }), "invalid -placement-gang-size 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("validate: %v, want %q", err, tc.want)
			}
		})
	}
	// run refuses them before building anything.
	bad := with(func(o *placementOptions) { o.Pods = 100 })
	if err := run(t.TempDir(), "1000", 1, "vanilla", "", "", 0, "placement", defaultAPIOptions(), defaultGangOptions(), bad, defaultUpstreamOptions()); err == nil || !strings.Contains(err.Error(), "invalid -placement-pods 100") {
		t.Errorf("run: %v", err)
	}
	if err := run(t.TempDir(), "1000", 1, "vanilla", "", "", 0, "placement", defaultAPIOptions(), defaultGangOptions(), defaultPlacementOptions(), defaultUpstreamOptions()); err == nil || !strings.Contains(err.Error(), "the placement suite needs the PodGroup CRD") {
		t.Errorf("run without a checkout: %v, want an error about the CRD", err)
	}
}

func placementItems() []dataItem {
	return []dataItem{
		{Labels: map[string]string{"Metric": "SchedulingThroughput"}, Data: map[string]float64{"Average": 80}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_schedule_attempts_total", "result": "scheduled"}, Data: map[string]float64{"Value": 32}},
		{Labels: map[string]string{"Metric": "scheduler_podgroup_scheduling_attempt_duration_seconds"}, Data: map[string]float64{"Perc50": 300, "Perc99": 900, "Average": 350, "Count": 32}},
		{Labels: map[string]string{"Metric": "scheduler_placement_evaluation_duration_seconds", "result": "feasible"}, Data: map[string]float64{"Perc50": 6, "Perc90": 9, "Perc99": 12, "Average": 7, "Count": 1400}},
		{Labels: map[string]string{"Metric": "scheduler_placement_evaluation_duration_seconds", "result": "infeasible"}, Data: map[string]float64{"Perc50": 1, "Perc99": 3, "Average": 2, "Count": 600}},
		{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_total", "result": "feasible"}, Data: map[string]float64{"Value": 1400}},
		{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_total", "result": "infeasible"}, Data: map[string]float64{"Value": 600}},
		{Labels: map[string]string{"Metric": "scheduler_placement_evaluations_total", "result": "error"}, Data: map[string]float64{"Value": 0}},
		{Labels: map[string]string{"Metric": "scheduler_generated_placements_total"}, Data: map[string]float64{"Value": 1600}},
		{Labels: map[string]string{"Metric": "scheduler_pod_scheduling_sli_duration_seconds"}, Data: map[string]float64{"Perc50": 5000, "Perc99": 12000, "Count": 1024}},
	}
}

func TestPlacementResultFrom(t *testing.T) {
	r := placementResultFrom(placementItems())
	if r.Throughput != 80 || r.groupAttempts() != 32 || r.Group.P50 != 300 || r.SLI.P99 != 12000 {
		t.Errorf("the gang part: %+v", r.gangResult)
	}
	if r.Feasible != (latency{P50: 6, P90: 9, P99: 12, Avg: 7, Count: 1400}) || r.Infeasible.P99 != 3 || r.Infeasible.Count != 600 {
		t.Errorf("evaluation latencies %+v %+v", r.Feasible, r.Infeasible)
	}
	if r.evaluations() != 2000 || r.Evaluations["feasible"] != 1400 || r.Generated != 1600 {
		t.Errorf("counts %v, generated %v", r.Evaluations, r.Generated)
	}
	if m := r.evaluationMean(); m != (7*1400+2*600)/2000.0 {
		t.Errorf("evaluation mean %v", m)
	}
	// Vanilla, and a tree without the placement metrics.
	v := placementResultFrom(placementItems()[:1])
	if v.evaluations() != -1 || v.Generated != -1 || v.evaluationMean() != 0 || p50p99(v.Feasible) != "n/a" {
		t.Errorf("without placement metrics: %+v", v)
	}
}

func TestPlacementResultCheck(t *testing.T) {
	o := defaultPlacementOptions()
	good := placementResultFrom(placementItems())
	good.Side, good.Kind = "patched-gate-on", placementRack
	if err := good.check("PlacementRack500n50r", o); err != nil {
		t.Errorf("a complete run: %v", err)
	}
	noEval := placementResultFrom(placementItems()[:3])
	noEval.Side, noEval.Kind = "patched-gate-on", placementRack
	if err := noEval.check("PlacementRack500n50r", o); err == nil || !strings.Contains(err.Error(), "n/a placement evaluations for 32 gangs") {
		t.Errorf("a constrained run without evaluations: %v", err)
	}
	noEval.Kind = placementUnconstrained
	if err := noEval.check("PlacementGangs500n50r", o); err != nil {
		t.Errorf("an unconstrained run needs no evaluations: %v", err)
	}
	fewCycles := placementResultFrom(placementItems())
	fewCycles.Kind, fewCycles.GroupAttempts = placementUnconstrained, map[string]float64{"scheduled": 31}
	if err := fewCycles.check("PlacementGangs500n50r", o); err == nil || !strings.Contains(err.Error(), "31 pod-group cycles for 32 gangs") {
		t.Errorf("too few cycles: %v", err)
	}
	vanilla := placementResultFrom(placementItems()[:1])
	vanilla.Side, vanilla.Kind = "vanilla", placementUngrouped
	if err := vanilla.check("PlacementUngrouped500n50r", o); err != nil {
		t.Errorf("vanilla without a group: %v", err)
	}
	vanilla.Throughput = 0
	if err := vanilla.check("PlacementUngrouped500n50r", o); err == nil || !strings.Contains(err.Error(), "raise -placement-pods") {
		t.Errorf("no throughput: %v", err)
	}
}

func TestPlacementMarkdown(t *testing.T) {
	h := &harness{root: t.TempDir()}
	o := defaultPlacementOptions()
	o.Command = "make bench BENCH_ARGS='-suites placement -reps 3'"
	small, big := o.Clusters[0], o.Clusters[1]
	rack := placementResultFrom(placementItems())
	rack.Side, rack.Cluster, rack.Kind, rack.Size, rack.Load = "patched-gate-on", small, placementRack, 32, 1.5
	free := placementResult{gangResult: gangResult{Side: "patched-gate-on", Size: 32, Throughput: 200, GroupAttempts: map[string]float64{"scheduled": 32},
		Group: latency{P50: 100, P99: 200, Avg: 110, Count: 32}, Load: 2.5}, Cluster: small, Kind: placementUnconstrained, Generated: -1}
	van := func(tp float64) placementResult {
		return placementResult{gangResult: gangResult{Side: "vanilla", Throughput: tp}, Cluster: small, Kind: placementUngrouped, Generated: -1}
	}
	bigRack := rack
	bigRack.Cluster, bigRack.Throughput = big, 40
	results := []placementResult{van(250), van(150), van(300), free, rack, bigRack}
	md := placementMarkdown(h, results, 3, o)
	for _, want := range []string{
		"# kspatch benchmarks: topology-aware placement (issue #8, KEP-5732)",
		"| 500 nodes, 50 racks of 10 | no group | vanilla | 250.0 (150–300) | 1.25× | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | 0 / 0 |",
		"| 500 nodes, 50 racks of 10 | gangs of 32 | patched-gate-on | 200.0 | 1.00× | 32/32 | 100.0 / 200.0 | 110.0 | n/a | n/a | n/a | n/a | n/a |",
		"| 500 nodes, 50 racks of 10 | gangs of 32, one rack | patched-gate-on | 80.0 | 0.40× | 32/32 | 300.0 / 900.0 | 350.0 | 50.0 | 43.8 + 18.8 | 6.0 / 12.0 | 1.0 / 3.0 | 5.50 | 5000 / 12000 |",
		"| 5000 nodes, 100 racks of 50 | gangs of 32, one rack | patched-gate-on | 40.0 | n/a |",
		"500 nodes, 50 racks of 10:\n  one rack / unconstrained           0.40x\n  unconstrained / vanilla (no group) 0.80x\n  one rack / vanilla (no group)      0.32x\n",
		"5000 nodes, 100 racks of 50:\n",
		"1024 measured Pods",
		"`topology.kspatch.io/rack=rack-<i / nodes per rack>`",
		"load average at the end of the runs was 1.5–2.5",
		"Command: `make bench BENCH_ARGS='-suites placement -reps 3'`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "5000 nodes, 100 racks of 50:\n  one rack / unconstrained") {
		t.Errorf("a ratio without an unconstrained run:\n%s", md)
	}
}
