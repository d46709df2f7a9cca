package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// TestUsageErrors: every usage error is found by parse (exit status 2),
// the command's arguments included.
func TestUsageErrors(t *testing.T) {
	for _, args := range []string{"", "why", "why deployment/web", "why pod/a/b", "queue extra", "nodes", "queue -o yaml", "queue --bogus"} {
		if _, err := parse(strings.Fields(args), io.Discard); err == nil {
			t.Errorf("parse %q: no error, want a usage error", args)
		}
	}
}

// TestNotAnswered: a request through the port-forward that got no answer
// says which port was tried, that nothing answered there, and which port
// the pod's command line names.
func TestNotAnswered(t *testing.T) {
	pod := func(cmd ...string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler-cp-0"},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "kube-scheduler", Command: cmd}}}}
	}
	refused := errors.New("an error occurred forwarding 40123 -> 10258: dial tcp4 127.0.0.1:10258: connect: connection refused")
	for _, tc := range []struct {
		name       string
		pod        *v1.Pod
		port       int
		forwardErr error
		err        error
		want       []string
	}{
		{name: "wrong port, the pod names the right one", pod: pod("kube-scheduler", "--secure-port=10300"), port: 10258, forwardErr: refused, err: io.EOF,
			want: []string{"nothing answered on port 10258 of pod kube-system/kube-scheduler-cp-0", "connection refused", "try --scheduler-port 10300"}},
		{name: "wrong port, the pod sets none", pod: pod("kube-scheduler", "--leader-elect=true"), port: 10258, err: io.EOF,
			want: []string{"nothing answered on port 10258", "closed without an answer", "try --scheduler-port 10259"}},
		{name: "separate flag value", pod: pod("kube-scheduler", "--secure-port", "10400"), port: 10259, err: io.EOF,
			want: []string{"try --scheduler-port 10400"}},
		{name: "the right port, nothing there", pod: pod("kube-scheduler", "--secure-port=10259"), port: 10259, err: io.ErrUnexpectedEOF,
			want: []string{"sets --secure-port=10259: is the scheduler running?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := notAnswered(tc.pod, tc.port, tc.forwardErr, tc.err).Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("message lacks %q:\n%s", w, got)
				}
			}
			if strings.HasSuffix(strings.TrimSpace(got), "EOF") {
				t.Errorf("message ends in a bare EOF:\n%s", got)
			}
		})
	}
}
