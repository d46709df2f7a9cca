package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseMemStats(t *testing.T) {
	profile := "heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1\n\n# runtime.MemStats\n# Alloc = 100\n# HeapAlloc = 100\n# Sys = 900\n# HeapInuse = 200\n# PauseNs = [1 2 3]\n# NumGC = 7\n"
	for _, tc := range []struct {
		name, text string
		want       map[string]uint64
		err        string
	}{
		{name: "profile", text: profile, want: map[string]uint64{"HeapAlloc": 100, "HeapInuse": 200, "Sys": 900, "NumGC": 7}},
		{name: "no section", text: "heap profile: 1: 2\n", err: "no runtime.MemStats section"},
		{name: "no HeapInuse", text: "# runtime.MemStats\n# HeapAlloc = 1\n# Sys = 2\n", err: "no HeapInuse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMemStats(tc.text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %d, want %d", k, got[k], v)
				}
			}
			if _, ok := got["PauseNs"]; ok {
				t.Errorf("PauseNs (a list) parsed as a number")
			}
		})
	}
}

func TestParseProcStatus(t *testing.T) {
	status := "Name:\tkube-scheduler\nVmPeak:\t 2000 kB\nVmHWM:\t   1500 kB\nVmRSS:\t    1000 kB\nThreads:\t12\n"
	got, err := parseProcStatus(status)
	if err != nil {
		t.Fatal(err)
	}
	if got["VmHWM"] != 1500*1024 || got["VmRSS"] != 1000*1024 {
		t.Errorf("VmHWM %d, VmRSS %d; want %d and %d", got["VmHWM"], got["VmRSS"], 1500*1024, 1000*1024)
	}
	if _, ok := got["Threads"]; ok {
		t.Errorf("Threads (no kB) taken as a size")
	}
	if _, err := parseProcStatus("Name:\tx\nVmRSS:\t1 kB\n"); err == nil || !strings.Contains(err.Error(), "VmHWM") {
		t.Errorf("without VmHWM: error %v, want one naming VmHWM", err)
	}
}

const metricsText = `# HELP scheduler_pending_pods x
# TYPE scheduler_pending_pods gauge
scheduler_pending_pods{queue="active"} 0
scheduler_pending_pods{queue="backoff"} 3
scheduler_pending_pods{queue="gated"} 0
scheduler_pending_pods{queue="unschedulable"} 97
scheduler_pending_pods_extra{queue="active"} 1000
scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"} 120
scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 5
scheduler_pending_async_api_calls{call_type="pod_status_patch"} 2
scheduler_pending_async_api_calls{call_type="pod_binding"} 1
process_resident_memory_bytes 1.5e+08
`

func TestMetricSample(t *testing.T) {
	for _, tc := range []struct {
		name   string
		metric string
		want   map[string]string
		sum    float64
		found  bool
	}{
		{"one label", "scheduler_pending_pods", map[string]string{"queue": "backoff"}, 3, true},
		{"prefix of another metric is not summed", "scheduler_pending_pods", map[string]string{"queue": "active"}, 0, true},
		{"every sample", "scheduler_pending_async_api_calls", nil, 3, true},
		{"second label", "scheduler_schedule_attempts_total", map[string]string{"result": "unschedulable"}, 120, true},
		{"no labels", "process_resident_memory_bytes", nil, 1.5e8, true},
		{"absent metric", "scheduler_nothing", nil, 0, false},
		{"absent label value", "scheduler_pending_pods", map[string]string{"queue": "other"}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, found := metricSample(metricsText, tc.metric, tc.want)
			if sum != tc.sum || found != tc.found {
				t.Errorf("got %v, %v; want %v, %v", sum, found, tc.sum, tc.found)
			}
		})
	}
}

func TestQueueStateDone(t *testing.T) {
	st := queueStateOf(metricsText)
	if st.Backoff != 3 || st.Unschedulable != 97 || st.Attempts != 120 || st.APICalls != 3 {
		t.Fatalf("queueStateOf: %+v", st)
	}
	for _, tc := range []struct {
		name string
		st   queueState
		n    int
		want bool
	}{
		{"all wait", queueState{Backoff: 3, Unschedulable: 97, Attempts: 100}, 100, true},
		{"calls pending", queueState{Unschedulable: 100, Attempts: 100, APICalls: 1}, 100, false},
		{"one active", queueState{Active: 1, Unschedulable: 99, Attempts: 100}, 100, false},
		{"not all created", queueState{Unschedulable: 90, Attempts: 90}, 100, false},
		{"not all attempted", queueState{Unschedulable: 100, Attempts: 99}, 100, false},
	} {
		if got := tc.st.done(tc.n); got != tc.want {
			t.Errorf("%s: done = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSoakKinds(t *testing.T) {
	count := map[creationKind]int{}
	for i := range 100 {
		count[soakKind(i)]++
	}
	want := map[creationKind]int{kindDRA: 40, kindPlain: 40, kindUnschedulable: 10, kindGang: 10}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("kind %d: %d of 100 creations, want %d", k, count[k], n)
		}
	}
}

func TestSelectorsDiffer(t *testing.T) {
	seen := map[string]int{}
	for i := range 10000 {
		s := selectorFor(i)
		if j, ok := seen[s]; ok {
			t.Fatalf("claims %d and %d share the selector %q", j, i, s)
		}
		seen[s] = i
	}
	if s := selectorFor(0); !strings.Contains(s, `device.attributes["gpu.kspatch.dev"].index < 1000000`) {
		t.Errorf("selectorFor(0) = %q", s)
	}
}

func TestConfigValidate(t *testing.T) {
	soak := soakConfig{Duration: time.Minute, Interval: time.Second, Rate: 1, Lifetime: time.Second, Devices: 1}
	base := config{Nodes: 10, Pods: 10, Gangs: 1, GangSize: 2, GangNodes: 4, GangRacks: 2, Soak: soak, APIQPS: 1, LoadQPS: 1, LoadWorker: 1}
	for _, tc := range []struct {
		name string
		edit func(*config)
		err  string
	}{
		{"pending", func(c *config) { c.Workload = "pending" }, ""},
		{"dra", func(c *config) { c.Workload = "dra" }, ""},
		{"gangs", func(c *config) { c.Workload = "gangs" }, ""},
		{"soak", func(c *config) { c.Workload = "soak" }, ""},
		{"unknown", func(c *config) { c.Workload = "burst" }, "must be pending, dra, gangs or soak"},
		{"no pods", func(c *config) { c.Workload, c.Pods = "pending", 0 }, "-pods 0"},
		{"more racks than nodes", func(c *config) { c.Workload, c.GangRacks = "gangs", 5 }, "racks at most nodes"},
		{"soak without interval", func(c *config) { c.Workload, c.Soak.Interval = "soak", 0 }, "-interval 0s"},
		{"no workers", func(c *config) { c.Workload, c.LoadWorker = "dra", 0 }, "-load-workers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			err := c.validate()
			if tc.err == "" && err != nil {
				t.Fatal(err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}
