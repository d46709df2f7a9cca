package e2e

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"kspatch.dev/e2e/cluster"
)

// window is a span of time around a scheduler's exit without drain.
type window struct{ from, to time.Time }

func (w window) holds(at time.Time) bool { return !at.Before(w.from) && !at.After(w.to) }

// bindingAudit is what bindingsOnce found.
type bindingAudit struct {
	// bound holds each pod's accepted Bindings (one, when all is well).
	bound map[string][]time.Time
	// conflicts are 409s after the pod's binding; cut are 504s within a
	// cut-off that bound their pod; lost are 500s or 504s within a cut-off
	// for a pod bound once by another call.
	conflicts, cut, lost int
	// problems is what does not hold.
	problems []string
}

func (a bindingAudit) String() string {
	return fmt.Sprintf("%d Bindings rejected as conflicts, each after its pod's binding; %d cut off by an exit without drain (504) that bound their pod; %d cut off that stored nothing", a.conflicts, a.cut, a.lost)
}

// bindingsOnce checks the Bindings the API server answered (its audit log)
// against the pods: each pod has exactly one accepted Binding, and every
// rejected one is explained. A 409 after its pod's binding is a retry that
// found the pod bound (a new leader acting on a view from before the old
// leader's last binding); so is a 409 for a pod a cut-off call bound, whose
// 504 can be answered after the 409 (the API server answers it when its
// handler times out, after it stored the binding). Within cutOff (a scheduler that exits without
// draining, with its bindings in flight: SIGKILL, or SIGTERM to v1.33.13),
// a 504 for a pod with no accepted Binding is that pod's binding, stored
// after the client left ("Handler timeout"; the pod is bound), and a 500 or
// 504 for a pod bound once by another call is a request whose context ended
// with the client before anything was stored.
func bindingsOnce(pods []v1.Pod, calls []cluster.BindingCall, cutOff []window) bindingAudit {
	inCutOff := func(at time.Time) bool {
		for _, w := range cutOff {
			if w.holds(at) {
				return true
			}
		}
		return false
	}
	a := bindingAudit{bound: map[string][]time.Time{}}
	var rejected []cluster.BindingCall
	for _, b := range calls {
		if b.Code == 201 {
			a.bound[b.Pod] = append(a.bound[b.Pod], b.At)
		} else {
			rejected = append(rejected, b)
		}
	}
	cut := map[string]bool{}
	for _, b := range rejected {
		if b.Code == 504 && len(a.bound[b.Pod]) == 0 && inCutOff(b.At) {
			cut[b.Pod] = true
			a.bound[b.Pod] = append(a.bound[b.Pod], b.At)
		}
	}
	a.cut = len(cut)
	var twice, never []string
	for _, p := range pods {
		switch n := len(a.bound[p.Name]); {
		case n == 0:
			never = append(never, p.Name)
		case n > 1:
			twice = append(twice, fmt.Sprintf("%s (%d times)", p.Name, n))
		}
	}
	if len(twice) > 0 || len(never) > 0 {
		a.problems = append(a.problems, fmt.Sprintf("Bindings the API server accepted: pods bound more than once %v; bound pods with no accepted Binding %v", twice, never))
	}
	var unexplained []string
	for _, b := range rejected {
		switch {
		case b.Code == 409 && len(a.bound[b.Pod]) == 1 && (a.bound[b.Pod][0].Before(b.At) || cut[b.Pod]):
			a.conflicts++
		case b.Code == 504 && cut[b.Pod]:
		case (b.Code == 500 || b.Code == 504) && !cut[b.Pod] && inCutOff(b.At) && len(a.bound[b.Pod]) == 1:
			a.lost++
		default:
			unexplained = append(unexplained, fmt.Sprintf("%s: HTTP %d at %s", b.Pod, b.Code, b.At.Format(time.StampMicro)))
		}
	}
	if len(unexplained) > 0 {
		a.problems = append(a.problems, fmt.Sprintf("Bindings rejected with no earlier binding of their pod: %v", unexplained))
	}
	return a
}
