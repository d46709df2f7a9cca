package adminapi

import (
	"bytes"
	"io"
	"net/http"
	rpprof "runtime/pprof"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/pprof/profile"
)

func TestPprofProfiles(t *testing.T) {
	h := NewRouter(Options{})
	for _, tc := range []struct{ target, want string }{
		{"/debug/pprof/", "Types of profiles available"},
		{"/debug/pprof/goroutine?debug=2", "goroutine "},
		{"/debug/pprof/allocs?debug=1", "heap profile"},
		{"/debug/pprof/cmdline", ""},
		{"/debug/pprof/symbol", "num_symbols"},
		{"/debug/pprof/trace?seconds=1", ""},
	} {
		rec := get(h, tc.target, "")
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("GET %s: %d %.200q", tc.target, rec.Code, rec.Body)
		}
	}
	if testing.Short() {
		return
	}
	rec := get(h, "/debug/pprof/profile?seconds=1", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("profile: %d %s", rec.Code, rec.Body)
	}
	if _, err := profile.Parse(bytes.NewReader(rec.Body.Bytes())); err != nil {
		t.Errorf("profile does not parse: %v", err)
	}
}

func TestPprofDisabled(t *testing.T) {
	h := NewRouter(Options{DisableProfiling: true})
	for _, target := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/ui/"} {
		if rec := get(h, target, ""); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d", target, rec.Code)
		}
	}
}

// TestPprofUI opens a UI session under a mount prefix and browses it the way
// a browser would, following the relative links.
func TestPprofUI(t *testing.T) {
	if testing.Short() {
		t.Skip("collects a CPU profile")
	}
	parent := chi.NewRouter()
	parent.Mount("/debug/kspatch", NewRouter(Options{}))

	for session := 1; session <= 2; session++ {
		rec := get(parent, "/debug/kspatch/debug/pprof/ui/?seconds=1", "")
		want := "s/" + string(rune('0'+session)) + "/flamegraph"
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Fatalf("new session: %d Location=%q, want %q; %s", rec.Code, rec.Header().Get("Location"), want, rec.Body)
		}
	}
	// HEAD opens no session: session 2 stays the current one.
	if rec := do(parent, http.MethodHead, "/debug/kspatch/debug/pprof/ui/?seconds=1", ""); rec.Code != http.StatusOK || rec.Header().Get("Location") != "" {
		t.Errorf("HEAD ui/: %d Location=%q, want 200 and no Location", rec.Code, rec.Header().Get("Location"))
	}
	if rec := get(parent, "/debug/kspatch/debug/pprof/ui/s/2/top", ""); rec.Code != http.StatusOK {
		t.Errorf("session 2 after HEAD ui/: %d %.200s", rec.Code, rec.Body)
	}
	// Relative to /debug/kspatch/debug/pprof/ui/.
	for _, page := range []string{"s/2/flamegraph", "s/2/top", "s/2/download"} {
		rec := get(parent, "/debug/kspatch/debug/pprof/ui/"+page, "")
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d %.300s", page, rec.Code, rec.Body)
		}
		if strings.HasSuffix(page, "flamegraph") && !strings.Contains(rec.Body.String(), `href="./top"`) {
			t.Errorf("flamegraph page lacks the relative menu links:\n%.500s", rec.Body)
		}
	}
	// The first session was retired by the second.
	if rec := get(parent, "/debug/kspatch/debug/pprof/ui/s/1/top", ""); rec.Code != http.StatusNotFound {
		t.Errorf("retired session: %d", rec.Code)
	}
	if rec := get(parent, "/debug/kspatch/debug/pprof/ui/s/2/nosuchpage", ""); rec.Code != http.StatusNotFound {
		t.Errorf("unknown page: %d", rec.Code)
	}
	// Saving settings would write to disk: it is a POST, so refused.
	if rec := do(parent, http.MethodPost, "/debug/kspatch/debug/pprof/ui/s/2/saveconfig?config=x", ""); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("saveconfig: %d", rec.Code)
	}
}

// TestPprofHeadSamplesNothing: HEAD on the routes that sample over time
// checks the parameters and answers with the headers alone; it neither
// starts the CPU profiler or the tracer nor waits. The test holds both, so a
// HEAD that tried to sample would fail at once.
func TestPprofHeadSamplesNothing(t *testing.T) {
	if err := rpprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("holding the CPU profiler: %v", err)
	}
	defer rpprof.StopCPUProfile()
	if err := trace.Start(io.Discard); err != nil {
		t.Fatalf("holding the tracer: %v", err)
	}
	defer trace.Stop()

	h := NewRouter(Options{})
	for _, tc := range []struct {
		target      string
		code        int
		contentType string
		disposition string
	}{
		{"/debug/pprof/ui/?seconds=60", http.StatusOK, "text/html; charset=utf-8", ""},
		{"/debug/pprof/ui/", http.StatusOK, "text/html; charset=utf-8", ""},
		{"/debug/pprof/profile?seconds=60", http.StatusOK, "application/octet-stream", `attachment; filename="profile"`},
		{"/debug/pprof/profile", http.StatusOK, "application/octet-stream", `attachment; filename="profile"`},
		{"/debug/pprof/trace?seconds=60", http.StatusOK, "application/octet-stream", `attachment; filename="trace"`},
		{"/debug/pprof/ui/?seconds=61", http.StatusBadRequest, "text/plain; charset=utf-8", ""},
		{"/debug/pprof/profile?seconds=0", http.StatusBadRequest, "text/plain; charset=utf-8", ""},
		{"/debug/pprof/trace?x=1", http.StatusBadRequest, "text/plain; charset=utf-8", ""},
	} {
		start := time.Now()
		rec := do(h, http.MethodHead, tc.target, "")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("HEAD %s took %v", tc.target, d)
		}
		if rec.Code != tc.code || rec.Header().Get("Content-Type") != tc.contentType ||
			rec.Header().Get("Content-Disposition") != tc.disposition || rec.Header().Get("Location") != "" {
			t.Errorf("HEAD %s: %d Content-Type=%q Content-Disposition=%q Location=%q, want %d %q %q and no Location; body %.200q",
				tc.target, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Disposition"),
				rec.Header().Get("Location"), tc.code, tc.contentType, tc.disposition, rec.Body)
		}
		if tc.code == http.StatusOK && rec.Body.Len() != 0 {
			t.Errorf("HEAD %s: body %.200q, want none", tc.target, rec.Body)
		}
	}
}
