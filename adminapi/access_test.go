package adminapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// testUserHeader names the caller of a test request; the fake authorizer
// reads it as the secure port reads the authenticated user.
const testUserHeader = "X-Test-User"

// fakeAuthorizer lets each user read the namespaces listed for it ("" for
// every namespace); the user "broken" gets an error. It counts questions.
type fakeAuthorizer struct {
	mu        sync.Mutex
	readable  map[string][]string
	questions int
}

func (f *fakeAuthorizer) authorize(_ context.Context, r *http.Request, namespace string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.questions++
	u := r.Header.Get(testUserHeader)
	if u == "broken" {
		return false, errors.New("the API server did not answer the review")
	}
	for _, ns := range f.readable[u] {
		if ns == "" || ns == namespace {
			return true, nil
		}
	}
	return false, nil
}

// accessOptions are the fixtures plus a team-a decision whose preemption
// chose victims in team-a and team-b, behind the fake authorizer.
func accessOptions(f *fakeAuthorizer) Options {
	opts := fixtureOptions()
	pl := fixturePlacements()
	victims := []Victim{
		{Pod: "team-b/etl-0", Node: "n1", Priority: 10, PodGroup: "etl"},
		{Pod: "team-a/low-0", Node: "n2", Priority: 10},
	}
	pl.snap.Decisions = append(pl.snap.Decisions, PlacementDecision{
		Namespace: "team-a", PodGroup: "gang", Time: ago(time.Second), Result: ResultUnschedulable, Pods: 2, Required: 2,
		Preemption: &Preemption{Result: PreemptionPreempting, Chosen: "rack=r1", Victims: victims, VictimCount: 2,
			Candidates: []PreemptionCandidate{{Placement: "rack=r1", Fits: true, VictimCount: 2, Victims: victims}}},
	})
	opts.Placements = pl
	opts.PodGroups = fakePodGroups{"team-a/gang": {TakenAt: base(), Namespace: "team-a", Name: "gang", Found: true, MinCount: 2}}
	opts.Authorize = f.authorize
	return opts
}

func TestNamespaceAccess(t *testing.T) {
	users := map[string][]string{"alice": {"team-a"}, "root": {""}, "nobody": nil}
	tests := []struct {
		name     string
		user     string
		target   string
		wantCode int
		want     []string // in the JSON body
		wantNot  []string
	}{
		{name: "a pod of a readable namespace", user: "alice", target: "/debug/queue/pods/team-a/trainer-0", wantCode: http.StatusOK,
			want: []string{`"name": "trainer-0"`}},
		{name: "a pod of another namespace", user: "alice", target: "/debug/queue/pods/team-b/claim-user", wantCode: http.StatusForbidden,
			want: []string{`namespace \"team-b\" only to users allowed \"get\" on \"pods\" in it`}, wantNot: []string{"DynamicResources"}},
		{name: "a pod that does not exist in another namespace is not told apart", user: "alice", target: "/debug/queue/pods/team-b/nope",
			wantCode: http.StatusForbidden},
		{name: "the queue, filtered to the readable namespace", user: "alice", target: "/debug/queue", wantCode: http.StatusOK,
			want:    []string{`"total": 4`, `"matched": 4`, `"hiddenNamespaces": 3`},
			wantNot: []string{"claim-user", "batch-17", "coredns-extra", "llama-worker-3", "llama-train"}},
		{name: "the queue of another namespace", user: "alice", target: "/debug/queue?namespace=team-b", wantCode: http.StatusForbidden,
			wantNot: []string{"claim-user"}},
		{name: "the queue, filtered to another namespace's pod group", user: "alice", target: "/debug/queue?podGroup=llama-train", wantCode: http.StatusOK,
			want: []string{`"matched": 0`}, wantNot: []string{"llama-worker-3"}},
		{name: "the queue for a cluster-wide reader", user: "root", target: "/debug/queue", wantCode: http.StatusOK,
			want: []string{`"total": 8`, "claim-user", "coredns-extra"}, wantNot: []string{"hiddenNamespaces"}},
		{name: "the queue for a user with no namespace", user: "nobody", target: "/debug/queue", wantCode: http.StatusOK,
			want: []string{`"total": 0`, `"hiddenNamespaces": 4`}, wantNot: []string{"trainer-0", `"team-a"`, `"team-b"`}},
		{name: "a pod group of another namespace", user: "alice", target: "/debug/queue/podgroups/ml/llama-train", wantCode: http.StatusForbidden},
		{name: "a pod group of a readable namespace", user: "alice", target: "/debug/queue/podgroups/team-a/gang",
			wantCode: http.StatusOK, want: []string{`"name": "gang"`}, wantNot: []string{"etl"}},
		{name: "placements, filtered", user: "alice", target: "/debug/placements", wantCode: http.StatusOK,
			want:    []string{`"podGroup": "trainer"`, `"podGroup": "gang"`, `"team-b/(hidden)"`, `"team-a/low-0"`, `"hiddenNamespaces": 2`, `"recorded": 2`},
			wantNot: []string{"llama-train", "per-host", "etl", `"n1"`}},
		{name: "placements for a cluster-wide reader show every victim", user: "root", target: "/debug/placements", wantCode: http.StatusOK,
			want: []string{"team-b/etl-0", `"podGroup": "etl"`, "llama-train"}, wantNot: []string{"(hidden)"}},
		{name: "a group's placements in another namespace", user: "alice", target: "/debug/placements/ml/llama-train", wantCode: http.StatusForbidden},
		{name: "API calls, filtered", user: "alice", target: "/debug/apicalls", wantCode: http.StatusOK,
			want: []string{"trainer-2", "trainer-0", `"hiddenCalls": 3`}, wantNot: []string{"claim-user", "victim-1", "llama-worker-3"}},
		{name: "a failed check refuses rather than guesses", user: "broken", target: "/debug/queue", wantCode: http.StatusServiceUnavailable,
			want: []string{"the API server did not answer the review"}, wantNot: []string{"trainer-0"}},
		{name: "a failed check on a pod", user: "broken", target: "/debug/queue/pods/team-a/trainer-0", wantCode: http.StatusServiceUnavailable,
			wantNot: []string{"NodeResourcesFit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := NewRouter(accessOptions(&fakeAuthorizer{readable: users}))
			req := httptest.NewRequest(http.MethodGet, tc.target, nil)
			req.Header.Set("Accept", "application/json")
			req.Header.Set(testUserHeader, tc.user)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != tc.wantCode {
				t.Fatalf("GET %s as %s: status %d, want %d; body:\n%s", tc.target, tc.user, rec.Code, tc.wantCode, body)
			}
			for _, s := range tc.want {
				if !strings.Contains(body, s) {
					t.Errorf("GET %s as %s: body lacks %s:\n%s", tc.target, tc.user, s, body)
				}
			}
			for _, s := range tc.wantNot {
				if strings.Contains(body, s) {
					t.Errorf("GET %s as %s: body shows %s:\n%s", tc.target, tc.user, s, body)
				}
			}
		})
	}
}

// TestNamespaceAccessText: the text tables say what they leave out and
// which permission shows it.
func TestNamespaceAccessText(t *testing.T) {
	h := NewRouter(accessOptions(&fakeAuthorizer{readable: map[string][]string{"alice": {"team-a"}}}))
	for target, want := range map[string]string{
		"/debug/queue":      `Not shown: what belongs to 3 namespaces you may not read ("get" on "pods" in a namespace shows it)`,
		"/debug/placements": `Not shown: what belongs to 2 namespaces you may not read`,
		"/debug/apicalls":   `Not shown: 3 calls on objects you may not read. Not shown: what belongs to 3 namespaces`,
	} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set(testUserHeader, "alice")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s: status %d, want 200 and a line with %q:\n%s", target, rec.Code, want, rec.Body.String())
		}
	}
}

// TestNamespaceAccessAsksOncePerNamespace: one request asks about each
// namespace at most once, however many pods it has.
func TestNamespaceAccessAsksOncePerNamespace(t *testing.T) {
	f := &fakeAuthorizer{readable: map[string][]string{"alice": {"team-a"}}}
	h := NewRouter(accessOptions(f))
	req := httptest.NewRequest(http.MethodGet, "/debug/queue", nil)
	req.Header.Set(testUserHeader, "alice")
	h.ServeHTTP(httptest.NewRecorder(), req)
	// "" (every namespace), then team-a, team-b, kube-system, ml.
	if f.questions != 5 {
		t.Errorf("one queue request asked %d questions, want 5 (every namespace, then each of the 4 once)", f.questions)
	}
}

// TestNoAuthorizerShowsEverything: the admin listener (no Authorize) is
// unchanged.
func TestNoAuthorizerShowsEverything(t *testing.T) {
	h := NewRouter(fixtureOptions())
	rec := get(h, "/debug/queue/pods/team-b/claim-user", "application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", rec.Code, rec.Body.String())
	}
}
