package e2e

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// TestBindingsOnce checks the audit accounting the leader-change and
// upgrade scenarios rest on, without a cluster.
func TestBindingsOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	call := func(pod string, code, s int) cluster.BindingCall {
		return cluster.BindingCall{Namespace: "ns", Pod: pod, Code: code, At: at(s)}
	}
	pods := func(names ...string) []v1.Pod {
		var out []v1.Pod
		for _, n := range names {
			out = append(out, v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}})
		}
		return out
	}
	exit := []window{{from: at(10), to: at(15)}}
	for _, tc := range []struct {
		name                 string
		pods                 []v1.Pod
		calls                []cluster.BindingCall
		cutOff               []window
		conflicts, cut, lost int
		problem              string // "" for none
	}{
		{name: "each pod once", pods: pods("a", "b"), calls: []cluster.BindingCall{call("a", 201, 1), call("b", 201, 2)}},
		{name: "bound twice", pods: pods("a"), calls: []cluster.BindingCall{call("a", 201, 1), call("a", 201, 2)},
			problem: "pods bound more than once [a (2 times)]"},
		{name: "never bound", pods: pods("a", "b"), calls: []cluster.BindingCall{call("a", 201, 1)},
			problem: "bound pods with no accepted Binding [b]"},
		{name: "a conflict after the binding is a retry", pods: pods("a"), calls: []cluster.BindingCall{call("a", 201, 1), call("a", 409, 2)},
			conflicts: 1},
		{name: "a conflict before any binding is not", pods: pods("a"), calls: []cluster.BindingCall{call("a", 409, 1), call("a", 201, 2)},
			problem: "a: HTTP 409"},
		{name: "a 504 at an exit without drain binds its pod", pods: pods("a"), calls: []cluster.BindingCall{call("a", 504, 12)}, cutOff: exit,
			cut: 1},
		{name: "a conflict before a 504 that bound the pod is a retry", pods: pods("a"), calls: []cluster.BindingCall{call("a", 409, 11), call("a", 504, 12)}, cutOff: exit,
			conflicts: 1, cut: 1},
		{name: "a 504 outside the exit does not", pods: pods("a"), calls: []cluster.BindingCall{call("a", 504, 20)}, cutOff: exit,
			problem: "a: HTTP 504"},
		{name: "a 504 with no exit without drain does not", pods: pods("a"), calls: []cluster.BindingCall{call("a", 504, 12)},
			problem: "bound pods with no accepted Binding [a]"},
		{name: "a 500 at the exit for a pod bound by another call", pods: pods("a"), calls: []cluster.BindingCall{call("a", 500, 11), call("a", 201, 13)}, cutOff: exit,
			lost: 1},
		{name: "a 504 and a 201 both at the exit", pods: pods("a"), calls: []cluster.BindingCall{call("a", 504, 11), call("a", 201, 13)}, cutOff: exit,
			lost: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := bindingsOnce(tc.pods, tc.calls, tc.cutOff)
			if a.conflicts != tc.conflicts || a.cut != tc.cut || a.lost != tc.lost {
				t.Errorf("conflicts, cut, lost = %d, %d, %d; want %d, %d, %d", a.conflicts, a.cut, a.lost, tc.conflicts, tc.cut, tc.lost)
			}
			got := strings.Join(a.problems, "\n")
			switch {
			case tc.problem == "" && got != "":
				t.Errorf("problems %q, want none", got)
			case tc.problem != "" && !strings.Contains(got, tc.problem):
				t.Errorf("problems %q, want one with %q", got, tc.problem)
			}
		})
	}
}
