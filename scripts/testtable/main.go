// Command testtable reads the event stream of `go test -json` on standard
// input and turns it into what a person reads after a long test run: the
// output of every failed test and package (the full stream goes to -log),
// then a table with one row per package (package, gates, result, seconds).
// Rows are also appended to -tsv, so that several runs (gate modes) can be
// printed as one table with -print.
//
// With -trace it prints instead where a go test invocation's time went
// (compile, link, vet, run), from the trace of `go test -debug-trace`.
//
// It exits 1 when a package failed, did not build, or never reported a
// result, and 0 otherwise. A run in which no package ran a test is a failure
// too: an empty run proves nothing.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// event is the part of a test2json event that testtable reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// row is one package's outcome.
type row struct {
	Package string
	Gates   string
	Result  string // ok, FAIL, no tests, or "no result"
	Seconds float64
	Tests   int
}

type pkgState struct {
	row
	output  []string // the package's own lines (not inside a test)
	tests   map[string][]string
	failed  []string // failed tests, in order
	started bool
}

func main() { os.Exit(run()) }

// run does the work of main and returns the exit code, after its deferred
// closes (the compressed log is complete only once closed).
func run() int {
	gates := flag.String("gates", "default", "the gate mode of this run, shown in the table")
	logPath := flag.String("log", "", "write the whole human-readable output here (gzip-compressed if it ends in .gz)")
	tsvPath := flag.String("tsv", "", "append the rows to this file")
	printTSV := flag.String("print", "", "print the table of this file (written by -tsv) and exit")
	failedPath := flag.String("failed", "", "write the packages that failed here, one per line")
	retry := flag.Bool("retry", false, "this run retries packages that failed: a package that passes now is \"flaky\"")
	tracePath := flag.String("trace", "", "print the profile of this go test -debug-trace file (compile, link, vet, run) and exit")
	name := flag.String("name", "", "with -trace: the run's name, shown and written to -tsv")
	slowest := flag.Int("slowest", 0, "after the table, list the N slowest tests and subtests with their seconds")
	lines := flag.Int("lines", testLines, "how many of its last output lines a failed test shows; 0: all")
	flag.Parse()
	failedTestLines = max(*lines, 0)
	if *tracePath != "" {
		if err := writeProfile(os.Stdout, *tracePath, *tsvPath, *name, *gates); err != nil {
			fmt.Fprintln(os.Stderr, "testtable:", err)
			return 2
		}
		return 0
	}
	if *printTSV != "" {
		rows, err := readTSV(*printTSV)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtable:", err)
			return 2
		}
		writeTable(os.Stdout, rows)
		return 0
	}
	var logw io.Writer = io.Discard
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testtable:", err)
			return 2
		}
		defer f.Close()
		logw = f
		if strings.HasSuffix(*logPath, ".gz") {
			// A full integration run logs about a gigabyte; compressed it is
			// a tenth of that.
			z := gzip.NewWriter(f)
			defer z.Close()
			logw = z
		}
	}
	var slow slowestTests
	rows, failures := summarize(os.Stdin, logw, os.Stdout, *gates, slow.add)
	if *retry {
		for i := range rows {
			if rows[i].Result == "ok" {
				rows[i].Result = "flaky"
			}
		}
	}
	for _, f := range failures {
		fmt.Print(f)
	}
	writeTable(os.Stdout, rows)
	if *slowest > 0 {
		slow.write(os.Stdout, *slowest)
	}
	if *tsvPath != "" {
		if err := appendTSV(*tsvPath, rows); err != nil {
			fmt.Fprintln(os.Stderr, "testtable:", err)
			return 2
		}
	}
	if *failedPath != "" {
		var failed []string
		for _, r := range rows {
			if r.Result == "FAIL" || r.Result == "no result" {
				failed = append(failed, r.Package+"\n")
			}
		}
		if err := os.WriteFile(*failedPath, []byte(strings.Join(failed, "")), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testtable:", err)
			return 2
		}
	}
	if msg := verdict(rows); msg != "" {
		fmt.Println(msg)
		return 1
	}
	return 0
}

// summarize reads the events, copies every output line to logw, and returns
// one row per package (in the order they first appeared) and the text to
// show for what failed.
// It copies to echo, as they come, go test's closing line of each package
// (ok, FAIL, ?: the lines a person or a CI harness reads for what ran) and
// every line that is not an event (the go command's own errors). onTest, if
// not nil, is called with every test and subtest that passed or failed, and
// its seconds.
func summarize(r io.Reader, logw, echo io.Writer, gates string, onTest func(pkg, test string, secs float64)) ([]row, []string) {
	pkgs := map[string]*pkgState{}
	var order []string
	get := func(name string) *pkgState {
		p, ok := pkgs[name]
		if !ok {
			p = &pkgState{row: row{Package: name, Gates: gates, Result: "no result"}, tests: map[string][]string{}}
			pkgs[name] = p
			order = append(order, name)
		}
		return p
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// Not an event (go vet or the toolchain wrote it): keep it.
			fmt.Fprintln(logw, string(line))
			fmt.Fprintln(echo, string(line))
			continue
		}
		if ev.Output != "" {
			io.WriteString(logw, ev.Output)
		}
		if ev.Package == "" {
			continue
		}
		p := get(ev.Package)
		switch ev.Action {
		case "output", "build-output":
			// Only the end of a test's output is shown; the log has it all.
			if ev.Test != "" {
				p.tests[ev.Test] = keepLast(append(p.tests[ev.Test], ev.Output), failedTestLines)
			} else {
				if closingLine(ev.Output) {
					io.WriteString(echo, ev.Output)
				}
				p.output = keepLast(append(p.output, ev.Output), packageLines)
			}
		case "run":
			if ev.Test != "" && !strings.Contains(ev.Test, "/") {
				p.Tests++
			}
		case "fail":
			if ev.Test != "" {
				p.failed = append(p.failed, ev.Test)
				if onTest != nil {
					onTest(ev.Package, ev.Test, ev.Elapsed)
				}
			} else {
				p.Result, p.Seconds = "FAIL", ev.Elapsed
			}
		case "pass":
			if ev.Test == "" {
				p.Result, p.Seconds = "ok", ev.Elapsed
			} else if onTest != nil {
				onTest(ev.Package, ev.Test, ev.Elapsed)
			}
		case "skip":
			if ev.Test == "" {
				p.Result, p.Seconds = "no tests", ev.Elapsed
			}
		}
	}
	var rows []row
	var failures []string
	for _, name := range order {
		p := pkgs[name]
		if p.Result == "ok" && p.Tests == 0 {
			p.Result = "no tests"
		}
		rows = append(rows, p.row)
		if p.Result == "FAIL" || p.Result == "no result" {
			var b strings.Builder
			fmt.Fprintf(&b, "=== %s (gates %s): %s\n", p.Package, p.Gates, p.Result)
			for _, t := range p.failed {
				// Subtests' output is in their own entries.
				fmt.Fprintf(&b, "--- %s\n", t)
				b.WriteString(strings.Join(p.tests[t], ""))
			}
			b.WriteString(strings.Join(p.output, ""))
			failures = append(failures, b.String())
		}
	}
	return rows, failures
}

// How many of its last output lines a failed test and a failed package show.
const (
	testLines    = 40
	packageLines = 60
)

// failedTestLines is testLines unless -lines says otherwise.
var failedTestLines = testLines

// closingLine reports whether a package's output line is go test's summary
// of the package: "ok  \tpkg\t1.2s", "FAIL\tpkg\t1.2s", "?   \tpkg\t[no test files]".
func closingLine(line string) bool {
	for _, prefix := range []string{"ok  \t", "FAIL\t", "?   \t"} {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// keepLast bounds lines to about the last n (between n and 2n), so that the
// memory held stays small however much a passing test logs. n = 0 keeps
// every line.
func keepLast(lines []string, n int) []string {
	if n == 0 || len(lines) <= 2*n {
		return lines
	}
	return append(lines[:0:0], lines[len(lines)-n:]...)
}

// verdict says why the run failed, or "".
func verdict(rows []row) string {
	var bad []string
	ran := 0
	for _, r := range rows {
		switch r.Result {
		case "FAIL", "no result":
			bad = append(bad, r.Package)
		case "ok", "flaky":
			ran++
		}
	}
	switch {
	case len(bad) > 0:
		return fmt.Sprintf("%d of %d packages failed: %s", len(bad), len(rows), strings.Join(bad, " "))
	case ran == 0:
		return "no package ran a test"
	}
	return ""
}

func writeTable(w io.Writer, rows []row) {
	width := len("package")
	for _, r := range rows {
		width = max(width, len(r.Package))
	}
	fmt.Fprintf(w, "%-*s  %-7s  %-9s  %8s  %5s\n", width, "package", "gates", "result", "seconds", "tests")
	var total float64
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %-7s  %-9s  %8.1f  %5d\n", width, r.Package, r.Gates, r.Result, r.Seconds, r.Tests)
		total += r.Seconds
	}
	fmt.Fprintf(w, "%-*s  %-7s  %-9s  %8.1f\n", width, "total", "", "", total)
}

func appendTSV(path string, rows []row) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, r := range rows {
		fmt.Fprintf(f, "%s\t%s\t%s\t%.1f\t%d\n", r.Package, r.Gates, r.Result, r.Seconds, r.Tests)
	}
	return f.Close()
}

func readTSV(path string) ([]row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []row
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("%s:%d: want 5 tab-separated fields, got %d", path, i+1, len(f))
		}
		secs, err1 := strconv.ParseFloat(f[3], 64)
		tests, err2 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: bad number", path, i+1)
		}
		rows = append(rows, row{Package: f[0], Gates: f[1], Result: f[2], Seconds: secs, Tests: tests})
	}
	// A package retried in the same mode keeps its last row only.
	last := map[[2]string]int{}
	var kept []row
	for _, r := range rows {
		k := [2]string{r.Package, r.Gates}
		if i, ok := last[k]; ok {
			kept[i] = r
			continue
		}
		last[k] = len(kept)
		kept = append(kept, r)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].Package < kept[j].Package })
	return kept, nil
}
