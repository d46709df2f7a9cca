package main

import (
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// The upstream suite (issue #20, performance conformance): upstream's own
// scheduler_perf workloads, read from the pinned release's
// test/integration/scheduler_perf/misc/performance-config.yaml (and, for
// the workloads named dra/TestCase/Workload, from
// test/integration/scheduler_perf/dra/performance-config.yaml), on vanilla
// and on the patched scheduler with every kspatch gate at its default. A
// drop-in scheduler must not be slower on them: the goal is a patched/vanilla
// throughput ratio of at least upstreamGoal on every workload.

// upstreamPerfDir is scheduler_perf's directory in the Kubernetes tree: its
// subdirectories hold upstream's performance configurations.
const upstreamPerfDir = "test/integration/scheduler_perf"

// upstreamConfigDirs are the subdirectories of upstreamPerfDir whose
// performance-config.yaml the suite runs workloads of. The first, misc, is
// the default: -upstream-workloads entries without a directory prefix, and
// the presets, are its; the others' workloads are named with their
// directory as a prefix (dra/TestCase/Workload).
var upstreamConfigDirs = []string{upstreamMiscDir, "dra"}

// upstreamMiscDir is the default configuration directory.
const upstreamMiscDir = "misc"

// upstreamConfigPath is upstream's performance configuration the suite runs
// by default (misc's), in the Kubernetes tree.
const upstreamConfigPath = upstreamPerfDir + "/" + upstreamMiscDir + "/performance-config.yaml"

// upstreamConfigPathOf is the performance configuration of a directory of
// upstreamConfigDirs, in the Kubernetes tree.
func upstreamConfigPathOf(dir string) string {
	return path.Join(upstreamPerfDir, dir, "performance-config.yaml")
}

// isUpstreamConfigDir reports whether dir is one of upstreamConfigDirs.
func isUpstreamConfigDir(dir string) bool {
	for _, d := range upstreamConfigDirs {
		if d == dir {
			return true
		}
	}
	return false
}

// upstreamGoal is the lowest patched/vanilla throughput ratio (the median of
// the paired per-repetition ratios) that counts as "as fast as vanilla".
const upstreamGoal = 0.98

// upstreamSides are the sides of the suite: the patched scheduler runs with
// no gate set, so every kspatch gate is at its default, as shipped.
var upstreamSides = []side{
	{Name: "vanilla", Tree: "vanilla"},
	{Name: "patched", Tree: "patched"},
}

// The sizes -upstream-size chooses from.
const (
	upstreamSmall = "small"
	upstreamLarge = "large"
)

// An upstreamPreset is the workload of an upstream test case that each
// -upstream-size runs. Every name is a workload of upstream's file; both set
// no feature gate or only the release's default (SchedulerQueueingHints and
// SchedulerAsyncPreemption are on by default in v1.33), so that vanilla runs
// as shipped too.
type upstreamPreset struct {
	TestCase     string
	Small, Large string
	// Default puts the test case in the suite when -upstream-workloads is
	// empty.
	Default bool
}

// upstreamPresets are the suite's test cases and their sizes.
//
// small is the smallest workload with upstream's "performance" label that
// gives a throughput at all (scheduler_perf samples it once a second, so
// the "integration-test" workloads of 5-10 pods measure nothing): about
// 1000 measured pods, a few seconds each, a quick check.
//
// large, the default, is the largest workload that stays in reasonable time
// on a 2-core machine: 5000 nodes and 10000 measured pods where upstream has
// them (SchedulingBasic, Unschedulable, SchedulingWithMixedChurn: tens of
// seconds measured at the 150-300 pods/s two cores schedule, which upstream
// asks for - "ideally, longer than 10 seconds"), PreemptionAsync's 5000
// nodes with 20000 running pods and 5000 measured ones. It leaves out what
// only adds time: SchedulingBasic's 50000 pods, Unschedulable's 20000
// initial pods. PreemptionBasic and SchedulingWhileGated have a single
// performance size (PreemptionBasic's 5000-node workload is commented out
// upstream: it "always seems to fail"), used for both sizes. Where upstream
// has a workload with SchedulerQueueingHints off and one with it on, the
// suite takes the one on: that is v1.33's default.
//
// SchedulingDaemonset (15000 nodes, 30000 pods) and
// SchedulingDeletedPodsWithFinalizers (1000 measured pods, a few seconds:
// its point is the leak check after the run) are not run by default; name
// them in -upstream-workloads.
var upstreamPresets = []upstreamPreset{
	{TestCase: "SchedulingBasic", Small: "500Nodes", Large: "5000Nodes_10000Pods_QueueingHintsEnabled", Default: true},
	{TestCase: "Unschedulable", Small: "500Nodes/10Init/1kPods", Large: "5kNodes/100Init/10kPods_QueueingHintsEnabled", Default: true},
	{TestCase: "PreemptionBasic", Small: "1000Nodes_QueueingHintsEnabled", Large: "1000Nodes_QueueingHintsEnabled", Default: true},
	// PreemptionAsync's 500-node workload schedules its 500 measured pods
	// within scheduler_perf's first one-second sample on vanilla (no
	// throughput at all), so both sizes take the 5000-node one.
	{TestCase: "PreemptionAsync", Small: "5000Nodes_AsyncPreemptionEnabled", Large: "5000Nodes_AsyncPreemptionEnabled", Default: true},
	{TestCase: "SchedulingWithMixedChurn", Small: "1000Nodes", Large: "5000Nodes_10000Pods_QueueingHintsEnabled", Default: true},
	{TestCase: "SchedulingWhileGated", Small: "1Node_10000GatedPods_QueueingHintsEnabled", Large: "1Node_10000GatedPods_QueueingHintsEnabled", Default: true},
	{TestCase: "SchedulingDeletedPodsWithFinalizers", Small: "1000Node_1000DeletingPods_QueueingHintsEnabled", Large: "1000Node_1000DeletingPods_QueueingHintsEnabled"},
	{TestCase: "SchedulingDaemonset", Small: "15000Nodes_QueueingHintsEnabled", Large: "15000Nodes_QueueingHintsEnabled"},
}

// upstreamPresetNames lists the test cases of upstreamPresets, for -help.
func upstreamPresetNames() string {
	var names []string
	for _, p := range upstreamPresets {
		names = append(names, p.TestCase)
	}
	return strings.Join(names, ", ")
}

// upstreamDefaultNames lists the test cases the suite runs by default, for
// -help.
func upstreamDefaultNames() string {
	var names []string
	for _, p := range upstreamPresets {
		if p.Default {
			names = append(names, p.TestCase)
		}
	}
	return strings.Join(names, ", ")
}

// workload is the preset's workload at size (upstreamSmall or upstreamLarge).
func (p upstreamPreset) workload(size string) string {
	if size == upstreamSmall {
		return p.Small
	}
	return p.Large
}

// upstreamOptions are the upstream suite's flags.
type upstreamOptions struct {
	// Workloads are the workloads to run, comma-separated: a test case of
	// upstreamPresets (at Size), TestCase/Workload (of misc's file) or
	// Dir/TestCase/Workload (of the file of a directory of
	// upstreamConfigDirs, e.g. dra/...); empty for the presets marked
	// Default.
	Workloads string
	// Size is upstreamSmall or upstreamLarge.
	Size string
	// Markdown is the summary to write (relative to the checkout unless
	// absolute); empty for none.
	Markdown string
	// Profile records a CPU profile of every run.
	Profile bool
	// Command is the command line that reproduces the run, for the summary.
	Command string
}

func defaultUpstreamOptions() upstreamOptions {
	return upstreamOptions{Size: upstreamLarge, Markdown: "docs/benchmarks-upstream.md", Command: "make bench BENCH_ARGS='-suites upstream'"}
}

// upstreamWorkload is one workload of an upstream test case.
type upstreamWorkload struct {
	// Config is the directory of upstreamConfigDirs whose file holds the
	// test case: empty for misc's (the default), e.g. "dra" for
	// test/integration/scheduler_perf/dra/performance-config.yaml.
	Config             string
	TestCase, Workload string
	// Case is the test case's name in the generated configuration (filled
	// in by upstreamConfig): TestCase, unless a test case of another file
	// with the same name is chosen too; empty means TestCase.
	Case string
	// Detail is what upstream's file sets for it: its parameters and the
	// feature gates of the test case and the workload (filled in by
	// upstreamConfig).
	Detail string
}

// String is the workload as -upstream-workloads takes it: as scheduler_perf
// names it under BenchmarkPerfScheduling (TestCase/Workload), prefixed
// with its configuration's directory unless that is misc's
// (dra/TestCase/Workload).
func (w upstreamWorkload) String() string {
	if w.Config == "" || w.Config == upstreamMiscDir {
		return w.TestCase + "/" + w.Workload
	}
	return w.Config + "/" + w.TestCase + "/" + w.Workload
}

// dir is the directory of the workload's configuration.
func (w upstreamWorkload) dir() string {
	if w.Config == "" {
		return upstreamMiscDir
	}
	return w.Config
}

// caseName is the name of the workload's test case in the generated
// configuration, which the run selects.
func (w upstreamWorkload) caseName() string {
	if w.Case == "" {
		return w.TestCase
	}
	return w.Case
}

// upstreamPrefixedName is a test case of a configuration other than misc's
// with its directory in front, e.g. dra-SchedulingBasic: the name under
// which it runs when a test case of another configuration has the same
// name, and the name of its runs' directories.
func upstreamPrefixedName(dir, testCase string) string {
	return dir + "-" + testCase
}

// validate checks the options that need no Kubernetes tree and returns the
// workloads to run; upstreamConfig checks them against upstream's file.
func (o upstreamOptions) validate() ([]upstreamWorkload, error) {
	return chooseUpstreamWorkloads(o.Workloads, o.Size)
}

// chooseUpstreamWorkloads returns the workloads that list names
// (comma-separated; empty for the default test cases), in its order and
// each once. An entry is a test case of upstreamPresets, which runs its
// workload at size, or TestCase/Workload, which names a workload of
// upstream's misc file as scheduler_perf does. Either may be prefixed with
// the directory of one of upstreamConfigDirs: dra/TestCase/Workload names a
// workload of the dra directory's file (the presets are misc's, so a
// prefix other than misc/ needs TestCase/Workload).
func chooseUpstreamWorkloads(list, size string) ([]upstreamWorkload, error) {
	if size != upstreamSmall && size != upstreamLarge {
		return nil, fmt.Errorf("invalid -upstream-size %q: allowed are %s, %s", size, upstreamSmall, upstreamLarge)
	}
	var chosen []upstreamWorkload
	seen := map[string]bool{}
	add := func(w upstreamWorkload) {
		if !seen[w.String()] {
			seen[w.String()] = true
			chosen = append(chosen, w)
		}
	}
	if strings.TrimSpace(list) == "" {
		for _, p := range upstreamPresets {
			if p.Default {
				add(upstreamWorkload{TestCase: p.TestCase, Workload: p.workload(size)})
			}
		}
		return chosen, nil
	}
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		config, name := "", entry
		if dir, rest, ok := strings.Cut(entry, "/"); ok && isUpstreamConfigDir(dir) {
			name = rest
			if dir != upstreamMiscDir {
				config = dir
			}
		}
		testCase, workload, named := strings.Cut(name, "/")
		switch {
		case testCase == "" || (named && workload == ""):
			return nil, fmt.Errorf("invalid entry %q in -upstream-workloads: want TestCase, TestCase/Workload or Dir/TestCase/Workload (Dir one of %s)",
				entry, strings.Join(upstreamConfigDirs, ", "))
		case named:
			add(upstreamWorkload{Config: config, TestCase: testCase, Workload: workload})
			continue
		case config != "":
			return nil, fmt.Errorf("invalid entry %q in -upstream-workloads: the presets are misc's; name a workload of upstream's %s as %s/TestCase/Workload",
				entry, upstreamConfigPathOf(config), config)
		}
		found := false
		for _, p := range upstreamPresets {
			if p.TestCase == testCase {
				add(upstreamWorkload{TestCase: testCase, Workload: p.workload(size)})
				found = true
			}
		}
		if !found {
			var others []string
			for _, dir := range upstreamConfigDirs[1:] {
				others = append(others, fmt.Sprintf("%s/TestCase/Workload naming any workload of upstream's %s", dir, upstreamConfigPathOf(dir)))
			}
			return nil, fmt.Errorf("unknown workload %q in -upstream-workloads: allowed are %s (each at its -upstream-size workload), "+
				"or TestCase/Workload naming any workload of upstream's %s, or %s", entry, upstreamPresetNames(), upstreamConfigPath, strings.Join(others, ", or "))
		}
	}
	return chosen, nil
}

// upstreamFiles are upstream's performance configurations, raw, by
// directory of upstreamConfigDirs.
type upstreamFiles map[string][]byte

// upstreamParsed is one of upstream's files, parsed.
type upstreamParsed struct {
	cases []map[string]any
	index map[string]int // test case name -> index in cases
	names []string       // the test cases, in the file's order
}

// upstreamConfig is the scheduler_perf configuration of the suite, appended
// to the other suites': the test cases of upstream's files (raw by
// directory, read from ref) that hold a chosen workload, with only the
// chosen workloads, misc's first. They are upstream's, unchanged, but for
// three things: each chosen workload is labelled kspatch (the label the
// bench package selects by) instead of upstream's labels, and loses its
// threshold (the lowest throughput upstream's CI machines must reach; a
// slower machine would fail the run instead of measuring it); and every
// template path, relative to the file's directory upstream, is made
// relative to the bench package's (perfPkgDir), where the configuration
// runs. When test cases of two files with the same name are chosen, the one
// that is not misc's runs as upstreamPrefixedName. It returns the chosen
// workloads with their Case and Detail, and an error that lists what is
// allowed when a test case or workload is not in its file.
func upstreamConfig(files upstreamFiles, ref string, chosen []upstreamWorkload) (string, []upstreamWorkload, error) {
	parsed := map[string]*upstreamParsed{}
	for _, dir := range upstreamConfigDirs {
		raw, ok := files[dir]
		if !ok {
			continue
		}
		p := &upstreamParsed{index: map[string]int{}}
		if err := yaml.Unmarshal(raw, &p.cases); err != nil {
			return "", nil, fmt.Errorf("%s: %w", upstreamConfigPathOf(dir), err)
		}
		for i, tc := range p.cases {
			name, _ := tc["name"].(string)
			p.index[name] = i
			p.names = append(p.names, name)
		}
		parsed[dir] = p
	}
	want := map[string]map[string]map[string]bool{} // directory -> test case -> workload names
	resolved := make([]upstreamWorkload, 0, len(chosen))
	for _, w := range chosen {
		dir, file := w.dir(), upstreamConfigPathOf(w.dir())
		p := parsed[dir]
		if p == nil {
			return "", nil, fmt.Errorf("%s in -upstream-workloads: upstream's %s was not read", w, file)
		}
		i, ok := p.index[w.TestCase]
		if !ok {
			return "", nil, fmt.Errorf("unknown test case %q in -upstream-workloads: allowed are %s (the test cases of %s)",
				w.TestCase, strings.Join(p.names, ", "), file)
		}
		wl, all := findUpstreamWorkload(p.cases[i], w.Workload)
		if wl == nil {
			return "", nil, fmt.Errorf("unknown workload %q of test case %s in -upstream-workloads: allowed are %s (the workloads of %s in %s)",
				w.Workload, w.TestCase, strings.Join(all, ", "), w.TestCase, file)
		}
		if want[dir] == nil {
			want[dir] = map[string]map[string]bool{}
		}
		if want[dir][w.TestCase] == nil {
			want[dir][w.TestCase] = map[string]bool{}
		}
		want[dir][w.TestCase][w.Workload] = true
		w.Detail = upstreamDetail(p.cases[i], wl)
		resolved = append(resolved, w)
	}
	// The generated names: a test case chosen from more than one file keeps
	// its name in misc's and runs under its directory's prefix in the others.
	dirsOf := map[string]int{} // test case name -> chosen from how many files
	for _, dir := range upstreamConfigDirs {
		for name := range want[dir] {
			dirsOf[name]++
		}
	}
	caseName := func(dir, name string) string {
		if dirsOf[name] > 1 && dir != upstreamMiscDir {
			return upstreamPrefixedName(dir, name)
		}
		return name
	}
	generated := map[string]string{} // generated name -> the workload it came from
	for i, w := range resolved {
		resolved[i].Case = caseName(w.dir(), w.TestCase)
		from := w.dir() + "/" + w.TestCase
		if other, ok := generated[resolved[i].Case]; ok && other != from {
			return "", nil, fmt.Errorf("test case %s of %s and test case %s would both run as %q: choose one of them in -upstream-workloads",
				w.TestCase, upstreamConfigPathOf(w.dir()), other, resolved[i].Case)
		}
		generated[resolved[i].Case] = from
	}
	var b strings.Builder
	for _, dir := range upstreamConfigDirs {
		if len(want[dir]) == 0 {
			continue
		}
		var out []any
		for _, tc := range parsed[dir].cases {
			name, _ := tc["name"].(string)
			if want[dir][name] == nil {
				continue
			}
			kept := map[string]any{}
			for k, v := range tc {
				kept[k] = v
			}
			kept["name"] = caseName(dir, name)
			var workloads []any
			for _, w := range upstreamWorkloads(tc) {
				if n, _ := w["name"].(string); !want[dir][name][n] {
					continue
				}
				copied := map[string]any{}
				for k, v := range w {
					copied[k] = v
				}
				copied["labels"] = []any{"kspatch"}
				delete(copied, "threshold")
				workloads = append(workloads, copied)
			}
			kept["workloads"] = workloads
			moved, err := relocateTemplatePaths(kept, dir)
			if err != nil {
				return "", nil, fmt.Errorf("test case %s of %s: %w", name, upstreamConfigPathOf(dir), err)
			}
			out = append(out, moved)
		}
		text, err := yaml.Marshal(out)
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(&b, "# Upstream's test cases from %s at %s (bench/upstream.go):\n"+
			"# only the chosen workloads, labelled kspatch, without thresholds, template paths relative to %s.\n",
			upstreamConfigPathOf(dir), short(ref), perfPkgDir)
		b.Write(text)
	}
	return b.String(), resolved, nil
}

// relocateTemplatePaths returns a copy of v, a value of the file of the
// directory dir of upstreamConfigDirs, in which every template path is
// relative to perfPkgDir instead of to dir (relocateTemplatePath): a string
// whose key is templatePath or ends in TemplatePath, and every string of a
// list whose key is templatePaths or ends in TemplatePaths (the churn
// operation's). Anything else is copied as it is.
func relocateTemplatePaths(v any, dir string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			var err error
			s, isString := e.(string)
			list, isList := e.([]any)
			switch {
			case isString && isTemplatePathKey(k):
				out[k], err = relocateTemplatePath(s, dir)
			case isList && strings.HasSuffix(k, "s") && isTemplatePathKey(strings.TrimSuffix(k, "s")):
				paths := make([]any, len(list))
				for i, item := range list {
					if p, ok := item.(string); ok {
						paths[i], err = relocateTemplatePath(p, dir)
					} else {
						paths[i], err = relocateTemplatePaths(item, dir)
					}
					if err != nil {
						break
					}
				}
				out[k] = paths
			default:
				out[k], err = relocateTemplatePaths(e, dir)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			var err error
			if out[i], err = relocateTemplatePaths(e, dir); err != nil {
				return nil, err
			}
		}
		return out, nil
	default:
		return v, nil
	}
}

// isTemplatePathKey reports whether a key of scheduler_perf's configuration
// holds a template's path: templatePath, podTemplatePath, nodeTemplatePath,
// defaultPodTemplatePath, persistentVolumeClaimTemplatePath...
func isTemplatePathKey(k string) bool {
	return k == "templatePath" || strings.HasSuffix(k, "TemplatePath")
}

// relocateTemplatePath makes p, a path relative to upstream's directory dir
// of upstreamPerfDir, relative to perfPkgDir: templates/x.yaml from dra is
// ../dra/templates/x.yaml; ../templates/x.yaml stays as it is (the
// directories are siblings). An absolute or empty path stays as it is.
func relocateTemplatePath(p, dir string) (string, error) {
	if p == "" || path.IsAbs(p) {
		return p, nil
	}
	target := path.Join(upstreamPerfDir, dir, p)
	rel, err := filepath.Rel(filepath.FromSlash(perfPkgDir), filepath.FromSlash(target))
	if err != nil {
		return "", fmt.Errorf("template path %q: %w", p, err)
	}
	return filepath.ToSlash(rel), nil
}

// upstreamWorkloads are the workloads of a test case of upstream's file.
func upstreamWorkloads(tc map[string]any) []map[string]any {
	list, _ := tc["workloads"].([]any)
	var ws []map[string]any
	for _, item := range list {
		if w, ok := item.(map[string]any); ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// findUpstreamWorkload returns the workload named name of a test case, or
// nil and the names of all its workloads.
func findUpstreamWorkload(tc map[string]any, name string) (map[string]any, []string) {
	var all []string
	for _, w := range upstreamWorkloads(tc) {
		n, _ := w["name"].(string)
		if n == name {
			return w, nil
		}
		all = append(all, n)
	}
	return nil, all
}

// upstreamDetail describes what a workload sets: its parameters, sorted by
// name, and the feature gates of its test case and its own (the workload's
// win), e.g. "initNodes=500 initPods=500 measurePods=1000; SchedulerQueueingHints=true".
func upstreamDetail(tc, w map[string]any) string {
	var params []string
	if ps, ok := w["params"].(map[string]any); ok {
		for k, v := range ps {
			params = append(params, fmt.Sprintf("%s=%v", k, v))
		}
	}
	sort.Strings(params)
	gates := map[string]any{}
	for _, m := range []map[string]any{tc, w} {
		if gs, ok := m["featureGates"].(map[string]any); ok {
			for k, v := range gs {
				gates[k] = v
			}
		}
	}
	var gateList []string
	for k, v := range gates {
		gateList = append(gateList, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(gateList)
	detail := strings.Join(params, " ")
	if len(gateList) > 0 {
		detail += "; " + strings.Join(gateList, " ")
	}
	return detail
}

// upstreamSource reads upstream's files (of every directory of
// upstreamConfigDirs) from the vanilla tree's commit (the pinned release
// plus the build fix-up): both sides run the very same workloads, whatever
// the series does to the files.
func upstreamSource(h *harness) (upstreamFiles, string, error) {
	ref, err := h.treeRef("vanilla")
	if err != nil {
		return nil, "", err
	}
	files := upstreamFiles{}
	for _, dir := range upstreamConfigDirs {
		out, err := h.git(filepath.Join(h.root, "_output", "kubernetes"), "show", ref+":"+upstreamConfigPathOf(dir))
		if err != nil {
			return nil, "", err
		}
		files[dir] = []byte(out)
	}
	return files, ref, nil
}

// upstreamRunName names a run's directory under _output/bench/runs: the
// test case of a configuration other than misc's with its directory in
// front.
func upstreamRunName(w upstreamWorkload, s side, rep int) string {
	testCase := w.TestCase
	if w.dir() != upstreamMiscDir {
		testCase = upstreamPrefixedName(w.dir(), w.TestCase)
	}
	return fmt.Sprintf("Upstream-%s-%s-%s-rep%d", testCase, strings.ReplaceAll(w.Workload, "/", "_"), s.Name, rep)
}

// upstreamResult is one run of one upstream workload.
type upstreamResult struct {
	Workload upstreamWorkload
	Side     string
	Rep      int
	// Throughput is SchedulingThroughput's average (pods/s).
	Throughput float64
	// Load is the 1-minute load average at the end of the run.
	Load float64
	Wall time.Duration
}

func (r upstreamResult) throughput() float64 { return r.Throughput }
func (r upstreamResult) sideName() string    { return r.Side }
func (r upstreamResult) repetition() int     { return r.Rep }
func (r upstreamResult) load() float64       { return r.Load }

// upstreamSuite is the upstream suite: upstream's workloads on
// upstreamSides.
type upstreamSuite struct {
	o upstreamOptions
	// workloads are the workloads to run and testCases their
	// configuration, as prepare read them from the vanilla tree.
	workloads []upstreamWorkload
	testCases string
}

func (*upstreamSuite) name() string { return "upstream" }

func (s *upstreamSuite) prepare(h *harness) (map[string][]byte, error) {
	chosen, err := s.o.validate()
	if err != nil {
		return nil, err
	}
	raw, ref, err := upstreamSource(h)
	if err != nil {
		return nil, fmt.Errorf("the upstream suite reads %s from the vanilla tree: %w", upstreamConfigPath, err)
	}
	s.testCases, s.workloads, err = upstreamConfig(raw, ref, chosen)
	return nil, err
}

func (*upstreamSuite) trees([]string) []string { return bothTrees() }

func (s *upstreamSuite) config(string) string { return s.testCases }

func (s *upstreamSuite) run(h *harness, reps int) error {
	return runUpstream(h, s.workloads, reps, s.o)
}

// runUpstream runs every workload on both sides, reps times (the sides in
// sidesForRep's order), and writes the markdown summary.
func runUpstream(h *harness, workloads []upstreamWorkload, reps int, o upstreamOptions) error {
	runs := func(rep int) []onSide[upstreamWorkload] { return onSides(workloads, upstreamSides, rep) }
	results, err := repeat(reps, runs, func(run onSide[upstreamWorkload], rep int) (upstreamResult, error) {
		w, s := run.Workload, run.Side
		start := time.Now()
		items, err := h.run(s.Tree, w.caseName(), w.Workload, upstreamRunName(w, s, rep), nil, o.Profile)
		if err != nil {
			return upstreamResult{}, fmt.Errorf("%s on %s: %w", w, s.Name, err)
		}
		r := upstreamResult{Workload: w, Side: s.Name, Rep: rep, Throughput: resultFrom(items).Throughput, Wall: time.Since(start), Load: loadAverage()}
		if r.Throughput == 0 {
			return upstreamResult{}, fmt.Errorf("%s on %s: no SchedulingThroughput (scheduler_perf samples it once a second: did every measured pod schedule within a second? choose a larger workload)", w, s.Name)
		}
		fmt.Printf("%-58s %-8s rep %d  %7.1f pods/s  (%s, load %.1f)\n", w, s.Name, rep, r.Throughput, r.Wall.Round(time.Second), r.Load)
		return r, nil
	})
	if err != nil {
		return err
	}
	return printAndWrite(h, upstreamMarkdown(h, workloads, results, reps, o), o.Markdown)
}

// upstreamVerdict is the paired patched/vanilla ratios of one workload.
type upstreamVerdict struct {
	Ratios []float64
}

// met reports whether the median ratio reaches upstreamGoal; false without
// a pair.
func (v upstreamVerdict) met() bool {
	return len(v.Ratios) > 0 && medianOf(v.Ratios) >= upstreamGoal
}

func upstreamVerdictOf(results []upstreamResult, w upstreamWorkload) upstreamVerdict {
	return upstreamVerdict{Ratios: pairedRatios(results, func(r upstreamResult) bool { return r.Workload == w }, "patched", "vanilla")}
}

// upstreamMarkdown is docs/benchmarks-upstream.md.
func upstreamMarkdown(h *harness, workloads []upstreamWorkload, results []upstreamResult, reps int, o upstreamOptions) string {
	var b strings.Builder
	goVersion, _ := exec.Command("go", "version").Output()
	vanillaRef, _ := h.treeRef("vanilla")
	patchedRef, _ := h.treeRef("patched")
	fmt.Fprintf(&b, "# kspatch benchmarks: upstream's scheduler_perf workloads (performance conformance)\n\n"+
		"Generated by `make bench` (bench/upstream.go) on %s: %d CPUs, %s. Vanilla tree %s (v1.33.13 + build fix-up), patched tree %s "+
		"with every kspatch gate at its default. %d repetition(s); in each, the two sides run every workload one after the other, "+
		"in reverse order in every other repetition. %s\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), strings.TrimSpace(string(goVersion)), short(vanillaRef), short(patchedRef), reps, loadNote(results))
	fmt.Fprintf(&b, "The workloads are upstream's own, from %s of the pinned release (read from the vanilla tree, so both sides run the same file): "+
		"the test case as upstream wrote it, with only the chosen workload, which is labelled for the bench package and loses its `threshold` "+
		"(the lowest throughput upstream's CI machines must reach; here it would fail a slower machine's run instead of measuring it), "+
		"and its template paths made relative to the bench package's directory. "+
		"Each runs in its own process, with its own API server and etcd, as scheduler_perf does. *Upstream parameters*: the workload's "+
		"`params` and the feature gates it sets. Sizes: `-upstream-size %s` (bench/upstream.go says why each).%s\n\n",
		upstreamSourcesText(workloads), o.Size, upstreamRenamesText(workloads))
	fmt.Fprintf(&b, "*pods/s*: scheduler_perf's `SchedulingThroughput` (the average of once-a-second samples while the measured pods are scheduled) of the "+
		"median run (the upper middle one of an even number), min–max over the runs in brackets. *patched/vanilla*: the median of the per-repetition "+
		"ratios of patched's throughput to vanilla's in the same repetition (min–max). Goal: **≥ %.2f× on every workload**.\n\n", upstreamGoal)
	fmt.Fprintf(&b, "| workload | upstream parameters | vanilla pods/s | patched pods/s | patched/vanilla | ≥ %.2f× |\n|---|---|---:|---:|---:|---|\n", upstreamGoal)
	var met, missed []string
	for _, w := range workloads {
		cell := func(sideName string) string {
			keep := func(r upstreamResult) bool { return r.Workload == w && r.Side == sideName }
			r, ok := medianRun(results, keep)
			if !ok {
				return "n/a"
			}
			return fmt.Sprintf("%.1f%s", r.Throughput, throughputSpread(results, keep))
		}
		v := upstreamVerdictOf(results, w)
		verdict := "n/a"
		switch {
		case len(v.Ratios) == 0:
			missed = append(missed, fmt.Sprintf("%s (no pair)", w))
		case v.met():
			verdict = "yes"
			met = append(met, w.String())
		default:
			verdict = "**no**"
			missed = append(missed, fmt.Sprintf("%s (%.2f×)", w, medianOf(v.Ratios)))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", w, w.Detail, cell("vanilla"), cell("patched"), orText(ratioSummary(v.Ratios), "n/a"), verdict)
	}
	fmt.Fprintf(&b, "\nGoal ≥ %.2f× on every workload: ", upstreamGoal)
	switch {
	case len(missed) == 0:
		fmt.Fprintf(&b, "met on all %d workloads.", len(met))
	case len(met) == 0:
		fmt.Fprintf(&b, "met on none of the %d workloads; missed on %s.", len(missed), strings.Join(missed, ", "))
	default:
		fmt.Fprintf(&b, "met on %d of %d (%s); missed on %s.", len(met), len(workloads), strings.Join(met, ", "), strings.Join(missed, ", "))
	}
	if reps < 3 {
		fmt.Fprintf(&b, " With %d repetition(s) a ratio rests on single runs of a machine that is not quiet; run `-reps 3` or more before reading a verdict into it.", reps)
	}
	fmt.Fprintf(&b, "\n\nCommand: `%s` (%d repetition(s)). Reproduce with the defaults: `make bench BENCH_ARGS='-suites upstream -reps 3'` "+
		"(`-upstream-size small` for the quick sizes, `-upstream-workloads SchedulingBasic,Unschedulable/5kNodes/100Init/1kPods` for a subset, "+
		"`-upstream-workloads dra/SchedulingWithResourceClaimTemplate/5000pods_500nodes` for a workload of upstream's DRA file, "+
		"`-upstream-cpuprofile` for a CPU profile of every run). Raw data items, logs and profiles are in `_output/bench/runs/Upstream-*`.\n", o.Command, reps)
	return b.String()
}

// upstreamSourcesText names the files the workloads come from, misc's
// first, e.g. "`.../misc/performance-config.yaml` and
// `.../dra/performance-config.yaml` (the workloads named dra/...)"; misc's
// file for none.
func upstreamSourcesText(workloads []upstreamWorkload) string {
	used := map[string]bool{}
	for _, w := range workloads {
		used[w.dir()] = true
	}
	var files []string
	for _, dir := range upstreamConfigDirs {
		switch {
		case !used[dir]:
		case dir == upstreamMiscDir:
			files = append(files, fmt.Sprintf("`%s`", upstreamConfigPathOf(dir)))
		default:
			files = append(files, fmt.Sprintf("`%s` (the workloads named %s/...)", upstreamConfigPathOf(dir), dir))
		}
	}
	if len(files) == 0 {
		return fmt.Sprintf("`%s`", upstreamConfigPath)
	}
	return strings.Join(files, " and ")
}

// upstreamRenamesText says which workloads run under a test case name that
// is not upstream's (a test case of another file has the same name), as a
// sentence with a leading space; empty when none does.
func upstreamRenamesText(workloads []upstreamWorkload) string {
	var renamed []string
	for _, w := range workloads {
		if w.caseName() != w.TestCase {
			renamed = append(renamed, fmt.Sprintf("%s runs as test case `%s`", w, w.caseName()))
		}
	}
	if len(renamed) == 0 {
		return ""
	}
	return " A test case of two files has the same name, so " + strings.Join(renamed, ", ") + "."
}

// orText is s, or alt when s is empty.
func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
