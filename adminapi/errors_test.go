package adminapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBadRequests(t *testing.T) {
	h := NewRouter(fixtureOptions())
	for _, tc := range []struct {
		target string
		want   string // in the message, naming the parameter and what is allowed
	}{
		{"/debug/queue?limit=abc", `invalid limit "abc": must be an integer between 1 and 5000`},
		{"/debug/queue?limit=0", `invalid limit "0": must be an integer between 1 and 5000`},
		{"/debug/queue?limit=5001", `invalid limit "5001"`},
		{"/debug/queue?limit=1&limit=2", `query parameter "limit" is given more than once`},
		{"/debug/queue?queue=ready", `invalid queue "ready": allowed values are active, backoff, unschedulable, gated, inFlight`},
		{"/debug/queue?queue=active,,backoff", `invalid queue "": allowed values`},
		{"/debug/queue?namespace=", `invalid namespace "": must not be empty`},
		{"/debug/queue?podGroup=", `invalid podGroup ""`},
		{"/debug/queue?plugin=", `invalid plugin ""`},
		{"/debug/queue?namespace=" + strings.Repeat("x", 300), `invalid namespace "xxxx`},
		{"/debug/queue?output=yaml", `invalid output "yaml": allowed values are text, json`},
		{"/debug/queue?continue=abc", `invalid continue token`},
		{"/debug/queue?sort=age", `unknown query parameter "sort": allowed parameters are continue, limit, namespace, output, plugin, podGroup, queue`},
		{"/debug/queue?Limit=3", `unknown query parameter "Limit"`},
		{"/debug/queue?%zz=1", `query parameter "%zz" is not correctly URL-encoded`},
		{"/debug/queue?namespace=%zz", `invalid namespace: the value is not correctly URL-encoded`},
		{"/debug/queue;limit=3", `no route`},
		{"/debug/queue/pods/a/b?limit=3", `unknown query parameter "limit": allowed parameters are output`},
		{"/debug/apicalls?type=", `invalid type ""`},
		{"/debug/apicalls?limit=-1", `invalid limit "-1": must be an integer between 1 and 5000`},
		{"/debug/apicalls?namespace=a", `unknown query parameter "namespace": allowed parameters are limit, output, type`},
		{"/debug/placements?limit=1001", `invalid limit "1001": must be an integer between 1 and 1000`},
		{"/debug/placements/ml/llama-train?queue=active", `unknown query parameter "queue": allowed parameters are limit, output`},
		{"/debug/pprof/profile?seconds=61", `invalid seconds "61": must be an integer between 1 and 60`},
		{"/debug/pprof/profile?seconds=0", `invalid seconds "0"`},
		{"/debug/pprof/trace?seconds=1.5", `invalid seconds "1.5"`},
		{"/debug/pprof/heap?debug=3", `invalid debug "3": must be an integer between 0 and 2`},
		{"/debug/pprof/ui/?seconds=600", `invalid seconds "600": must be an integer between 1 and 60`},
		{"/debug/pprof/cmdline?x=1", `unknown query parameter "x": this route takes no query parameters`},
	} {
		rec := get(h, tc.target, "")
		wantCode := http.StatusBadRequest
		if tc.want == "no route" {
			wantCode = http.StatusNotFound
		}
		if rec.Code != wantCode || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("GET %s: %d %q, want %d containing %q", tc.target, rec.Code, rec.Body, wantCode, tc.want)
		}
	}
}

func TestErrorsAreJSONWhenAsked(t *testing.T) {
	h := NewRouter(Options{Queue: fixtureQueue()})
	for _, tc := range []struct {
		method, target string
		code           int
		reason         string
	}{
		{"GET", "/debug/queue?limit=x&output=json", 400, "BadRequest"},
		{"GET", "/debug/queue?output=yaml", 400, "BadRequest"}, // Accept decides
		{"GET", "/nope", 404, "NotFound"},
		{"POST", "/debug/queue", 405, "MethodNotAllowed"},
		{"GET", "/debug/apicalls", 501, "NotImplemented"},
	} {
		rec := do(h, tc.method, tc.target, "application/json")
		var st statusDoc
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatalf("%s %s: not JSON: %s", tc.method, tc.target, rec.Body)
		}
		if rec.Code != tc.code || st.Code != tc.code || st.Reason != tc.reason || st.Kind != "Status" || st.APIVersion != APIVersion || st.Message == "" {
			t.Errorf("%s %s: %d %+v", tc.method, tc.target, rec.Code, st)
		}
	}
}

func TestNotFound(t *testing.T) {
	h := NewRouter(fixtureOptions())
	for _, tc := range []struct{ target, want string }{
		{"/debug/queue/pods/team-a/gone", "pod team-a/gone is not in the scheduling queue"},
		{"/debug/queue/pods/team-a", "no route /debug/queue/pods/team-a"},
		{"/debug/nothing", "no route /debug/nothing"},
		{"/", "no route /"},
		{"/debug/placements/ml/unknown", "no placement decisions recorded for pod group ml/unknown"},
		{"/debug/pprof/nosuch", `unknown profile "nosuch": available are allocs, block, cmdline, goroutine, heap, mutex`},
		{"/debug/pprof/ui/s/99/top", "this pprof UI session is gone"},
	} {
		rec := get(h, tc.target, "")
		if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("GET %s: %d %q, want 404 containing %q", tc.target, rec.Code, rec.Body, tc.want)
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	h := NewRouter(fixtureOptions())
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
		for _, target := range []string{"/debug/queue", "/debug/queue/pods/a/b", "/debug/apicalls", "/debug/placements", "/debug/pprof/profile", "/debug/pprof/ui/s/1/saveconfig", "/healthz"} {
			rec := do(h, m, target, "")
			if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" ||
				!strings.Contains(rec.Body.String(), "read-only") {
				t.Errorf("%s %s: %d Allow=%q %q", m, target, rec.Code, rec.Header().Get("Allow"), rec.Body)
			}
		}
	}
}

func TestHead(t *testing.T) {
	h := NewRouter(fixtureOptions())
	rec := do(h, http.MethodHead, "/debug/queue", "")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD /debug/queue: %d %v", rec.Code, rec.Header())
	}
}

func TestHealthz(t *testing.T) {
	rec := get(NewRouter(Options{}), "/healthz", "")
	if rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Errorf("/healthz: %d %q", rec.Code, rec.Body)
	}
}

func TestNotImplemented(t *testing.T) {
	h := NewRouter(Options{})
	for _, tc := range []struct{ target, want string }{
		{"/debug/apicalls", "SchedulerAsyncAPICalls"},
		{"/debug/placements", "GangScheduling / TopologyAwareWorkloadScheduling"},
		{"/debug/placements/ml/llama-train", "GangScheduling / TopologyAwareWorkloadScheduling"},
		{"/debug/queue", "scheduling queue is not available"},
		{"/debug/queue/pods/a/b", "scheduling queue is not available"},
	} {
		rec := get(h, tc.target, "")
		if rec.Code != http.StatusNotImplemented || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("GET %s: %d %q", tc.target, rec.Code, rec.Body)
		}
	}
}

// TestConcurrencyLimit: requests beyond MaxConcurrentRequests get 429 with
// Retry-After while the others are being served; health checks pass.
func TestConcurrencyLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	q := fixtureQueue()
	q.hook = func(ctx context.Context) error {
		entered <- struct{}{}
		<-release
		return nil
	}
	h := NewRouter(Options{Queue: q, MaxConcurrentRequests: 2})
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- get(h, "/debug/queue", "").Code
		}()
	}
	<-entered
	<-entered
	rec := get(h, "/debug/apicalls", "")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "at most 2") {
		t.Errorf("third request: %d Retry-After=%q %q", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if rec := get(h, "/healthz", ""); rec.Code != http.StatusOK {
		t.Errorf("/healthz under load: %d", rec.Code)
	}
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("blocked request: %d", c)
		}
	}
	if rec := get(h, "/debug/queue", ""); rec.Code != http.StatusOK {
		t.Errorf("after release: %d", rec.Code)
	}
}

// TestTimeout: a source that does not answer in time gets the client a 503;
// it keeps its concurrency slot until it returns.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{})
	q := fixtureQueue()
	q.hook = func(ctx context.Context) error {
		defer func() { returned <- struct{}{} }()
		<-release // ignores ctx, like a source stuck on a lock
		return nil
	}
	h := NewRouter(Options{Queue: q, RequestTimeout: 20 * time.Millisecond, MaxConcurrentRequests: 1})
	start := time.Now()
	rec := get(h, "/debug/queue", "")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "did not answer within 20ms") {
		t.Errorf("stuck source: %d %q", rec.Code, rec.Body)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout took %v", d)
	}
	if rec := get(h, "/debug/queue", ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("while the stuck call holds the slot: %d", rec.Code)
	}
	close(release)
	<-returned
	q.hook = nil
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec := get(h, "/debug/queue", "")
		if rec.Code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot not released: %d", rec.Code)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSourceError(t *testing.T) {
	q := fixtureQueue()
	q.hook = func(context.Context) error { return errors.New("queue closed") }
	rec := get(NewRouter(Options{Queue: q}), "/debug/queue", "")
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "queue closed") {
		t.Errorf("%d %q", rec.Code, rec.Body)
	}
}

// TestPanic: a panicking source gives a 500 with a generic message; the
// stack goes to the log only.
func TestPanic(t *testing.T) {
	var logs bytes.Buffer
	q := fixtureQueue()
	q.hook = func(context.Context) error { panic("boom in the source") }
	var observed []int
	h := NewRouter(Options{
		Queue:    q,
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
		Observer: RequestObserverFunc(func(_ string, code int, _ time.Duration) { observed = append(observed, code) }),
	})
	for _, target := range []string{"/debug/queue", "/debug/queue/pods/team-a/trainer-0"} {
		for _, accept := range []string{"", "application/json"} {
			rec := get(h, target, accept)
			body := rec.Body.String()
			if rec.Code != http.StatusInternalServerError || !strings.Contains(body, "internal error") ||
				strings.Contains(body, "boom") || strings.Contains(body, "goroutine") || strings.Contains(body, ".go:") {
				t.Errorf("GET %s: %d %q", target, rec.Code, body)
			}
		}
	}
	if !strings.Contains(logs.String(), "boom in the source") || !strings.Contains(logs.String(), "fake_test.go") {
		t.Errorf("the log lacks the panic and its stack:\n%s", logs.String())
	}
	if len(observed) != 4 || observed[0] != http.StatusInternalServerError {
		t.Errorf("observed %v", observed)
	}
}

// TestResponseTooLarge: a response beyond MaxResponseBytes is refused.
func TestResponseTooLarge(t *testing.T) {
	h := NewRouter(Options{Queue: fixtureQueue(), MaxResponseBytes: 600})
	for _, accept := range []string{"", "application/json"} {
		rec := get(h, "/debug/queue", accept)
		if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "exceeds 600 bytes") {
			t.Errorf("%d %q", rec.Code, rec.Body)
		}
	}
	if rec := get(h, "/debug/queue?limit=1", ""); rec.Code != http.StatusOK {
		t.Errorf("small page: %d %s", rec.Code, rec.Body)
	}
}

func TestObserverRoutes(t *testing.T) {
	type obs struct {
		route string
		code  int
	}
	var mu sync.Mutex
	var got []obs
	opts := fixtureOptions()
	opts.Observer = RequestObserverFunc(func(route string, code int, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, obs{route, code})
	})
	h := NewRouter(opts)
	for _, target := range []string{"/debug/queue/pods/team-a/trainer-0", "/debug/queue/pods/x/y", "/debug/placements/ml/llama-train",
		"/debug/queue?limit=x", "/no/such/path", "/healthz", "/debug/pprof/heap"} {
		get(h, target, "")
	}
	do(h, http.MethodPost, "/debug/queue", "")
	want := []obs{
		{"/debug/queue/pods/{namespace}/{name}", 200},
		{"/debug/queue/pods/{namespace}/{name}", 404},
		{"/debug/placements/{namespace}/{podGroup}", 200},
		{"/debug/queue", 400},
		{"unmatched", 404},
		{"/healthz", 200},
		{"/debug/pprof/{profile}", 200},
	}
	if len(got) != len(want)+1 {
		t.Fatalf("observed %v", got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("request %d: observed %v, want %v", i, got[i], w)
		}
	}
	if last := got[len(got)-1]; last.code != http.StatusMethodNotAllowed {
		t.Errorf("POST observed as %v", last)
	}
}

func TestSecurityHeaders(t *testing.T) {
	rec := get(NewRouter(fixtureOptions()), "/debug/queue", "")
	if rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", rec.Header())
	}
}
