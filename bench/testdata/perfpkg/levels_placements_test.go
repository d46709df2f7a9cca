package kspatch

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// The levels suite's placement log (bench/levels.go): a Reserve and
// PostBind plugin that only the suite's scheduler configuration enables.
// With $KSPATCH_BENCH_PLACEMENT_LOG set, it appends one line per bound pod
// to that file:
//
//	<seq> <namespace>/<pod> <node> <pod group>
//
// seq numbers the pod's last Reserve in the process: the members of one
// pod-group cycle are reserved one after the other in the scheduling
// goroutine, before the next cycle starts, so the lowest seq of a gang
// orders the gangs as the scheduler decided them. A Reserve undone
// (Unreserve) is forgotten. <pod group> is the pod's
// scheduling.kspatch.io/pod-group label, "-" without one.

const (
	placementLogName  = "KspatchBenchPlacementLog"
	placementLogEnv   = "KSPATCH_BENCH_PLACEMENT_LOG"
	placementLogGroup = "scheduling.kspatch.io/pod-group"
)

func init() {
	if outOfTreePlugins == nil {
		outOfTreePlugins = frameworkruntime.Registry{}
	}
	outOfTreePlugins[placementLogName] = newPlacementLog
}

// placementLogSeq numbers the Reserves of the process.
var placementLogSeq atomic.Int64

type placementLog struct {
	lock     sync.Mutex
	file     *os.File
	reserved map[types.UID]int64
}

var (
	_ framework.ReservePlugin  = &placementLog{}
	_ framework.PostBindPlugin = &placementLog{}
)

func newPlacementLog(_ context.Context, _ runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	p := &placementLog{reserved: map[types.UID]int64{}}
	if path := os.Getenv(placementLogEnv); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", placementLogName, err)
		}
		p.file = f
	}
	return p, nil
}

func (p *placementLog) Name() string { return placementLogName }

func (p *placementLog) Reserve(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) *framework.Status {
	if p.file == nil {
		return nil
	}
	seq := placementLogSeq.Add(1)
	p.lock.Lock()
	p.reserved[pod.UID] = seq
	p.lock.Unlock()
	return nil
}

func (p *placementLog) Unreserve(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ string) {
	if p.file == nil {
		return
	}
	p.lock.Lock()
	delete(p.reserved, pod.UID)
	p.lock.Unlock()
}

func (p *placementLog) PostBind(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeName string) {
	if p.file == nil {
		return
	}
	group := pod.Labels[placementLogGroup]
	if group == "" {
		group = "-"
	}
	p.lock.Lock()
	defer p.lock.Unlock()
	seq, ok := p.reserved[pod.UID]
	if !ok {
		seq = -1
	}
	delete(p.reserved, pod.UID)
	// One write per line, appended: a line is never torn.
	_, _ = fmt.Fprintf(p.file, "%d %s/%s %s %s\n", seq, pod.Namespace, pod.Name, nodeName, group)
}
