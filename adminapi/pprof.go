package adminapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/pprof"
	rpprof "runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// The standard Go profiles of net/http/pprof, with validated parameters and
// a time bound: seconds= is at most MaxProfileSeconds, and the request's
// context ends RequestTimeout after the sampling period. Profiles are routed
// by name here rather than by net/http/pprof's path parsing, so they work
// under any mount prefix.

// Default sampling periods of net/http/pprof.
const (
	defaultProfileSeconds = 30
	defaultTraceSeconds   = 1
)

// servePprof runs h with validated parameters and a deadline of the sampling
// period (seconds=, or def) plus the request timeout.
func (a *api) servePprof(w http.ResponseWriter, r *http.Request, def int, h http.HandlerFunc, allowed ...string) {
	p, err := parsePprofParams(r.URL.RawQuery, allowed...)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	secs := p.seconds
	if secs == 0 {
		secs = def
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(secs)*time.Second+a.opts.RequestTimeout)
	defer cancel()
	h(w, r.WithContext(ctx))
}

func (a *api) pprofIndex(w http.ResponseWriter, r *http.Request) {
	a.servePprof(w, r, 0, pprof.Index)
}

func (a *api) pprofCmdline(w http.ResponseWriter, r *http.Request) {
	a.servePprof(w, r, 0, pprof.Cmdline)
}

// pprofSymbol looks up program counters; its query is a '+'-separated list
// of addresses rather than key=value pairs, so it is passed through.
func (a *api) pprofSymbol(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), a.opts.RequestTimeout)
	defer cancel()
	pprof.Symbol(w, r.WithContext(ctx))
}

func (a *api) pprofProfile(w http.ResponseWriter, r *http.Request) {
	a.servePprof(w, r, defaultProfileSeconds, sampled("profile", pprof.Profile), "seconds")
}

func (a *api) pprofTrace(w http.ResponseWriter, r *http.Request) {
	a.servePprof(w, r, defaultTraceSeconds, sampled("trace", pprof.Trace), "seconds")
}

// sampled wraps the handler of a profile that is sampled over time (CPU
// profile, execution trace). A HEAD request gets the headers of the download
// alone: sampling would hold the process's one CPU profiler or tracer for
// seconds, so that another client's request for one fails meanwhile, and
// HEAD has no side effects.
func sampled(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
			w.WriteHeader(http.StatusOK)
			return
		}
		h(w, r)
	}
}

// pprofNamed serves a runtime/pprof profile by name (heap, goroutine, ...).
func (a *api) pprofNamed(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "profile")
	if rpprof.Lookup(name) == nil {
		var names []string
		for _, p := range rpprof.Profiles() {
			names = append(names, p.Name())
		}
		names = append(names, "cmdline", "profile", "symbol", "trace", "ui/")
		slices.Sort(names)
		writeError(w, r, http.StatusNotFound, fmt.Sprintf("unknown profile %q: available are %s", clip(name), strings.Join(names, ", ")))
		return
	}
	a.servePprof(w, r, 0, pprof.Handler(name).ServeHTTP, "debug", "gc", "seconds")
}
