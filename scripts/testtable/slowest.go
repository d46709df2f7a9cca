package main

import (
	"fmt"
	"io"
	"sort"
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

// top returns the n slowest, slowest first (ties by package and name).
func (s *slowestTests) top(n int) []testTime {
	sorted := append([]testTime(nil), s.all...)
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
	fmt.Fprintf(w, "\nthe %d slowest tests and subtests (a test's seconds include its subtests'):\n", len(top))
	for _, t := range top {
		fmt.Fprintf(w, "%8.1f  %s  %s\n", t.secs, t.pkg, t.test)
	}
}
