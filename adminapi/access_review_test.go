package adminapi

// Adversarial tests of the namespace isolation of #44 (item 1). Each
// TestReview_* test is expected to FAIL on the change under review: it
// demonstrates a situation where the change does the wrong thing. The
// TestReviewHeld_* tests check properties that held (they pass).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// breakitGet sends GET (or method) target as user, with the Accept header.
func breakitDo(h http.Handler, method, target, user, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set(testUserHeader, user)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestReview_PlacementsRecordedCountsHiddenDecisions: the docs promise
// that listings leave other namespaces out "from the counts too", but
// /debug/placements' "recorded" (and the text footer's "(N recorded)")
// still counts every namespace's decisions: a restricted caller learns how
// many decisions other teams have.
func TestReview_PlacementsRecordedCountsHiddenDecisions(t *testing.T) {
	h := NewRouter(accessOptions(&fakeAuthorizer{readable: map[string][]string{"alice": {"team-a"}}}))
	rec := breakitDo(h, http.MethodGet, "/debug/placements", "alice", "application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var doc struct {
		Recorded int `json:"recorded"`
		Matched  int `json:"matched"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Recorded != doc.Matched {
		t.Errorf("alice (team-a only) sees recorded=%d but only %d decisions are in her namespaces: "+
			"the hidden namespaces' decisions are still counted", doc.Recorded, doc.Matched)
	}
	text := breakitDo(h, http.MethodGet, "/debug/placements", "alice", "").Body.String()
	if want := fmt.Sprintf("(%d recorded)", doc.Matched); !strings.Contains(text, want) {
		t.Errorf("text footer does not say %q:\n%s", want, text)
	}
}

// TestReview_HiddenVictimKeepsNode: issue #44 lists the *nodes* of
// team-b's pods among what a team-b outsider must not read; a hidden
// preemption victim keeps its node (and priority and namespace), in JSON
// and in the text table ("team-b/(hidden)@n1").
func TestReview_HiddenVictimKeepsNode(t *testing.T) {
	h := NewRouter(accessOptions(&fakeAuthorizer{readable: map[string][]string{"alice": {"team-a"}}}))
	rec := breakitDo(h, http.MethodGet, "/debug/placements", "alice", "application/json")
	var doc placementList
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, it := range doc.Items {
		if it.Preemption == nil {
			continue
		}
		for _, v := range it.Preemption.Victims {
			if strings.HasPrefix(v.Pod, "team-b/") && v.Node != hiddenVictim {
				t.Errorf("GET /debug/placements (JSON) as alice: hidden victim %q keeps node %q", v.Pod, v.Node)
			}
		}
	}
	for _, tc := range []struct{ target, accept, leak string }{
		{"/debug/placements/team-a/gang", "", "team-b/(hidden)@n1"},
	} {
		rec := breakitDo(h, http.MethodGet, tc.target, "alice", tc.accept)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d: %s", tc.target, rec.Code, rec.Body.String())
		}
		if strings.Contains(rec.Body.String(), tc.leak) {
			t.Errorf("GET %s as alice shows the node of a team-b pod she may not read (%q)", tc.target, tc.leak)
		}
	}
}

// TestReview_NamespaceNamesShownToCallerWithoutRights: a caller allowed
// to read no namespace at all learns the names of every namespace with
// queued pods, recorded decisions or pending API calls (team-c exists only
// as a preemption victim's deletion). The cluster would not tell it
// (`kubectl get namespaces` is forbidden to it).
func TestReview_NamespaceNamesShownToCallerWithoutRights(t *testing.T) {
	h := NewRouter(accessOptions(&fakeAuthorizer{readable: map[string][]string{}}))
	for _, target := range []string{"/debug/queue", "/debug/placements", "/debug/apicalls"} {
		body := breakitDo(h, http.MethodGet, target, "nobody", "application/json").Body.String()
		for _, ns := range []string{"team-b", "team-c", "ml", "kube-system"} {
			if strings.Contains(body, `"`+ns+`"`) {
				t.Errorf("GET %s as a user with no namespace shows namespace %q", target, ns)
			}
		}
	}
}

// TestReview_NamespaceFilterStillAsksAboutEveryNamespace: /debug/queue?
// namespace=team-a needs one answer (team-a), but the two-pass page asks
// the authorizer about every namespace in the queue and lists them all as
// hidden, though none of them could be in the answer.
func TestReview_NamespaceFilterStillAsksAboutEveryNamespace(t *testing.T) {
	f := &fakeAuthorizer{readable: map[string][]string{"alice": {"team-a"}}}
	h := NewRouter(accessOptions(f))
	rec := breakitDo(h, http.MethodGet, "/debug/queue?namespace=team-a", "alice", "application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	if f.questions > 2 {
		t.Errorf("/debug/queue?namespace=team-a asked %d questions, want 2 (every namespace, team-a)", f.questions)
	}
	if strings.Contains(rec.Body.String(), "hiddenNamespaces") {
		t.Errorf("a listing filtered to a readable namespace names other namespaces:\n%s", rec.Body.String())
	}
}

// slowAuthorizer answers like fakeAuthorizer after delay, and counts the
// questions asked after the request was answered.
type slowAuthorizer struct {
	fakeAuthorizer
	delay time.Duration
	calls atomic.Int64
}

func (s *slowAuthorizer) authorize(ctx context.Context, r *http.Request, ns string) (bool, error) {
	s.calls.Add(1)
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return false, ctx.Err()
	}
	return s.fakeAuthorizer.authorize(ctx, r, ns)
}

// manyNamespaceQueue is a queue with one pod in each of n namespaces.
func manyNamespaceQueue(n int) *fakeQueue {
	q := &fakeQueue{snap: QueueSnapshot{TakenAt: base()}}
	for i := range n {
		q.snap.Pods = append(q.snap.Pods, QueuedPod{Namespace: fmt.Sprintf("ns-%03d", i), Name: "p", UID: fmt.Sprint(i),
			Queue: QueueActive, Timestamp: ago(time.Second)})
	}
	return q
}

// TestReview_AuthorizationLatencyBlamedOnScheduler: the per-namespace
// questions of the queue listing are asked one after another, inside the
// source call's timeout. A restricted caller on a cluster with many
// namespaces (here 40 namespaces, 20ms a review, a 300ms timeout; in
// production 10s and a few hundred namespaces) gets 503 "the scheduler did
// not answer" although the queue answered at once: the time went to
// authorization. Run with -race: the questions go on in the source
// goroutine after the 503.
func TestReview_AuthorizationLatencyBlamedOnScheduler(t *testing.T) {
	a := &slowAuthorizer{fakeAuthorizer: fakeAuthorizer{readable: map[string][]string{"alice": {"ns-000"}}}, delay: 20 * time.Millisecond}
	opts := Options{Queue: manyNamespaceQueue(40), Leader: func() bool { return true }, RequestTimeout: 300 * time.Millisecond,
		Authorize: a.authorize}
	h := NewRouter(opts)
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodGet, "/debug/queue", nil).WithContext(ctx)
	req.Header.Set(testUserHeader, "alice")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	cancel() // as net/http does when the handler returns
	atAnswer := a.calls.Load()
	time.Sleep(100 * time.Millisecond)
	t.Logf("status %d after %d questions (%d by now): %s", rec.Code, atAnswer, a.calls.Load(), strings.TrimSpace(rec.Body.String()))
	if rec.Code != http.StatusOK {
		body := rec.Body.String()
		if strings.Contains(body, "the scheduler did not answer") {
			t.Errorf("GET /debug/queue as alice: %d %q: the queue answered at once; the time went to %d sequential authorization questions",
				rec.Code, strings.TrimSpace(body), atAnswer)
		} else {
			t.Errorf("GET /debug/queue as alice: %d %s", rec.Code, body)
		}
	}
}

// TestReview_ThreatModelOmitsPortForwardToHostNetworkPod: the threat
// model says the admin listener on 127.0.0.1 is reached by "every process
// of the node" (and, only for a pod with its own network, by "whoever may
// port-forward to it"), and debug-rbac.yaml says a port-forward to the
// scheduler pod "reaches nothing but the scheduler's ports". A
// port-forward to a hostNetwork pod (the kubeadm static pod) connects to
// the node's loopback (containerd and CRI-O run it in the host network
// namespace): every member of kspatch:debuggers, which debug-rbac.yaml
// grants create pods/portforward on that pod, reaches 127.0.0.1:10261 the
// moment an operator sets --admin-port, and reads every namespace
// unfiltered (and any other loopback-only service of the control-plane
// node).
func TestReview_ThreatModelOmitsPortForwardToHostNetworkPod(t *testing.T) {
	rbac, err := os.ReadFile(filepath.Join("..", "scheduler", "deploy", "debug-rbac.yaml"))
	if err != nil {
		t.Skip(err)
	}
	if strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(string(rbac), "#", "")), " "), "reaches nothing but the scheduler's ports") {
		t.Errorf("debug-rbac.yaml claims a port-forward to the (hostNetwork) scheduler pod reaches nothing but the scheduler's ports")
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "admin-api.md"))
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| admin listener") && !strings.Contains(line, "portforward") && strings.Contains(line, "in a pod with its own network") {
			t.Errorf("the threat model's admin-listener row limits port-forward reachability to pods with their own network:\n%s", line)
		}
	}
}

// TestReview_DocsStalenessBound: docs/admin-api.md says a removed
// RoleBinding takes effect "within 10 s (plus the API server's own RBAC
// cache)". The second cache is the scheduler's own delegated authorizer
// (its webhook cache, --authorization-webhook-cache-authorized-ttl, 10s by
// default), under the 10s of PodReadAuthorizer: up to 20s, not the API
// server's.
func TestReview_DocsStalenessBound(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "admin-api.md"))
	if err != nil {
		t.Skip(err)
	}
	if strings.Contains(string(doc), "plus the API server's own RBAC") && !strings.Contains(string(doc), "authorization-webhook-cache") {
		t.Errorf("docs/admin-api.md attributes the second cache to the API server; it is the scheduler's delegated authorizer (--authorization-webhook-cache-authorized-ttl, 10s): revocation takes up to 20s")
	}
}

// TestReviewHeld_Isolation checks what held: HEAD, text and JSON, the
// 403-before-404 order, failed checks, and per-group routes.
func TestReviewHeld_Isolation(t *testing.T) {
	f := &fakeAuthorizer{readable: map[string][]string{"alice": {"team-a"}, "root": {""}}}
	h := NewRouter(accessOptions(f))
	secret := []string{"claim-user", "batch-17", "llama", "etl", "per-host", "coredns", "DynamicResources", "victim-1"}
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		for _, accept := range []string{"", "application/json"} {
			for _, target := range []string{
				"/debug/queue", "/debug/queue?limit=1", "/debug/queue?podGroup=llama-train", "/debug/queue?plugin=DynamicResources",
				"/debug/queue?queue=gated", "/debug/placements", "/debug/apicalls", "/debug/placements/team-a/gang",
				"/debug/queue/podgroups/team-a/gang", "/debug/queue/pods/team-a/trainer-0",
				"/debug/queue/pods/team-b/claim-user", "/debug/queue/pods/team-b/nope", "/debug/queue/podgroups/ml/llama-train",
				"/debug/queue/podgroups/ml/nope", "/debug/placements/ml/llama-train", "/debug/placements/ml/nope",
				"/debug/queue?namespace=ml", "/debug/queue?namespace=nope",
			} {
				rec := breakitDo(h, method, target, "alice", accept)
				for _, s := range secret {
					if strings.Contains(rec.Body.String(), s) {
						t.Errorf("%s %s (%s) as alice shows %q", method, target, accept, s)
					}
				}
				if strings.Contains(target, "/ml/") || strings.Contains(target, "/team-b/") || strings.Contains(target, "namespace=") {
					if rec.Code != http.StatusForbidden {
						t.Errorf("%s %s as alice: %d, want 403 whether or not it exists", method, target, rec.Code)
					}
				}
			}
		}
	}
	// The queue's pages: a continue token walks only readable pods.
	seen := 0
	next := "/debug/queue?limit=1"
	for i := 0; i < 10 && next != ""; i++ {
		rec := breakitDo(h, http.MethodGet, next, "alice", "application/json")
		var doc queueList
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v %s", next, err, rec.Body.String())
		}
		for _, it := range doc.Items {
			if it.Namespace != "team-a" {
				t.Errorf("page shows %s/%s", it.Namespace, it.Name)
			}
			seen++
		}
		next = ""
		if doc.Continue != "" {
			next = "/debug/queue?limit=1&continue=" + doc.Continue
		}
	}
	if seen != 4 {
		t.Errorf("paging as alice saw %d pods, want 4", seen)
	}
	// A broken authorizer refuses everything that would need it.
	for _, target := range []string{"/debug/queue", "/debug/placements", "/debug/apicalls", "/debug/queue/podgroups/team-a/gang"} {
		if rec := breakitDo(h, http.MethodGet, target, "broken", ""); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("GET %s with a failing authorizer: %d, want 503", target, rec.Code)
		}
	}
}

// TestReviewHeld_ConcurrentRequestsRace: many concurrent restricted
// requests, some timing out; run with -race.
func TestReviewHeld_ConcurrentRequestsRace(t *testing.T) {
	a := &slowAuthorizer{fakeAuthorizer: fakeAuthorizer{readable: map[string][]string{"alice": {"ns-000", "ns-001"}}}, delay: time.Millisecond}
	opts := Options{Queue: manyNamespaceQueue(30), Leader: func() bool { return true }, RequestTimeout: 15 * time.Millisecond,
		Authorize: a.authorize, MaxConcurrentRequests: 64}
	h := NewRouter(opts)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			breakitDo(h, http.MethodGet, "/debug/queue", "alice", "")
		}()
	}
	wg.Wait()
	time.Sleep(100 * time.Millisecond)
}

// failingAuthorizer answers "not every namespace" at once, then fails
// every per-namespace question after delay (a webhook timing out).
type failingAuthorizer struct {
	delay time.Duration
	calls atomic.Int64
}

func (f *failingAuthorizer) authorize(ctx context.Context, _ *http.Request, ns string) (bool, error) {
	if ns == "" {
		return false, nil
	}
	f.calls.Add(1)
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
	}
	return false, fmt.Errorf("review for %s timed out", ns)
}

// TestReview_FailedCheckKeepsAsking: once one namespace's check failed the
// answer is decided (503), but /debug/apicalls and /debug/placements go on
// asking about every other namespace, one after another, each up to the
// scheduler's 5s review timeout, with no overall bound (these routes run
// their checks outside the source timeout). During an authorizer outage a
// request over 30 namespaces holds its concurrency slot for 30 x 5s.
func TestReview_FailedCheckKeepsAsking(t *testing.T) {
	calls := &fakeAPICalls{snap: APICallSnapshot{TakenAt: base()}}
	pl := &fakePlacements{snap: PlacementSnapshot{TakenAt: base()}}
	for i := range 30 {
		ns := fmt.Sprintf("ns-%03d", i)
		calls.snap.Calls = append(calls.snap.Calls, APICall{Type: "pod_binding", Object: ObjectRef{Namespace: ns, Name: "p", UID: ns}, EnqueuedAt: ago(time.Second)})
		pl.snap.Decisions = append(pl.snap.Decisions, PlacementDecision{Namespace: ns, PodGroup: "g", Time: ago(time.Second), Result: ResultScheduled})
	}
	for _, target := range []string{"/debug/apicalls", "/debug/placements"} {
		f := &failingAuthorizer{delay: 20 * time.Millisecond}
		h := NewRouter(Options{APICalls: calls, Placements: pl, Leader: func() bool { return true }, Authorize: f.authorize})
		start := time.Now()
		rec := breakitDo(h, http.MethodGet, target, "alice", "")
		took := time.Since(start)
		if rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("GET %s: %d, want 503: %s", target, rec.Code, rec.Body.String())
		}
		// One batch of questions at most, asked together: none is
		// started once one failed.
		if n := f.calls.Load(); n > maxParallelChecks {
			t.Errorf("GET %s: the first check failed, yet %d checks were made (%v)", target, n, took.Round(time.Millisecond))
		}
	}
}

// TestReview_PodGroupRouteAsksAboutVictimsItNeverShows: the pod-group
// diagnosis shows no victim (only its last cycle's preemption result and
// message), yet it runs the victims through readableDecision: it asks
// about the victims' namespaces, and a failed check for one of them
// (team-b) turns alice's own team-a group into a 503.
func TestReview_PodGroupRouteAsksAboutVictimsItNeverShows(t *testing.T) {
	authorize := func(_ context.Context, r *http.Request, ns string) (bool, error) {
		switch ns {
		case "team-a":
			return true, nil
		case "team-b":
			return false, errors.New("review for team-b timed out")
		}
		return false, nil
	}
	opts := accessOptions(&fakeAuthorizer{})
	opts.Authorize = authorize
	h := NewRouter(opts)
	rec := breakitDo(h, http.MethodGet, "/debug/queue/podgroups/team-a/gang", "alice", "application/json")
	if rec.Code != http.StatusOK {
		t.Errorf("GET /debug/queue/podgroups/team-a/gang as alice (team-a): %d, want 200 (nothing of team-b is shown): %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
}
