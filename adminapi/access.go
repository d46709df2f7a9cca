package adminapi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// NamespaceAuthorizer decides whether the caller of r may read the pods of
// namespace; the empty namespace asks for every namespace at once. It is
// the embedding program's link to the cluster's authorization (the
// scheduler asks whether the caller may "get pods" there). An error means
// the decision could not be made; the admin API then refuses the request
// rather than guess.
type NamespaceAuthorizer func(ctx context.Context, r *http.Request, namespace string) (bool, error)

// podsPermission names, in messages, what a caller needs to see a namespace.
const podsPermission = `"get" on "pods"`

// access is one request's view of the NamespaceAuthorizer: it asks once per
// namespace and remembers the answers for the rest of the request.
type access struct {
	authorize NamespaceAuthorizer
	ctx       context.Context
	r         *http.Request
	// all: the caller may read every namespace, so nothing is filtered.
	all  bool
	memo map[string]bool
	// hidden collects the namespaces refused, for the listing's count.
	hidden map[string]struct{}
	// deadline bounds the request's questions together: budget
	// (RequestTimeout) from the first.
	deadline time.Time
	budget   time.Duration
	// err is the first failed check: once set, nothing more is asked.
	err error
}

// accessFor returns the request's access, asking first whether the caller
// may read every namespace (one question answers a cluster-wide reader).
// Without an authorizer (the admin listener) every namespace is readable.
func (a *api) accessFor(r *http.Request) (*access, error) {
	x := &access{authorize: a.opts.Authorize, r: r, all: true}
	if x.authorize == nil {
		return x, nil
	}
	// The authorizer bounds each question's time (a review is a call to
	// the API server); the request's context ends them when it ends, and
	// the deadline bounds them all.
	x.ctx = r.Context()
	x.budget = a.opts.RequestTimeout
	x.deadline = time.Now().Add(x.budget)
	all, err := x.authorize(x.ctx, r, "")
	if err != nil {
		return nil, fmt.Errorf("checking whether you may read pods in every namespace: %w", err)
	}
	x.all = all
	return x, nil
}

// maxParallelChecks bounds the questions one request asks at once.
const maxParallelChecks = 8

// may reports whether the caller may read namespace's pods. A failed check
// counts as a refusal and is kept in x.err, which the handler reports;
// after it nothing more is asked.
func (x *access) may(namespace string) bool {
	if x.all {
		return true
	}
	if ok, seen := x.memo[namespace]; seen {
		return ok
	}
	x.prefetch([]string{namespace})
	return x.memo[namespace]
}

// prefetch asks about every namespace not asked yet, maxParallelChecks at a
// time and within the request's deadline, so that a listing over many
// namespaces costs the time of a few questions, not of one per namespace.
func (x *access) prefetch(namespaces []string) {
	if x.all {
		return
	}
	var todo []string
	queued := map[string]bool{}
	for _, ns := range namespaces {
		if _, seen := x.memo[ns]; !seen && !queued[ns] {
			queued[ns] = true
			todo = append(todo, ns)
		}
	}
	if len(todo) == 0 {
		return
	}
	if x.err != nil || !time.Now().Before(x.deadline) {
		if x.err == nil {
			x.err = fmt.Errorf("the authorization checks of this request (one per namespace it would show) took longer than %s", x.budget)
		}
		for _, ns := range todo {
			x.record(ns, false)
		}
		return
	}
	ctx, cancel := context.WithDeadline(x.ctx, x.deadline)
	defer cancel()
	type answer struct {
		ok  bool
		err error
	}
	answers := make([]answer, len(todo))
	sem := make(chan struct{}, maxParallelChecks)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for i, ns := range todo {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if failed.Load() {
				answers[i].err = errNotAsked
				return
			}
			answers[i].ok, answers[i].err = x.authorize(ctx, x.r, ns)
			if answers[i].err != nil {
				failed.Store(true)
				cancel()
			}
		}()
	}
	wg.Wait()
	for i, ns := range todo {
		if err := answers[i].err; err != nil && x.err == nil && !errors.Is(err, errNotAsked) {
			if ctx.Err() == context.DeadlineExceeded {
				x.err = fmt.Errorf("the authorization checks of this request (one per namespace it would show) took longer than %s", x.budget)
			} else {
				x.err = fmt.Errorf("checking whether you may read pods in namespace %q: %w", ns, err)
			}
		}
		x.record(ns, answers[i].ok && answers[i].err == nil)
	}
}

// errNotAsked marks a question skipped because another one failed.
var errNotAsked = errors.New("not asked: an earlier check failed")

// record keeps one answer.
func (x *access) record(namespace string, ok bool) {
	if x.memo == nil {
		x.memo = map[string]bool{}
	}
	x.memo[namespace] = ok
	if !ok {
		if x.hidden == nil {
			x.hidden = map[string]struct{}{}
		}
		x.hidden[namespace] = struct{}{}
	}
}

// hiddenNamespaces counts the namespaces refused so far. Their names are
// not shown: a caller who may not read a namespace may not be allowed to
// list namespaces either.
func (x *access) hiddenNamespaces() int {
	return len(x.hidden)
}

// authorizeNamespace answers a per-namespace route: true when the caller may
// read namespace; otherwise it has written the refusal (403 naming the
// permission, or 503 when the check failed) and returns false.
func (a *api) authorizeNamespace(w http.ResponseWriter, r *http.Request, namespace string) bool {
	x, err := a.accessFor(r)
	if err != nil {
		a.authorizationError(w, r, err)
		return false
	}
	if x.may(namespace) {
		return true
	}
	if x.err != nil {
		a.authorizationError(w, r, x.err)
		return false
	}
	writeError(w, r, http.StatusForbidden, forbiddenMessage(namespace))
	return false
}

// forbiddenMessage says what a caller lacks to see namespace.
func forbiddenMessage(namespace string) string {
	return fmt.Sprintf("forbidden: the admin API shows namespace %q only to users allowed %s in it; ask for a Role granting get on pods in %q (or a ClusterRole for every namespace)",
		namespace, podsPermission, namespace)
}

// authorizationError answers a request whose authorization check failed.
func (a *api) authorizationError(w http.ResponseWriter, r *http.Request, err error) {
	a.log.Error("admin API authorization check failed", "path", r.URL.Path, "err", err)
	w.Header().Set("Retry-After", "1")
	writeError(w, r, http.StatusServiceUnavailable, err.Error()+"; try again")
}

// hiddenNote is the line a filtered listing ends with, or "".
func hiddenNote(hidden int) string {
	if hidden == 0 {
		return ""
	}
	return fmt.Sprintf("Not shown: what belongs to %s you may not read (%s in a namespace shows it)",
		count(hidden, "namespace", "namespaces"), podsPermission)
}

// readableNamespaces prepares q for the caller of x: for a caller who may
// not read every namespace, the queue's namespaces are collected (one pass
// under the queue's lock that selects nothing), the caller is asked about
// each outside the lock, and q keeps only those it may read. A namespace
// that first appears after the collecting pass is left out. A query for
// one namespace was authorized already and needs nothing more.
func (a *api) readableNamespaces(r *http.Request, q *QueueQuery, x *access) error {
	if x.all || q.Namespace != "" {
		return nil
	}
	collect := *q
	collect.Limit = 1
	seen, err := fetch(a, r, func(ctx context.Context) (map[string]struct{}, error) {
		seen := map[string]struct{}{}
		collect.Readable = func(ns string) bool {
			seen[ns] = struct{}{}
			return false
		}
		_, err := queuePage(ctx, a.opts.Queue, collect)
		return seen, err
	})
	if err != nil {
		return err
	}
	x.prefetch(slices.Sorted(maps.Keys(seen)))
	readable := make(map[string]bool, len(seen))
	for ns := range seen {
		readable[ns] = x.may(ns)
	}
	q.Readable = func(ns string) bool { return readable[ns] }
	return nil
}

// hiddenVictim replaces the name of a victim the caller may not read.
const hiddenVictim = "(hidden)"

// readableDecision returns d as the caller of x may see it: a preemption's
// victims in namespaces the caller may not read keep their namespace and
// priority, and lose their pod, node and pod-group names. d is not modified
// (it is the source's snapshot).
func readableDecision(d *PlacementDecision, x *access) *PlacementDecision {
	if x.all || d.Preemption == nil {
		return d
	}
	p := *d.Preemption
	p.Victims = readableVictims(p.Victims, x)
	p.Candidates = append([]PreemptionCandidate(nil), p.Candidates...)
	for i := range p.Candidates {
		p.Candidates[i].Victims = readableVictims(p.Candidates[i].Victims, x)
	}
	c := *d
	c.Preemption = &p
	return &c
}

func readableVictims(vs []Victim, x *access) []Victim {
	if len(vs) == 0 {
		return vs
	}
	out := make([]Victim, len(vs))
	for i, v := range vs {
		ns, _, _ := strings.Cut(v.Pod, "/")
		if !x.may(ns) {
			// The namespace and priority stay (they say why the pod could
			// be a victim); its name, node and group do not.
			v.Pod, v.Node = ns+"/"+hiddenVictim, hiddenVictim
			if v.PodGroup != "" {
				v.PodGroup = hiddenVictim
			}
		}
		out[i] = v
	}
	return out
}
