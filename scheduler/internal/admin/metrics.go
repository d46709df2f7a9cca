package admin

import (
	"sort"
	"strconv"
	"sync"
	"time"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"kspatch.dev/adminapi"
)

var (
	requests = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      "scheduler",
		Name:           "admin_requests_total",
		Help:           "Number of requests to the kspatch admin API by route pattern and HTTP status code.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"route", "code"})
	requestDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem:      "scheduler",
		Name:           "admin_request_duration_seconds",
		Help:           "Duration of kspatch admin API requests by route pattern.",
		Buckets:        metrics.ExponentialBuckets(0.0005, 2, 14),
		StabilityLevel: metrics.ALPHA,
	}, []string{"route"})
	registerOnce sync.Once
)

// RegisterMetrics registers the admin API's metrics in the scheduler's
// (legacy) registry, the one /metrics serves.
func RegisterMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(requests, requestDuration)
	})
}

// Observer records admin API requests in the scheduler's metrics.
var Observer adminapi.RequestObserver = adminapi.RequestObserverFunc(func(route string, code int, d time.Duration) {
	requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	requestDuration.WithLabelValues(route).Observe(d.Seconds())
})

func sortReasons(r []adminapi.ReasonCount) {
	sort.Slice(r, func(i, j int) bool {
		if r[i].Count != r[j].Count {
			return r[i].Count > r[j].Count
		}
		return r[i].Reason < r[j].Reason
	})
}
