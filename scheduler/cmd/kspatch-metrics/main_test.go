package main

import "testing"

func TestRegistered(t *testing.T) {
	fams, err := registered()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fams {
		got[f.Name] = f.Type
	}
	for name, typ := range map[string]string{
		// upstream's
		"scheduler_schedule_attempts_total":             "counter",
		"scheduler_pending_pods":                        "gauge",
		"scheduler_scheduling_attempt_duration_seconds": "histogram",
		// the series' (default gates) and the admin API's
		"scheduler_pre_queueing_hint_evaluations_total":       "counter",
		"scheduler_pod_scheduled_after_flush_total":           "counter",
		"scheduler_async_api_call_execution_total":            "counter",
		"scheduler_async_api_call_execution_duration_seconds": "histogram",
		"scheduler_pending_async_api_calls":                   "gauge",
		"scheduler_admin_requests_total":                      "counter",
		// linked into the binary
		"kubernetes_build_info":      "gauge",
		"kubernetes_feature_enabled": "gauge",
		"rest_client_requests_total": "counter",
		"process_start_time_seconds": "untyped",
	} {
		if got[name] != typ {
			t.Errorf("%s: type %q, want %q", name, got[name], typ)
		}
	}
}
