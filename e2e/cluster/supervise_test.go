package cluster

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeCluster is a Cluster with no components yet, for starting stand-ins
// (sleep, sh) with startBinary.
func fakeCluster(t *testing.T, log io.Writer, onExit func(Exit)) *Cluster {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{opts: Options{Dir: dir, Log: log, OnExit: onExit}, procs: map[string]*process{}, args: map[string][]string{}}
	t.Cleanup(c.Stop)
	return c
}

// waitExit returns the next reported exit, failing the test after a while.
func waitExit(t *testing.T, exits <-chan Exit, log *LockedBuffer, what string) Exit {
	t.Helper()
	select {
	case e := <-exits:
		return e
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no exit reported within 10s; the harness printed %q", what, log.String())
		return Exit{}
	}
}

// TestUnexpectedExitIsReported: a component that dies is reported at once —
// name, exit status, the path of its log and its last lines — both to the
// progress log and to Options.OnExit; a component stopped on purpose is not.
func TestUnexpectedExitIsReported(t *testing.T) {
	var log LockedBuffer
	exits := make(chan Exit, 8)
	c := fakeCluster(t, &log, func(e Exit) { exits <- e })

	if err := c.startBinary("sleeper", "sleep", "60"); err != nil {
		t.Fatal(err)
	}
	if err := c.startBinary("crasher", "sh", "-c", "echo 'crasher: cannot go on' >&2; exit 3"); err != nil {
		t.Fatal(err)
	}
	e := waitExit(t, exits, &log, "a component exiting with status 3")
	if e.Component != "crasher" || e.Code != 3 || e.Status != "exit status 3" || e.Log != c.Logs("crasher") {
		t.Errorf("reported %+v, want crasher, exit status 3, log %s", e, c.Logs("crasher"))
	}
	for _, want := range []string{"crasher exited unexpectedly (exit status 3)", c.Logs("crasher"), "crasher: cannot go on"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the harness printed %q, want it to contain %q", log.String(), want)
		}
	}

	// The scheduler getting SIGTERM from someone else (issue #27's case).
	if err := c.startBinary("kube-scheduler", "sleep", "60"); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	pid := c.procs["kube-scheduler"].cmd.Process.Pid
	c.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	e = waitExit(t, exits, &log, "kube-scheduler killed by SIGTERM")
	if e.Component != "kube-scheduler" || e.Code != -1 || e.Status != "signal: terminated" || e.Log != c.Logs("kube-scheduler") {
		t.Errorf("reported %+v, want kube-scheduler, signal: terminated, log %s", e, c.Logs("kube-scheduler"))
	}
	if want := "kube-scheduler exited unexpectedly (signal: terminated)"; !strings.Contains(log.String(), want) {
		t.Errorf("the harness printed %q, want it to contain %q", log.String(), want)
	}

	// Stopped on purpose (Stop, RestartAPIServer): nothing to report.
	c.stopProcess("sleeper")
	select {
	case e := <-exits:
		t.Errorf("a component stopped by the harness was reported: %+v", e)
	case <-time.After(500 * time.Millisecond):
	}
	if strings.Contains(log.String(), "sleeper") {
		t.Errorf("the harness printed %q about a component it stopped itself", log.String())
	}
}
