package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

//go:embed testdata/perfpkg/kspatch_test.go
var perfPackage []byte

const perfPkgDir = "test/integration/scheduler_perf/kspatch"

type harness struct {
	root string // the kspatch checkout
	out  string // _output/bench
}

// treeRef is the commit each tree is checked out at: the build fix-up for
// vanilla, the series' HEAD for patched.
func (h *harness) treeRef(tree string) (string, error) {
	main := filepath.Join(h.root, "_output", "kubernetes")
	ref := "HEAD"
	if tree == "vanilla" {
		ref = "kspatch/fixup"
	}
	out, err := h.git(main, "rev-parse", "--verify", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w (run 'make upstream' first)", err)
	}
	return strings.TrimSpace(out), nil
}

// prepare makes _output/bench/<tree> a worktree of _output/kubernetes at the
// tree's commit, applies the data-items patch, writes the workload package
// (the test file, config as performance-config.yaml, and files, by name) and
// compiles the scheduler_perf test binary.
func (h *harness) prepare(tree, config string, files map[string][]byte) error {
	ref, err := h.treeRef(tree)
	if err != nil {
		return err
	}
	dir := filepath.Join(h.out, tree)
	main := filepath.Join(h.root, "_output", "kubernetes")
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		_, _ = h.git(main, "worktree", "prune")
		if _, err := h.git(main, "worktree", "add", "--detach", "--force", dir, ref); err != nil {
			return err
		}
	} else if _, err := h.git(dir, "checkout", "-q", "-f", "--detach", ref); err != nil {
		return err
	}
	if _, err := h.git(dir, "clean", "-fdq", "--", perfPkgDir); err != nil {
		return err
	}
	if _, err := h.git(dir, "apply", filepath.Join(h.root, "bench", "scheduler_perf-data-items.patch")); err != nil {
		return err
	}
	pkg := filepath.Join(dir, perfPkgDir)
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pkg, "kspatch_test.go"), perfPackage, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(pkg, "performance-config.yaml"), []byte(config), 0o644); err != nil {
		return err
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(pkg, name), content, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("==> compiling scheduler_perf for the %s tree (%s)\n", tree, ref[:12])
	cmd := exec.Command("go", "test", "-c", "-o", h.binary(tree), "./"+perfPkgDir)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

func (h *harness) binary(tree string) string {
	return filepath.Join(h.out, "bin", tree+".test")
}

// runOne runs one burst workload in its own process and reads its data items.
func (h *harness) runOne(s side, pods, rep int, profile bool) (result, error) {
	name := workloadName(pods, s)
	start := time.Now()
	items, err := h.run(s.Tree, "DRAClaimTemplateBurst", name, fmt.Sprintf("%s-rep%d", name, rep), nil, profile)
	if err != nil {
		return result{}, err
	}
	r := resultFrom(items)
	r.Side, r.Pods, r.Rep, r.Wall = s.Name, pods, rep, time.Since(start)
	if r.Throughput == 0 {
		return result{}, fmt.Errorf("no SchedulingThroughput in the data items of run %s", name)
	}
	return r, nil
}

// run runs one scheduler_perf workload of a test case in its own process,
// with env added to the environment, and returns its data items; its
// output and data items stay in _output/bench/runs/runName.
func (h *harness) run(tree, testCase, workload, runName string, env []string, profile bool) ([]dataItem, error) {
	runDir := h.runDir(runName)
	if err := os.RemoveAll(runDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, err
	}
	args := []string{
		"-test.run=^$",
		"-test.bench=" + benchPattern(testCase, workload),
		"-test.benchtime=1x",
		"-test.timeout=60m",
		"-perf-scheduling-label-filter=kspatch",
		"-data-items-dir=" + runDir,
	}
	if profile {
		args = append(args, "-test.cpuprofile="+h.profile(runName), "-test.memprofile="+h.memProfile(runName))
	}
	cmd := exec.Command(h.binary(tree), args...)
	cmd.Dir = filepath.Join(h.out, tree, perfPkgDir)
	cmd.Env = append(append(os.Environ(), "PATH="+filepath.Join(h.root, "_output", "bin")+":"+os.Getenv("PATH")), env...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := cmd.Run()
	if werr := os.WriteFile(filepath.Join(runDir, "output.txt"), output.Bytes(), 0o644); werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, fmt.Errorf("%v; output in %s", err, filepath.Join(runDir, "output.txt"))
	}
	return readDataItems(runDir)
}

// runDir is the directory of a run: its output, data items and profile.
func (h *harness) runDir(runName string) string {
	return filepath.Join(h.out, "runs", runName)
}

// profile is the CPU profile of a run recorded with profile on.
func (h *harness) profile(runName string) string {
	return filepath.Join(h.runDir(runName), "cpu.pprof")
}

// memProfile is the allocation profile of a run recorded with profile on
// (the testing package's -test.memprofile: alloc_space and inuse_space,
// sampled at the default MemProfileRate).
func (h *harness) memProfile(runName string) string {
	return filepath.Join(h.runDir(runName), "mem.pprof")
}

// benchPattern is the -test.bench pattern that selects exactly one workload
// of a test case. The testing package matches a pattern one "/"-separated
// element per sub-benchmark level, and a workload name may itself contain
// "/" (upstream's "5kNodes/100Init/1kPods" is three levels), so every
// element is anchored on its own, with its text taken literally.
func benchPattern(testCase, workload string) string {
	elems := append([]string{"BenchmarkPerfScheduling", testCase}, strings.Split(workload, "/")...)
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

// dataItem is scheduler_perf's data item (test/integration/scheduler_perf).
type dataItem struct {
	Data   map[string]float64 `json:"data"`
	Unit   string             `json:"unit"`
	Labels map[string]string  `json:"labels"`
}

func readDataItems(dir string) ([]dataItem, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no data items (*.json) in %s", dir)
	}
	var all []dataItem
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			DataItems []dataItem `json:"dataItems"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, doc.DataItems...)
	}
	return all, nil
}

func (h *harness) git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// underRoot resolves an output path given on the command line: relative
// paths are relative to the checkout, absolute ones are kept.
func underRoot(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// sidesForRep is the order in which the sides run in repetition rep (from
// 1): as given in odd repetitions, reversed in even ones. A run can be
// slowed by the one before it (its etcd data still being removed, caches
// warmed for another binary); alternating the order spreads that over
// every side instead of always charging the same one.
func sidesForRep(sides []side, rep int) []side {
	if rep%2 == 1 {
		return sides
	}
	reversed := make([]side, len(sides))
	for i, s := range sides {
		reversed[len(sides)-1-i] = s
	}
	return reversed
}
