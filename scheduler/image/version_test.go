package main

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Environment variables that point TestBinaryVersions at the binaries make
// builds. A row whose binary variable is unset is skipped, unless
// KSPATCH_REQUIRE_BINARIES=1 (make test-image sets it).
//
//	KSPATCH_SCHEDULER_BINARY  _output/bin/kube-scheduler (patched)
//	KSPATCH_SCHEDULER_VERSION VERSION, e.g. v1.33.13-kspatch.1
//	KSPATCH_SCHEDULER_COMMIT  the project's commit
//	KSPATCH_VANILLA_BINARY    _output/bin/kube-scheduler-vanilla
//	KSPATCH_VANILLA_VERSION   the release in patches/BASE, e.g. v1.33.13
//	KSPATCH_VANILLA_COMMIT    HEAD of _output/kubernetes-vanilla
const envRequireBinaries = "KSPATCH_REQUIRE_BINARIES"

// TestBinaryVersions checks the version stamp of the patched and the
// vanilla kube-scheduler: `--version` prints exactly "Kubernetes VERSION",
// and `--version=raw` carries that version, the commit of the tree it was
// built from, a tree state and the build date. The vanilla binary is the
// unpatched release: no kspatch version, commit or name in its stamp.
func TestBinaryVersions(t *testing.T) {
	tests := []struct {
		name                          string
		binaryEnv, versionEnv, commit string
		wantVersion                   *regexp.Regexp // the form the version must have
		forbidden                     string         // must not occur in the raw stamp ("" for none)
	}{
		{name: "patched", binaryEnv: "KSPATCH_SCHEDULER_BINARY", versionEnv: "KSPATCH_SCHEDULER_VERSION",
			commit: "KSPATCH_SCHEDULER_COMMIT", wantVersion: regexp.MustCompile(`^v1\.\d+\.\d+-kspatch\.[1-9]\d*$`)},
		{name: "vanilla", binaryEnv: "KSPATCH_VANILLA_BINARY", versionEnv: "KSPATCH_VANILLA_VERSION",
			commit: "KSPATCH_VANILLA_COMMIT", wantVersion: regexp.MustCompile(`^v1\.\d+\.\d+$`), forbidden: "kspatch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin := os.Getenv(tc.binaryEnv)
			if bin == "" {
				if os.Getenv(envRequireBinaries) == "1" {
					t.Fatalf("%s is not set and %s=1", tc.binaryEnv, envRequireBinaries)
				}
				t.Skipf("%s is not set", tc.binaryEnv)
			}
			version, commit := os.Getenv(tc.versionEnv), os.Getenv(tc.commit)
			if !tc.wantVersion.MatchString(version) {
				t.Fatalf("%s=%q does not have the form %s", tc.versionEnv, version, tc.wantVersion)
			}

			if got, want := runVersion(t, bin, "--version"), "Kubernetes "+version; got != want {
				t.Errorf("%s --version printed %q, want %q", bin, got, want)
			}
			raw := runVersion(t, bin, "--version=raw")
			fields := rawVersionFields(raw)
			major, minor, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
			minor, _, _ = strings.Cut(minor, ".")
			want := map[string]string{"GitVersion": version, "Major": major, "Minor": minor}
			if commit != "" {
				want["GitCommit"] = commit
			}
			for key, value := range want {
				if fields[key] != value {
					t.Errorf("--version=raw: %s = %q, want %q (raw: %s)", key, fields[key], value, raw)
				}
			}
			if state := fields["GitTreeState"]; state != "clean" && state != "dirty" {
				t.Errorf("--version=raw: GitTreeState = %q, want clean or dirty", state)
			}
			if _, err := time.Parse(time.RFC3339, fields["BuildDate"]); err != nil {
				t.Errorf("--version=raw: BuildDate %q: %v", fields["BuildDate"], err)
			}
			if tc.forbidden != "" && strings.Contains(raw, tc.forbidden) {
				t.Errorf("--version=raw mentions %q: %s", tc.forbidden, raw)
			}
		})
	}
}

// runVersion runs bin with one flag and returns its trimmed output.
func runVersion(t *testing.T, bin, flag string) string {
	t.Helper()
	out, err := exec.Command(bin, flag).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", bin, flag, err, out)
	}
	return strings.TrimSpace(string(out))
}

// rawVersionFields parses the Go syntax of `--version=raw`
// (version.Info{Major:"1", Minor:"33", GitVersion:"v1.33.13", ...}).
func rawVersionFields(raw string) map[string]string {
	fields := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+):"([^"]*)"`).FindAllStringSubmatch(raw, -1) {
		fields[m[1]] = m[2]
	}
	return fields
}

// TestRawVersionFields checks the parser of `--version=raw` output.
func TestRawVersionFields(t *testing.T) {
	tests := []struct {
		raw  string
		want map[string]string
	}{
		{raw: `version.Info{Major:"1", Minor:"33", GitVersion:"v1.33.13", GitCommit:"abc", GitTreeState:"clean", BuildDate:"2025-01-01T00:00:00Z", GoVersion:"go1.26.8"}`,
			want: map[string]string{"Major": "1", "Minor": "33", "GitVersion": "v1.33.13", "GitCommit": "abc",
				"GitTreeState": "clean", "BuildDate": "2025-01-01T00:00:00Z", "GoVersion": "go1.26.8"}},
		{raw: `version.Info{Major:"", GitVersion:"v0.0.0-master+$Format:%H$"}`,
			want: map[string]string{"Major": "", "GitVersion": "v0.0.0-master+$Format:%H$"}},
		{raw: "Kubernetes v1.33.13", want: map[string]string{}},
	}
	for _, tc := range tests {
		if got := rawVersionFields(tc.raw); !maps.Equal(got, tc.want) {
			t.Errorf("rawVersionFields(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
