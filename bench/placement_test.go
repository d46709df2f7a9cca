package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
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
		{tree: "vanilla", want: map[string]string{"PlacementUngrouped500n50r": "vanilla", "PlacementUngrouped5000n100r": "vanilla", "PlacementUngrouped5000n100rLoaded": "vanilla"}},
		{tree: "patched", want: map[string]string{
			"PlacementGangs500n50r": "patched_gate_on", "PlacementRack500n50r": "patched_gate_on",
			"PlacementGangs5000n100r": "patched_gate_on", "PlacementRack5000n100r": "patched_gate_on",
			"PlacementGangs5000n100rLoaded": "patched_gate_on", "PlacementRack5000n100rLoaded": "patched_gate_on",
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
				if m := metrics["scheduler_placement_decision_duration_seconds"]; len(m) != 1 || m[0].Label != "result" || !reflect.DeepEqual(m[0].Values, []string{"feasible", "infeasible"}) {
					t.Errorf("%s must collect the placement decision duration by result, got %+v", c.Name, m)
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
				// The loaded shape: 768 measured pods (24 gangs) after a
				// fill pod on each of its 5000 nodes.
				pods := 1024
				if cluster.Loaded {
					pods = 768
				}
				wantParams := map[string]int{"nodes": cluster.Nodes, "pods": pods}
				if kind != placementUngrouped {
					wantParams["groups"] = pods / 32
				}
				if cluster.Loaded {
					wantParams["fill"] = 5000
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

// checkPlacementOps: the CRD, the racked nodes, the fill pods (loaded
// shapes only, unmeasured, in their own namespace), the PodGroups (gangs
// only, with or without the constraint, in the pods' namespace), an
// unmeasured wait, and the measured pods.
func checkPlacementOps(t *testing.T, c gangCase, cluster placementCluster, kind placementKind) {
	t.Helper()
	ops := c.WorkloadTemplate
	want := []string{"createAny", "createNodes"}
	if cluster.Loaded {
		want = append(want, "createPods")
	}
	if kind != placementUngrouped {
		want = append(want, "createAny")
	}
	want = append(want, "sleep", "createPods")
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
	next := 2
	if cluster.Loaded {
		fill := ops[2]
		wantFill := map[string]any{"opcode": "createPods", "namespace": "fill", "countParam": "$fill", "podTemplatePath": placementFillFile(cluster.perRack())}
		if !reflect.DeepEqual(fill, wantFill) {
			t.Errorf("%s: fill op %v, want %v (no collectMetrics)", c.Name, fill, wantFill)
		}
		next++
	}
	if kind != placementUngrouped {
		pg := ops[next]
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
		if !seen["GangsUngrouped"] || !seen["DRAClaimTemplateBurst"] || (tree == "vanilla") != seen["PlacementUngrouped500n50r"] || (tree == "patched") != seen["PlacementRack5000n100r"] ||
			(tree == "vanilla") != seen["PlacementUngrouped5000n100rLoaded"] || (tree == "patched") != seen["PlacementRack5000n100rLoaded"] {
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
		// A fixed name, which the fill pods are bound to.
		if node["kind"] != "Node" || md["name"] != fmt.Sprintf("pl-node-%d", tc.index) || md["generateName"] != nil {
			t.Errorf("node %v, want name pl-node-%d", node, tc.index)
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

// TestPlacementFillTemplate: fill pod i is bound to node pl-node-<i> and
// requests 2 CPUs in an open rack (rack % 10 == 9), 3.8 CPUs in a full one.
func TestPlacementFillTemplate(t *testing.T) {
	text := placementFillTemplate(50)
	if !strings.Contains(text, "{{ if eq (mod (div .Index 50) 10) 9 }}2000m{{ else }}3800m{{ end }}") {
		t.Errorf("fill template:\n%s", text)
	}
	for _, tc := range []struct {
		index int
		cpu   string
	}{{0, "3800m"}, {49, "3800m"}, {450, "2000m"}, {499, "2000m"}, {500, "3800m"}, {4950, "2000m"}, {4999, "2000m"}} {
		pod := render(t, text, tc.index, 5000)
		spec := pod["spec"].(map[string]any)
		if pod["kind"] != "Pod" || spec["nodeName"] != fmt.Sprintf("pl-node-%d", tc.index) {
			t.Errorf("fill pod %d: %v, want it bound to pl-node-%d", tc.index, pod, tc.index)
		}
		if md := pod["metadata"].(map[string]any); md["generateName"] != "fill-" || md["namespace"] != nil {
			t.Errorf("fill pod %d metadata %v", tc.index, md)
		}
		container := spec["containers"].([]any)[0].(map[string]any)
		resources := container["resources"].(map[string]any)
		want := map[string]any{"requests": map[string]any{"cpu": tc.cpu, "memory": "500Mi"}}
		if !reflect.DeepEqual(resources, want) || container["image"] != "registry.k8s.io/pause:3.10" {
			t.Errorf("fill pod %d (rack %d): container %v, want resources %v", tc.index, tc.index/50, container, want)
		}
	}
	// On 5000/100/loaded: 90.5% of the CPU, as fillShare says, and room
	// for 2 measured pods on each of the 500 nodes of the 10 open racks.
	c := placementCluster{Nodes: 5000, Racks: 100, Loaded: true}
	used, room := 0, 0
	for i := 0; i < c.Nodes; i++ {
		cpu := render(t, text, i, c.Nodes)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)["cpu"].(string)
		milli, err := strconv.Atoi(strings.TrimSuffix(cpu, "m"))
		if err != nil {
			t.Fatal(err)
		}
		used += milli
		room += (4000 - milli) / 1000
	}
	if share := float64(used) / float64(c.Nodes*4000); share != 0.905 || c.fillShare() != share {
		t.Errorf("fill share %v, fillShare %v, want 0.905", share, c.fillShare())
	}
	if want := c.openRacks() * c.perRack() * podsPerOpenNode; room != 1000 || want != room {
		t.Errorf("room for %d measured pods (open racks: %d), want 1000", room, want)
	}
	if (placementCluster{Nodes: 5000, Racks: 100}).fillShare() != 0 {
		t.Errorf("a shape that is not loaded has no fill")
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
	o.Clusters = append(o.Clusters, placementCluster{Nodes: 1000, Racks: 100}, placementCluster{Nodes: 1000, Racks: 100, Loaded: true})
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
		"placement-podgroup-32-rack.yaml", "placement-podgroup-32.yaml", "placement-fill-50perrack.yaml", "placement-fill-10perrack.yaml"}
	sort.Strings(want)
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v (1000/100 shares the template of racks of 10; loaded shapes add a fill template)", names, want)
	}
	if string(files["placement-fill-50perrack.yaml"]) != placementFillTemplate(50) || string(files["placement-fill-10perrack.yaml"]) != placementFillTemplate(10) {
		t.Errorf("fill templates")
	}
	// Without a loaded shape, no fill template.
	o.Clusters = o.Clusters[:2]
	files, err = placementFiles([]byte("kind: CustomResourceDefinition\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if strings.HasPrefix(name, "placement-fill-") {
			t.Errorf("%s without a loaded shape", name)
		}
	}
	files, _ = placementFiles([]byte("kind: CustomResourceDefinition\n"), defaultPlacementOptions())
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
		"PlacementUngrouped5000n100r/vanilla,PlacementGangs5000n100r/patched-gate-on,PlacementRack5000n100r/patched-gate-on," +
		"PlacementUngrouped5000n100rLoaded/vanilla,PlacementGangs5000n100rLoaded/patched-gate-on,PlacementRack5000n100rLoaded/patched-gate-on"
	if strings.Join(got, ",") != want {
		t.Errorf("runs %v, want %s", got, want)
	}
}

func TestParsePlacementClusters(t *testing.T) {
	got, err := parsePlacementClusters(" 500/50, 5000/100, 5000/100/loaded")
	if err != nil || !reflect.DeepEqual(got, defaultPlacementOptions().Clusters) {
		t.Errorf("parsePlacementClusters = %v, %v", got, err)
	}
	if s := formatPlacementClusters(got); s != "500/50,5000/100,5000/100/loaded" {
		t.Errorf("formatPlacementClusters = %q", s)
	}
	if again, err := parsePlacementClusters(formatPlacementClusters(got)); err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("round trip: %v, %v", again, err)
	}
	loaded := got[2]
	if !loaded.Loaded || got[1].Loaded || loaded.Nodes != 5000 || loaded.Racks != 100 {
		t.Errorf("5000/100/loaded = %+v", loaded)
	}
	if loaded.id() != "5000n100rLoaded" || got[1].id() != "5000n100r" {
		t.Errorf("ids %q %q", loaded.id(), got[1].id())
	}
	if loaded.String() != "5000 nodes, 100 racks of 50, 90% full" || got[1].String() != "5000 nodes, 100 racks of 50" {
		t.Errorf("descriptions %q %q", loaded, got[1])
	}
	if loaded.openRacks() != 10 {
		t.Errorf("open racks %d, want 10 (rack-9, rack-19, ..., rack-99)", loaded.openRacks())
	}
	for _, bad := range []string{"500", "500/0", "x/5", "500/50,", "0/1", "", "500/50/", "500/50/full", "500/50/Loaded", "500/50/loaded/x", "0/1/loaded", "/50/loaded"} {
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
		{"loaded twice", with(func(o *placementOptions) { o.Clusters = append(o.Clusters, o.Clusters[2]) }), "has 5000/100/loaded twice"},
		{"open racks full", with(func(o *placementOptions) { o.LoadedPods = 960 }), ""},
		{"loaded does not fit", with(func(o *placementOptions) { o.LoadedPods = 1024 }),
			"-placement-loaded-pods 1024 do not fit in 5000/100/loaded: only its 10 open rack(s) (rack index % 10 == 9) have room, 100 pods a rack (50 nodes with 2 free CPUs), 3 gang(s) of 32, so they hold 30 of the 32 gangs"},
		{"loaded without an open rack", with(func(o *placementOptions) { o.Clusters = []placementCluster{{Nodes: 500, Racks: 5, Loaded: true}} }), "only its 0 open rack(s)"},
		{"loaded racks too small", with(func(o *placementOptions) { o.Clusters = []placementCluster{{Nodes: 1000, Racks: 100, Loaded: true}} }),
			"only its 10 open rack(s) (rack index % 10 == 9) have room, 20 pods a rack (10 nodes with 2 free CPUs), 0 gang(s) of 32"},
		{"incomplete loaded gang", with(func(o *placementOptions) { o.LoadedPods = 500 }), "invalid -placement-loaded-pods 500: must be a positive multiple of the gang size 32"},
		// Each count is checked only where a shape uses it.
		{"only loaded", with(func(o *placementOptions) { o.Clusters, o.Pods = o.Clusters[2:], 0 }), ""},
		{"none loaded", with(func(o *placementOptions) { o.Clusters, o.LoadedPods = o.Clusters[:2], 0 }), ""},
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
	o := failingOptions(t, "placement")
	o.Placement = bad
	if err := run(o); err == nil || !strings.Contains(err.Error(), "invalid -placement-pods 100") {
		t.Errorf("run: %v", err)
	}
	if err := run(failingOptions(t, "placement")); err == nil || !strings.Contains(err.Error(), "the placement suite needs the PodGroup CRD") {
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
		{Labels: map[string]string{"Metric": "scheduler_placement_decision_duration_seconds", "result": "feasible"}, Data: map[string]float64{"Perc50": 20, "Perc90": 30, "Perc99": 40, "Average": 22, "Count": 32}},
		{Labels: map[string]string{"Metric": "scheduler_placement_decision_duration_seconds", "result": "infeasible"}, Data: map[string]float64{"Perc50": 2, "Perc99": 4, "Average": 2, "Count": 5}},
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
	if r.Decision != (latency{P50: 20, P90: 30, P99: 40, Avg: 22, Count: 32}) {
		t.Errorf("decision latency %+v, want the feasible decisions'", r.Decision)
	}
	if r.evaluations() != 2000 || r.Evaluations["feasible"] != 1400 || r.Generated != 1600 {
		t.Errorf("counts %v, generated %v", r.Evaluations, r.Generated)
	}
	if m := r.evaluationMean(); m != (7*1400+2*600)/2000.0 {
		t.Errorf("evaluation mean %v", m)
	}
	if r.GroupCPU != -1 {
		t.Errorf("GroupCPU %v without a profile, want -1", r.GroupCPU)
	}
	// Vanilla, and a tree without the placement metrics.
	v := placementResultFrom(placementItems()[:1])
	if v.evaluations() != -1 || v.Generated != -1 || v.evaluationMean() != 0 || p50p99(v.Feasible) != "n/a" || v.GroupCPU != -1 {
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
	if err := vanilla.check("PlacementUngrouped500n50r", o); err == nil || !strings.Contains(err.Error(), "raise -placement-pods)") {
		t.Errorf("no throughput: %v", err)
	}
	vanilla.Cluster = o.Clusters[2]
	if err := vanilla.check("PlacementUngrouped5000n100rLoaded", o); err == nil || !strings.Contains(err.Error(), "raise -placement-loaded-pods") {
		t.Errorf("no throughput on the loaded shape: %v", err)
	}
	// The loaded shape has 768 pods: 24 gangs.
	loaded := placementResultFrom(placementItems())
	loaded.Side, loaded.Kind, loaded.Cluster = "patched-gate-on", placementUnconstrained, o.Clusters[2]
	loaded.GroupAttempts = map[string]float64{"scheduled": 24}
	if err := loaded.check("PlacementGangs5000n100rLoaded", o); err != nil {
		t.Errorf("24 cycles for the 24 gangs of the loaded shape: %v", err)
	}
	loaded.GroupAttempts = map[string]float64{"scheduled": 23}
	if err := loaded.check("PlacementGangs5000n100rLoaded", o); err == nil || !strings.Contains(err.Error(), "23 pod-group cycles for 24 gangs") {
		t.Errorf("too few cycles on the loaded shape: %v", err)
	}
}

func TestPprofShownSeconds(t *testing.T) {
	const header = `File: patched.test
Build ID: 6c1f0f1b0d5e8f7b3c2a9e4d1f0a7b6c5d4e3f21
Type: cpu
Time: 2026-11-24 18:42:07 UTC
Duration: 30.1s, Total samples = 12.3s (40.87%)
Active filters:
   focus=scheduler\.\(\*Scheduler\)\.scheduleOnePodGroup
`
	const rows = `      flat  flat%   sum%        cum   cum%
     0.41s  3.33%  3.33%      0.52s  4.23%  k8s.io/kubernetes/pkg/scheduler/framework.(*CycleState).Clone
     0.30s  2.44%  5.77%      2.50s 20.33%  k8s.io/kubernetes/pkg/scheduler.(*Scheduler).scheduleOnePodGroup
         0     0%  5.77%      2.50s 20.33%  k8s.io/kubernetes/pkg/scheduler.(*Scheduler).ScheduleOne
`
	for _, tc := range []struct {
		name, out string
		want      float64
		err       string
	}{
		{name: "seconds", out: header + "Showing nodes accounting for 2.5s, 20.33% of 12.3s total\n" + rows, want: 2.5},
		{name: "milliseconds", out: header + "Showing nodes accounting for 450ms, 3.66% of 12.3s total\n" + rows, want: 0.45},
		{name: "whole seconds", out: header + "Showing nodes accounting for 12s, 97.56% of 12.3s total\n" + rows, want: 12},
		{name: "microseconds", out: header + "Showing nodes accounting for 20us, 0.00016% of 12.3s total\n", want: 20e-6},
		{name: "hours", out: header + "Showing nodes accounting for 1.50hrs, 90% of 1.67hrs total\n", want: 5400},
		{name: "dropped nodes line after", out: header + "Showing nodes accounting for 1.23s, 10% of 12.3s total\nDropped 12 nodes (cum <= 0.06s)\n" + rows, want: 1.23},
		{name: "zero", out: header + "Showing nodes accounting for 0, 0% of 12.3s total\n      flat  flat%   sum%        cum   cum%\n", want: 0},
		{name: "no match", out: header + "Showing nodes accounting for 0, 0% of 12.3s total\n      flat  flat%   sum%        cum   cum%\nFocus expression matched no samples\n", err: "matched no samples"},
		{name: "no showing line", out: header + rows, err: `no "Showing nodes accounting for" line`},
		{name: "unknown unit", out: header + "Showing nodes accounting for 2.5MB, 20% of 12.5MB total\n", err: `"2.5MB" is not a CPU time`},
		{name: "no number", out: header + "Showing nodes accounting for s, 20% of 12.3s total\n", err: `"s" is not a CPU time`},
		{name: "empty", out: "", err: "no \"Showing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pprofShownSeconds(tc.out)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("pprofShownSeconds: %v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("pprofShownSeconds = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestGroupCycleCPUWithoutProfile(t *testing.T) {
	dir := t.TempDir()
	if ms, err := groupCycleCPU(filepath.Join(dir, "cpu.pprof"), 32); err == nil || ms != -1 {
		t.Errorf("a missing profile: %v, %v; want -1 and an error", ms, err)
	}
	if ms, err := groupCycleCPU(filepath.Join(dir, "cpu.pprof"), -1); err == nil || ms != -1 || !strings.Contains(err.Error(), "no pod-group cycles") {
		t.Errorf("no cycles: %v, %v", ms, err)
	}
	h := &harness{out: dir}
	if got, want := h.profile("PlacementRack500n50r-patched-gate-on-rep1"), filepath.Join(dir, "runs", "PlacementRack500n50r-patched-gate-on-rep1", "cpu.pprof"); got != want {
		t.Errorf("profile path %s, want %s", got, want)
	}
}

func TestPlacementMarkdown(t *testing.T) {
	h := &harness{root: t.TempDir()}
	o := defaultPlacementOptions()
	o.Command = "make bench BENCH_ARGS='-suites placement -reps 3'"
	o.LoadedPods = 512 // 16 gangs, as the fixtures count
	small, big := o.Clusters[0], o.Clusters[1]
	rack := placementResultFrom(placementItems())
	rack.Side, rack.Cluster, rack.Kind, rack.Size, rack.Load = "patched-gate-on", small, placementRack, 32, 1.5
	free := placementResult{gangResult: gangResult{Side: "patched-gate-on", Size: 32, Throughput: 200, GroupAttempts: map[string]float64{"scheduled": 32},
		Group: latency{P50: 100, P99: 200, Avg: 110, Count: 32}, Load: 2.5}, Cluster: small, Kind: placementUnconstrained, Generated: -1, GroupCPU: -1}
	van := func(tp float64) placementResult {
		return placementResult{gangResult: gangResult{Side: "vanilla", Throughput: tp}, Cluster: small, Kind: placementUngrouped, Generated: -1, GroupCPU: -1}
	}
	bigRack := rack
	bigRack.Cluster, bigRack.Throughput = big, 40
	// The loaded shape, profiled: 16 gangs, CPU per group cycle known.
	loaded := o.Clusters[2]
	loadedRack := rack
	loadedRack.Cluster, loadedRack.Throughput, loadedRack.GroupCPU = loaded, 20, 45.25
	loadedRack.GroupAttempts = map[string]float64{"scheduled": 16}
	loadedRack.Group = latency{P50: 400, P99: 1800, Avg: 500, Count: 16}
	loadedFree := free
	loadedFree.Cluster, loadedFree.Throughput, loadedFree.GroupCPU = loaded, 50, 18.1
	loadedFree.GroupAttempts = map[string]float64{"scheduled": 16}
	loadedVan := van(100)
	loadedVan.Cluster = loaded
	results := []placementResult{van(250), van(150), van(300), free, rack, bigRack, loadedVan, loadedFree, loadedRack}
	md := placementMarkdown(h, results, 3, o)
	for _, want := range []string{
		"# kspatch benchmarks: topology-aware placement (issue #8, KEP-5732)",
		"| cluster | workload | side | pods/s | vs unconstrained | group cycles | group attempt p50 / p99 (ms) | group attempt mean (ms) | decision p50 / p99 (ms) | CPU / group cycle (ms) | generated / gang | evaluated / gang | " +
			"feasible evaluation p50 / p99 (ms) | infeasible evaluation p50 / p99 (ms) | evaluation mean (ms) | pod e2e p50 / p99 (ms) |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		"| 500 nodes, 50 racks of 10 | no group | vanilla | 250.0 (150–300) | 1.25× | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | 0 / 0 |",
		"| 500 nodes, 50 racks of 10 | gangs of 32 | patched-gate-on | 200.0 | 1.00× | 32/32 | 100.0 / 200.0 | 110.0 | n/a | n/a | n/a | n/a | n/a | n/a | n/a |",
		"| 500 nodes, 50 racks of 10 | gangs of 32, one rack | patched-gate-on | 80.0 | 0.40× | 32/32 | 300.0 / 900.0 | 350.0 | 20.0 / 40.0 | n/a | 50.0 | 43.8 + 18.8 | 6.0 / 12.0 | 1.0 / 3.0 | 5.50 | 5000 / 12000 |",
		"| 5000 nodes, 100 racks of 50 | gangs of 32, one rack | patched-gate-on | 40.0 | n/a |",
		// Per gang on the loaded shape: 16 gangs.
		"| 5000 nodes, 100 racks of 50, 90% full | gangs of 32, one rack | patched-gate-on | 20.0 | 0.40× | 16/16 | 400.0 / 1800.0 | 500.0 | 20.0 / 40.0 | 45.2 | 100.0 | 87.5 + 37.5 | 6.0 / 12.0 | 1.0 / 3.0 | 5.50 | 5000 / 12000 |",
		"| 5000 nodes, 100 racks of 50, 90% full | gangs of 32 | patched-gate-on | 50.0 | 1.00× | 16/16 | 100.0 / 200.0 | 110.0 | n/a | 18.1 | n/a |",
		"500 nodes, 50 racks of 10:\n  one rack / unconstrained           0.40x\n  unconstrained / vanilla (no group) 0.80x\n  one rack / vanilla (no group)      0.32x\n  one rack group attempt p99  900 ms\n  one rack decision p99       40.0 ms\n",
		"5000 nodes, 100 racks of 50:\n  one rack group attempt p99  900 ms\n  one rack decision p99       40.0 ms\n",
		"5000 nodes, 100 racks of 50, 90% full:\n  one rack / unconstrained           0.40x\n  unconstrained / vanilla (no group) 0.50x\n  one rack / vanilla (no group)      0.20x\n" +
			"  one rack / unconstrained, CPU per group cycle  2.50x\n  one rack group attempt p99  1800 ms\n  one rack decision p99       40.0 ms\n",
		"1024 measured Pods",
		"512 measured Pods (`-placement-loaded-pods`)",
		"one fill Pod a node in namespace `fill`, created bound to it (`spec.nodeName: pl-node-<i>`",
		"2000m CPU in the *open* racks (rack % 10 == 9",
		"3800m in every other, *full*, rack",
		"90.5 % of the CPU on 5000/100/loaded",
		"*CPU / group cycle*",
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
	if strings.Contains(md, "500 nodes, 50 racks of 10:\n  one rack / unconstrained           0.40x\n  unconstrained / vanilla (no group) 0.80x\n  one rack / vanilla (no group)      0.32x\n  one rack / unconstrained, CPU") {
		t.Errorf("a CPU ratio without profiles:\n%s", md)
	}
	// Without a loaded shape, the summary does not describe one.
	o.Clusters = o.Clusters[:2]
	if md := placementMarkdown(h, results[:6], 3, o); strings.Contains(md, "fill Pod") {
		t.Errorf("fill pods described without a loaded shape:\n%s", md)
	}
}
