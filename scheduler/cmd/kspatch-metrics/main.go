// Command kspatch-metrics lists the metric families the kspatch kube-scheduler
// registers, as JSON: [{"name": ..., "type": ...}]. It registers them the way
// the scheduler does (scheduler metrics with the default feature gates, the
// admin API's, client-go's and the build-info collector linked into the
// binary) and reads the names back from the registry, so the dashboards' lint
// checks queries against what the scheduler really exports rather than a
// hand-kept list.
//
//	go run ./cmd/kspatch-metrics > _output/scheduler-metrics.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"

	"kspatch.dev/scheduler/internal/admin"
)

// Family is one registered metric family.
type Family struct {
	Name string `json:"name"`
	// Type is counter, gauge, histogram or summary; untyped for collectors
	// that are not component-base metrics (Go runtime, process), whose
	// families are exported under their own names only.
	Type string `json:"type"`
}

func main() {
	families, err := registered()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kspatch-metrics:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(families); err != nil {
		fmt.Fprintln(os.Stderr, "kspatch-metrics:", err)
		os.Exit(1)
	}
}

// registered registers what the scheduler binary registers at start-up and
// lists the legacy registry's families.
func registered() ([]Family, error) {
	schedmetrics.Register()
	admin.RegisterMetrics()
	if fg, ok := utilfeature.DefaultMutableFeatureGate.(interface{ AddMetrics() }); ok {
		fg.AddMetrics() // kubernetes_feature_enabled, as the command does
	}
	return families(legacyregistry.Registerer())
}

var fqNameRE = regexp.MustCompile(`fqName: "([^"]+)"`)

// families lists the families of a Prometheus registry. The registry does
// not expose its collectors, so they are read from its collectorsByID field;
// the test fails loudly if a client_golang upgrade changes that.
func families(r prometheus.Registerer) ([]Family, error) {
	reg, ok := r.(*prometheus.Registry)
	if !ok {
		return nil, fmt.Errorf("the legacy registry's registerer is a %T, not a *prometheus.Registry", r)
	}
	field := reflect.ValueOf(reg).Elem().FieldByName("collectorsByID")
	if !field.IsValid() || field.Type() != reflect.TypeOf(map[uint64]prometheus.Collector{}) {
		return nil, fmt.Errorf("prometheus.Registry has no collectorsByID map: client_golang changed, update kspatch-metrics")
	}
	collectors := *(*map[uint64]prometheus.Collector)(unsafe.Pointer(field.UnsafeAddr()))

	seen := map[string]string{}
	for _, c := range collectors {
		typ := collectorType(c)
		descs := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(descs); close(descs) }()
		for d := range descs {
			m := fqNameRE.FindStringSubmatch(d.String())
			if m == nil {
				return nil, fmt.Errorf("cannot read the name of %s", d)
			}
			seen[m[1]] = typ
		}
	}
	out := make([]Family, 0, len(seen))
	for name, typ := range seen {
		out = append(out, Family{Name: name, Type: typ})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func collectorType(c prometheus.Collector) string {
	switch c.(type) {
	case *metrics.Counter, *metrics.CounterVec:
		return "counter"
	case *metrics.Gauge, *metrics.GaugeVec:
		return "gauge"
	case *metrics.Histogram, *metrics.HistogramVec, *metrics.TimingHistogram, *metrics.TimingHistogramVec:
		return "histogram"
	case *metrics.Summary, *metrics.SummaryVec:
		return "summary"
	}
	return "untyped"
}
