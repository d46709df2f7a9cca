package dashboards

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Family is a metric family the scheduler registers, as listed by
// scheduler/cmd/kspatch-metrics.
type Family struct {
	Name string `json:"name"`
	Type string `json:"type"` // counter, gauge, histogram, summary, untyped
}

// rateInterval is what $__rate_interval stands for while linting: an odd
// duration, so a range that did not come from the variable is recognised.
const rateInterval = 77 * time.Second

// grafanaVars are Grafana's global variables and the values they are
// replaced with before parsing.
var grafanaVars = map[string]string{
	"__rate_interval": "77s",
	"__interval":      "15s",
	"__range":         "1h",
}

var varRE = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[a-z]+)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)\]\]`)

// substitute replaces Grafana's and the dashboard's variables in a query.
// Dashboard variables become a plain value (they are used inside label
// matchers); an unknown variable is an error.
func substitute(expr string, defined map[string]bool) (string, error) {
	var unknown []string
	out := varRE.ReplaceAllStringFunc(expr, func(m string) string {
		sm := varRE.FindStringSubmatch(m)
		name := sm[1] + sm[2] + sm[3]
		if v, ok := grafanaVars[name]; ok {
			return v
		}
		if defined[name] {
			return "x"
		}
		unknown = append(unknown, name)
		return m
	})
	if len(unknown) > 0 {
		return "", fmt.Errorf("undefined variable(s) %s", strings.Join(unknown, ", "))
	}
	return out, nil
}

// model is the part of Grafana's dashboard JSON model the lint reads.
type model struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name       string          `json:"name"`
			Type       string          `json:"type"`
			Query      json.RawMessage `json:"query"`
			Datasource json.RawMessage `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID          int                 `json:"id"`
	Type        string              `json:"type"`
	Title       string              `json:"title"`
	Description string              `json:"description"`
	GridPos     *struct{ H, W int } `json:"gridPos"`
	Panels      []panel             `json:"panels"` // collapsed rows
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// Lint checks one dashboard file against Grafana's model and the scheduler's
// metrics (families keyed by name; nil skips the metric checks). It returns
// every problem found.
func Lint(raw []byte, families map[string]string) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	var d model
	if err := json.Unmarshal(raw, &d); err != nil {
		return []error{fmt.Errorf("not a dashboard JSON model: %w", err)}
	}
	if d.UID == "" || d.Title == "" {
		fail("uid and title are required")
	}
	if d.SchemaVersion != SchemaVersion {
		fail("schemaVersion is %d, want %d", d.SchemaVersion, SchemaVersion)
	}
	var tree any
	_ = json.Unmarshal(raw, &tree)
	checkDatasources(tree, "", fail)

	defined := map[string]bool{}
	for _, v := range d.Templating.List {
		defined[v.Name] = true
	}
	if !hasDatasourceVar(d) {
		fail(`templating needs a variable "datasource" of type datasource with query "prometheus"`)
	}
	for _, name := range []string{"job", "instance"} {
		if !defined[name] {
			fail("templating needs a %q variable", name)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct{ Query string }
		if err := json.Unmarshal(v.Query, &q); err != nil {
			fail("variable %s: query: %v", v.Name, err)
			continue
		}
		sel, ok := labelValuesSelector(q.Query)
		if !ok {
			fail("variable %s: query %q is not label_values(selector, label)", v.Name, q.Query)
			continue
		}
		for _, err := range lintExpr(sel, defined, families, false) {
			fail("variable %s: %v", v.Name, err)
		}
	}

	if len(d.Panels) == 0 {
		fail("no panels")
	}
	ids := map[int]string{}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			if prev, dup := ids[p.ID]; dup || p.ID == 0 {
				fail("panel %q: id %d is missing or already used by %q", p.Title, p.ID, prev)
			}
			ids[p.ID] = p.Title
			if p.Type == "row" {
				continue
			}
			if p.Title == "" || p.Description == "" {
				fail("panel %d: title and description are required", p.ID)
			}
			if p.FieldConfig.Defaults.Unit == "" {
				fail("panel %q: no unit (fieldConfig.defaults.unit)", p.Title)
			}
			if p.GridPos == nil || p.GridPos.H == 0 || p.GridPos.W == 0 {
				fail("panel %q: no gridPos", p.Title)
			}
			if len(p.Targets) == 0 {
				fail("panel %q: no queries", p.Title)
			}
			for _, t := range p.Targets {
				for _, err := range lintExpr(t.Expr, defined, families, true) {
					fail("panel %q query %s: %v", p.Title, t.RefID, err)
				}
			}
		}
	}
	walk(d.Panels)
	return errs
}

func hasDatasourceVar(d model) bool {
	for _, v := range d.Templating.List {
		var q string
		if v.Name == "datasource" && v.Type == "datasource" && json.Unmarshal(v.Query, &q) == nil && q == "prometheus" {
			return true
		}
	}
	return false
}

// checkDatasources walks the whole model: every datasource reference must
// name a variable, never a uid of one Grafana instance.
func checkDatasources(n any, path string, fail func(string, ...any)) {
	switch n := n.(type) {
	case map[string]any:
		for k, v := range n {
			p := path + "." + k
			if k == "datasource" {
				switch ds := v.(type) {
				case string:
					if !strings.HasPrefix(ds, "$") {
						fail("%s: hard-coded datasource %q (use ${datasource})", p, ds)
					}
				case map[string]any:
					switch uid, _ := ds["uid"].(string); {
					case uid == "":
						fail("%s: datasource without a uid (use ${datasource})", p)
					case !strings.HasPrefix(uid, "$"):
						fail("%s: hard-coded datasource uid %q (use ${datasource})", p, uid)
					}
				}
			}
			checkDatasources(v, p, fail)
		}
	case []any:
		for i, v := range n {
			checkDatasources(v, fmt.Sprintf("%s[%d]", path, i), fail)
		}
	}
}

var labelValuesRE = regexp.MustCompile(`^label_values\((.+),\s*[A-Za-z_][A-Za-z0-9_]*\)$`)

func labelValuesSelector(q string) (string, bool) {
	m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// rateFuncs are the functions a counter (or a histogram's buckets, sum and
// count) must be wrapped in.
var rateFuncs = map[string]bool{"rate": true, "irate": true, "increase": true}

// lintExpr parses one query and checks the metrics it names.
func lintExpr(expr string, defined map[string]bool, families map[string]string, panelQuery bool) []error {
	var errs []error
	s, err := substitute(expr, defined)
	if err != nil {
		return []error{err}
	}
	parsed, err := parser.NewParser(parser.Options{}).ParseExpr(s)
	if err != nil {
		return []error{fmt.Errorf("PromQL: %w", err)}
	}
	parser.Inspect(parsed, func(node parser.Node, path []parser.Node) error {
		switch n := node.(type) {
		case *parser.MatrixSelector:
			if panelQuery && n.Range != rateInterval {
				errs = append(errs, fmt.Errorf("range [%s] in %s: use [$__rate_interval]", n.Range, n))
			}
		case *parser.VectorSelector:
			name := n.Name
			if name == "" {
				for _, m := range n.LabelMatchers {
					if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
						name = m.Value
					}
				}
			}
			if name == "" {
				errs = append(errs, fmt.Errorf("selector %s names no metric", n))
				return nil
			}
			cumulative := strings.HasSuffix(name, "_total")
			if families != nil {
				kind, ok := resolve(name, families)
				if !ok {
					errs = append(errs, fmt.Errorf("metric %s is not exported by the kspatch scheduler", name))
				}
				cumulative = cumulative || kind == "counter" || kind == "histogram" || kind == "summary"
			}
			if cumulative && panelQuery && !insideRate(path) {
				errs = append(errs, fmt.Errorf("counter %s must be inside rate(), irate() or increase()", name))
			}
		}
		return nil
	})
	return errs
}

// resolve finds the family a sample name belongs to: the family itself, or
// a histogram's or summary's _bucket, _sum and _count series. The kind
// returned is the series' kind: counter for cumulative series.
func resolve(name string, families map[string]string) (string, bool) {
	if t, ok := families[name]; ok {
		if t == "histogram" || t == "summary" {
			return t, false // the family name itself is not a series
		}
		return t, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, found := strings.CutSuffix(name, suffix)
		if !found {
			continue
		}
		switch families[base] {
		case "histogram":
			return "counter", true
		case "summary":
			if suffix != "_bucket" {
				return "counter", true
			}
		}
	}
	return "", false
}

func insideRate(path []parser.Node) bool {
	for i := len(path) - 1; i >= 0; i-- {
		if c, ok := path[i].(*parser.Call); ok {
			return rateFuncs[c.Func.Name]
		}
	}
	return false
}
