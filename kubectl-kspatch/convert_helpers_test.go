package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// convertText runs `kubectl kspatch convert` on input with args and
// returns its standard output, its standard error and its exit status.
func convertText(input string, args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	code := runConvert(args, strings.NewReader(input), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// objects parses YAML or JSON documents as convert reads them.
func objects(t *testing.T, text string) []map[string]interface{} {
	t.Helper()
	objs, err := readObjects([]byte(text))
	if err != nil {
		t.Fatalf("parsing %q: %v", text, err)
	}
	return objs
}

// sameObjects fails the test unless got and want hold the same objects,
// in order.
func sameObjects(t *testing.T, got, want string) {
	t.Helper()
	if g, w := objects(t, got), objects(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("output:\n%s\nwant:\n%s", got, canonical(t, w))
	}
}

func canonical(t *testing.T, objs []map[string]interface{}) string {
	var b strings.Builder
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String()
}

// lossLines returns the loss lines of stderr.
func lossLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "loss: ") {
			out = append(out, l)
		}
	}
	return out
}

// matchLosses fails the test unless each loss line contains the matching
// want entry (in order), and there are as many lines as entries.
func matchLosses(t *testing.T, stderr string, want []string) {
	t.Helper()
	got := lossLines(stderr)
	if len(got) != len(want) {
		t.Errorf("%d loss lines, want %d:\n%s", len(got), len(want), stderr)
		return
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("loss line %d:\n  %s\nwant it to contain:\n  %s", i+1, got[i], want[i])
		}
	}
}

// checkConversion converts in with args and checks the output (want) and
// the loss lines, and the exit status they make: 3 with losses, else 0.
func checkConversion(t *testing.T, in, want string, losses []string, args ...string) {
	t.Helper()
	out, stderr, code := convertText(in, args...)
	wantCode := 0
	if len(losses) > 0 {
		wantCode = exitLosses
	}
	if code != wantCode {
		t.Fatalf("exit status %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	sameObjects(t, out, want)
	matchLosses(t, stderr, losses)
}
