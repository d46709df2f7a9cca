package adminapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden renders every route as text and as JSON over the fixtures and
// compares the bodies with testdata/<name>.golden and <name>.json.golden.
// Run `go test -run TestGolden -update` to accept new output.
func TestGolden(t *testing.T) {
	runGolden(t, NewRouter(fixtureOptions()), []goldenCase{
		{"queue", "/debug/queue", http.StatusOK},
		{"queue_filtered", "/debug/queue?queue=unschedulable,backoff&namespace=team-a", http.StatusOK},
		{"queue_page", "/debug/queue?limit=3", http.StatusOK},
		{"queue_empty", "/debug/queue?plugin=NoSuchPlugin", http.StatusOK},
		{"queue_pod", "/debug/queue/pods/team-a/trainer-0", http.StatusOK},
		{"queue_pod_backoff", "/debug/queue/pods/team-a/trainer-1", http.StatusOK},
		{"queue_pod_active", "/debug/queue/pods/team-a/web-7d9f-x2x", http.StatusOK},
		{"queue_pod_group_fit", "/debug/queue/pods/ml/llama-worker-3", http.StatusOK},
		{"apicalls", "/debug/apicalls", http.StatusOK},
		{"apicalls_limited", "/debug/apicalls?type=pod_status_patch&limit=2", http.StatusOK},
		{"placements", "/debug/placements", http.StatusOK},
		{"placements_group", "/debug/placements/ml/llama-train", http.StatusOK},
		{"placements_group_limit", "/debug/placements/ml/llama-train?limit=1", http.StatusOK},
		{"placements_group_omitted", "/debug/placements/ml/per-host", http.StatusOK},
		{"error_bad_limit", "/debug/queue?limit=abc", http.StatusBadRequest},
		{"error_unknown_param", "/debug/queue?sort=age", http.StatusBadRequest},
		{"error_pod_not_found", "/debug/queue/pods/team-a/gone", http.StatusNotFound},
	})
}

// goldenCase is a request and the status code it must get; its body is
// compared with testdata/<name>.golden (text) and <name>.json.golden.
type goldenCase struct {
	name, target string
	code         int
}

// runGolden renders every case as text and as JSON on h and compares the
// bodies with the golden files.
func runGolden(t *testing.T, h http.Handler, cases []goldenCase) {
	t.Helper()
	for _, tc := range cases {
		for _, asJSON := range []bool{false, true} {
			name := tc.name
			accept := ""
			if asJSON {
				name += ".json"
				accept = "application/json"
			}
			t.Run(name, func(t *testing.T) {
				rec := get(h, tc.target, accept)
				if rec.Code != tc.code {
					t.Fatalf("GET %s: code %d, want %d; body:\n%s", tc.target, rec.Code, tc.code, rec.Body)
				}
				if asJSON {
					if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
						t.Errorf("Content-Type %q, want application/json", ct)
					}
					var doc map[string]any
					if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
						t.Fatalf("invalid JSON: %v", err)
					}
					if doc["apiVersion"] != APIVersion || doc["kind"] == "" {
						t.Errorf("apiVersion %v kind %v", doc["apiVersion"], doc["kind"])
					}
				} else if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
					t.Errorf("Content-Type %q, want text/plain", ct)
				}
				compareGolden(t, name, rec.Body.Bytes())
			})
		}
	}
}

// TestOutputParam checks that ?output= selects the format and wins over
// Accept.
func TestOutputParam(t *testing.T) {
	h := NewRouter(fixtureOptions())
	text := get(h, "/debug/queue", "").Body.String()
	js := get(h, "/debug/queue", "application/json").Body.String()
	for _, tc := range []struct{ target, accept, want string }{
		{"/debug/queue?output=json", "", js},
		{"/debug/queue?output=JSON", "", js},
		{"/debug/queue?output=text", "application/json", text},
		{"/debug/queue", "text/plain, application/json;q=0.5", text},
		{"/debug/queue", "application/json, text/plain;q=0.9", js},
		{"/debug/queue", "text/html,application/xhtml+xml,*/*;q=0.8", text},
	} {
		if got := get(h, tc.target, tc.accept).Body.String(); got != tc.want {
			t.Errorf("GET %s Accept %q: got\n%s", tc.target, tc.accept, got)
		}
	}
}

func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestCountMessages: the count lines under the text tables agree in number
// with their count ("1 pod matched", "2 pods matched").
func TestCountMessages(t *testing.T) {
	h := NewRouter(fixtureOptions())
	for _, tc := range []struct{ target, last string }{
		{"/debug/queue?queue=gated", "1 pod matched; showing 1."},
		{"/debug/queue?queue=active", "2 pods matched; showing 2."},
		{"/debug/queue?queue=active&limit=1", "2 pods matched; showing 1, 1 more: add continue="},
		{"/debug/queue?namespace=team-b&limit=1", "2 pods matched; showing 1, 1 more: add continue="},
		{"/debug/apicalls?type=pod_binding", "1 call matched."},
		{"/debug/apicalls?type=pod_status_patch", "3 calls matched."},
		{"/debug/apicalls?type=pod_status_patch&limit=1", "3 calls matched; showing the 1 oldest, 2 more: raise limit="},
		{"/debug/placements/team-a/trainer", "1 decision matched (4 recorded)."},
		{"/debug/placements/ml/llama-train", "2 decisions matched (4 recorded)."},
		{"/debug/placements?limit=1", "4 decisions matched (4 recorded); showing the 1 newest, 3 more: raise limit="},
	} {
		rec := get(h, tc.target, "")
		lines := strings.Split(strings.TrimSuffix(rec.Body.String(), "\n"), "\n")
		last := lines[len(lines)-1]
		if strings.HasSuffix(tc.last, "continue=") {
			last, _, _ = strings.Cut(last, "continue=")
			last += "continue="
		}
		if rec.Code != http.StatusOK || last != tc.last {
			t.Errorf("GET %s: %d, last line %q, want %q", tc.target, rec.Code, last, tc.last)
		}
	}
	// The size bound, in bytes.
	for _, tc := range []struct {
		max  int
		want string
	}{
		{1, "the response exceeds 1 byte; ask for fewer items with limit=\n"},
		{2, "the response exceeds 2 bytes; ask for fewer items with limit=\n"},
	} {
		rec := get(NewRouter(Options{Queue: fixtureQueue(), MaxResponseBytes: tc.max}), "/debug/queue", "")
		if rec.Code != http.StatusInternalServerError || rec.Body.String() != tc.want {
			t.Errorf("MaxResponseBytes %d: %d %q, want 500 %q", tc.max, rec.Code, rec.Body, tc.want)
		}
	}
}
