package adminapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// queue50k returns a source of 50 000 pending pods in random order (as a
// map-backed queue would hand them out) that shares one immutable snapshot
// between requests, so the benchmark measures the router, not the copy.
func queue50k() *fakeQueue {
	rng := rand.New(rand.NewPCG(50, 0))
	qs := Queues()
	pods := make([]QueuedPod, 50000)
	for i := range pods {
		pods[i] = QueuedPod{
			Namespace:               fmt.Sprintf("team-%02d", rng.IntN(40)),
			Name:                    fmt.Sprintf("job-%05d-worker-%d", rng.IntN(20000), i%8),
			UID:                     fmt.Sprintf("%08x-%04x", rng.Uint32(), i&0xffff),
			Queue:                   qs[rng.IntN(len(qs))],
			Priority:                int32(rng.IntN(3) * 1000),
			Attempts:                rng.IntN(5),
			InitialAttemptTimestamp: base().Add(-time.Duration(rng.IntN(7200)) * time.Second),
			Timestamp:               base().Add(-time.Duration(rng.IntN(3600)) * time.Second),
			UnschedulablePlugins:    []string{"NodeResourcesFit"},
			PodGroup:                fmt.Sprintf("group-%d", i%500),
		}
	}
	return &fakeQueue{shared: true, snap: QueueSnapshot{TakenAt: base(), SchedulingCycle: 1, Pods: pods}}
}

// BenchmarkQueue50k measures GET /debug/queue?limit=100 over 50 000 pods and
// reports the p99 latency of the iterations besides ns/op.
func BenchmarkQueue50k(b *testing.B) {
	q := queue50k()
	h := NewRouter(Options{Queue: q})
	// A token pointing into the middle of the queue.
	sorted := slices.Clone(q.snap.Pods)
	slices.SortFunc(sorted, func(x, y QueuedPod) int { return keyOf(&x).Compare(keyOf(&y)) })
	mid := encodeContinue(keyOf(&sorted[len(sorted)/2]), queueParams{}.filterHash())

	for _, bc := range []struct{ name, target, accept string }{
		{"text", "/debug/queue?limit=100", ""},
		{"json", "/debug/queue?limit=100", "application/json"},
		{"continue", "/debug/queue?limit=100&continue=" + mid, ""},
		{"filtered", "/debug/queue?limit=100&queue=backoff&plugin=NodeResourcesFit", ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bc.target, nil)
			if bc.accept != "" {
				req.Header.Set("Accept", bc.accept)
			}
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				start := time.Now()
				h.ServeHTTP(rec, req)
				lat = append(lat, time.Since(start))
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}

// TestQueue50kLatency records the p99 latency of the 50k-pod listing in the
// test log (go test -run Queue50k -v); it fails only on a gross regression.
func TestQueue50kLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 50 000 pods")
	}
	h := NewRouter(Options{Queue: queue50k()})
	const n = 200
	lat := make([]time.Duration, 0, n)
	for range n {
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/queue?limit=100", nil))
		lat = append(lat, time.Since(start))
		if rec.Code != http.StatusOK {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	slices.Sort(lat)
	p50, p99 := lat[n/2], lat[n*99/100]
	t.Logf("GET /debug/queue?limit=100 over 50000 pods: p50 %v, p99 %v (%d requests)", p50, p99, n)
	// Generous: the race detector slows this ~10x.
	if p99 > 2*time.Second {
		t.Errorf("p99 %v", p99)
	}
}
