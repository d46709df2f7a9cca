package adminapi

import (
	"log/slog"
	"time"

	"github.com/go-chi/chi/v5"
)

// Defaults for the zero values of Options.
const (
	DefaultRequestTimeout        = 10 * time.Second
	DefaultMaxConcurrentRequests = 8
	DefaultMaxResponseBytes      = 16 << 20
)

// MaxProfileSeconds bounds the seconds= parameter of the pprof routes.
const MaxProfileSeconds = 60

// Options configures the admin API. Only Queue is needed for the queue
// routes; every other field may be left zero.
type Options struct {
	// Queue reads the scheduling queue. Nil: the queue routes answer 501.
	Queue QueueSource
	// APICalls reads the async API call queue. Nil means the
	// SchedulerAsyncAPICalls feature is off or not in this build, and
	// /debug/apicalls answers 501 saying so.
	APICalls APICallSource
	// Placements reads the pod-group cycle recorder. Nil means the
	// GangScheduling / TopologyAwareWorkloadScheduling features are off or not
	// in this build, and /debug/placements answers 501 saying so.
	Placements PlacementSource
	// PodGroups reads the scheduler's pod groups. Nil means the
	// GangScheduling feature is off or not in this build, and
	// /debug/queue/podgroups/... answers 501 saying so.
	PodGroups PodGroupSource
	// Leader reports whether this scheduler instance is the leader. Nil means
	// leader election is off: the instance schedules, so it reports leader.
	Leader func() bool
	// Leadership reports, with leader election on, this instance's identity
	// in the election and that of the leader it last observed (empty until
	// it has observed one). When another instance leads, the routes that
	// show the scheduler's state (queue, API calls, placements) answer 503
	// naming the leader: a follower's queue is never scheduled, so showing
	// it would mislead. Nil: leader election is off.
	Leadership func() (self, leader string)
	// Authorize, if set, limits every answer to the namespaces whose pods
	// the caller may read: a pod, pod group or group's placements of
	// another namespace gets 403 naming the permission, and the listings
	// (queue, API calls, placements, victims) leave those namespaces out and
	// say so. Set it where callers are authenticated (the secure port). Nil:
	// every caller sees every namespace (the loopback admin listener).
	Authorize NamespaceAuthorizer
	// Observer, if set, is told about every request.
	Observer RequestObserver
	// Logger receives panics (at Error) and one line per request (at Debug).
	// Nil discards.
	Logger *slog.Logger
	// RequestTimeout bounds how long a request waits for a source. Zero means
	// DefaultRequestTimeout. The pprof routes are bounded by their seconds=
	// parameter instead.
	RequestTimeout time.Duration
	// MaxConcurrentRequests bounds the requests served at once (health checks
	// excepted); beyond it requests get 429 with Retry-After. Zero means
	// DefaultMaxConcurrentRequests.
	MaxConcurrentRequests int
	// MaxResponseBytes bounds a rendered text or JSON response; a larger one
	// is refused with 500 and advice to lower limit=. Zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int
	// DisableProfiling removes the /debug/pprof routes (for a scheduler run
	// with --profiling=false).
	DisableProfiling bool
}

// api holds what the handlers share: the options with defaults applied and
// the concurrency semaphore. It is created per router; there is no global
// state.
type api struct {
	opts Options
	log  *slog.Logger
	sem  chan struct{}
	ui   *pprofUI
	// routes is the router's own mux, to find the route of a request whose
	// method it refused.
	routes chi.Routes
}

func newAPI(opts Options) *api {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.MaxConcurrentRequests <= 0 {
		opts.MaxConcurrentRequests = DefaultMaxConcurrentRequests
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &api{
		opts: opts,
		log:  log,
		sem:  make(chan struct{}, opts.MaxConcurrentRequests),
		ui:   newPprofUI(log),
	}
}

// leader reports the Leader option, true when it is unset.
func (a *api) leader() bool {
	return a.opts.Leader == nil || a.opts.Leader()
}
