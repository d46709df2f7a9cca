package adminapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"testing"
)

// naivePager is a QueuePager that filters, sorts the whole queue and slices
// it: the obvious way, as a reference for the PageSelector.
type naivePager struct {
	*fakeQueue
	snapshotCalls int
}

func (n *naivePager) QueueSnapshot(ctx context.Context) (*QueueSnapshot, error) {
	n.snapshotCalls++
	return n.fakeQueue.QueueSnapshot(ctx)
}

func (n *naivePager) QueuePage(ctx context.Context, q QueueQuery) (*QueuePage, error) {
	snap, err := n.fakeQueue.QueueSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	page := &QueuePage{TakenAt: snap.TakenAt, SchedulingCycle: snap.SchedulingCycle}
	var matched []QueuedPod
	for _, p := range snap.Pods {
		switch p.Queue {
		case QueueActive:
			page.Counts.Active++
		case QueueBackoff:
			page.Counts.Backoff++
		case QueueUnschedulable:
			page.Counts.Unschedulable++
		case QueueGated:
			page.Counts.Gated++
		case QueueInFlight:
			page.Counts.InFlight++
		}
		if len(q.Queues) > 0 && !slices.Contains(q.Queues, p.Queue) ||
			q.Namespace != "" && p.Namespace != q.Namespace ||
			q.PodGroup != "" && p.PodGroup != q.PodGroup ||
			q.Plugin != "" && p.GatingPlugin != q.Plugin && !slices.Contains(p.UnschedulablePlugins, q.Plugin) && !slices.Contains(p.PendingPlugins, q.Plugin) {
			continue
		}
		matched = append(matched, p)
	}
	page.Matched = len(matched)
	slices.SortFunc(matched, func(a, b QueuedPod) int { return keyOf(&a).Compare(keyOf(&b)) })
	// The matched pods are in (namespace, name) order; their groups are
	// counted in a map and put in order.
	groups := map[[2]string]*QueueCounts{}
	for _, p := range matched {
		if p.PodGroup == "" {
			continue
		}
		k := [2]string{p.Namespace, p.PodGroup}
		if groups[k] == nil {
			groups[k] = &QueueCounts{}
		}
		switch c := groups[k]; p.Queue {
		case QueueActive:
			c.Active++
		case QueueBackoff:
			c.Backoff++
		case QueueUnschedulable:
			c.Unschedulable++
		case QueueGated:
			c.Gated++
		case QueueInFlight:
			c.InFlight++
		}
	}
	for k, c := range groups {
		page.Groups = append(page.Groups, QueueGroup{Namespace: k[0], Name: k[1], Counts: *c})
	}
	slices.SortFunc(page.Groups, func(a, b QueueGroup) int {
		return PodKey{Namespace: a.Namespace, Name: a.Name}.Compare(PodKey{Namespace: b.Namespace, Name: b.Name})
	})
	start := 0
	if q.After != nil {
		start, _ = slices.BinarySearchFunc(matched, *q.After, func(p QueuedPod, k PodKey) int { return keyOf(&p).Compare(k) })
		if start < len(matched) && keyOf(&matched[start]) == *q.After {
			start++
		}
	}
	end := min(start+q.Limit, len(matched))
	page.Pods = matched[start:end]
	page.Remaining = len(matched) - end
	return page, nil
}

// TestQueuePager checks that a QueuePager source is used instead of
// QueueSnapshot, and that the router renders its pages exactly as it renders
// pages it selects itself, on every page of random queues and filters.
func TestQueuePager(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	queries := []string{"", "queue=unschedulable", "queue=active,backoff", "namespace=ns-1", "podGroup=group-2", "plugin=NodeResourcesFit", "plugin=SchedulingGates&queue=gated"}
	for round := 0; round < 3; round++ {
		pods := randomPods(rng, 300)
		plugins := []string{"NodeResourcesFit", "SchedulingGates", "TaintToleration"}
		for i := range pods {
			if rng.IntN(3) == 0 {
				pods[i].PodGroup = fmt.Sprintf("group-%d", rng.IntN(4))
			}
			switch rng.IntN(4) {
			case 0:
				pods[i].UnschedulablePlugins = []string{plugins[rng.IntN(3)]}
			case 1:
				pods[i].PendingPlugins = []string{plugins[rng.IntN(3)]}
			case 2:
				pods[i].GatingPlugin = plugins[rng.IntN(3)]
			}
		}
		snap := QueueSnapshot{TakenAt: base(), SchedulingCycle: int64(round), Pods: pods}
		viaSnapshot := NewRouter(Options{Queue: &fakeQueue{snap: snap}})
		pager := &naivePager{fakeQueue: &fakeQueue{snap: snap}}
		viaPager := NewRouter(Options{Queue: pager})
		for _, query := range queries {
			for _, limit := range []string{"3", "17", "100"} {
				target := "/debug/queue?limit=" + limit
				if query != "" {
					target += "&" + query
				}
				for pages := 0; ; pages++ {
					want := get(viaSnapshot, target, "application/json")
					got := get(viaPager, target, "application/json")
					if got.Code != want.Code || got.Body.String() != want.Body.String() {
						t.Fatalf("GET %s: pager answered %d\n%s\nsnapshot answered %d\n%s", target, got.Code, got.Body, want.Code, want.Body)
					}
					doc := getList(t, viaSnapshot, target)
					if doc.Continue == "" {
						break
					}
					if pages > 400 {
						t.Fatalf("GET %s: paging does not end", target)
					}
					target = "/debug/queue?limit=" + limit + "&continue=" + url.QueryEscape(doc.Continue)
					if query != "" {
						target += "&" + query
					}
				}
			}
		}
		if pager.snapshotCalls != 0 {
			t.Errorf("the router called QueueSnapshot %d times on a QueuePager", pager.snapshotCalls)
		}
	}
}
