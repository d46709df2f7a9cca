package adminapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server serves the admin API on its own listener.
type Server struct {
	addr    string
	log     *slog.Logger
	handler http.Handler
	srv     *http.Server

	mu sync.Mutex
	ln net.Listener
}

// NewServer returns a server for the admin API on addr (host:port; port 0
// picks a free port). It does not listen until Start.
func NewServer(addr string, opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	timeout := opts.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	h := NewRouter(opts)
	return &Server{
		addr:    addr,
		log:     log,
		handler: h,
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       10 * time.Second,
			// A profile may sample for MaxProfileSeconds; leave room to
			// write it (net/http/pprof refuses longer profiles).
			WriteTimeout:   MaxProfileSeconds*time.Second + timeout + 10*time.Second,
			IdleTimeout:    60 * time.Second,
			MaxHeaderBytes: 64 << 10,
			ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
	}
}

// Handler returns the server's router, to mount elsewhere as well.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on the address and serves in the background. It returns the
// listen error, if any; serving errors are logged.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	s.log.Info("admin API listening", "address", ln.Addr().String())
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("admin API server stopped", "err", err)
		}
	}()
	return nil
}

// Addr returns the address the server listens on, or the configured address
// before Start.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return s.ln.Addr().String()
	}
	return s.addr
}

// Shutdown stops the server gracefully: no new connections, and in-flight
// requests may finish until ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.srv.Shutdown(ctx)
}
