package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A run records itself in a PID file next to its directory (DIR.pid, outside
// DIR because Start empties DIR): "PID START", START being the process's
// start time (field 22 of /proc/PID/stat). The start time tells the run from
// another process that reuses the PID after a run killed with SIGKILL left
// its file behind.

// pidFile is the PID file of the run using dir.
func pidFile(dir string) string { return filepath.Clean(dir) + ".pid" }

// runRecord is what a PID file holds.
type runRecord struct {
	pid   int
	start string
}

// procStart returns the start time of process pid and whether it has
// exited and waits for its parent (a zombie).
func procStart(pid int) (start string, zombie bool, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false, err
	}
	// "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
	i := strings.LastIndexByte(string(data), ')')
	var fields []string
	if i >= 0 {
		fields = strings.Fields(string(data[i+1:]))
	}
	if len(fields) < 20 {
		return "", false, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, data)
	}
	// fields[0] is field 3, the state; field 22 is fields[19].
	return fields[19], fields[0] == "Z", nil
}

// running reports whether the process the record names is still that run.
func (r runRecord) running() bool {
	start, zombie, err := procStart(r.pid)
	return err == nil && !zombie && start == r.start
}

func readPIDFile(path string) (runRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return runRecord{}, err
	}
	var r runRecord
	if _, err := fmt.Sscanf(string(data), "%d %s", &r.pid, &r.start); err != nil || r.pid <= 0 {
		return runRecord{}, fmt.Errorf("%s: not \"PID START\": %q", path, data)
	}
	return r, nil
}

// claimPIDFile records this process as the run in path, unless a live run
// is recorded there. release removes the record.
func claimPIDFile(path string) (release func(), err error) {
	if r, err := readPIDFile(path); err == nil && r.running() {
		return nil, fmt.Errorf("make run is already running (PID %d, recorded in %s); stop it first with make stop", r.pid, path)
	}
	pid := os.Getpid()
	start, _, err := procStart(pid)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%d %s\n", pid, start)), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	return func() {
		if r, err := readPIDFile(path); err == nil && r.pid == pid {
			_ = os.Remove(path)
		}
	}, nil
}

// stopRun stops the run recorded in path: SIGTERM, which it handles like
// Ctrl-C (the components are stopped in order), then wait until it has
// exited. A run that is still there after timeout is killed (its
// components get SIGKILL from the kernel with it).
func stopRun(path string, w io.Writer, timeout time.Duration) error {
	r, err := readPIDFile(path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(w, "nothing to stop: no make run is recorded (%s does not exist)\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	if !r.running() {
		fmt.Fprintf(w, "nothing to stop: make run (PID %d) is no longer running; removing %s\n", r.pid, path)
		return removeRecord(path, r)
	}
	fmt.Fprintf(w, "stopping make run (PID %d): the components stop in order, then it exits\n", r.pid)
	if err := syscall.Kill(r.pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling PID %d: %w", r.pid, err)
	}
	begin := time.Now()
	if waitGone(r, timeout) {
		fmt.Fprintf(w, "stopped (%s)\n", time.Since(begin).Round(100*time.Millisecond))
		return removeRecord(path, r)
	}
	fmt.Fprintf(w, "make run (PID %d) is still running after %s: killing it (its components die with it)\n", r.pid, timeout)
	_ = syscall.Kill(r.pid, syscall.SIGKILL)
	if !waitGone(r, 10*time.Second) {
		return fmt.Errorf("make run (PID %d) is still running after SIGKILL", r.pid)
	}
	if err := removeRecord(path, r); err != nil {
		return err
	}
	return fmt.Errorf("make run (PID %d) did not stop within %s and was killed; see the logs in %s", r.pid, timeout, strings.TrimSuffix(path, ".pid")+"/logs")
}

// waitGone waits up to timeout for the run to exit.
func waitGone(r runRecord, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); r.running(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// removeRecord removes path if it still records r (a run that exits
// removes its own record).
func removeRecord(path string, r runRecord) error {
	if cur, err := readPIDFile(path); err == nil && cur == r {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
