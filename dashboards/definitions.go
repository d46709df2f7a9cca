// Package dashboards defines the kspatch Grafana dashboards. The JSON files
// next to it are generated from these definitions (go generate), and the
// package's tests lint the files themselves, so a dashboard edited by hand in
// Grafana and exported back is held to the same rules.
package dashboards

//go:generate go run ./cmd/generate

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SchemaVersion is the classic dashboard JSON model's schema version the
// files are written in (Grafana 12; newer Grafana versions migrate it).
const SchemaVersion = 41

// Dashboard is one generated dashboard: its panels, then its rows.
type Dashboard struct {
	File, UID, Title, Description string
	Tags                          []string
	Panels                        []Panel
	Rows                          []Row
}

// Row is a titled group of panels shown below the dashboard's own panels
// (a Grafana row, expanded).
type Row struct {
	Title  string
	Panels []Panel
}

// Panel is a time-series panel.
type Panel struct {
	Title, Description string
	// Unit is a Grafana unit id: ops, s, short, percentunit.
	Unit    string
	Targets []Target
	// Stack draws the series stacked (parts of a whole).
	Stack bool
}

// Target is one PromQL query of a panel. Selectors use the dashboard's
// variables through the sel helper.
type Target struct {
	Expr, Legend string
}

// sel is the label selector every query carries: the job and instance
// variables.
const sel = `job="$job", instance=~"$instance"`

func rate(metric, extra, by string) string {
	s := sel
	if extra != "" {
		s += ", " + extra
	}
	e := fmt.Sprintf("rate(%s{%s}[$__rate_interval])", metric, s)
	if by == "" {
		return "sum(" + e + ")"
	}
	return fmt.Sprintf("sum by (%s) (%s)", by, e)
}

func quantile(q float64, histogram, by string) Target {
	legend := fmt.Sprintf("p%g", q*100)
	if by != "" {
		legend = fmt.Sprintf("p%g {{%s}}", q*100, by)
	}
	return quantileWhere(q, histogram, "", by, legend)
}

// quantileWhere is quantile over the series that also match extra (label
// matchers), grouped by the labels in by, with its own legend.
func quantileWhere(q float64, histogram, extra, by, legend string) Target {
	s := sel
	if extra != "" {
		s += ", " + extra
	}
	groups := "le"
	if by != "" {
		groups = by + ", le"
	}
	return Target{
		Expr:   fmt.Sprintf("histogram_quantile(%g, sum by (%s) (rate(%s_bucket{%s}[$__rate_interval])))", q, groups, histogram, s),
		Legend: legend,
	}
}

func percentiles(histogram, by string) []Target {
	return []Target{quantile(0.5, histogram, by), quantile(0.9, histogram, by), quantile(0.99, histogram, by)}
}

// All returns the dashboards. No dashboard charts a metric the scheduler
// does not export.
func All() []Dashboard {
	return []Dashboard{
		{
			File: "kspatch-overview.json", UID: "kspatch-overview", Title: "kspatch / Scheduler overview",
			Description: "Scheduling throughput, results, queue contents and latency of the kspatch kube-scheduler.",
			Tags:        []string{"kspatch", "kube-scheduler"},
			Panels: []Panel{
				{
					Title: "Scheduling throughput", Unit: "ops",
					Description: "Pods scheduled per second (scheduling attempts with result scheduled), by profile.",
					Targets:     []Target{{rate("scheduler_schedule_attempts_total", `result="scheduled"`, "profile"), "{{profile}}"}},
				},
				{
					Title: "Scheduling attempts by result", Unit: "ops", Stack: true,
					Description: "Scheduling attempts per second by result: scheduled, unschedulable (no node fits), error (an internal or API problem).",
					Targets:     []Target{{rate("scheduler_schedule_attempts_total", "", "result"), "{{result}}"}},
				},
				{
					Title: "Pending pods by queue", Unit: "short", Stack: true,
					Description: "Pods waiting in each sub-queue of the scheduling queue: active, backoff, unschedulable and gated. `curl 127.0.0.1:10261/debug/queue` lists them.",
					Targets:     []Target{{fmt.Sprintf("sum by (queue) (scheduler_pending_pods{%s})", sel), "{{queue}}"}},
				},
				{
					Title: "Scheduling attempt latency", Unit: "s",
					Description: "Percentiles of one scheduling attempt's duration (scheduling algorithm and binding set-up), over all results.",
					Targets:     percentiles("scheduler_scheduling_attempt_duration_seconds", ""),
				},
				{
					Title: "Pod scheduling latency (SLI)", Unit: "s",
					Description: "Percentiles of the time from a pod entering the queue to its successful scheduling attempt, across attempts (the scheduling SLI, gated time excluded).",
					Targets:     percentiles("scheduler_pod_scheduling_sli_duration_seconds", ""),
				},
				{
					Title: "Leader per instance", Unit: "short",
					Description: "1 for the kube-scheduler instance that schedules pods (it holds the kube-system/kube-scheduler lease, or runs without leader election), 0 for a follower waiting for the lease (scheduler_leading). After a leader change the 1 moves to another instance; docs/high-availability.md says what happens to queued API calls, gangs and placement decisions.",
					Targets:     []Target{{fmt.Sprintf("max by (instance) (scheduler_leading{%s})", sel), "{{instance}}"}},
				},
				{
					Title: "Event-handling duration (p99)", Unit: "s",
					Description: "99th percentile of the time the scheduler spends handling a cluster event (informer callbacks, requeueing unschedulable pods), by event. PreQueueingHint makes ResourceClaim events independent of the number of unschedulable pods.",
					Targets:     []Target{quantile(0.99, "scheduler_event_handling_duration_seconds", "event")},
				},
			},
		},
		{
			File: "kspatch-prequeueinghint.json", UID: "kspatch-prequeueinghint", Title: "kspatch / PreQueueingHint (KEP-6132)",
			Description: "How often plugins' PreQueueingHints narrow the pods re-checked on a cluster event, and whether pods wait for the periodic flush instead (gate SchedulerPreQueueingHints).",
			Tags:        []string{"kspatch", "kube-scheduler", "KEP-6132"},
			Panels: []Panel{
				{
					Title: "PreQueueingHint evaluations", Unit: "ops",
					Description: "PreQueueingHint evaluations per second by plugin and result: narrowed (the plugin named the pods worth re-checking) or all_pods (it could not narrow, or failed, so every pod the plugin rejected is re-checked).",
					Targets:     []Target{{rate("scheduler_pre_queueing_hint_evaluations_total", "", "plugin, result"), "{{plugin}} {{result}}"}},
				},
				{
					Title: "Narrowed ratio", Unit: "percentunit",
					Description: "Share of PreQueueingHint evaluations that narrowed the pod set, by plugin. Close to 100% for DynamicResources during ResourceClaim bursts; a drop means events fall back to scanning all unschedulable pods.",
					Targets: []Target{{
						rate("scheduler_pre_queueing_hint_evaluations_total", `result="narrowed"`, "plugin") + " / " +
							rate("scheduler_pre_queueing_hint_evaluations_total", "", "plugin"), "{{plugin}}",
					}},
				},
				{
					Title: "Pods scheduled after the periodic flush", Unit: "short",
					Description: "Pods scheduled after the periodic unschedulable-pods flush moved them, rather than a cluster event. It should stay at zero: an increase means an event that made pods schedulable did not requeue them (a hint too narrow).",
					Targets: []Target{{
						fmt.Sprintf("sum(increase(scheduler_pod_scheduled_after_flush_total{%s}[$__rate_interval]))", sel), "after flush",
					}},
				},
				{
					Title: "Incoming pods by event", Unit: "ops", Stack: true,
					Description: "Pods added to the scheduling queue per second, by the event that moved them and the sub-queue they went to.",
					Targets:     []Target{{rate("scheduler_queue_incoming_pods_total", "", "event, queue"), "{{event}} ({{queue}})"}},
				},
			},
		},
		{
			File: "kspatch-apicalls.json", UID: "kspatch-apicalls", Title: "kspatch / Async API calls (KEP-5229)",
			Description: "The API call queue that carries the scheduler's Pod status patches, bindings and preemption deletions (gate SchedulerAsyncAPICalls). `curl 127.0.0.1:10261/debug/apicalls` lists the pending calls.",
			Tags:        []string{"kspatch", "kube-scheduler", "KEP-5229"},
			Panels: []Panel{
				{
					Title: "API call execution rate", Unit: "ops", Stack: true,
					Description: "API calls executed per second by call type (pod_status_patch, pod_binding, pod_deletion) and result (success, error).",
					Targets:     []Target{{rate("scheduler_async_api_call_execution_total", "", "call_type, result"), "{{call_type}} {{result}}"}},
				},
				{
					Title: "API call error ratio", Unit: "percentunit",
					Description: "Share of executed API calls that failed, by call type. Failed bindings go back through the scheduling-failure path; failed status patches are retried with the pod's next attempt.",
					Targets: []Target{{
						"(" + rate("scheduler_async_api_call_execution_total", `result="error"`, "call_type") + " or " +
							rate("scheduler_async_api_call_execution_total", "", "call_type") + " * 0) / " +
							rate("scheduler_async_api_call_execution_total", "", "call_type"), "{{call_type}}",
					}},
				},
				{
					Title: "API call duration", Unit: "s",
					Description: "Percentiles of one API call's execution (the request to the API server), by call type.",
					Targets: []Target{
						quantile(0.5, "scheduler_async_api_call_execution_duration_seconds", "call_type"),
						quantile(0.99, "scheduler_async_api_call_execution_duration_seconds", "call_type"),
					},
				},
				{
					Title: "Pending API calls", Unit: "short", Stack: true,
					Description: "API calls waiting in the queue by call type (not yet sent; in-flight calls are not counted). A steady rise means the API server is slower than the scheduler: see --async-api-call-workers.",
					Targets:     []Target{{fmt.Sprintf("sum by (call_type) (scheduler_pending_async_api_calls{%s})", sel), "{{call_type}}"}},
				},
			},
		},
		{
			File: "kspatch-podgroups.json", UID: "kspatch-podgroups", Title: "kspatch / Pod groups (KEP-5732)",
			Description: "Pod-group (gang) scheduling cycles (gate GangScheduling): how often groups are tried, how often they fit, how long a cycle takes, and the pods the group logic holds back; the Placement row charts topology-aware placement (gate TopologyAwareWorkloadScheduling) and its topology levels (gate PodGroupTopologyLevels); the Preemption row, gangs that preempt as one unit (gate WorkloadAwarePreemption). `curl 127.0.0.1:10261/debug/placements` shows the recent cycles: the placements generated and evaluated, the one chosen, every pod's node, and what a preemption tried and chose.",
			Tags:        []string{"kspatch", "kube-scheduler", "KEP-5732"},
			Panels: []Panel{
				{
					Title: "Pod-group cycles by result", Unit: "ops", Stack: true,
					Description: "Pod-group scheduling cycles per second by result: scheduled (enough pods fit and went to binding), unschedulable (too few fit; none was bound), error (an internal error, or the PodGroup could not be read).",
					Targets:     []Target{{rate("scheduler_podgroup_schedule_attempts_total", "", "result"), "{{result}}"}},
				},
				{
					Title: "Pod-group cycle duration", Unit: "s",
					Description: "Percentiles of one pod-group cycle: every pod of the group tried on the scheduler's snapshot, up to the decision (binding not included). It grows with the group's size and the cluster's.",
					Targets:     percentiles("scheduler_podgroup_scheduling_attempt_duration_seconds", ""),
				},
				{
					Title: "Unschedulable share of pod-group cycles", Unit: "percentunit",
					Description: "Share of pod-group cycles that did not schedule their group. A gang retried while capacity is short shows here; each retry undoes what it tried, so no partial gang holds resources.",
					Targets: []Target{{
						"(" + rate("scheduler_podgroup_schedule_attempts_total", `result!="scheduled"`, "") + " or " +
							rate("scheduler_podgroup_schedule_attempts_total", "", "") + " * 0) / " +
							rate("scheduler_podgroup_schedule_attempts_total", "", ""), "unschedulable or error",
					}},
				},
				{
					Title: "Pods held by GangScheduling", Unit: "short",
					Description: "Pending pods whose last rejection came from GangScheduling: gang members waiting, gated, until minCount of them exist, and members of a PodGroup that is missing or malformed. Pods rejected for lack of room count under their filter plugin instead.",
					Targets:     []Target{{fmt.Sprintf(`sum by (profile) (scheduler_unschedulable_pods{%s, plugin="GangScheduling"})`, sel), "{{profile}}"}},
				},
			},
			Rows: []Row{{
				Title: "Placement",
				Panels: []Panel{
					{
						Title: "Generated placements", Unit: "ops",
						Description: "Candidate placements generated per second for pod groups with a topology constraint (one per value of the constraint's node label, e.g. one per rack), after the groups' running pods narrowed them. Groups without a constraint generate none.",
						Targets:     []Target{{rate("scheduler_generated_placements_total", "", ""), "placements"}},
					},
					{
						Title: "Placement evaluations by result", Unit: "ops", Stack: true,
						Description: "Placements evaluated per second (the group's pods tried in the placement's nodes) by result: feasible (enough of the group's pods fit), infeasible, error. Evaluation stops once enough feasible placements are found, so not every generated placement is evaluated.",
						Targets:     []Target{{rate("scheduler_placement_evaluations_total", "", "result"), "{{result}}"}},
					},
					{
						Title: "Generated placements by level", Unit: "ops", Stack: true,
						Description: "Candidate placements generated per second for pod groups with a Preferred topology level (gate PodGroupTopologyLevels), by level: the node label key of the level a placement is one domain of (e.g. one per rack at the rack level, one per block at the block level), or cluster for the whole cluster. The levels are tried narrowest first; a wider level's candidates are evaluated only when no domain of the narrower level fits the group.",
						Targets:     []Target{{rate("scheduler_generated_placements_by_level_total", "", "level"), "{{level}}"}},
					},
					{
						Title: "Placement evaluations by level and result", Unit: "ops", Stack: true,
						Description: "Placements of pod groups with a Preferred topology level evaluated per second, by level and result: feasible, infeasible (including those the room check left out) or error. Infeasible evaluations at a narrow level (rack) followed by feasible ones at a wider level (block) are groups spilled over several domains of the narrow level; `curl 127.0.0.1:10261/debug/placements/NAMESPACE/GROUP` shows each level's result and the pods per domain.",
						Targets:     []Target{{rate("scheduler_placement_evaluations_by_level_total", "", "level, result"), "{{level}} {{result}}"}},
					},
					{
						Title: "Placement decision duration", Unit: "s",
						Description: "Percentiles of one pod group's placement decision, by result: generating the candidate placements, evaluating and scoring them, up to the choice (the members' cycles in the chosen placement, the commit, are not included; the pod-group cycle duration includes them). feasible: a placement was chosen; infeasible: none fits.",
						Targets: []Target{
							quantile(0.5, "scheduler_placement_decision_duration_seconds", "result"),
							quantile(0.99, "scheduler_placement_decision_duration_seconds", "result"),
						},
					},
					{
						Title: "Placement evaluation duration", Unit: "s",
						Description: "Percentiles of one placement's evaluation, by result. An evaluation simulates the group's pods on copies of the placement's nodes (PreFilter, Filter, the extenders' filters), so it grows with the group's size and the placement's nodes; infeasible ones may stop early, and those the room check left out are not observed.",
						Targets: []Target{
							quantile(0.5, "scheduler_placement_evaluation_duration_seconds", "result"),
							quantile(0.99, "scheduler_placement_evaluation_duration_seconds", "result"),
						},
					},
					{
						Title: "Placement plugin duration (p99)", Unit: "s",
						Description: "99th percentile of one plugin call at the GeneratePlacements and ScorePlacement extension points, by plugin (e.g. TopologyPlacementGenerator; PodGroupPodsCount and NodeResourcesFit scoring a placement).",
						Targets: []Target{quantileWhere(0.99, "scheduler_plugin_execution_duration_seconds",
							`extension_point=~"GeneratePlacements|ScorePlacement"`, "extension_point, plugin", "{{plugin}} ({{extension_point}})")},
					},
				},
			}, {
				Title: "Preemption",
				Panels: []Panel{
					{
						Title: "Pod-group preemption attempts by result", Unit: "ops", Stack: true,
						Description: "Preemption attempts per second of gangs that did not fit (gate WorkloadAwarePreemption), by result: preempting (victims were chosen in one placement and are being deleted; the members are nominated to their nodes), not_helpful (no placement fits the group even without every pod of lower priority; nothing was evicted), waiting (the victims of an earlier attempt are still terminating; nothing more was evicted), error. A gang preempts as one unit: all its victims in one placement, or none. `curl 127.0.0.1:10261/debug/placements/NAMESPACE/GROUP` shows the placements each attempt tried and the victims it chose.",
						Targets:     []Target{{rate("scheduler_podgroup_preemption_attempts_total", "", "result"), "{{result}}"}},
					},
					{
						Title: "Victims per pod-group preemption", Unit: "short",
						Description: "Pods chosen as victims per preempting attempt of a gang: the median, the 99th percentile (from buckets 1, 2, 4, … 512) and the average. Victims include every pod of a running PodGroup preempted whole (disruptionMode PodGroup), so one gang can evict another gang's members all at once.",
						Targets: []Target{
							quantile(0.5, "scheduler_podgroup_preemption_victims", ""),
							quantile(0.99, "scheduler_podgroup_preemption_victims", ""),
							{rate("scheduler_podgroup_preemption_victims_sum", "", "") + " / " + rate("scheduler_podgroup_preemption_victims_count", "", ""), "average"},
						},
					},
				},
			}},
		},
	}
}

// JSON renders a dashboard in Grafana's classic JSON model: two panels per
// line, each row's header across the width above its panels, a Prometheus
// datasource variable and job and instance variables.
func (d Dashboard) JSON() ([]byte, error) {
	ds := map[string]any{"type": "prometheus", "uid": "${datasource}"}
	panels := []any{}
	id, y := 0, 0
	// place lays panels out two per line from y, and moves y below them.
	place := func(ps []Panel) {
		for i, p := range ps {
			id++
			panels = append(panels, panelJSON(p, id, ds, (i%2)*12, y+(i/2)*8))
		}
		y += (len(ps) + 1) / 2 * 8
	}
	place(d.Panels)
	for _, r := range d.Rows {
		id++
		panels = append(panels, map[string]any{
			"id": id, "type": "row", "title": r.Title, "collapsed": false, "panels": []any{},
			"gridPos": map[string]any{"h": 1, "w": 24, "x": 0, "y": y},
		})
		y++
		place(r.Panels)
	}
	variable := func(name, label, query string, all bool) map[string]any {
		v := map[string]any{
			"name": name, "label": label, "type": "query", "datasource": ds,
			"query":      map[string]any{"query": query, "refId": name},
			"definition": query, "refresh": 2, "sort": 1, "hide": 0,
			"includeAll": all, "multi": all, "current": map[string]any{},
		}
		if all {
			v["allValue"] = ".*"
		}
		return v
	}
	model := map[string]any{
		"uid": d.UID, "title": d.Title, "description": d.Description, "tags": d.Tags,
		"schemaVersion": SchemaVersion, "version": 1, "editable": true, "graphTooltip": 1,
		"time":       map[string]any{"from": "now-1h", "to": "now"},
		"timepicker": map[string]any{}, "refresh": "30s", "timezone": "browser",
		"annotations": map[string]any{"list": []any{}}, "links": []any{},
		"templating": map[string]any{"list": []any{
			map[string]any{
				"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
				"current": map[string]any{}, "hide": 0, "refresh": 1, "regex": "",
			},
			variable("job", "Job", "label_values(scheduler_schedule_attempts_total, job)", false),
			variable("instance", "Instance", `label_values(scheduler_schedule_attempts_total{job="$job"}, instance)`, true),
		}},
		"panels": panels,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(model); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// panelJSON renders a time-series panel 12 columns wide and 8 high at x, y.
func panelJSON(p Panel, id int, ds map[string]any, x, y int) map[string]any {
	targets := make([]any, 0, len(p.Targets))
	for j, t := range p.Targets {
		targets = append(targets, map[string]any{
			"refId": string(rune('A' + j)), "datasource": ds, "expr": t.Expr,
			"legendFormat": t.Legend, "range": true, "editorMode": "code",
		})
	}
	custom := map[string]any{"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10, "showPoints": "never", "spanNulls": false}
	if p.Stack {
		custom["stacking"] = map[string]any{"mode": "normal", "group": "A"}
		custom["fillOpacity"] = 40
	}
	defaults := map[string]any{"unit": p.Unit, "min": 0, "custom": custom}
	if p.Unit == "percentunit" {
		defaults["max"] = 1
	}
	return map[string]any{
		"id": id, "type": "timeseries", "title": p.Title, "description": p.Description,
		"datasource":  ds,
		"gridPos":     map[string]any{"h": 8, "w": 12, "x": x, "y": y},
		"fieldConfig": map[string]any{"defaults": defaults, "overrides": []any{}},
		"options": map[string]any{
			"legend":  map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": true},
			"tooltip": map[string]any{"mode": "multi", "sort": "desc"},
		},
		"targets": targets,
	}
}
