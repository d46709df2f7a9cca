package main

import (
	"io"
	"strings"
	"testing"
)

func TestSlowestTests(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"run","Package":"e2e","Test":"TestA"}`,
		`{"Action":"pass","Package":"e2e","Test":"TestA/quick","Elapsed":0.5}`,
		`{"Action":"pass","Package":"e2e","Test":"TestA/slow","Elapsed":30}`,
		`{"Action":"pass","Package":"e2e","Test":"TestA","Elapsed":31}`,
		`{"Action":"run","Package":"e2e","Test":"TestB"}`,
		`{"Action":"fail","Package":"e2e","Test":"TestB","Elapsed":12}`,
		`{"Action":"fail","Package":"e2e","Elapsed":44}`,
		`{"Action":"skip","Package":"other","Test":"TestSkipped","Elapsed":0}`,
	}, "\n")
	var slow slowestTests
	summarize(strings.NewReader(events), io.Discard, io.Discard, "default", slow.add)
	var b strings.Builder
	slow.write(&b, 3)
	want := `
the 3 slowest tests (subtests, and tests without any):
    30.0  e2e  TestA/slow
    12.0  e2e  TestB
     0.5  e2e  TestA/quick
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	var none slowestTests
	b.Reset()
	none.write(&b, 5)
	if b.String() != "" {
		t.Errorf("no tests: printed %q, want nothing", b.String())
	}
}
