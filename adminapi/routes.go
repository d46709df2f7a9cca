package adminapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// NewRouter returns the admin API: every route below, read-only (GET and
// HEAD). It serves /healthz and /debug/... at its root; to serve it under a
// prefix, mount it with chi (parent.Mount("/debug/kspatch", h)) or strip the
// prefix (http.StripPrefix("/debug/kspatch", h)): no route depends on the
// absolute path.
func NewRouter(opts Options) http.Handler {
	a := newAPI(opts)
	r := chi.NewRouter()
	a.routes = r
	r.Use(a.observe, a.recoverPanic, securityHeaders, middleware.GetHead)
	r.NotFound(a.notFound)
	r.MethodNotAllowed(a.methodNotAllowed)

	r.Get("/healthz", healthz)

	r.Group(func(r chi.Router) {
		r.Use(a.limitConcurrency)

		// What only the leader's state answers: a follower says so.
		r.Group(func(r chi.Router) {
			r.Use(a.leaderOnly)
			r.Get("/debug/queue", a.listQueue)
			r.Get("/debug/queue/pods/{namespace}/{name}", a.getQueuedPod)
			r.Get("/debug/queue/podgroups/{namespace}/{name}", a.getPodGroup)
			r.Get("/debug/apicalls", a.listAPICalls)
			r.Get("/debug/placements", a.listPlacements)
			r.Get("/debug/placements/{namespace}/{podGroup}", a.listGroupPlacements)
		})

		if !opts.DisableProfiling {
			r.Get("/debug/pprof/", a.pprofIndex)
			r.Get("/debug/pprof/cmdline", a.pprofCmdline)
			r.Get("/debug/pprof/symbol", a.pprofSymbol)
			r.Get("/debug/pprof/profile", a.pprofProfile)
			r.Get("/debug/pprof/trace", a.pprofTrace)
			r.Get("/debug/pprof/{profile}", a.pprofNamed)
			r.Get("/debug/pprof/ui", redirectToSlash)
			r.Get("/debug/pprof/ui/", a.ui.newSession)
			r.Get("/debug/pprof/ui/s/{session}/*", a.ui.serveSession)
		}
	})
	return r
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}
