package adminapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
)

// unmatchedRoute is the route reported to the RequestObserver for requests
// that matched no route.
const unmatchedRoute = "unmatched"

// statusWriter records the status code a handler writes.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestInfo is shared along one request's handler chain.
type requestInfo struct {
	unmatched bool // set by notFound
}

type requestInfoKey struct{}

// observe reports every request to the Observer and the debug log, with the
// chi route pattern rather than the raw path.
func (a *api) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		info := &requestInfo{}
		defer func() {
			d := time.Since(start)
			code := sw.code
			if code == 0 {
				code = http.StatusOK
			}
			route := unmatchedRoute
			if rctx := chi.RouteContext(r.Context()); rctx != nil && !info.unmatched {
				if p := rctx.RoutePattern(); p != "" {
					route = p
				}
			}
			if a.opts.Observer != nil {
				a.opts.Observer.ObserveRequest(route, code, d)
			}
			a.log.Debug("admin API request", "method", r.Method, "route", route, "code", code, "duration", d)
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info)))
	})
}

// recoverPanic turns a panic into a 500 with a generic message. The panic
// and its stack go to the log, never to the client.
func (a *api) recoverPanic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			stack := debug.Stack()
			if err, ok := p.(error); ok {
				if errors.Is(err, http.ErrAbortHandler) {
					panic(p) // net/http's way to abort a response quietly
				}
				var sp *sourcePanic
				if errors.As(err, &sp) {
					p, stack = sp.value, sp.stack
				}
			}
			a.log.Error("admin API handler panicked", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", string(stack))
			if sw, ok := w.(*statusWriter); ok && sw.code != 0 {
				// Part of the response is out; cut the connection rather
				// than append an error to it.
				panic(http.ErrAbortHandler)
			}
			writeError(w, r, http.StatusInternalServerError, "internal error while serving the request; see the scheduler log")
		}()
		next.ServeHTTP(w, r)
	})
}

// securityHeaders marks every response as uncacheable and not sniffable.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// slot is one unit of the concurrency limit. It is released when the request
// and every source call it started have finished: a source that outlives its
// request's timeout keeps the slot, so stuck sources cannot pile up.
type slot struct {
	sem  chan struct{}
	refs atomic.Int32
}

type slotKey struct{}

func (s *slot) hold() {
	if s != nil {
		s.refs.Add(1)
	}
}

func (s *slot) release() {
	if s != nil && s.refs.Add(-1) == 0 {
		<-s.sem
	}
}

// limitConcurrency answers 429 with Retry-After when MaxConcurrentRequests
// requests are already being served.
// leaderOnly answers 503 on a follower: an instance that has observed
// another instance leading. Its queue holds the pending pods but is never
// scheduled, and it has no API calls or pod-group cycles of its own.
func (a *api) leaderOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.opts.Leadership != nil {
			if self, leader := a.opts.Leadership(); leader != "" && leader != self {
				writeError(w, r, http.StatusServiceUnavailable, fmt.Sprintf(
					"this kube-scheduler (%s) is not the leader: it schedules nothing, so its queue, API calls and placements are not shown. "+
						"The leader is %s (the holder of the scheduler's leader-election lease); ask it (kubectl kspatch finds its pod by the lease)", self, leader))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (a *api) limitConcurrency(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case a.sem <- struct{}{}:
		default:
			w.Header().Set("Retry-After", "1")
			writeError(w, r, http.StatusTooManyRequests, fmt.Sprintf(
				"too many concurrent admin API requests (at most %d); retry later", cap(a.sem)))
			return
		}
		s := &slot{sem: a.sem}
		s.refs.Store(1)
		defer s.release()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, s)))
	})
}

// sourcePanic carries a panic from a source call's goroutine to the request's
// goroutine, with the stack where it happened.
type sourcePanic struct {
	value any
	stack []byte
}

func (p *sourcePanic) Error() string { return fmt.Sprintf("source panicked: %v", p.value) }

// errTimeout is returned by fetch when the source did not answer in time.
type errTimeout struct{ d time.Duration }

func (e errTimeout) Error() string {
	return "the scheduler did not answer within " + e.d.String() + "; retry later"
}

// fetch calls get with a context bounded by the request timeout, in its own
// goroutine, and stops waiting when the timeout expires. A panic in get is
// re-raised in the caller's goroutine (so recoverPanic sees it).
func fetch[T any](a *api, r *http.Request, get func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(r.Context(), a.opts.RequestTimeout)
	defer cancel()
	type result struct {
		v     T
		err   error
		panic *sourcePanic
	}
	done := make(chan result, 1)
	s, _ := r.Context().Value(slotKey{}).(*slot)
	s.hold()
	go func() {
		defer s.release()
		var res result
		defer func() {
			if p := recover(); p != nil {
				res.panic = &sourcePanic{value: p, stack: debug.Stack()}
			}
			done <- res
		}()
		res.v, res.err = get(ctx)
	}()
	select {
	case res := <-done:
		if res.panic != nil {
			panic(error(res.panic))
		}
		return res.v, res.err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil {
			return zero, errTimeout{a.opts.RequestTimeout}
		}
		return zero, ctx.Err()
	}
}

// sourceError answers a failed source call: 503 for a timeout, 500 otherwise.
func (a *api) sourceError(w http.ResponseWriter, r *http.Request, what string, err error) {
	var te errTimeout
	if errors.As(err, &te) {
		w.Header().Set("Retry-After", "1")
		writeError(w, r, http.StatusServiceUnavailable, "reading "+what+": "+err.Error())
		return
	}
	a.log.Error("admin API source failed", "source", what, "err", err)
	writeError(w, r, http.StatusInternalServerError, "reading "+what+": "+err.Error())
}

// notImplemented answers a route whose source is not configured.
func notImplemented(w http.ResponseWriter, r *http.Request, msg string) {
	writeError(w, r, http.StatusNotImplemented, msg)
}

func (a *api) notFound(w http.ResponseWriter, r *http.Request) {
	if info, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		info.unmatched = true
	}
	writeError(w, r, http.StatusNotFound, fmt.Sprintf("no route %s; see /debug/queue, /debug/apicalls, /debug/placements, /debug/pprof/",
		printable(r.URL.Path, 128)))
}

func (a *api) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	// chi records a route's pattern only when the method matches too: add
	// the pattern of the GET route this path matches, so that observe
	// reports the 405 under its route rather than as unmatched.
	if rctx := chi.RouteContext(r.Context()); rctx != nil && a.routes != nil {
		path := rctx.RoutePath // the rest of the path, when mounted
		if path == "" {
			path = r.URL.RawPath
		}
		if path == "" {
			path = r.URL.Path
		}
		if p := a.routes.Find(chi.NewRouteContext(), http.MethodGet, path); p != "" {
			rctx.RoutePatterns = append(rctx.RoutePatterns, p)
		}
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeError(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method %s is not allowed: the admin API is read-only (GET, HEAD)", r.Method))
}

// redirectToSlash redirects to the same path with a trailing slash, with a
// relative Location so that it works under any mount prefix.
func redirectToSlash(w http.ResponseWriter, r *http.Request) {
	loc := path.Base(r.URL.Path) + "/"
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusMovedPermanently)
}
