package admin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"kspatch.dev/adminapi"
)

// snapshotOnly hides QueueSource's QueuePage, so that the router selects
// pages from the whole snapshot.
type snapshotOnly struct{ adminapi.QueueSource }

// newRealQueue returns a scheduling queue holding n Pods: most unschedulable
// (rejected by NodeResourcesFit, every third also by NodeAffinity), every
// tenth active, every tenth in backoff.
func newRealQueue(tb testing.TB, n int) *queue.PriorityQueue {
	tb.Helper()
	metrics.Register()
	logger := klog.Background()
	q := queue.NewTestQueue(tb.Context(), func(a, b *framework.QueuedPodInfo) bool { return a.Timestamp.Before(b.Timestamp) })
	failure := &framework.FailureSummary{Time: time.Now(), Message: "0/100 nodes are available", NumAllNodes: 100,
		Plugins: []framework.PluginFailure{{Plugin: "NodeResourcesFit", Nodes: 100, Reasons: []framework.ReasonCount{{Reason: "Insufficient cpu", Nodes: 100}}}}}
	for i := 0; i < n; i++ {
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%50), Name: fmt.Sprintf("pod-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i)),
			Labels: map[string]string{pgapi.PodGroupLabel: fmt.Sprintf("group-%d", i%7)},
		}}
		q.Add(logger, pod)
		if i%10 == 0 {
			continue // stays active
		}
		pInfo, err := q.Pop(logger)
		if err != nil {
			tb.Fatal(err)
		}
		// A Pod that no plugin rejected (an error) goes to backoff.
		if i%10 != 1 {
			pInfo.UnschedulablePlugins = sets.New("NodeResourcesFit")
			if i%3 == 0 {
				pInfo.UnschedulablePlugins.Insert("NodeAffinity")
			}
			pInfo.LastFailure = failure
		}
		if err := q.AddUnschedulableIfNotPresent(logger, pInfo, q.SchedulingCycle()); err != nil {
			tb.Fatal(err)
		}
		q.Done(pod.UID)
	}
	return q
}

// TestQueuePageRealQueue pages through a real queue with filters, through
// QueuePage (selection under the queue's lock) and through the whole
// snapshot, and requires the same answers.
func TestQueuePageRealQueue(t *testing.T) {
	q := newRealQueue(t, 600)
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	src := &QueueSource{Queue: q, Now: func() time.Time { return now }}
	viaPage := adminapi.NewRouter(adminapi.Options{Queue: src})
	viaSnapshot := adminapi.NewRouter(adminapi.Options{Queue: snapshotOnly{src}})
	for _, query := range []string{"", "queue=active", "queue=backoff,unschedulable", "namespace=ns-3", "podGroup=group-2", "plugin=NodeAffinity", "plugin=NodeResourcesFit&namespace=ns-7"} {
		target := "/debug/queue?output=json&limit=45&" + query
		pages := 0
		for {
			a, b := serve(viaPage, target), serve(viaSnapshot, target)
			if a.Code != http.StatusOK || a.Body.String() != b.Body.String() {
				t.Fatalf("GET %s: QueuePage answered %d\n%s\nthe snapshot answered %d\n%s", target, a.Code, a.Body, b.Code, b.Body)
			}
			tok := continueOf(t, a.Body.Bytes())
			if tok == "" {
				break
			}
			if pages++; pages > 100 {
				t.Fatalf("GET %s: paging does not end", target)
			}
			target = "/debug/queue?output=json&limit=45&" + query + "&continue=" + url.QueryEscape(tok)
		}
	}
}

func serve(h http.Handler, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec
}

func continueOf(t *testing.T, body []byte) string {
	t.Helper()
	var doc struct {
		Continue string `json:"continue"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Continue
}
