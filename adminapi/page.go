package adminapi

import (
	"context"
	"slices"
	"strings"
	"time"
)

// QueuePager is an optional interface of a QueueSource. A source that
// implements it selects the /debug/queue page itself — typically while it
// walks the queue under the queue's lock, with a PageSelector — so that a
// request copies the pods it shows rather than the whole queue. The router
// prefers it to QueueSnapshot.
type QueuePager interface {
	QueuePage(ctx context.Context, q QueueQuery) (*QueuePage, error)
}

// QueueQuery is a /debug/queue request as a QueuePager sees it.
type QueueQuery struct {
	// Queues keeps the pods of these sub-queues; empty keeps all.
	Queues []QueueName
	// Namespace, PodGroup and Plugin keep the pods with that namespace, that
	// pod group, and that plugin among their gating, unschedulable or pending
	// plugins; empty keeps all.
	Namespace, PodGroup, Plugin string
	// Readable, when set, keeps only the pods of the namespaces it accepts:
	// the others are left out of every count, as if they were not queued.
	// It is called for every queued pod, under the queue's lock: it must
	// only look up an answer decided beforehand.
	Readable func(namespace string) bool
	// Limit is the page size (at least 1).
	Limit int
	// After, when set, starts the page after this key (the last pod of the
	// previous page) in (namespace, name, uid) order.
	After *PodKey
}

// PodKey is a pod's position in the paging order of /debug/queue.
type PodKey struct{ Namespace, Name, UID string }

// Compare orders keys by namespace, then name, then UID.
func (k PodKey) Compare(o PodKey) int {
	if c := strings.Compare(k.Namespace, o.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(k.Name, o.Name); c != 0 {
		return c
	}
	return strings.Compare(k.UID, o.UID)
}

// QueueCounts counts pods per sub-queue.
type QueueCounts struct {
	Active, Backoff, Unschedulable, Gated, InFlight int
}

// QueuePage is a QueuePager's answer.
type QueuePage struct {
	// TakenAt and SchedulingCycle are as in QueueSnapshot.
	TakenAt         time.Time
	SchedulingCycle int64
	// Counts counts the whole queue, ignoring the filters.
	Counts QueueCounts
	// Matched counts the pods that pass the filters; Remaining, those of
	// them after the page.
	Matched, Remaining int
	// Pods is the page, in (namespace, name, uid) order.
	Pods []QueuedPod
	// Groups count the matching pods of each pod group per sub-queue, in
	// (namespace, name) order, at most MaxQueueGroups of them;
	// GroupsOmitted counts the others.
	Groups        []QueueGroup
	GroupsOmitted int
}

// MaxQueueGroups bounds QueuePage.Groups.
const MaxQueueGroups = 1000

// QueueGroup counts the queued pods of one pod group per sub-queue.
type QueueGroup struct {
	Namespace, Name string
	Counts          QueueCounts
}

// add counts one pod of the sub-queue with index qi in Queues().
func (c *QueueCounts) add(qi int) {
	switch qi {
	case 0:
		c.Active++
	case 1:
		c.Backoff++
	case 2:
		c.Unschedulable++
	case 3:
		c.Gated++
	case 4:
		c.InFlight++
	}
}

// Total is the number of pods counted.
func (c QueueCounts) Total() int {
	return c.Active + c.Backoff + c.Unschedulable + c.Gated + c.InFlight
}

// PageCandidate is what a PageSelector needs to know of one queued pod.
type PageCandidate struct {
	Key      PodKey
	Queue    QueueName
	PodGroup string
	// PluginMatch tells whether the query's Plugin gates, rejected or holds
	// the pod pending. It is read only when the query filters by plugin.
	PluginMatch bool
}

// PageSelector picks a /debug/queue page from pods offered one at a time,
// in any order: it counts them, applies the query's filters and keeps the
// first Limit pods after the query's key in a bounded heap, so it costs
// O(n log limit) and allocates only for the page. H is whatever the caller
// needs to find a selected pod again (an index, a pointer).
type PageSelector[H any] struct {
	query     QueueQuery
	queues    uint8 // bit i set for Queues()[i]; 0: all
	counts    QueueCounts
	matched   int
	afterKey  int // matching pods after query.After
	heap      []pageEntry[H]
	heapLimit int
	// groups counts the matching pods of each pod group.
	groups map[groupKey]*QueueCounts
}

type groupKey struct{ namespace, name string }

type pageEntry[H any] struct {
	key    PodKey
	handle H
}

// NewPageSelector returns a selector for q.
func NewPageSelector[H any](q QueueQuery) *PageSelector[H] {
	s := &PageSelector[H]{query: q, heapLimit: max(q.Limit, 1)}
	for _, name := range q.Queues {
		if i := queueIndex(name); i >= 0 {
			s.queues |= 1 << i
		}
	}
	return s
}

// Offer considers one pod.
func (s *PageSelector[H]) Offer(c PageCandidate, handle H) {
	if s.query.Readable != nil && !s.query.Readable(c.Key.Namespace) {
		return
	}
	qi := queueIndex(c.Queue)
	s.counts.add(qi)
	q := &s.query
	if s.queues != 0 && (qi < 0 || s.queues&(1<<qi) == 0) {
		return
	}
	if q.Namespace != "" && c.Key.Namespace != q.Namespace {
		return
	}
	if q.PodGroup != "" && c.PodGroup != q.PodGroup {
		return
	}
	if q.Plugin != "" && !c.PluginMatch {
		return
	}
	s.matched++
	if c.PodGroup != "" {
		k := groupKey{c.Key.Namespace, c.PodGroup}
		g := s.groups[k]
		if g == nil {
			if s.groups == nil {
				s.groups = map[groupKey]*QueueCounts{}
			}
			g = &QueueCounts{}
			s.groups[k] = g
		}
		g.add(qi)
	}
	if q.After != nil && c.Key.Compare(*q.After) <= 0 {
		return
	}
	s.afterKey++
	s.offer(c.Key, handle)
}

// Result returns the counts of every offered pod, how many matched, how many
// matching pods follow the page, and the page's handles in key order.
func (s *PageSelector[H]) Result() (counts QueueCounts, matched, remaining int, page []H) {
	slices.SortFunc(s.heap, func(a, b pageEntry[H]) int { return a.key.Compare(b.key) })
	page = make([]H, len(s.heap))
	for i := range s.heap {
		page[i] = s.heap[i].handle
	}
	return s.counts, s.matched, s.afterKey - len(page), page
}

// Groups returns the pod groups of the matching pods with their counts, in
// (namespace, name) order, at most MaxQueueGroups, and how many were left
// out.
func (s *PageSelector[H]) Groups() (groups []QueueGroup, omitted int) {
	if len(s.groups) == 0 {
		return nil, 0
	}
	groups = make([]QueueGroup, 0, len(s.groups))
	for k, c := range s.groups {
		groups = append(groups, QueueGroup{Namespace: k.namespace, Name: k.name, Counts: *c})
	}
	slices.SortFunc(groups, func(a, b QueueGroup) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(groups) > MaxQueueGroups {
		return groups[:MaxQueueGroups], len(groups) - MaxQueueGroups
	}
	return groups, 0
}

// The heap is a max-heap on the key: its root is the largest kept key, the
// one a new pod has to beat.

func (s *PageSelector[H]) offer(key PodKey, handle H) {
	if len(s.heap) < s.heapLimit {
		s.heap = append(s.heap, pageEntry[H]{key: key, handle: handle})
		s.up(len(s.heap) - 1)
		return
	}
	root := &s.heap[0].key
	// Fast path: most pods lose to the root on the namespace alone.
	if key.Namespace > root.Namespace || key.Compare(*root) >= 0 {
		return
	}
	s.heap[0] = pageEntry[H]{key: key, handle: handle}
	s.down(0)
}

func (s *PageSelector[H]) greater(i, j int) bool {
	return s.heap[i].key.Compare(s.heap[j].key) > 0
}

func (s *PageSelector[H]) up(j int) {
	for j > 0 {
		parent := (j - 1) / 2
		if !s.greater(j, parent) {
			return
		}
		s.heap[j], s.heap[parent] = s.heap[parent], s.heap[j]
		j = parent
	}
}

func (s *PageSelector[H]) down(j int) {
	n := len(s.heap)
	for {
		c := 2*j + 1
		if c >= n {
			return
		}
		if c+1 < n && s.greater(c+1, c) {
			c++
		}
		if !s.greater(c, j) {
			return
		}
		s.heap[j], s.heap[c] = s.heap[c], s.heap[j]
		j = c
	}
}
