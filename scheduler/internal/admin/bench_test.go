package admin

import (
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/adminapi"
)

// BenchmarkQueueRouteRealQueue serves /debug/queue?limit=100 from a real
// scheduling queue holding 50 000 pending Pods (unschedulable, with rejector
// plugins and failure summaries), through the router, the adapter and
// PriorityQueue.Snapshot. It reports the request latency percentiles and,
// measured from outside, the longest time a writer (PriorityQueue.Delete,
// which takes the queue lock exclusively) waited while requests ran: an upper
// bound of how long a request holds the lock.
func BenchmarkQueueRouteRealQueue(b *testing.B) {
	const total = 50000
	q := newRealQueue(b, total)
	if n := len(q.Snapshot().Pods); n != total {
		b.Fatalf("queue holds %d pods, want %d", n, total)
	}
	srv := httptest.NewServer(adminapi.NewRouter(adminapi.Options{Queue: &QueueSource{Queue: q}}))
	defer srv.Close()

	// The writer: measures how long the queue lock makes it wait.
	var (
		mu       sync.Mutex
		maxWait  time.Duration
		stop     = make(chan struct{})
		writerWG sync.WaitGroup
	)
	absent := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "none", Name: "none"}}
	writerWG.Add(1)
	go func() {
		defer writerWG.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			q.Delete(absent)
			if d := time.Since(start); d > 0 {
				mu.Lock()
				if d > maxWait {
					maxWait = d
				}
				mu.Unlock()
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()

	client := srv.Client()
	latencies := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		resp, err := client.Get(srv.URL + "/debug/queue?limit=100")
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
		latencies = append(latencies, time.Since(start))
	}
	b.StopTimer()
	close(stop)
	writerWG.Wait()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(maxWait.Microseconds())/1000, "max-lock-wait-ms")
}
