package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"kspatch.dev/e2e/cluster"
)

// namespace holds every object a workload creates.
const namespace = "memload"

// loader creates a workload's objects with its own client, faster than the
// cluster's (QPS 500).
type loader struct {
	c       *cluster.Cluster
	client  kubernetes.Interface
	workers int
}

func newLoader(c *cluster.Cluster, qps, workers int) (*loader, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = float32(qps), 2*qps
	cfg.WarningHandler = rest.NoWarnings{}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &loader{c: c, client: client, workers: workers}, nil
}

// parallel calls create for 0 … n-1 on l.workers goroutines and returns the
// first error (the others stop taking work then).
func (l *loader) parallel(ctx context.Context, n int, create func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := create(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// createPods creates n pods of name prefix-i made by pod.
func (l *loader) createPods(ctx context.Context, n int, prefix string, o cluster.PodOptions) error {
	start := time.Now()
	err := l.parallel(ctx, n, func(ctx context.Context, i int) error {
		p := cluster.Pod(namespace, fmt.Sprintf("%s-%d", prefix, i), o)
		if _, err := l.client.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s: %w", p.Name, err)
		}
		return nil
	})
	if err == nil {
		fmt.Printf("created %d pods in %s\n", n, time.Since(start).Round(time.Second))
	}
	return err
}

// nodes creates the fake nodes in parallel, waiting up to 15 minutes for
// kwok to report them Ready.
func (l *loader) nodes(ctx context.Context, spec cluster.NodeSpec) error {
	start := time.Now()
	spec.Workers, spec.ReadyTimeout, spec.Ready = l.workers, 15*time.Minute, true
	if err := l.c.CreateNodes(ctx, spec); err != nil {
		return err
	}
	fmt.Printf("%d nodes Ready in %s\n", spec.Count, time.Since(start).Round(time.Second))
	return l.settleNodes(ctx, start)
}

// settleNodes waits until no node has a taint, three polls in a row. A
// new node carries the node lifecycle controller's not-ready taint for a
// while after kwok reports it Ready; its removal is an event that sends
// every unschedulable pod back to be tried again, so pods created before
// would be attempted several times more than the workload asks for.
func (l *loader) settleNodes(ctx context.Context, start time.Time) error {
	clean := 0
	deadline := time.Now().Add(10 * time.Minute)
	for clean < 3 {
		nodes, err := l.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return err
		}
		tainted := 0
		for _, n := range nodes.Items {
			if len(n.Spec.Taints) > 0 {
				tainted++
			}
		}
		if tainted == 0 {
			clean++
		} else {
			clean = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d nodes still have taints after 10 minutes", tainted, len(nodes.Items))
		}
		if err := sleep(ctx, 2*time.Second); err != nil {
			return err
		}
	}
	fmt.Printf("nodes untainted after %s\n", time.Since(start).Round(time.Second))
	return nil
}

// noPreemptionClass is a PriorityClass of value 0 whose pods never preempt:
// a pod that fits nowhere is then rejected without a preemption search.
const noPreemptionClass = "memload-no-preemption"

func (l *loader) createNoPreemptionClass(ctx context.Context) error {
	never := v1.PreemptNever
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: noPreemptionClass}, Value: 0, PreemptionPolicy: &never,
		Description: "memload: pods that fit nowhere and must not search for victims"}
	if _, err := l.client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating PriorityClass %s: %w", noPreemptionClass, err)
	}
	// The API server's Priority admission refuses pods naming a class its
	// informer has not seen yet: wait with a dry-run pod.
	probe := cluster.Pod(namespace, "priorityclass-probe", cluster.PodOptions{PriorityClassName: noPreemptionClass})
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, last = l.client.CoreV1().Pods(namespace).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); last == nil {
			return nil
		}
	}
	return fmt.Errorf("PriorityClass %s is not admitted after 30s: %w", noPreemptionClass, last)
}

// pending is 50,000 pods (by default) that fit on no node: each asks for
// more CPU than a node has. It ends when every pod has been attempted and
// waits in the queue (none active, every one in the unschedulable pool or
// in backoff) and, on the patched scheduler, no API call is pending.
func (l *loader) pending(ctx context.Context, cfg config, res *Result) error {
	res.Pods, res.Nodes = cfg.Pods, cfg.Nodes
	// No pod binds, so nothing needs kwok: static nodes, with the node
	// lifecycle controller off (main), spare the API server the nodes'
	// lease renewals, which at 5,000 nodes took most of the 2 CPUs.
	if err := l.nodes(ctx, cluster.NodeSpec{Count: cfg.Nodes, CPU: "32", Static: true}); err != nil {
		return err
	}
	if err := l.c.CreateNamespace(ctx, namespace); err != nil {
		return err
	}
	if err := l.createNoPreemptionClass(ctx); err != nil {
		return err
	}
	start := time.Now()
	if err := l.createPods(ctx, cfg.Pods, "pending", cluster.PodOptions{CPU: "64", PriorityClassName: noPreemptionClass}); err != nil {
		return err
	}
	if err := l.waitQueued(ctx, cfg.Pods); err != nil {
		return err
	}
	res.LoadSeconds = time.Since(start).Seconds()
	return nil
}

// waitQueued waits until the scheduler's metrics say that n pods wait,
// none of them active, and no asynchronous API call is pending, twice in a
// row.
func (l *loader) waitQueued(ctx context.Context, n int) error {
	ok, lastReport := 0, time.Now()
	for {
		text, err := l.c.SchedulerMetrics(ctx)
		if err != nil {
			return err
		}
		st := queueStateOf(text)
		if st.done(n) {
			ok++
			if ok == 2 {
				fmt.Printf("all %d pods wait: %s\n", n, st)
				return nil
			}
		} else {
			ok = 0
		}
		if time.Since(lastReport) >= 30*time.Second {
			fmt.Printf("waiting for %d pods to be attempted: %s\n", n, st)
			lastReport = time.Now()
		}
		if err := sleep(ctx, 5*time.Second); err != nil {
			return err
		}
	}
}

// queueState is what the scheduler's metrics say about its queue.
type queueState struct {
	Active, Backoff, Unschedulable, Attempts, APICalls float64
}

func queueStateOf(metrics string) queueState {
	pending := func(queue string) float64 {
		v, _ := metricSample(metrics, "scheduler_pending_pods", map[string]string{"queue": queue})
		return v
	}
	attempts, _ := metricSample(metrics, "scheduler_schedule_attempts_total", map[string]string{"result": "unschedulable"})
	// Only the patched scheduler has it.
	calls, _ := metricSample(metrics, "scheduler_pending_async_api_calls", nil)
	return queueState{Active: pending("active"), Backoff: pending("backoff"), Unschedulable: pending("unschedulable"), Attempts: attempts, APICalls: calls}
}

func (s queueState) done(n int) bool {
	return s.Active == 0 && s.Backoff+s.Unschedulable == float64(n) && s.Attempts >= float64(n) && s.APICalls == 0
}

func (s queueState) String() string {
	return fmt.Sprintf("active %.0f, backoff %.0f, unschedulable %.0f, unschedulable attempts %.0f, pending API calls %.0f",
		s.Active, s.Backoff, s.Unschedulable, s.Attempts, s.APICalls)
}

// draBurst is the DRA claim-template burst: pods with a
// ResourceClaimTemplate each, created at once, on nodes with 60 devices
// (one node per 50 pods, at least 10, as bench's burst suite). It ends when
// every pod is bound.
func (l *loader) draBurst(ctx context.Context, cfg config, res *Result) error {
	nodes := max(10, (cfg.Pods+49)/50)
	res.Pods, res.Nodes = cfg.Pods, nodes
	if err := l.nodes(ctx, cluster.NodeSpec{Count: nodes, CPU: "32", Devices: 60}); err != nil {
		return err
	}
	if err := l.c.CreateNamespace(ctx, namespace); err != nil {
		return err
	}
	if err := l.c.CreateClaimTemplate(ctx, namespace, "gpu"); err != nil {
		return err
	}
	start := time.Now()
	if err := l.createPods(ctx, cfg.Pods, "dra", cluster.PodOptions{ClaimTemplate: "gpu"}); err != nil {
		return err
	}
	if _, err := l.c.WaitBound(ctx, namespace, "dra-", cfg.Pods, 60*time.Minute); err != nil {
		return err
	}
	res.LoadSeconds = time.Since(start).Seconds()
	fmt.Printf("%d pods bound in %s\n", cfg.Pods, time.Since(start).Round(time.Second))
	return nil
}

// gangs is -gangs PodGroups of -gang-size pods (minCount the size), each
// kept in one rack, created a group at a time by the workers. It ends when
// every pod is bound. Vanilla has no pod-group cycle: it schedules the
// same pods one by one, ignoring the groups.
func (l *loader) gangs(ctx context.Context, cfg config, res *Result) error {
	res.Pods, res.Nodes = cfg.Gangs*cfg.GangSize, cfg.GangNodes
	if err := l.nodes(ctx, cluster.NodeSpec{Count: cfg.GangNodes, Racks: cfg.GangRacks, CPU: "32"}); err != nil {
		return err
	}
	if err := l.c.CreateNamespace(ctx, namespace); err != nil {
		return err
	}
	start := time.Now()
	err := l.parallel(ctx, cfg.Gangs, func(ctx context.Context, g int) error {
		return l.c.CreateGang(ctx, cluster.GangSpec{Namespace: namespace, Name: fmt.Sprintf("gang-%d", g), MinCount: cfg.GangSize, Pods: cfg.GangSize,
			TopologyKey: cluster.RackLabel, Pod: cluster.PodOptions{CPU: "500m"}})
	})
	if err != nil {
		return err
	}
	fmt.Printf("created %d gangs of %d in %s\n", cfg.Gangs, cfg.GangSize, time.Since(start).Round(time.Second))
	if _, err := l.c.WaitBound(ctx, namespace, "gang-", res.Pods, 60*time.Minute); err != nil {
		return err
	}
	res.LoadSeconds = time.Since(start).Seconds()
	fmt.Printf("%d pods bound in %s\n", res.Pods, time.Since(start).Round(time.Second))
	return nil
}
