package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertCommand: the command line, the input sources, the output
// formats and the exit statuses the usage documents.
func TestConvertCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "in.yaml")
	if err := os.WriteFile(file, []byte(kspatchManifests), 0o600); err != nil {
		t.Fatal(err)
	}
	lossyFile := filepath.Join(dir, "lossy.yaml")
	emptyFile := filepath.Join(dir, "empty.yaml")
	for name, text := range map[string]string{lossyFile: "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: l}\nspec: {schedulingPolicy: {basic: {}}, scheduleTimeoutSeconds: 30}\n", emptyFile: "# nothing\n"} {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const lossy = "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {basic: {}}, scheduleTimeoutSeconds: 30}\n"
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		stdout      string // a part of standard output ("" for none at all)
		stderr      string // a part of standard error
	}{
		{name: "a file, nothing lost", args: []string{"-f", file}, code: 0, stdout: "apiVersion: scheduling.k8s.io/v1beta1"},
		{name: "standard input with -f -", stdin: kspatchManifests, args: []string{"-f", "-"}, code: 0, stdout: "podGroupName: train"},
		{name: "standard input without -f", stdin: kspatchManifests, code: 0, stdout: "kind: PodGroup"},
		{name: "losses: exit 3, the output complete", stdin: lossy, code: exitLosses, stdout: "basic: {}", stderr: "converted with 1 loss(es)"},
		{name: "refused: exit 1, nothing written", stdin: "apiVersion: scheduling.kspatch.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {}\n", code: exitFailed, stderr: "1 object(s) cannot be converted; nothing written"},
		{name: "two files: both read, in turn, and named in the loss lines", args: []string{"-f", file, "-f", lossyFile}, code: exitLosses, stdout: "name: l", stderr: "loss: PodGroup scheduling.kspatch.io/v1alpha1 l (" + lossyFile + ", document 1): spec.scheduleTimeoutSeconds"},
		{name: "a file and standard input", stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-stdin}\n", args: []string{"-f", file, "-f", "-"}, code: 0, stdout: "name: from-stdin"},
		{name: "an empty file beside another", args: []string{"-f", emptyFile, "-f", file}, code: 0, stdout: "podGroupName: train"},
		{name: "only an empty file", args: []string{"-f", emptyFile}, code: exitFailed, stderr: "the input holds no object"},
		{name: "-f - twice", args: []string{"-f", "-", "-f", "-"}, code: exitUsage, stderr: "-f - is given twice"},
		{name: "no such file", args: []string{"-f", filepath.Join(dir, "missing.yaml")}, code: exitFailed, stderr: "error: reading the input: open"},
		{name: "unknown target", args: []string{"--to", "volcano"}, code: exitUsage, stderr: `--to "volcano": the targets are upstream and kspatch`},
		{name: "unknown format", args: []string{"-o", "table"}, code: exitUsage, stderr: `-o "table": the formats are yaml and json`},
		{name: "an argument", args: []string{"in.yaml"}, code: exitUsage, stderr: "convert takes no argument"},
		{name: "unknown flag", args: []string{"--namespace", "x"}, code: exitUsage, stderr: "unknown flag: --namespace"},
		{name: "--remove-labels --to kspatch", args: []string{"--to", "kspatch", "--remove-labels"}, code: exitUsage, stderr: "--remove-labels goes with --to upstream"},
		{name: "help", args: []string{"--help"}, code: 0, stderr: "Exit status: 0 converted, nothing lost; 3 converted, with losses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := convertText(tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if tc.stdout == "" && out != "" || !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout:\n%s\nwant it to contain %q", out, tc.stdout)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr:\n%s\nwant it to contain %q", stderr, tc.stderr)
			}
		})
	}
}

// TestConvertJSON: -o json writes JSON objects one after another, and
// JSON input is read the same way.
func TestConvertJSON(t *testing.T) {
	out, stderr, code := convertText(kspatchManifests, "-o", "json")
	if code != 0 {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	d := json.NewDecoder(strings.NewReader(out))
	n := 0
	for d.More() {
		var v map[string]interface{}
		if err := d.Decode(&v); err != nil {
			t.Fatalf("object %d: %v", n+1, err)
		}
		n++
	}
	if want := len(objects(t, kspatchManifests)); n != want {
		t.Errorf("%d JSON objects, want %d", n, want)
	}
	yamlOut, _, _ := convertText(kspatchManifests)
	again, stderr, code := convertText(out, "--to", "upstream")
	if code != 0 {
		t.Fatalf("JSON input: exit status %d:\n%s", code, stderr)
	}
	sameObjects(t, again, yamlOut)
}

// TestConvertComesFirst: convert has flags of its own; put after another
// command's flags it is a usage error that says where it goes.
func TestConvertComesFirst(t *testing.T) {
	if _, err := parse([]string{"-n", "ml", "convert"}, io.Discard); err == nil || !strings.Contains(err.Error(), "convert comes first") {
		t.Errorf("parse: %v, want the error that convert comes first", err)
	}
}
