package admin

import (
	"iter"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"

	"kspatch.dev/adminapi"
)

// BenchmarkQueueRouteRealQueue serves /debug/queue?limit=100 from a real
// scheduling queue holding 50 000 pending Pods (unschedulable, with rejector
// plugins and failure summaries), through the router, the adapter and
// PriorityQueue.Snapshot. It reports the request latency percentiles and,
// measured from outside, the longest time a writer (PriorityQueue.Delete,
// which takes the queue lock exclusively) waited while requests ran: an upper
// bound of how long a request holds the lock, including scheduling delays of
// the writer itself; and, from inside, the time SnapshotSelect spends outside
// the selection (see timedQueue).
func BenchmarkQueueRouteRealQueue(b *testing.B) {
	const total = 50000
	q := newRealQueue(b, total)
	if n := len(q.Snapshot().Pods); n != total {
		b.Fatalf("queue holds %d pods, want %d", n, total)
	}
	timed := &timedQueue{PriorityQueue: q}
	srv := httptest.NewServer(adminapi.NewRouter(adminapi.Options{Queue: &QueueSource{Queue: timed}}))
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
	holds := timed.holds
	sort.Slice(holds, func(i, j int) bool { return holds[i] < holds[j] })
	b.ReportMetric(float64(holds[len(holds)/2].Microseconds())/1000, "p50-lock-hold-ms")
	b.ReportMetric(float64(holds[len(holds)*9/10].Microseconds())/1000, "p90-lock-hold-ms")
	b.ReportMetric(float64(holds[len(holds)*99/100].Microseconds())/1000, "p99-lock-hold-ms")
	b.ReportMetric(float64(holds[len(holds)-1].Microseconds())/1000, "max-lock-hold-ms")
}

// timedQueue times SnapshotSelect minus its choose function, which runs
// outside the queue lock: what remains is the two lock holds of a request
// (collecting the refs, copying the page) plus the unlocked allocation of
// the refs, an upper bound of the lock hold.
type timedQueue struct {
	*queue.PriorityQueue
	mu    sync.Mutex
	holds []time.Duration
}

func (t *timedQueue) SnapshotSelect(choose func(pods iter.Seq[queue.PodRef]) []queue.PodRef) queue.Snapshot {
	var chooseTime time.Duration
	start := time.Now()
	s := t.PriorityQueue.SnapshotSelect(func(pods iter.Seq[queue.PodRef]) []queue.PodRef {
		chooseStart := time.Now()
		defer func() { chooseTime = time.Since(chooseStart) }()
		return choose(pods)
	})
	d := time.Since(start) - chooseTime
	t.mu.Lock()
	t.holds = append(t.holds, d)
	t.mu.Unlock()
	return s
}
