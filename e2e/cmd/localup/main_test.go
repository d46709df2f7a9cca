package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kspatch.dev/e2e/cluster"
)

// fakeEnv makes the test binary act as localup with a fake control plane
// (see TestMain); its value picks the fake's behaviour.
const fakeEnv = "LOCALUP_TEST_FAKE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		runFunc = fakeRun(mode)
		os.Exit(localup(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeRun stands in for the control plane: it says it is up and waits for
// ctx. In mode "die" the scheduler dies shortly after the start.
func fakeRun(mode string) func(context.Context, cluster.Options, cluster.NodeSpec, bool, string) error {
	return func(ctx context.Context, opts cluster.Options, _ cluster.NodeSpec, _ bool, _ string) error {
		fmt.Fprintln(opts.Log, "fake control plane up")
		if mode == "die" && opts.OnExit != nil {
			time.Sleep(100 * time.Millisecond)
			opts.OnExit(cluster.Exit{Component: "kube-scheduler", Status: "signal: terminated", Code: -1,
				Log: filepath.Join(opts.Dir, "logs", "kube-scheduler.log")})
		}
		<-ctx.Done()
		fmt.Fprintln(opts.Log, "fake control plane stopped")
		return nil
	}
}

// fakeLocalup is a localup process with a fake control plane.
type fakeLocalup struct {
	cmd  *exec.Cmd
	out  *cluster.LockedBuffer
	done chan struct{}
	err  error
}

// startFake starts localup (the test binary in fake mode) with args and
// waits until its fake control plane is up.
func startFake(t *testing.T, mode string, args ...string) *fakeLocalup {
	t.Helper()
	f := &fakeLocalup{cmd: exec.Command(os.Args[0], args...), out: &cluster.LockedBuffer{}, done: make(chan struct{})}
	f.cmd.Env = append(os.Environ(), fakeEnv+"="+mode)
	f.cmd.Stdout, f.cmd.Stderr = f.out, f.out
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		f.err = f.cmd.Wait()
		close(f.done)
	}()
	t.Cleanup(func() {
		_ = f.cmd.Process.Kill()
		<-f.done
	})
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(f.out.String(), "fake control plane up"); {
		select {
		case <-f.done:
			t.Fatalf("localup %s exited (%v) before its control plane was up:\n%s", strings.Join(args, " "), f.err, f.out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("localup %s: no control plane after 10s:\n%s", strings.Join(args, " "), f.out)
		}
	}
	return f
}

// wait waits for the process to exit and returns its exit code.
func (f *fakeLocalup) wait(t *testing.T, timeout time.Duration, what string) int {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(timeout):
		t.Fatalf("localup still running %s after %s; its output:\n%s", timeout, what, f.out)
	}
	var exit *exec.ExitError
	if errors.As(f.err, &exit) {
		return exit.ExitCode()
	}
	if f.err != nil {
		t.Fatal(f.err)
	}
	return 0
}

// localupCmd runs localup (fake mode) to completion: its output and exit code.
func localupCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), fakeEnv+"=wait")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("localup %s did not finish within 15s:\n%s", strings.Join(args, " "), out)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestStopStopsABackgroundRun is `make run &` followed by `make stop`: the
// stop finds the run through its PID file, signals it, and returns once it
// has stopped its control plane and exited.
func TestStopStopsABackgroundRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	run := startFake(t, "wait", "-dir", dir)

	out, code := localupCmd(t, "-stop", "-dir", dir)
	if code != 0 {
		t.Fatalf("localup -stop -dir %s: exit status %d:\n%s", dir, code, out)
	}
	// The run has exited: it is gone or a zombie. The test's cmd.Wait may
	// not have reaped it yet (nor copied the last of its output), so
	// run.done is not the measure: reading it raced with that goroutine.
	if _, zombie, err := procStart(run.cmd.Process.Pid); err == nil && !zombie {
		t.Fatalf("localup -stop returned while the run was still going:\n%s\nthe run's output:\n%s", out, run.out)
	}
	if code := run.wait(t, 5*time.Second, "the stop"); code != 0 {
		t.Errorf("the stopped run exited with status %d, want 0:\n%s", code, run.out)
	}
	if !strings.Contains(run.out.String(), "fake control plane stopped") {
		t.Errorf("the run did not stop its control plane:\n%s", run.out)
	}
	if _, err := os.Stat(pidFile(dir)); !os.IsNotExist(err) {
		t.Errorf("%s is left after the run stopped (%v)", pidFile(dir), err)
	}

	// Nothing left to stop: says so, and succeeds.
	out, code = localupCmd(t, "-stop", "-dir", dir)
	if code != 0 || !strings.Contains(out, "nothing to stop") {
		t.Errorf("a second stop: exit status %d, output %q; want 0 and \"nothing to stop\"", code, out)
	}
}

// TestStopIgnoresAStalePIDFile: a run killed with SIGKILL leaves its PID file
// behind; its PID may belong to another process by now, which stop must not
// signal.
func TestStopIgnoresAStalePIDFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	// Another process, alive, under the PID the file names — but started
	// at another time than the file says.
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	otherDone := make(chan error, 1)
	go func() { otherDone <- other.Wait() }()
	t.Cleanup(func() { _ = other.Process.Kill() })
	if err := os.WriteFile(pidFile(dir), []byte(fmt.Sprintf("%d 1\n", other.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := localupCmd(t, "-stop", "-dir", dir)
	if code != 0 || !strings.Contains(out, "no longer running") {
		t.Errorf("stop with a stale PID file: exit status %d, output %q; want 0 and \"no longer running\"", code, out)
	}
	select {
	case err := <-otherDone:
		t.Errorf("stop signalled an unrelated process that reused the PID: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := os.Stat(pidFile(dir)); !os.IsNotExist(err) {
		t.Errorf("the stale %s was not removed (%v)", pidFile(dir), err)
	}
}

// TestSecondRunIsRefused: a second make run would empty the first one's
// directory under its feet.
func TestSecondRunIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	startFake(t, "wait", "-dir", dir)
	out, code := localupCmd(t, "-dir", dir)
	if code == 0 || !strings.Contains(out, "already running") || strings.Contains(out, "fake control plane up") {
		t.Errorf("a second run on the same directory: exit status %d, output %q; want it refused (\"already running\")", code, out)
	}
}

// TestComponentDeathStopsTheRun: when a component dies, localup stops the
// rest in order and exits non-zero, saying which one and where its log is.
func TestComponentDeathStopsTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	run := startFake(t, "die", "-dir", dir)
	code := run.wait(t, 10*time.Second, "kube-scheduler died")
	out := run.out.String()
	if code != 1 {
		t.Errorf("exit status %d after kube-scheduler died, want 1:\n%s", code, out)
	}
	for _, want := range []string{"fake control plane stopped", "kube-scheduler exited unexpectedly (signal: terminated)", filepath.Join(dir, "logs", "kube-scheduler.log")} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not contain %q:\n%s", want, out)
		}
	}
}

// TestSummaryShowsTheSecurePort: the secure port is random, so the summary
// names it and gives a curl line for the admin API behind it.
func TestSummaryShowsTheSecurePort(t *testing.T) {
	c := &cluster.Cluster{Kubeconfig: "/x/admin.kubeconfig", UserKubeconfig: "/x/user.kubeconfig", Admin: "http://127.0.0.1:10261", SchedulerSecure: "https://127.0.0.1:43117"}
	var b strings.Builder
	printSummary(&b, c, summary{kubectl: "kubectl", plugin: "/x/bin/kubectl-kspatch", took: time.Minute, logs: "/x/logs"})
	out := b.String()
	var portLine, curlLine bool
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "secure port") && strings.Contains(line, "43117") {
			portLine = true
		}
		if strings.Contains(line, c.SecureCurl("/debug/kspatch/queue")) && strings.Contains(line, "https://127.0.0.1:43117/debug/kspatch/queue") {
			curlLine = true
		}
	}
	if !portLine {
		t.Errorf("the summary does not name the scheduler's secure port 43117:\n%s", out)
	}
	if !curlLine {
		t.Errorf("the summary has no curl line for https://127.0.0.1:43117/debug/kspatch/queue with the admin credentials:\n%s", out)
	}
	// kubectl kspatch, as the debug user.
	if want := "KUBECONFIG=/x/user.kubeconfig /x/bin/kubectl-kspatch why podgroup/too-big -n demo"; !strings.Contains(out, want) {
		t.Errorf("the summary lacks %q:\n%s", want, out)
	}
}

// TestBlockTrainSize: the demo gang block-train fits in no rack and in two
// racks of a block, whatever the layout; with one rack a block there is none.
func TestBlockTrainSize(t *testing.T) {
	for _, tc := range []struct {
		spec cluster.NodeSpec
		want int
	}{
		// make run's default: twelve nodes, 3 zones × 2 racks of two
		// nodes, a rack holds four pods of 12 CPUs, a block eight.
		{cluster.NodeSpec{Count: 12, Zones: 3, Racks: 2}, 6},
		// -nodes 60: racks of ten nodes hold twenty.
		{cluster.NodeSpec{Count: 60, Zones: 3, Racks: 2}, 22},
		// -nodes 14: two racks have three nodes, the others two.
		{cluster.NodeSpec{Count: 14, Zones: 3, Racks: 2}, 8},
		{cluster.NodeSpec{Count: 12, Zones: 3, Racks: 1}, 0},
		{cluster.NodeSpec{Count: 12, Zones: 3, Racks: 4, RacksPerBlock: 1}, 0},
	} {
		if got := blockTrainSize(tc.spec); got != tc.want {
			t.Errorf("blockTrainSize(%+v) = %d, want %d", tc.spec, got, tc.want)
		}
	}
}

// TestPlanPreemption: the demo's batch fills the first rack of the one
// block the topology gangs left free, and the preempting gang needs that
// whole block; a layout that leaves no such block, or where another block
// has the room for the gang as it is, has no preemption step.
func TestPlanPreemption(t *testing.T) {
	spec := cluster.NodeSpec{Count: 12, Zones: 3, Racks: 2}
	layout := func(used map[string]int64) []demoNode {
		var out []demoNode
		for i := range spec.Count {
			_, block, rack := spec.Topology(i)
			name := fmt.Sprintf("node-%d", i)
			out = append(out, demoNode{Name: name, Block: block, Rack: rack, FreeMilli: 32000 - used[name]})
		}
		return out
	}
	// make run's default: rack-train on zone-a-rack-0 (node-0, node-6),
	// block-train's six pods in zone-b (four in rack 0, two in rack 1), the
	// small pods here and there.
	used := map[string]int64{"node-0": 24000, "node-6": 24000, "node-1": 24500, "node-7": 24000, "node-4": 12000, "node-10": 13000,
		"node-2": 3000, "node-8": 1500, "node-5": 2500}
	taken := map[string]bool{"zone-a-block-0": true, "zone-b-block-0": true}
	p, err := planPreemption(layout(used), taken)
	if err != nil {
		t.Fatal(err)
	}
	want := preemptPlan{Block: "zone-c-block-0", Rack: "zone-c-rack-0", FillNodes: []string{"node-2", "node-8"}, BatchPerNode: []int{2, 2}, Fill: 4, Size: 8}
	if fmt.Sprint(p) != fmt.Sprint(want) {
		t.Errorf("plan %+v, want %+v", p, want)
	}

	// Two free blocks: a gang of one block's size would fit in the other.
	if _, err := planPreemption(layout(used), map[string]bool{"zone-a-block-0": true}); err == nil || !strings.Contains(err.Error(), "leaves 2") {
		t.Errorf("two free blocks: %v, want an error saying so", err)
	}
	// rack-train's block as good as empty: it has the room for the gang.
	if _, err := planPreemption(layout(map[string]int64{"node-1": 24000, "node-7": 24000, "node-4": 12000, "node-10": 12000}), taken); err == nil ||
		!strings.Contains(err.Error(), "block zone-a-block-0 has room") {
		t.Errorf("an empty taken block: %v, want an error naming it", err)
	}
}

func TestGatesOff(t *testing.T) {
	for gates, want := range map[string]string{
		"":                                "",
		"SchedulerPreQueueingHints=false": "",
		"GangScheduling=true,WorkloadAwarePreemption=false": "WorkloadAwarePreemption",
		" GangScheduling = false ":                          "GangScheduling",
	} {
		if got := gatesOff(gates, "WorkloadAwarePreemption", "GangScheduling"); got != want {
			t.Errorf("gatesOff(%q) = %q, want %q", gates, got, want)
		}
	}
}
