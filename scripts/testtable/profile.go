package main

// The profile of one go test invocation: where its wall time went between
// compiling, linking the test binaries, vet and running them. It reads the
// trace that `go test -debug-trace=FILE` writes (Chrome trace events, one
// begin/end pair per action of the go command).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// traceEvent is the part of a Chrome trace event the profile reads.
type traceEvent struct {
	Name  string  `json:"name"`
	Phase string  `json:"ph"`
	TS    float64 `json:"ts"` // microseconds
	TID   int     `json:"tid"`
}

// profile sums the go command's action seconds by kind. Actions run in
// parallel (-p), so the sums can exceed the wall time.
type profile struct {
	Wall     float64
	Compile  float64 // compiling packages (cache hits take milliseconds)
	Link     float64 // linking test binaries
	Vet      float64 // go test's own vet checks
	Run      float64 // running test binaries
	Packages map[string]*packageProfile
}

// packageProfile is one test binary's link and run seconds.
type packageProfile struct {
	Link, Run float64
}

// readProfile reads a -debug-trace file.
func readProfile(r io.Reader) (profile, error) {
	var events []traceEvent
	if err := json.NewDecoder(r).Decode(&events); err != nil {
		return profile{}, fmt.Errorf("reading the trace: %w", err)
	}
	p := profile{Packages: map[string]*packageProfile{}}
	begun := map[string]float64{}
	first, last := -1.0, -1.0
	for _, ev := range events {
		if ev.Phase != "B" && ev.Phase != "E" {
			continue
		}
		if first < 0 || ev.TS < first {
			first = ev.TS
		}
		last = max(last, ev.TS)
		action, ok := strings.CutPrefix(ev.Name, "Executing action (")
		if !ok || !strings.HasSuffix(action, ")") || strings.Contains(action, " -> ") {
			continue
		}
		action = strings.TrimSuffix(action, ")")
		key := fmt.Sprintf("%d %s", ev.TID, action)
		if ev.Phase == "B" {
			begun[key] = ev.TS
			continue
		}
		start, ok := begun[key]
		if !ok {
			continue
		}
		delete(begun, key)
		p.add(action, (ev.TS-start)/1e6)
	}
	if first >= 0 {
		p.Wall = (last - first) / 1e6
	}
	return p, nil
}

// add counts one finished action.
func (p *profile) add(action string, secs float64) {
	kind, rest, _ := strings.Cut(action, " ")
	switch {
	case kind == "build" && !strings.HasPrefix(rest, "check cache "):
		p.Compile += secs
	case kind == "link":
		p.Link += secs
		p.pkg(strings.TrimSuffix(rest, ".test")).Link += secs
	case kind == "vet":
		p.Vet += secs
	case kind == "test" && strings.HasPrefix(rest, "run "):
		p.Run += secs
		p.pkg(strings.TrimPrefix(rest, "run ")).Run += secs
	}
}

func (p *profile) pkg(name string) *packageProfile {
	pp, ok := p.Packages[name]
	if !ok {
		pp = &packageProfile{}
		p.Packages[name] = pp
	}
	return pp
}

// summary is the profile in one line.
func (p profile) summary() string {
	return fmt.Sprintf("wall %.0f s; action seconds (summed over parallel actions): compile %.0f, link %.0f (%d test binaries), vet %.0f, test run %.0f",
		p.Wall, p.Compile, p.Link, len(p.Packages), p.Vet, p.Run)
}

// writeProfile prints the summary and appends one row per test binary to
// tsvPath (name, gates, package, link seconds, run seconds), if set.
func writeProfile(w io.Writer, tracePath, tsvPath, name, gates string) error {
	f, err := os.Open(tracePath)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := readProfile(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tracePath, err)
	}
	fmt.Fprintf(w, "%s (gates %s): %s\n", name, gates, p.summary())
	if tsvPath == "" {
		return nil
	}
	names := make([]string, 0, len(p.Packages))
	for n := range p.Packages {
		names = append(names, n)
	}
	sort.Strings(names)
	out, err := os.OpenFile(tsvPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintf(out, "%s\t%s\t%s\t%.1f\t%.1f\n", name, gates, n, p.Packages[n].Link, p.Packages[n].Run)
	}
	return out.Close()
}
