package adminapi

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// listDoc decodes the parts of a QueueList the tests look at.
type listDoc struct {
	Summary   queueSummary `json:"summary"`
	Matched   int          `json:"matched"`
	Remaining int          `json:"remaining"`
	Continue  string       `json:"continue"`
	Items     []struct {
		Namespace, Name, UID string
		Queue                QueueName
	} `json:"items"`
}

func getList(t *testing.T, h http.Handler, target string) listDoc {
	t.Helper()
	rec := get(h, target, "application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	var doc listDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func keyString(ns, name, uid string) string { return ns + "/" + name + "/" + uid }

// randomPods returns n pods with random names over a few namespaces, in
// random order, spread over every queue.
func randomPods(rng *rand.Rand, n int) []QueuedPod {
	pods := make([]QueuedPod, n)
	for i := range pods {
		pods[i] = randomPod(rng)
	}
	return pods
}

func randomPod(rng *rand.Rand) QueuedPod {
	qs := Queues()
	return QueuedPod{
		Namespace: fmt.Sprintf("ns-%d", rng.IntN(5)),
		// Short names from a small alphabet so that equal names with
		// different UIDs (re-created pods) occur too.
		Name:      fmt.Sprintf("pod-%03d", rng.IntN(400)),
		UID:       fmt.Sprintf("uid-%08x", rng.Uint32()),
		Queue:     qs[rng.IntN(len(qs))],
		Timestamp: base().Add(-time.Duration(rng.IntN(3600)) * time.Second),
	}
}

// TestPagingStable walks the continue tokens while pods are added and
// removed between pages: every pod that stays queued is listed exactly once,
// and the listing is in strictly increasing (namespace, name, uid) order.
func TestPagingStable(t *testing.T) {
	for _, limit := range []int{1, 7, 50} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(limit)))
			q := &fakeQueue{snap: QueueSnapshot{TakenAt: base()}}
			pods := randomPods(rng, 300)
			q.set(slices.Clone(pods))
			h := NewRouter(Options{Queue: q})

			stayed := map[string]bool{} // present from the first page to the last
			for _, p := range pods {
				stayed[keyString(p.Namespace, p.Name, p.UID)] = true
			}
			seen := map[string]int{}
			var last string
			token := ""
			for page := 0; ; page++ {
				target := fmt.Sprintf("/debug/queue?limit=%d", limit)
				if token != "" {
					target += "&continue=" + url.QueryEscape(token)
				}
				doc := getList(t, h, target)
				if len(doc.Items) > limit {
					t.Fatalf("page %d has %d items, limit %d", page, len(doc.Items), limit)
				}
				for _, it := range doc.Items {
					k := keyString(it.Namespace, it.Name, it.UID)
					if last != "" && compareKeys(k, last) <= 0 {
						t.Fatalf("page %d: %s after %s: order not strictly increasing", page, k, last)
					}
					last = k
					seen[k]++
				}
				if doc.Continue == "" {
					if doc.Remaining != 0 {
						t.Fatalf("no continue token but remaining=%d", doc.Remaining)
					}
					break
				}
				token = doc.Continue

				// Churn: remove two pods, add three, shuffle the order.
				for range 2 {
					i := rng.IntN(len(pods))
					delete(stayed, keyString(pods[i].Namespace, pods[i].Name, pods[i].UID))
					pods = slices.Delete(pods, i, i+1)
				}
				for range 3 {
					pods = append(pods, randomPod(rng))
				}
				rng.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
				q.set(slices.Clone(pods))
				if page > 10000 {
					t.Fatal("paging does not end")
				}
			}
			for k := range stayed {
				if seen[k] != 1 {
					t.Errorf("pod %s that stayed queued was listed %d times", k, seen[k])
				}
			}
		})
	}
}

// compareKeys compares "ns/name/uid" strings field by field.
func compareKeys(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// TestPageMatchesSort checks the heap selection against a full sort, for
// every limit and start position, on input in random order.
func TestPageMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pods := randomPods(rng, 120)
	sorted := slices.Clone(pods)
	slices.SortFunc(sorted, func(a, b QueuedPod) int { return keyOf(&a).Compare(keyOf(&b)) })
	for _, limit := range []int{1, 2, 5, 37, 119, 120, 500} {
		for start := 0; start < len(sorted); start += 13 {
			qp := queueParams{limit: limit}
			if start > 0 {
				k := keyOf(&sorted[start-1])
				qp.after = &k
			}
			page := selectQueuePage(&QueueSnapshot{Pods: pods}, qp.query())
			end := min(start+limit, len(sorted))
			if len(page.Pods) != end-start {
				t.Fatalf("limit %d start %d: %d items, want %d", limit, start, len(page.Pods), end-start)
			}
			for i := range page.Pods {
				if !reflect.DeepEqual(page.Pods[i], sorted[start+i]) {
					t.Fatalf("limit %d start %d item %d: got %v want %v", limit, start, i, page.Pods[i], sorted[start+i])
				}
			}
			if page.Remaining != len(sorted)-end || page.Matched != len(sorted) {
				t.Fatalf("limit %d start %d: remaining %d matched %d", limit, start, page.Remaining, page.Matched)
			}
		}
	}
}

func TestQueueFilters(t *testing.T) {
	h := NewRouter(fixtureOptions())
	names := func(doc listDoc) []string {
		var out []string
		for _, it := range doc.Items {
			out = append(out, it.Namespace+"/"+it.Name)
		}
		return out
	}
	whole := queueSummary{Active: 2, Backoff: 1, Unschedulable: 3, Gated: 1, InFlight: 1, Total: 8}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"queue=inflight", []string{"kube-system/coredns-extra"}},
		{"queue=InFlight&queue=GATED", []string{"kube-system/coredns-extra", "team-b/batch-17"}},
		{"queue=active,%20backoff", []string{"team-a/trainer-1", "team-a/trainer-2", "team-a/web-7d9f-x2x"}},
		{"namespace=team-b", []string{"team-b/batch-17", "team-b/claim-user"}},
		{"podGroup=trainer", []string{"team-a/trainer-0", "team-a/trainer-1", "team-a/trainer-2"}},
		{"plugin=TaintToleration", []string{"team-a/trainer-0"}},
		{"plugin=NodeResourcesFit", []string{"team-a/trainer-0", "team-a/trainer-1"}},
		{"plugin=DynamicResources", []string{"team-b/claim-user"}},
		{"plugin=SchedulingGates", []string{"team-b/batch-17"}},
		{"plugin=NodeResourcesFit&queue=backoff", []string{"team-a/trainer-1"}},
		{"namespace=nope", nil},
	} {
		doc := getList(t, h, "/debug/queue?"+tc.query)
		if got := names(doc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.query, got, tc.want)
		}
		if doc.Matched != len(tc.want) {
			t.Errorf("%s: matched %d, want %d", tc.query, doc.Matched, len(tc.want))
		}
		if doc.Summary != whole {
			t.Errorf("%s: summary %+v, want the whole queue %+v", tc.query, doc.Summary, whole)
		}
	}
}

// TestContinueTokens: a token only continues the listing it came from.
func TestContinueTokens(t *testing.T) {
	h := NewRouter(fixtureOptions())
	doc := getList(t, h, "/debug/queue?limit=2&namespace=team-a")
	if doc.Continue == "" {
		t.Fatal("no continue token")
	}
	good := doc.Continue
	next := getList(t, h, "/debug/queue?limit=2&namespace=team-a&continue="+good)
	if len(next.Items) != 2 || next.Items[0].Name != "trainer-2" {
		t.Fatalf("second page: %+v", next.Items)
	}
	// The limit may change between pages.
	if rest := getList(t, h, "/debug/queue?limit=100&namespace=team-a&continue="+good); len(rest.Items) != 2 || rest.Continue != "" {
		t.Fatalf("rest: %+v", rest)
	}

	flipped := []byte(good)
	flipped[10] ^= 0x01
	forged := encodeContinue(PodKey{"team-a", "trainer-1", "x"}, "not-the-filters")
	for name, tok := range map[string]string{
		"garbage":       "not*base64",
		"short":         "AAAA",
		"flipped byte":  string(flipped),
		"truncated":     good[:len(good)-3],
		"other filters": forged,
		"too long":      strings.Repeat("A", maxContinueLen+1),
	} {
		rec := get(h, "/debug/queue?limit=2&namespace=team-a&continue="+url.QueryEscape(tok), "")
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "continue token") {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
	}
	// A token issued for other filters is refused.
	rec := get(h, "/debug/queue?limit=2&namespace=team-b&continue="+good, "")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "other filters") {
		t.Errorf("changed filters: %d %s", rec.Code, rec.Body)
	}
	// An empty continue= is the first page.
	if d := getList(t, h, "/debug/queue?limit=2&namespace=team-a&continue="); d.Continue != good {
		t.Errorf("empty continue: %+v", d)
	}
}

// TestSnapshotNotModified: the router never writes to a snapshot, so sources
// may share immutable snapshots between requests.
func TestSnapshotNotModified(t *testing.T) {
	opts := fixtureOptions()
	q := opts.Queue.(*fakeQueue)
	q.shared = true
	before := fixtureQueue().snap
	h := NewRouter(opts)
	for _, target := range []string{"/debug/queue", "/debug/queue?limit=2", "/debug/queue/pods/team-a/trainer-0", "/debug/queue?plugin=NodeResourcesFit"} {
		for _, accept := range []string{"", "application/json"} {
			if rec := get(h, target, accept); rec.Code != http.StatusOK {
				t.Fatalf("GET %s: %d", target, rec.Code)
			}
		}
	}
	if !reflect.DeepEqual(q.snap, before) {
		t.Error("the router modified the snapshot")
	}
}

func TestQueueEmptyAndNilSnapshot(t *testing.T) {
	h := NewRouter(Options{Queue: &fakeQueue{}})
	doc := getList(t, h, "/debug/queue")
	if doc.Summary.Total != 0 || len(doc.Items) != 0 || doc.Continue != "" {
		t.Errorf("empty queue: %+v", doc)
	}
}
