package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"kspatch.dev/e2e/cluster"
)

// Result is what memload writes: bench/memory.go reads the same fields.
type Result struct {
	Workload string `json:"workload"`
	Side     string `json:"side"`
	// HeapInuse and HeapAlloc are the runtime's MemStats right after a
	// forced GC: bytes in in-use heap spans, and bytes of live objects.
	HeapInuse uint64 `json:"heapInuseBytes"`
	HeapAlloc uint64 `json:"heapAllocBytes"`
	// Sys is every byte the Go runtime obtained from the OS.
	Sys uint64 `json:"sysBytes"`
	// PeakRSS is the process's VmHWM, RSS its VmRSS, when measured.
	PeakRSS uint64 `json:"peakRSSBytes"`
	RSS     uint64 `json:"rssBytes"`
	// Pods and Nodes are the workload's sizes.
	Pods  int `json:"pods"`
	Nodes int `json:"nodes"`
	// LoadSeconds is how long the workload took from its first object to
	// its end condition; Seconds the whole run, control plane included.
	LoadSeconds float64 `json:"loadSeconds"`
	Seconds     float64 `json:"seconds"`
	// Samples are the soak's, one every interval from its start.
	Samples []Sample `json:"samples,omitempty"`
	// Attempts is scheduler_schedule_attempts_total at the end (every
	// result), UnschedulableAttempts its unschedulable ones.
	Attempts              float64 `json:"attempts"`
	UnschedulableAttempts float64 `json:"unschedulableAttempts"`
	// Created and Deleted count the soak's pods.
	Created int `json:"created,omitempty"`
	Deleted int `json:"deleted,omitempty"`
}

// Sample is one measurement of the scheduler process.
type Sample struct {
	// Seconds since the run (or the soak) started.
	Seconds   float64 `json:"seconds"`
	HeapInuse uint64  `json:"heapInuseBytes"`
	HeapAlloc uint64  `json:"heapAllocBytes"`
	Sys       uint64  `json:"sysBytes"`
	RSS       uint64  `json:"rssBytes"`
	PeakRSS   uint64  `json:"peakRSSBytes"`
	// LivePods are the soak's pods that exist at the sample.
	LivePods int `json:"livePods,omitempty"`
}

func (r *Result) setFinal(s Sample) {
	r.HeapInuse, r.HeapAlloc, r.Sys, r.RSS, r.PeakRSS = s.HeapInuse, s.HeapAlloc, s.Sys, s.RSS, s.PeakRSS
}

// heapPath forces a GC and returns the heap profile as text, which ends with
// the runtime's MemStats read after that GC.
const heapPath = "/debug/pprof/heap?gc=1&debug=1"

// sample measures the scheduler: its heap after a forced GC (twice: objects
// with finalizers are freed by the second) and its /proc status.
func sample(ctx context.Context, c *cluster.Cluster, since time.Time) (Sample, error) {
	var body []byte
	var err error
	for range 2 {
		if body, err = c.SchedulerGet(ctx, heapPath, 2*time.Minute); err != nil {
			return Sample{}, fmt.Errorf("the scheduler's heap profile: %w", err)
		}
	}
	stats, err := parseMemStats(string(body))
	if err != nil {
		return Sample{}, err
	}
	pid, err := c.SchedulerPID()
	if err != nil {
		return Sample{}, err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Sample{}, err
	}
	proc, err := parseProcStatus(string(status))
	if err != nil {
		return Sample{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return Sample{Seconds: time.Since(since).Seconds(), HeapInuse: stats["HeapInuse"], HeapAlloc: stats["HeapAlloc"],
		Sys: stats["Sys"], RSS: proc["VmRSS"], PeakRSS: proc["VmHWM"]}, nil
}

// countAttempts reads the scheduler's attempt counters into r.
func countAttempts(ctx context.Context, c *cluster.Cluster, r *Result) error {
	text, err := c.SchedulerMetrics(ctx)
	if err != nil {
		return err
	}
	r.Attempts, _ = metricSample(text, "scheduler_schedule_attempts_total", nil)
	r.UnschedulableAttempts, _ = metricSample(text, "scheduler_schedule_attempts_total", map[string]string{"result": "unschedulable"})
	return nil
}

// saveHeapProfile writes the scheduler's heap profile (after a GC, in
// pprof's format) to path.
func saveHeapProfile(ctx context.Context, c *cluster.Cluster, path string) error {
	body, err := c.SchedulerGet(ctx, "/debug/pprof/heap?gc=1", 2*time.Minute)
	if err != nil {
		return fmt.Errorf("the scheduler's heap profile: %w", err)
	}
	return os.WriteFile(path, body, 0o644)
}

// parseMemStats reads the "# Name = value" lines of the runtime.MemStats
// section a text heap profile (debug=1) ends with. HeapInuse, HeapAlloc
// and Sys must be among them.
func parseMemStats(text string) (map[string]uint64, error) {
	_, section, found := strings.Cut(text, "# runtime.MemStats")
	if !found {
		return nil, fmt.Errorf("the heap profile has no runtime.MemStats section (is it a debug=1 profile?)")
	}
	stats := map[string]uint64{}
	for _, line := range strings.Split(section, "\n") {
		name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "# "), " = ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64); err == nil {
			stats[name] = n
		}
	}
	for _, need := range []string{"HeapInuse", "HeapAlloc", "Sys"} {
		if _, ok := stats[need]; !ok {
			return nil, fmt.Errorf("the heap profile's runtime.MemStats has no %s", need)
		}
	}
	return stats, nil
}

// parseProcStatus reads the memory fields of /proc/PID/status ("VmHWM:
// 123456 kB") in bytes; VmHWM and VmRSS must be among them.
func parseProcStatus(text string) (map[string]uint64, error) {
	fields := map[string]uint64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			continue
		}
		if n, err := strconv.ParseUint(f[0], 10, 64); err == nil {
			fields[name] = n * 1024
		}
	}
	for _, need := range []string{"VmHWM", "VmRSS"} {
		if _, ok := fields[need]; !ok {
			return nil, fmt.Errorf("no %s line", need)
		}
	}
	return fields, nil
}

// metricSample sums the samples of a metric in a /metrics text whose labels
// include every label="value" pair of want (none: every sample); found is
// false when no sample matches.
func metricSample(text, name string, want map[string]string) (sum float64, found bool) {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		labels := ""
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.Index(rest, "}")
			if end < 0 {
				continue
			}
			labels, rest = rest[1:end], rest[end+1:]
		case strings.HasPrefix(rest, " "):
		default:
			continue
		}
		if !hasLabels(labels, want) {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			sum += v
			found = true
		}
	}
	return sum, found
}

// hasLabels says whether a label list (`a="x",b="y"`) has every pair of want.
func hasLabels(labels string, want map[string]string) bool {
	for k, v := range want {
		if !strings.Contains(","+labels+",", ","+k+"="+strconv.Quote(v)+",") {
			return false
		}
	}
	return true
}
