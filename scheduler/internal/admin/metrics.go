package admin

import (
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
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
	// leading answers scheduler_leading; nil until SetLeading.
	leading atomic.Pointer[func() bool]
)

// leadingValue is scheduler_leading's value.
func leadingValue() float64 {
	if f := leading.Load(); f != nil && (*f)() {
		return 1
	}
	return 0
}

// SetLeading tells scheduler_leading whether this instance schedules: it
// holds the leader-election lease, or runs without leader election
// (app.WithLeaderStatus).
func SetLeading(isLeader func() bool) { leading.Store(&isLeader) }

// RegisterMetrics registers the admin API's metrics, and scheduler_leading,
// in the scheduler's (legacy) registry, the one /metrics serves.
func RegisterMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(requests, requestDuration)
		// A GaugeFunc, read at scrape time. Unlike client-go's
		// leader_election_master_status, which a replica exports only once
		// it has led, every instance exports it: the overview dashboard
		// shows the leader per instance, followers at 0.
		legacyregistry.RawMustRegister(metrics.NewGaugeFunc(&metrics.GaugeOpts{
			Subsystem:      "scheduler",
			Name:           "leading",
			Help:           "1 while this kube-scheduler schedules pods (it holds the leader-election lease, or runs without leader election), 0 while it waits for the lease.",
			StabilityLevel: metrics.ALPHA,
		}, leadingValue))
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
