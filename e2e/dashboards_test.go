package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"kspatch.dev/e2e/chart"
	"kspatch.dev/e2e/cluster"
)

// dashboard is the part of a Grafana dashboard the live check reads.
type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Panels []struct {
		Type        string `json:"type"`
		Title       string `json:"title"`
		FieldConfig struct {
			Defaults struct {
				Unit string `json:"unit"`
			} `json:"defaults"`
		} `json:"fieldConfig"`
		Targets []struct {
			Expr   string `json:"expr"`
			Legend string `json:"legendFormat"`
		} `json:"targets"`
	} `json:"panels"`
}

// repoDir is the project's checkout: go test runs the suite in e2e/, its
// parent. (Not runtime.Caller: make test builds with -trimpath, which leaves
// no file system path in the binary.)
func repoDir() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Dir(wd)
}

func loadDashboards(t *testing.T) []dashboard {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoDir(), "dashboards", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in dashboards/ (%v)", err)
	}
	var out []dashboard
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, d)
	}
	return out
}

// grafanaVars stands in for Grafana: the e2e scrape job, all instances, and a
// rate interval of four scrape intervals (what Grafana derives from 5s).
var grafanaVars = strings.NewReplacer(
	"$__rate_interval", "20s",
	"${job}", "kube-scheduler", "$job", "kube-scheduler",
	"${instance}", ".*", "$instance", ".*",
)

var legendRE = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_]+)\s*\}\}`)

// dashboardsShowData runs every panel query of the dashboards (uids) over
// the time the cluster has been up, requires at least one series from each,
// and draws them in _output/dashboards/<uid>.png (<uid>-<variant>.png for a
// variant of the run: "gates-off" when the kspatch gates are off,
// "leader-change" for the leader-change scenario).
func dashboardsShowData(ctx context.Context, t *testing.T, base string, since time.Time, uids map[string]bool, variant string) {
	if base == "" {
		t.Skip("no Prometheus (KSPATCH_PROMETHEUS)")
	}
	outDir := filepath.Join(repoDir(), "_output", "dashboards")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	for _, d := range loadDashboards(t) {
		if !uids[d.UID] {
			continue
		}
		t.Run(d.UID, func(t *testing.T) {
			var panels []chart.Panel
			for _, p := range d.Panels {
				if p.Type == "row" {
					continue // a row's header; its panels follow it
				}
				cp := chart.Panel{Title: p.Title, Unit: p.FieldConfig.Defaults.Unit}
				for _, target := range p.Targets {
					q := grafanaVars.Replace(target.Expr)
					series, err := promRangeEventually(ctx, base, q, since, end)
					if err != nil {
						t.Errorf("panel %q: %v", p.Title, err)
						continue
					}
					for _, s := range series {
						cs := chart.Series{Name: legend(target.Legend, s.Labels)}
						for _, v := range s.Samples {
							cs.Points = append(cs.Points, chart.Point{T: v.T, V: v.V})
						}
						cp.Series = append(cp.Series, cs)
					}
					t.Logf("panel %q: %d series for %s", p.Title, len(series), q)
				}
				sort.SliceStable(cp.Series, func(i, j int) bool { return cp.Series[i].Name < cp.Series[j].Name })
				panels = append(panels, cp)
			}
			var buf bytes.Buffer
			title, suffix := d.Title, ""
			switch variant {
			case "":
			case "gates-off":
				title, suffix = title+" (kspatch gates off)", "-gates-off"
			default:
				title, suffix = title+" ("+strings.ReplaceAll(variant, "-", " ")+")", "-"+variant
			}
			if err := chart.Render(&buf, title, panels); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(outDir, d.UID+suffix+".png")
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", file)
		})
	}
}

// promRangeEventually waits up to half a minute (a few scrapes) for a query
// to return a series.
func promRangeEventually(ctx context.Context, base, q string, start, end time.Time) ([]cluster.RangeSeries, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		series, err := cluster.PromQueryRange(ctx, base, q, start, end, 5*time.Second)
		if err == nil && len(series) > 0 {
			return series, nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errNoSeries
			}
			return nil, err
		}
		time.Sleep(2 * time.Second)
		end = time.Now()
	}
}

type noSeries struct{}

func (noSeries) Error() string { return "no series: the query returned nothing over the e2e run" }

var errNoSeries error = noSeries{}

func legend(format string, labels map[string]string) string {
	if format == "" {
		b, _ := json.Marshal(labels)
		return string(b)
	}
	return legendRE.ReplaceAllStringFunc(format, func(m string) string {
		return labels[legendRE.FindStringSubmatch(m)[1]]
	})
}
