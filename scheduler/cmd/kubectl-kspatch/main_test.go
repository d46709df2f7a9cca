package main

import (
	"io"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
)

func TestRoute(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		ns           string
		namespaceSet bool
		want, err    string
	}{
		{args: []string{"why", "pod/web-0"}, ns: "default", want: "/queue/pods/default/web-0"},
		{args: []string{"why", "po/web-0"}, ns: "team-a", want: "/queue/pods/team-a/web-0"},
		{args: []string{"why", "podgroup/train"}, ns: "ml", want: "/queue/podgroups/ml/train"},
		{args: []string{"why", "pg/train"}, ns: "ml", want: "/queue/podgroups/ml/train"},
		{args: []string{"queue"}, ns: "default", want: "/queue"},
		{args: []string{"queue"}, ns: "ml", namespaceSet: true, want: "/queue?namespace=ml"},
		{args: []string{"apicalls"}, ns: "default", want: "/apicalls"},
		{args: nil, err: "no command"},
		{args: []string{"why"}, err: "why takes one argument"},
		{args: []string{"why", "web-0"}, err: "want pod/NAME or podgroup/NAME"},
		{args: []string{"why", "pod/"}, err: "want pod/NAME or podgroup/NAME"},
		{args: []string{"why", "pod/a/b"}, err: "want pod/NAME or podgroup/NAME"},
		{args: []string{"why", "deployment/web"}, err: `kind "deployment" is neither pod nor podgroup`},
		{args: []string{"queue", "x"}, err: "queue takes no argument"},
		{args: []string{"apicalls", "x"}, err: "apicalls takes no argument"},
		{args: []string{"nodes"}, err: `unknown command "nodes"`},
	} {
		got, err := route(tc.args, tc.ns, tc.namespaceSet)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("route(%q): error %v, want one containing %q", tc.args, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("route(%q) = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	o, err := parse([]string{"why", "podgroup/train", "-n", "ml", "-o", "json"}, io.Discard)
	if err != nil || o.namespace != "ml" || !o.namespaceSet || o.output != "json" || strings.Join(o.args, " ") != "why podgroup/train" ||
		o.schedulerNamespace != "kube-system" || o.schedulerSelector != "component=kube-scheduler" || o.schedulerPort != 10259 {
		t.Errorf("parse: %+v, %v", o, err)
	}
	if o, err := parse([]string{"queue"}, io.Discard); err != nil || o.namespaceSet || o.output != "text" {
		t.Errorf("parse queue: %+v, %v", o, err)
	}
	for args, want := range map[string]string{
		"queue -o yaml":              `-o "yaml": the formats are text and json`,
		"queue --scheduler-port 0":   "--scheduler-port 0: not a port",
		"queue --no-such-flag":       "unknown flag: --no-such-flag",
		"queue --request-timeout xs": "invalid argument",
	} {
		if _, err := parse(strings.Fields(args), io.Discard); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parse %q: %v, want an error containing %q", args, err, want)
		}
	}
}

func TestLeaderNode(t *testing.T) {
	for holder, want := range map[string]string{
		"cp-0_4c1e8f2a-7e0b-4f3a-9d6e-1b2c3d4e5f60": "cp-0",
		"cp-1": "cp-1",
		"":     "",
	} {
		lease := &coordinationv1.Lease{}
		if holder != "" {
			lease.Spec.HolderIdentity = ptr.To(holder)
		}
		if got := leaderNode(lease); got != want {
			t.Errorf("leaderNode(%q) = %q, want %q", holder, got, want)
		}
	}
}
