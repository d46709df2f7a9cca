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

	"github.com/go-chi/chi/v5"
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
	// One pod and no pod group (their table would not fit in 600 bytes).
	if rec := get(h, "/debug/queue?limit=1&namespace=kube-system", ""); rec.Code != http.StatusOK {
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

// TestPathParams: the namespace and name in a path are checked like query
// parameters (a namespace is a DNS label, a pod name a DNS subdomain, a pod
// group name a DNS subdomain of at most 63 characters), and whatever an
// error body echoes is bounded and escaped.
func TestPathParams(t *testing.T) {
	h := NewRouter(fixtureOptions())
	const (
		nsRule   = "must be a DNS label: at most 63 characters"
		nameRule = "must be a DNS subdomain: at most 253 characters"
		// A pod group's name is a label value too (TestPodGroupNameParams).
		groupRule = "must be a pod group name: at most 63 characters"
	)
	long := strings.Repeat("a", 5000)
	for _, tc := range []struct {
		target string
		code   int
		want   string
	}{
		// Control characters: ESC, CR, LF.
		{"/debug/queue/pods/team-a/x%1B%5B31mred", 400, `invalid name "x\x1b[31mred": ` + nameRule},
		{"/debug/queue/pods/team%0D%0AX-Injected:%201/p", 400, `invalid namespace "team\r\nX-Injected: 1": ` + nsRule},
		{"/debug/queue/pods/team-a/a%0Ab", 400, `invalid name "a\nb": ` + nameRule},
		// Lengths.
		{"/debug/queue/pods/team-a/" + long, 400, `invalid name "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": ` + nameRule},
		{"/debug/queue/pods/" + long + "/p", 400, `invalid namespace "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": ` + nsRule},
		{"/debug/queue/pods/" + strings.Repeat("n", 64) + "/p", 400, "invalid namespace"},
		{"/debug/queue/pods/team-a/" + strings.Repeat("p", 254), 400, "invalid name"},
		{"/debug/queue/pods/" + strings.Repeat("n", 63) + "/" + strings.Repeat("p", 253), 404,
			"pod " + strings.Repeat("n", 63) + "/" + strings.Repeat("p", 253) + " is not in the scheduling queue"},
		// Syntax.
		{"/debug/queue/pods/team-a/Trainer-0", 400, `invalid name "Trainer-0"`},
		{"/debug/queue/pods/team_a/p", 400, `invalid namespace "team_a"`},
		{"/debug/queue/pods/team.a/p", 400, `invalid namespace "team.a"`},
		{"/debug/queue/pods/-team/p", 400, `invalid namespace "-team"`},
		{"/debug/queue/pods/team-/p", 400, `invalid namespace "team-"`},
		{"/debug/queue/pods/team-a/-p", 400, `invalid name "-p"`},
		{"/debug/queue/pods/team-a/p.", 400, `invalid name "p."`},
		{"/debug/queue/pods/team-a/a..b", 400, `invalid name "a..b"`},
		{"/debug/queue/pods/team-a/a.-b", 400, `invalid name "a.-b"`},
		{"/debug/queue/pods/team-a/a%2Fb", 400, `invalid name "a/b"`},
		{"/debug/queue/pods/team-a/%E2%80%AEgpj", 400, `invalid name "\u202egpj"`},
		{"/debug/queue/pods/team-a/a.b-c.0", 404, "pod team-a/a.b-c.0 is not in the scheduling queue"},
		{"/debug/queue/pods/0/9", 404, "pod 0/9 is not in the scheduling queue"},
		{"/debug/queue/pods/team-a/trainer-0", 200, "Pod:                     team-a/trainer-0\n"},
		// The same for the per-group placements route.
		{"/debug/placements/ml/" + long, 400, `invalid podGroup "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": ` + groupRule},
		{"/debug/placements/m%1Bl/llama-train", 400, `invalid namespace "m\x1bl": ` + nsRule},
		{"/debug/placements/ml/Llama", 400, `invalid podGroup "Llama"`},
		// No route: the path is echoed escaped and cut short.
		{"/debug/nothing%1B%5B2J%0D%0A" + long, 404, `no route /debug/nothing\x1b[2J\r\naaaa`},
		{"/debug/nothing%E2%80%AE%5C", 404, `no route /debug/nothing\u202e\\;`},
		// Other echoed names are cut short too.
		{"/debug/pprof/" + long, 404, `unknown profile "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": available are`},
		{"/debug/queue?" + long + "=1", 400, `unknown query parameter "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": allowed parameters are`},
		{"/debug/queue?%zz" + long + "=1", 400, `query parameter "%zzaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..." is not correctly URL-encoded`},
	} {
		rec := get(h, tc.target, "")
		body := rec.Body.String()
		if rec.Code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET %.80s: %d %.300q, want %d containing %q", tc.target, rec.Code, body, tc.code, tc.want)
		}
		if tc.code == http.StatusOK {
			continue
		}
		// One line, without control characters, of bounded length.
		msg := strings.TrimSuffix(body, "\n")
		for i, r := range msg {
			if r < 0x20 || r == 0x7f || r == '\u202e' {
				t.Errorf("GET %.80s: the error body has control character %q at %d: %.300q", tc.target, r, i, body)
				break
			}
		}
		if len(body) > 512 {
			t.Errorf("GET %.80s: the error body is %d bytes long: %.300q", tc.target, len(body), body)
		}
	}
}

// TestObserverMethodNotAllowed: a 405 is counted under the route whose
// method was refused, not as "unmatched" (which is for paths no route has).
func TestObserverMethodNotAllowed(t *testing.T) {
	type obs struct {
		route string
		code  int
	}
	var got []obs
	opts := fixtureOptions()
	opts.Observer = RequestObserverFunc(func(route string, code int, _ time.Duration) {
		got = append(got, obs{route, code})
	})
	h := NewRouter(opts)
	mounted := chi.NewRouter()
	mounted.Mount("/debug/kspatch", NewRouter(opts))
	for _, tc := range []struct {
		h              http.Handler
		method, target string
		want           obs
	}{
		{h, http.MethodPost, "/debug/queue", obs{"/debug/queue", 405}},
		{h, http.MethodDelete, "/debug/queue/pods/team-a/trainer-0", obs{"/debug/queue/pods/{namespace}/{name}", 405}},
		{h, http.MethodPut, "/healthz", obs{"/healthz", 405}},
		{h, http.MethodPatch, "/debug/apicalls?limit=1", obs{"/debug/apicalls", 405}},
		{h, http.MethodOptions, "/debug/placements/ml/llama-train", obs{"/debug/placements/{namespace}/{podGroup}", 405}},
		{h, http.MethodPost, "/debug/pprof/profile", obs{"/debug/pprof/profile", 405}},
		{h, http.MethodPost, "/debug/pprof/heap", obs{"/debug/pprof/{profile}", 405}},
		{h, http.MethodPost, "/debug/pprof/ui/s/1/saveconfig", obs{"/debug/pprof/ui/s/{session}/*", 405}},
		{h, "BREW", "/debug/queue", obs{"/debug/queue", 405}}, // a method chi does not know
		{mounted, http.MethodPost, "/debug/kspatch/debug/queue", obs{"/debug/kspatch/debug/queue", 405}},
		// No route has the path: unmatched, whatever the method.
		{h, http.MethodPost, "/no/such/path", obs{"unmatched", 404}},
		{h, http.MethodGet, "/no/such/path", obs{"unmatched", 404}},
		// The route's own methods.
		{h, http.MethodGet, "/debug/queue", obs{"/debug/queue", 200}},
		{h, http.MethodHead, "/debug/queue/pods/team-a/trainer-0", obs{"/debug/queue/pods/{namespace}/{name}", 200}},
	} {
		got = nil
		do(tc.h, tc.method, tc.target, "")
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s %s: observed %v, want [%v]", tc.method, tc.target, got, tc.want)
		}
	}
}

func TestEchoHelpers(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"/debug/queue", 128, "/debug/queue"},
		{"a\x1b[0mb\r\n\tc", 128, `a\x1b[0mb\r\n\tc`},
		{"a\xffb", 128, `a\xffb`},
		{`a\x1bb`, 128, `a\\x1bb`}, // a literal backslash is not an escape
		{"\u202eré\u00a0", 128, `\u202eré\u00a0`},
		{"abcdef", 3, "abc..."},
		{"ab\x1b", 4, "ab..."}, // an escape is not split
	} {
		if got := printable(tc.in, tc.limit); got != tc.want {
			t.Errorf("printable(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), strings.Repeat("a", 32) + "..."},
		{strings.Repeat("é", 40), strings.Repeat("é", 16) + "..."},
		{"a" + strings.Repeat("é", 40), "a" + strings.Repeat("é", 15) + "..."}, // not cut inside a character
	} {
		if got := clip(tc.in); got != tc.want {
			t.Errorf("clip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
