package main

import (
	"io"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name        string
		events      string
		wantRows    []row
		wantVerdict string
		wantFailure string // a line the failure text must hold; "" = no failure text
	}{
		{
			name: "passing package",
			events: `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestX"}
{"Action":"run","Package":"a","Test":"TestX/sub"}
{"Action":"pass","Package":"a","Test":"TestX","Elapsed":1}
{"Action":"pass","Package":"a","Elapsed":2.5}`,
			wantRows: []row{{Package: "a", Gates: "off", Result: "ok", Seconds: 2.5, Tests: 1}},
		},
		{
			name: "failed test shows its output",
			events: `{"Action":"run","Package":"b","Test":"TestY"}
{"Action":"output","Package":"b","Test":"TestY","Output":"    y_test.go:9: boom\n"}
{"Action":"fail","Package":"b","Test":"TestY","Elapsed":1}
{"Action":"fail","Package":"b","Elapsed":3}`,
			wantRows:    []row{{Package: "b", Gates: "off", Result: "FAIL", Seconds: 3, Tests: 1}},
			wantVerdict: "1 of 1 packages failed: b",
			wantFailure: "y_test.go:9: boom",
		},
		{
			name: "package that never reports (killed) fails",
			events: `{"Action":"run","Package":"c","Test":"TestZ"}
{"Action":"output","Package":"c","Output":"panic: test timed out\n"}`,
			wantRows:    []row{{Package: "c", Gates: "off", Result: "no result", Tests: 1}},
			wantVerdict: "1 of 1 packages failed: c",
			wantFailure: "panic: test timed out",
		},
		{
			name: "build failure",
			events: `{"ImportPath":"d.test","Action":"build-output","Output":"d.go:1: undefined: x\n"}
{"Action":"start","Package":"d"}
{"Action":"output","Package":"d","Output":"FAIL\td [build failed]\n"}
{"Action":"fail","Package":"d","Elapsed":0}`,
			wantRows:    []row{{Package: "d", Gates: "off", Result: "FAIL"}},
			wantVerdict: "1 of 1 packages failed: d",
			wantFailure: "[build failed]",
		},
		{
			name:        "no test ran",
			events:      `{"Action":"skip","Package":"e","Elapsed":0.1}`,
			wantRows:    []row{{Package: "e", Gates: "off", Result: "no tests", Seconds: 0.1}},
			wantVerdict: "no package ran a test",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, failures := summarize(strings.NewReader(tc.events), io.Discard, io.Discard, "off", nil)
			if len(rows) != len(tc.wantRows) {
				t.Fatalf("rows %+v, want %+v", rows, tc.wantRows)
			}
			for i := range rows {
				if rows[i] != tc.wantRows[i] {
					t.Errorf("row %d: %+v, want %+v", i, rows[i], tc.wantRows[i])
				}
			}
			if got := verdict(rows); got != tc.wantVerdict {
				t.Errorf("verdict %q, want %q", got, tc.wantVerdict)
			}
			text := strings.Join(failures, "")
			if tc.wantFailure == "" && text != "" {
				t.Errorf("failure text %q, want none", text)
			}
			if tc.wantFailure != "" && !strings.Contains(text, tc.wantFailure) {
				t.Errorf("failure text %q does not hold %q", text, tc.wantFailure)
			}
		})
	}
}

func TestReadTSVKeepsTheRetry(t *testing.T) {
	path := t.TempDir() + "/t.tsv"
	first := []row{{Package: "a", Gates: "off", Result: "FAIL", Seconds: 3, Tests: 2}, {Package: "b", Gates: "off", Result: "ok", Seconds: 1, Tests: 1}}
	retry := []row{{Package: "a", Gates: "off", Result: "flaky", Seconds: 2, Tests: 2}}
	if err := appendTSV(path, first); err != nil {
		t.Fatal(err)
	}
	if err := appendTSV(path, retry); err != nil {
		t.Fatal(err)
	}
	rows, err := readTSV(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{retry[0], first[1]}
	if len(rows) != 2 || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("rows %+v, want %+v", rows, want)
	}
	if v := verdict(rows); v != "" {
		t.Errorf("verdict %q for a flaky and a passing package, want none", v)
	}
}

func TestSummarizeEchoesClosingLinesAndNonEvents(t *testing.T) {
	events := strings.Join([]string{
		`go: downloading example.com/m v1.0.0`,
		`{"Action":"run","Package":"a","Test":"TestX"}`,
		`{"Action":"output","Package":"a","Test":"TestX","Output":"ok  \tnot a closing line: inside a test\n"}`,
		`{"Action":"pass","Package":"a","Test":"TestX","Elapsed":1}`,
		`{"Action":"output","Package":"a","Output":"PASS\n"}`,
		`{"Action":"output","Package":"a","Output":"ok  \ta\t1.5s\n"}`,
		`{"Action":"pass","Package":"a","Elapsed":1.5}`,
		`{"Action":"output","Package":"b","Output":"FAIL\tb\t2.0s\n"}`,
		`{"Action":"fail","Package":"b","Elapsed":2}`,
		`{"Action":"output","Package":"c","Output":"?   \tc\t[no test files]\n"}`,
		`{"Action":"skip","Package":"c","Elapsed":0}`,
	}, "\n")
	var echo strings.Builder
	summarize(strings.NewReader(events), io.Discard, &echo, "default", nil)
	want := "go: downloading example.com/m v1.0.0\nok  \ta\t1.5s\nFAIL\tb\t2.0s\n?   \tc\t[no test files]\n"
	if echo.String() != want {
		t.Errorf("echoed:\n%q\nwant:\n%q", echo.String(), want)
	}
}

func TestKeepLastZeroKeepsAll(t *testing.T) {
	lines := make([]string, 500)
	if got := len(keepLast(lines, 0)); got != 500 {
		t.Errorf("keepLast(500 lines, 0) kept %d, want all 500", got)
	}
	if got := len(keepLast(lines, 40)); got != 40 {
		t.Errorf("keepLast(500 lines, 40) kept %d, want 40", got)
	}
}
