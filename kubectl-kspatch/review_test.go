package main

// Adversarial tests of the plugin's error handling (#44 item 5e).
// Written against the tree as read at 01:05 UTC (notAnswered said "nothing
// answered" for any error; parse did not check names or the timeout). The
// session changed errors.go and main.go at 02:00, before this module could
// be compiled (02:05): both pass on the current tree; kept as regression
// tests. They were never run against the old code.

import (
	"errors"
	"io"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestReviewHeld_SomethingAnsweredIsNotNothingAnswered: --scheduler-port 10261
// (the admin listener's port the docs show in every curl example, when
// it is on) or any plain-HTTP port of the node: the HTTPS request gets
// "server gave HTTP response to HTTPS client", and the plugin says
// "nothing answered on port 10261". Likewise a TLS server that refuses the
// handshake. Something did answer there; the message sends the user
// looking for a stopped scheduler.
func TestReviewHeld_SomethingAnsweredIsNotNothingAnswered(t *testing.T) {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler-cp-0"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "kube-scheduler", Command: []string{"kube-scheduler", "--secure-port=10259", "--admin-port=10261"}}}}}
	for port, err := range map[int]error{
		10261: errors.New(`Get "https://127.0.0.1:40123/debug/kspatch/queue": http: server gave HTTP response to HTTPS client`),
		2379:  errors.New(`Get "https://127.0.0.1:40123/debug/kspatch/queue": remote error: tls: certificate required`),
	} {
		got := notAnswered(pod, port, nil, err).Error()
		if strings.HasPrefix(got, "nothing answered on port") {
			t.Errorf("port %d, %v:\n%s\nwant a message that says a server other than the scheduler's secure port answered", port, err, got)
		}
	}
}

// TestReviewHeld_UsageErrorsCaught: the usage says every usage error
// (unknown command, flag, argument or output format) exits 2, but parse
// lets through arguments the admin API then refuses with a 400 (exit 1),
// a name that injects a query into the request path, and a timeout that
// can never succeed (exit 1, "context deadline exceeded").
func TestReviewHeld_UsageErrorsCaught(t *testing.T) {
	for _, args := range []string{
		"why pod/Web_0", // not a pod name: 400 from the admin API
		"why podgroup/" + strings.Repeat("a", 64), // longer than a pod group name: 400
		"why pod/web-0 -n Team_B",                 // not a namespace: 400
		"why pod/web-0?limit=0",                   // a query smuggled into the path: 400
		"queue --request-timeout=-1s",             // the context is over before it starts
		"queue --request-timeout=0s",
	} {
		if _, err := parse(strings.Fields(args), io.Discard); err == nil {
			t.Errorf("parse %q: no usage error (the command would exit 1, not the documented 2)", args)
		}
	}
}
