package dashboards

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schedulerFamilies reads the families the patched scheduler registers, as
// written by scheduler/cmd/kspatch-metrics (make test-dashboards does). Without
// KSPATCH_SCHEDULER_METRICS the metric checks are skipped, unless
// KSPATCH_REQUIRE_METRICS is set.
func schedulerFamilies(t *testing.T) map[string]string {
	t.Helper()
	path := os.Getenv("KSPATCH_SCHEDULER_METRICS")
	if path == "" {
		if os.Getenv("KSPATCH_REQUIRE_METRICS") != "" {
			t.Fatal("KSPATCH_SCHEDULER_METRICS is not set: make test-dashboards writes it with scheduler/cmd/kspatch-metrics")
		}
		t.Log("KSPATCH_SCHEDULER_METRICS is not set: metric names are not checked (make test-dashboards checks them)")
		return nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var list []Family
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(list) < 50 {
		t.Fatalf("%s lists only %d families: kspatch-metrics did not read the scheduler's registry", path, len(list))
	}
	out := map[string]string{}
	for _, f := range list {
		out[f.Name] = f.Type
	}
	return out
}

func TestDashboardFiles(t *testing.T) {
	families := schedulerFamilies(t)
	files, err := filepath.Glob("*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards (%v)", err)
	}
	uids := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range Lint(raw, families) {
			t.Errorf("%s: %v", f, err)
		}
		var d struct{ UID string }
		_ = json.Unmarshal(raw, &d)
		if prev, dup := uids[d.UID]; dup {
			t.Errorf("%s: uid %q already used by %s", f, d.UID, prev)
		}
		uids[d.UID] = f
	}
}

// TestGenerated: the files are what the definitions generate (run go
// generate after changing them), and every generated dashboard is a file.
func TestGenerated(t *testing.T) {
	for _, d := range All() {
		want, err := d.JSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(d.File)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what definitions.go generates: run go generate in dashboards/", d.File)
		}
	}
}

// TestLintCatches breaks a valid dashboard in the ways the lint must catch.
func TestLintCatches(t *testing.T) {
	families := map[string]string{
		"scheduler_schedule_attempts_total":             "counter",
		"scheduler_pending_pods":                        "gauge",
		"scheduler_scheduling_attempt_duration_seconds": "histogram",
	}
	base := Dashboard{
		UID: "test", Title: "test", Description: "test",
		Panels: []Panel{
			{Title: "a", Description: "a", Unit: "ops", Targets: []Target{{rate("scheduler_schedule_attempts_total", "", "result"), "{{result}}"}}},
			{Title: "b", Description: "b", Unit: "s", Targets: percentiles("scheduler_scheduling_attempt_duration_seconds", "")},
			{Title: "c", Description: "c", Unit: "short", Targets: []Target{{`sum(scheduler_pending_pods{job="$job"})`, ""}}},
		},
		Rows: []Row{{Title: "row", Panels: []Panel{
			{Title: "d", Description: "d", Unit: "ops", Targets: []Target{{rate("scheduler_schedule_attempts_total", `result="error"`, ""), "errors"}}},
		}}},
	}
	raw, err := base.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if errs := Lint(raw, families); len(errs) != 0 {
		t.Fatalf("the valid dashboard fails the lint: %v", errs)
	}
	for _, tc := range []struct {
		name     string
		old, new string // a replacement in the JSON
		want     string // in one of the errors
	}{
		{"not JSON", `"panels"`, `"panels`, "not a dashboard JSON model"},
		{"old schema", `"schemaVersion": 41`, `"schemaVersion": 27`, "schemaVersion is 27"},
		{"hard-coded datasource uid", `"uid": "${datasource}"`, `"uid": "P1809F7CD0C75ACF3"`, "hard-coded datasource uid"},
		{"datasource without uid", `"uid": "${datasource}"`, `"name": "prom"`, "datasource without a uid"},
		{"duplicate panel id", `"id": 2`, `"id": 1`, "already used"},
		{"row header reuses a panel id", `"id": 4`, `"id": 3`, "already used"},
		{"row's panel without a title", `"title": "d"`, `"title": ""`, "title and description are required"},
		{"no unit", `"unit": "short"`, `"unit": ""`, "no unit"},
		{"no description", `"description": "c"`, `"description": ""`, "description are required"},
		{"bad PromQL", `sum(scheduler_pending_pods`, `sum(scheduler_pending_pods{`, "PromQL"},
		{"unknown metric", `scheduler_pending_pods{`, `scheduler_pending_podz{`, "scheduler_pending_podz is not exported"},
		{"histogram family name as a series", `scheduler_scheduling_attempt_duration_seconds_bucket`, `scheduler_scheduling_attempt_duration_seconds`, "is not exported"},
		{"counter without rate", `sum(scheduler_pending_pods{`, `sum(scheduler_schedule_attempts_total{`, "must be inside rate()"},
		{"hard-coded range", `[$__rate_interval]`, `[5m]`, "use [$__rate_interval]"},
		{"undefined variable", `job=\"$job\"}`, `job=\"$cluster\"}`, "undefined variable(s) cluster"},
		{"no datasource variable", `"type": "datasource"`, `"type": "custom"`, `variable "datasource"`},
		{"variable on an unknown metric", `label_values(scheduler_schedule_attempts_total, job)`, `label_values(scheduler_nope_total, job)`, "scheduler_nope_total is not exported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broken := strings.ReplaceAll(string(raw), tc.old, tc.new)
			if broken == string(raw) {
				t.Fatalf("%q is not in the dashboard", tc.old)
			}
			errs := Lint([]byte(broken), families)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("no error contains %q; got %v", tc.want, errs)
		})
	}
}
