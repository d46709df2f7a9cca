package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// testTime is one test's (or subtest's) seconds.
type testTime struct {
	pkg, test string
	secs      float64
}

// slowestTests collects the tests of a run to list the slowest ones: where a
// package's seconds went, test by test (docs/ci.md).
type slowestTests struct {
	all []testTime
}

func (s *slowestTests) add(pkg, test string, secs float64) {
	s.all = append(s.all, testTime{pkg: pkg, test: test, secs: secs})
}

// top returns the n slowest tests that have no subtests (a parent's seconds
// are its subtests'), slowest first (ties by package and name).
func (s *slowestTests) top(n int) []testTime {
	parents := map[[2]string]bool{}
	for _, t := range s.all {
		for name := t.test; strings.Contains(name, "/"); {
			name = name[:strings.LastIndex(name, "/")]
			parents[[2]string{t.pkg, name}] = true
		}
	}
	var sorted []testTime
	for _, t := range s.all {
		if !parents[[2]string{t.pkg, t.test}] {
			sorted = append(sorted, t)
		}
	}
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.secs != b.secs {
			return a.secs > b.secs
		}
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.test < b.test
	})
	return sorted[:min(n, len(sorted))]
}

// write prints the n slowest tests.
func (s *slowestTests) write(w io.Writer, n int) {
	top := s.top(n)
	if len(top) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthe %d slowest tests (subtests, and tests without any):\n", len(top))
	for _, t := range top {
		fmt.Fprintf(w, "%8.1f  %s  %s\n", t.secs, t.pkg, t.test)
	}
}
