package adminapi

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// TestMountedUnderPrefix serves the router under /debug/kspatch the two ways
// the scheduler may mount it, and checks that routes, path parameters,
// pprof and relative redirects work there.
func TestMountedUnderPrefix(t *testing.T) {
	var mu sync.Mutex
	var routes []string
	opts := fixtureOptions()
	opts.Observer = RequestObserverFunc(func(route string, _ int, _ time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		routes = append(routes, route)
	})

	viaChi := chi.NewRouter()
	viaChi.Mount("/debug/kspatch", NewRouter(opts))

	viaMux := http.NewServeMux()
	viaMux.Handle("/debug/kspatch/", http.StripPrefix("/debug/kspatch", NewRouter(opts)))

	for name, h := range map[string]http.Handler{"chi.Mount": viaChi, "http.StripPrefix": viaMux} {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				target string
				code   int
				want   string
			}{
				{"/debug/kspatch/healthz", 200, "ok"},
				{"/debug/kspatch/debug/queue?limit=2", 200, "coredns-extra"},
				{"/debug/kspatch/debug/queue/pods/team-a/trainer-0", 200, "Pod:                     team-a/trainer-0"},
				{"/debug/kspatch/debug/apicalls", 200, "pod_status_patch"},
				{"/debug/kspatch/debug/placements/ml/llama-train", 200, "Chosen placement:   rack=r1"},
				{"/debug/kspatch/debug/pprof/", 200, "goroutine"},
				{"/debug/kspatch/debug/pprof/goroutine?debug=1", 200, "goroutine profile:"},
				{"/debug/kspatch/debug/pprof/heap?debug=1", 200, "heap profile:"},
				{"/debug/kspatch/debug/nothing", 404, "no route"},
			} {
				rec := get(h, tc.target, "")
				if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
					t.Errorf("GET %s: %d, want %d with %q; body:\n%.300s", tc.target, rec.Code, tc.code, tc.want, rec.Body)
				}
			}
			rec := get(h, "/debug/kspatch/debug/pprof/ui?seconds=1", "")
			if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "ui/?seconds=1" {
				t.Errorf("ui redirect: %d %v", rec.Code, rec.Header())
			}
			if rec := do(h, http.MethodPost, "/debug/kspatch/debug/queue", ""); rec.Code != http.StatusMethodNotAllowed {
				t.Errorf("POST: %d", rec.Code)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range routes {
		if strings.Contains(r, "trainer") || strings.Contains(r, "llama") {
			t.Errorf("observed route %q carries a raw path", r)
		}
	}
}
