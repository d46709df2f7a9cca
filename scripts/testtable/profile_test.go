package main

import (
	"math"
	"strings"
	"testing"
)

func TestReadProfile(t *testing.T) {
	// Two test binaries linked and run in parallel on two threads, a
	// compile, a cache check (not compile time), vet, and a flow event.
	trace := `[
{"name":"Running test command","ph":"B","ts":0,"tid":0}
,{"name":"Executing action (build check cache k8s.io/a)","ph":"B","ts":1000000,"tid":1}
,{"name":"Executing action (build check cache k8s.io/a)","ph":"E","ts":1500000,"tid":1}
,{"name":"Executing action (build k8s.io/a [k8s.io/a.test])","ph":"B","ts":1500000,"tid":1}
,{"name":"Executing action (build k8s.io/a [k8s.io/a.test]) -> Executing action (link k8s.io/a.test)","ph":"s","ts":3500000,"tid":1}
,{"name":"Executing action (build k8s.io/a [k8s.io/a.test])","ph":"E","ts":3500000,"tid":1}
,{"name":"Executing action (vet k8s.io/a [k8s.io/a.test])","ph":"B","ts":3500000,"tid":2}
,{"name":"Executing action (vet k8s.io/a [k8s.io/a.test])","ph":"E","ts":4000000,"tid":2}
,{"name":"Executing action (link k8s.io/a.test)","ph":"B","ts":3500000,"tid":1}
,{"name":"Executing action (link k8s.io/b.test)","ph":"B","ts":3500000,"tid":2}
,{"name":"Executing action (link k8s.io/a.test)","ph":"E","ts":13500000,"tid":1}
,{"name":"Executing action (link k8s.io/b.test)","ph":"E","ts":8500000,"tid":2}
,{"name":"Executing action (test run k8s.io/b)","ph":"B","ts":8500000,"tid":2}
,{"name":"Executing action (test run k8s.io/a)","ph":"B","ts":13500000,"tid":1}
,{"name":"Executing action (test run k8s.io/b)","ph":"E","ts":20500000,"tid":2}
,{"name":"Executing action (test run k8s.io/a)","ph":"E","ts":33500000,"tid":1}
,{"name":"Running test command","ph":"E","ts":34000000,"tid":0}
]`
	p, err := readProfile(strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"wall", p.Wall, 34},
		{"compile", p.Compile, 2},
		{"link", p.Link, 15},
		{"vet", p.Vet, 0.5},
		{"run", p.Run, 32},
		{"a link", p.Packages["k8s.io/a"].Link, 10},
		{"a run", p.Packages["k8s.io/a"].Run, 20},
		{"b link", p.Packages["k8s.io/b"].Link, 5},
		{"b run", p.Packages["k8s.io/b"].Run, 12},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: %v s, want %v s", c.name, c.got, c.want)
		}
	}
	if len(p.Packages) != 2 {
		t.Errorf("%d test binaries, want 2: %v", len(p.Packages), p.Packages)
	}
	if got, want := p.summary(), "wall 34 s; action seconds (summed over parallel actions): compile 2, link 15 (2 test binaries), vet 0, test run 32"; got != want {
		t.Errorf("summary:\n got %s\nwant %s", got, want)
	}
}

func TestReadProfileRejectsBadTrace(t *testing.T) {
	if _, err := readProfile(strings.NewReader(`{"not": "an array"`)); err == nil || !strings.Contains(err.Error(), "reading the trace") {
		t.Errorf("err = %v, want one that says the trace could not be read", err)
	}
}
