package kspatch

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// The preemption suite's observer (bench/preemption.go): a scheduler
// plugin that only the suite's scheduler configuration enables (at
// PostBind, where it does nothing: being enabled is what makes the
// framework build it). When built with $KSPATCH_BENCH_PREEMPTION_LOG set,
// it adds a handler to the scheduler's own Pod informer and appends one
// line per event to that file, with the wall clock in Unix nanoseconds:
//
//	<ns> add <namespace>/<pod> <pod group>          a Pod without a node appeared
//	<ns> nominate <namespace>/<pod> <node>          its nominatedNodeName was set
//	<ns> bind <namespace>/<pod> <node>              it got a node
//	<ns> victim <namespace>/<pod> <node> <message>  it got DisruptionTarget (PreemptionByScheduler)
//	<ns> delete <namespace>/<pod> <node>            it is gone
//
// <pod group> is the pod's scheduling.kspatch.io/pod-group label, "-"
// without one; <node> is "-" for a Pod without one; <message> is the
// condition's message, on one line. Pods created bound (the fill) are not
// logged when they appear, only when they are preempted and deleted.
// Times are when the event reached the scheduler's informer: the API
// server runs in the same process, so a Pod's "add" follows its creation
// by the watch delay alone.

const (
	preemptionLogName  = "KspatchBenchPreemptionLog"
	preemptionLogEnv   = "KSPATCH_BENCH_PREEMPTION_LOG"
	preemptionLogGroup = "scheduling.kspatch.io/pod-group"
)

func init() {
	if outOfTreePlugins == nil {
		outOfTreePlugins = frameworkruntime.Registry{}
	}
	outOfTreePlugins[preemptionLogName] = newPreemptionLog
}

type preemptionLog struct {
	lock sync.Mutex
	file *os.File
}

var _ framework.PostBindPlugin = &preemptionLog{}

func newPreemptionLog(_ context.Context, _ runtime.Object, h framework.Handle) (framework.Plugin, error) {
	p := &preemptionLog{}
	path := os.Getenv(preemptionLogEnv)
	if path == "" {
		return p, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", preemptionLogName, err)
	}
	p.file = f
	if _, err := h.SharedInformerFactory().Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    p.add,
		UpdateFunc: p.update,
		DeleteFunc: p.delete,
	}); err != nil {
		return nil, fmt.Errorf("%s: %w", preemptionLogName, err)
	}
	return p, nil
}

func (p *preemptionLog) Name() string { return preemptionLogName }

func (p *preemptionLog) PostBind(context.Context, *framework.CycleState, *v1.Pod, string) {}

// write appends one line, stamped now; one write per line, appended, so a
// line is never torn.
func (p *preemptionLog) write(format string, args ...any) {
	line := fmt.Sprintf("%d "+format+"\n", append([]any{time.Now().UnixNano()}, args...)...)
	p.lock.Lock()
	defer p.lock.Unlock()
	_, _ = p.file.WriteString(line)
}

func (p *preemptionLog) add(obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod.Spec.NodeName != "" {
		return
	}
	group := pod.Labels[preemptionLogGroup]
	if group == "" {
		group = "-"
	}
	p.write("add %s/%s %s", pod.Namespace, pod.Name, group)
}

func (p *preemptionLog) update(oldObj, newObj any) {
	old, ok := oldObj.(*v1.Pod)
	if !ok {
		return
	}
	pod, ok := newObj.(*v1.Pod)
	if !ok {
		return
	}
	if n := pod.Status.NominatedNodeName; n != "" && n != old.Status.NominatedNodeName {
		p.write("nominate %s/%s %s", pod.Namespace, pod.Name, n)
	}
	if old.Spec.NodeName == "" && pod.Spec.NodeName != "" {
		p.write("bind %s/%s %s", pod.Namespace, pod.Name, pod.Spec.NodeName)
	}
	if c := preemptedCondition(pod); c != nil && preemptedCondition(old) == nil {
		msg := strings.Join(strings.Fields(c.Message), " ")
		if msg == "" {
			msg = "-"
		}
		p.write("victim %s/%s %s %s", pod.Namespace, pod.Name, nodeOf(pod), msg)
	}
}

func (p *preemptionLog) delete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return
	}
	p.write("delete %s/%s %s", pod.Namespace, pod.Name, nodeOf(pod))
}

// preemptedCondition is the Pod's DisruptionTarget condition set by a
// scheduler's preemption, nil without one.
func preemptedCondition(pod *v1.Pod) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type == v1.DisruptionTarget && c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler {
			return c
		}
	}
	return nil
}

func nodeOf(pod *v1.Pod) string {
	if pod.Spec.NodeName == "" {
		return "-"
	}
	return pod.Spec.NodeName
}
