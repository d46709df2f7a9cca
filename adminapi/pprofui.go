package adminapi

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	rpprof "runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"
)

// The interactive pprof web UI (github.com/google/pprof/driver) over a fresh
// CPU profile of this process.
//
// GET /debug/pprof/ui/?seconds=N samples the CPU for N seconds (default 5,
// at most MaxProfileSeconds), hands the profile to the pprof driver with a
// custom HTTPServer that keeps the UI's handlers instead of listening, and
// redirects to the flame graph of that session, /debug/pprof/ui/s/{id}/.
// The UI's own links are relative ("./top", "./flamegraph"), so the session
// works under any mount prefix. One session is kept at a time; opening a new
// one retires the previous one. HEAD /debug/pprof/ui/ only checks the
// parameters: it collects nothing and keeps the current session. The UI is
// read-only here: it does not read object files, run symbolizers or save
// settings (saving is a POST).

// pprofUI holds the current UI session.
type pprofUI struct {
	log        *slog.Logger
	collecting chan struct{} // one profile collection at a time

	mu       sync.Mutex
	id       int                     // current session; 0 before the first
	handlers map[string]http.Handler // the driver's handlers by path
}

func newPprofUI(log *slog.Logger) *pprofUI {
	return &pprofUI{log: log, collecting: make(chan struct{}, 1)}
}

// newSession collects a CPU profile and starts a UI session on it.
func (u *pprofUI) newSession(w http.ResponseWriter, r *http.Request) {
	p, err := parsePprofParams(r.URL.RawQuery, "seconds")
	if err != nil {
		badRequest(w, r, err)
		return
	}
	if r.Method == http.MethodHead {
		// HEAD has no side effects: it neither samples the CPU nor
		// retires the open session. It tells whether the parameters are
		// good; only a GET opens a session (303 to it).
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		return
	}
	secs := p.seconds
	if secs == 0 {
		secs = defaultUISeconds
	}
	select {
	case u.collecting <- struct{}{}:
		defer func() { <-u.collecting }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, r, http.StatusConflict, "a profile for the pprof UI is already being collected; retry when it is done")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(secs)*time.Second+10*time.Second)
	defer cancel()
	data, err := collectCPUProfile(ctx, time.Duration(secs)*time.Second)
	if err != nil {
		writeError(w, r, http.StatusConflict, "collecting the CPU profile: "+err.Error())
		return
	}
	prof, err := profile.ParseData(data)
	if err != nil {
		panic(fmt.Errorf("parsing the CPU profile: %w", err))
	}
	handlers, err := u.driverHandlers(prof)
	if err != nil {
		panic(fmt.Errorf("starting the pprof UI: %w", err))
	}
	u.mu.Lock()
	u.id++
	id := u.id
	u.handlers = handlers
	u.mu.Unlock()

	loc := "s/" + strconv.Itoa(id) + "/flamegraph"
	w.Header().Set("Location", loc)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusSeeOther)
	_, _ = fmt.Fprintf(w, "<a href=\"%s\">pprof UI for a %ds CPU profile</a>\n", html.EscapeString(loc), secs)
}

// serveSession serves a page of the current UI session.
func (u *pprofUI) serveSession(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	current, handlers := u.id, u.handlers
	u.mu.Unlock()
	if chi.URLParam(r, "session") != strconv.Itoa(current) || handlers == nil {
		writeError(w, r, http.StatusNotFound, "this pprof UI session is gone (one is kept at a time); open /debug/pprof/ui/ for a fresh profile")
		return
	}
	h := handlers["/"+chi.URLParam(r, "*")]
	if h == nil {
		writeError(w, r, http.StatusNotFound, "no such pprof UI page")
		return
	}
	h.ServeHTTP(w, r)
}

// collectCPUProfile samples the CPU for d (or until ctx ends) and returns
// the profile in its encoded form.
func collectCPUProfile(ctx context.Context, d time.Duration) ([]byte, error) {
	var buf bytes.Buffer
	if err := rpprof.StartCPUProfile(&buf); err != nil {
		return nil, err // another CPU profile is running
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	rpprof.StopCPUProfile()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// driverHandlers runs the pprof driver in web mode on prof and returns the
// handlers it would serve.
func (u *pprofUI) driverHandlers(prof *profile.Profile) (map[string]http.Handler, error) {
	var handlers map[string]http.Handler
	err := driver.PProf(&driver.Options{
		Flagset: &uiFlags{
			FlagSet: flag.NewFlagSet("pprof", flag.ContinueOnError),
			args:    []string{"-http=localhost:0", "-no_browser", "-symbolize=none", "cpu"},
		},
		Fetch: fetchFunc(func(string, time.Duration, time.Duration) (*profile.Profile, string, error) {
			return prof, "", nil
		}),
		Obj: noObjects{},
		UI:  uiLog{u.log},
		HTTPServer: func(args *driver.HTTPServerArgs) error {
			handlers = args.Handlers
			return nil
		},
	})
	if err == nil && handlers == nil {
		err = errors.New("the pprof driver started no web UI")
	}
	return handlers, err
}

// uiFlags feeds fixed arguments to the driver.
type uiFlags struct {
	*flag.FlagSet
	args  []string
	extra string
}

func (f *uiFlags) StringList(name, def, usage string) *[]*string {
	return &[]*string{f.String(name, def, usage)}
}

func (f *uiFlags) ExtraUsage() string { return f.extra }

func (f *uiFlags) AddExtraUsage(eu string) { f.extra += eu }

func (f *uiFlags) Parse(usage func()) []string {
	f.FlagSet.SetOutput(io.Discard)
	f.FlagSet.Usage = usage
	if err := f.FlagSet.Parse(f.args); err != nil {
		return nil
	}
	return f.FlagSet.Args()
}

// fetchFunc adapts a function to driver.Fetcher.
type fetchFunc func(src string, duration, timeout time.Duration) (*profile.Profile, string, error)

func (f fetchFunc) Fetch(src string, duration, timeout time.Duration) (*profile.Profile, string, error) {
	return f(src, duration, timeout)
}

// noObjects refuses to open object files or disassemble, so the UI never
// reads binaries or runs binutils. Go profiles carry their symbols.
type noObjects struct{}

var _ driver.ObjTool = noObjects{}

func (noObjects) Open(string, uint64, uint64, uint64, string) (driver.ObjFile, error) {
	return nil, errors.New("the admin API does not read object files")
}

func (noObjects) Disasm(string, uint64, uint64, bool) ([]driver.Inst, error) {
	return nil, errors.New("the admin API does not disassemble")
}

// uiLog sends the driver's messages to the log.
type uiLog struct{ log *slog.Logger }

func (uiLog) ReadLine(string) (string, error)     { return "", io.EOF }
func (l uiLog) Print(args ...any)                 { l.log.Debug("pprof UI", "msg", fmt.Sprint(args...)) }
func (l uiLog) PrintErr(args ...any)              { l.log.Info("pprof UI", "msg", fmt.Sprint(args...)) }
func (uiLog) IsTerminal() bool                    { return false }
func (uiLog) WantBrowser() bool                   { return false }
func (uiLog) SetAutoComplete(func(string) string) {}
