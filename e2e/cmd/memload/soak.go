package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	resourceapi "k8s.io/api/resource/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"kspatch.dev/e2e/cluster"
)

// soakConfig shapes the churn soak.
type soakConfig struct {
	// Duration of the churn; a sample is taken every Interval from its
	// start, and one at its end.
	Duration, Interval time.Duration
	// Rate is how many creations start per second; each lives Lifetime,
	// then is deleted.
	Rate     float64
	Lifetime time.Duration
	// Devices is the DRA devices per node.
	Devices int
}

func (s soakConfig) validate() error {
	if s.Duration <= 0 || s.Interval <= 0 || s.Rate <= 0 || s.Lifetime <= 0 || s.Devices < 1 {
		return fmt.Errorf("-duration %s, -interval %s, -rate %g, -lifetime %s, -devices %d: all must be positive",
			s.Duration, s.Interval, s.Rate, s.Lifetime, s.Devices)
	}
	return nil
}

// The soak's creations, by their turn i: soakKind(i).
type creationKind int

const (
	// a pod with a ResourceClaim of its own, whose CEL selector no other
	// claim has
	kindDRA creationKind = iota
	// a pod that fits
	kindPlain
	// a pod that fits nowhere, waiting in the queue until it is deleted
	kindUnschedulable
	// a PodGroup of soakGangSize pods kept in one rack
	kindGang
)

// soakGangSize is the size (and minCount) of the soak's gangs.
const soakGangSize = 4

// soakKind is the kind of the i-th creation: out of every ten, four DRA
// pods, four plain pods, one pod that fits nowhere, one gang.
func soakKind(i int) creationKind {
	switch i % 10 {
	case 0, 2, 4, 6:
		return kindDRA
	case 1, 3, 5, 7:
		return kindPlain
	case 8:
		return kindUnschedulable
	default:
		return kindGang
	}
}

// selectorFor is the CEL selector of the i-th claim: true for every device
// of the soak's driver (their indexes are small), and a different
// expression for every i, so that a cache keyed by expression would grow
// with the claims if it were not bounded.
func selectorFor(i int) string {
	return fmt.Sprintf(`device.driver == %q && device.attributes[%q].index < %d`, cluster.DeviceDriver, cluster.DeviceDriver, 1000000+i)
}

// created is what one creation made, to delete at its time.
type created struct {
	at    time.Time
	kind  creationKind
	name  string
	pods  int
	claim bool
}

// soak creates pods at the configured rate and deletes each after its
// lifetime, for the configured duration, sampling the scheduler every
// interval; it ends with a last sample.
func (l *loader) soak(ctx context.Context, cfg config, res *Result) error {
	s := cfg.Soak
	res.Nodes = cfg.Nodes
	if err := l.nodes(ctx, cluster.NodeSpec{Count: cfg.Nodes, Racks: max(1, cfg.Nodes/20), CPU: "32", Devices: s.Devices}); err != nil {
		return err
	}
	if err := l.c.CreateNamespace(ctx, namespace); err != nil {
		return err
	}
	if err := l.createNoPreemptionClass(ctx); err != nil {
		return err
	}
	start := time.Now()
	var live, made, deleted, failures atomic.Int64
	toDelete := make(chan created, 1<<16)
	var wg sync.WaitGroup
	churnCtx, stopChurn := context.WithCancel(ctx)
	defer stopChurn()

	wg.Add(1)
	go func() {
		defer wg.Done()
		for c := range toDelete {
			if sleep(churnCtx, time.Until(c.at)) != nil {
				return
			}
			if err := l.remove(churnCtx, c); err != nil && churnCtx.Err() == nil {
				failures.Add(1)
				fmt.Printf("soak: deleting %s: %v\n", c.name, err)
				continue
			}
			live.Add(-int64(c.pods))
			deleted.Add(int64(c.pods))
		}
	}()

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toDelete)
		tick := time.NewTicker(time.Duration(float64(time.Second) / s.Rate))
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-churnCtx.Done():
				return
			case <-tick.C:
			}
			c, err := l.create(churnCtx, i)
			if err != nil {
				if churnCtx.Err() == nil {
					failures.Add(1)
					fmt.Printf("soak: creation %d: %v\n", i, err)
				}
				continue
			}
			live.Add(int64(c.pods))
			made.Add(int64(c.pods))
			c.at = time.Now().Add(s.Lifetime)
			select {
			case toDelete <- c:
			case <-churnCtx.Done():
				return
			}
		}
	}()

	take := func() error {
		smp, err := sample(ctx, l.c, start)
		if err != nil {
			return err
		}
		smp.LivePods = int(live.Load())
		res.Samples = append(res.Samples, smp)
		fmt.Printf("soak %s: heap in use %.1f MiB (live %.1f MiB), RSS %.1f MiB, %d live pods, %d created, %d deleted\n",
			time.Since(start).Round(time.Second), mib(smp.HeapInuse), mib(smp.HeapAlloc), mib(smp.RSS), smp.LivePods, made.Load(), deleted.Load())
		return nil
	}
	var err error
	end := start.Add(s.Duration)
	for next := start; err == nil && !next.After(end); next = next.Add(s.Interval) {
		if err = sleep(ctx, time.Until(next)); err == nil {
			err = take()
		}
	}
	if err == nil && res.Samples[len(res.Samples)-1].Seconds < s.Duration.Seconds() {
		if err = sleep(ctx, time.Until(end)); err == nil {
			err = take()
		}
	}
	stopChurn()
	wg.Wait()
	res.Created, res.Deleted = int(made.Load()), int(deleted.Load())
	res.LoadSeconds = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	if n := failures.Load(); n > int64(res.Created)/100+1 {
		return fmt.Errorf("soak: %d creations or deletions failed (of %d pods created); see above", n, res.Created)
	}
	res.setFinal(res.Samples[len(res.Samples)-1])
	return nil
}

// create makes the i-th creation of the soak.
func (l *loader) create(ctx context.Context, i int) (created, error) {
	name := fmt.Sprintf("soak-%d", i)
	switch soakKind(i) {
	case kindDRA:
		claim := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
				Name: "gpu", DeviceClassName: cluster.DeviceClass,
				Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: selectorFor(i)}}},
			}}}},
		}
		if _, err := l.client.ResourceV1beta1().ResourceClaims(namespace).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
			return created{}, err
		}
		_, err := l.client.CoreV1().Pods(namespace).Create(ctx, cluster.Pod(namespace, name, cluster.PodOptions{Claim: name}), metav1.CreateOptions{})
		return created{kind: kindDRA, name: name, pods: 1, claim: true}, err
	case kindPlain:
		_, err := l.client.CoreV1().Pods(namespace).Create(ctx, cluster.Pod(namespace, name, cluster.PodOptions{}), metav1.CreateOptions{})
		return created{kind: kindPlain, name: name, pods: 1}, err
	case kindUnschedulable:
		pod := cluster.Pod(namespace, name, cluster.PodOptions{CPU: "64", PriorityClassName: noPreemptionClass})
		_, err := l.client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{})
		return created{kind: kindUnschedulable, name: name, pods: 1}, err
	default:
		err := l.c.CreateGang(ctx, cluster.GangSpec{Namespace: namespace, Name: name, MinCount: soakGangSize, Pods: soakGangSize,
			TopologyKey: cluster.RackLabel})
		return created{kind: kindGang, name: name, pods: soakGangSize}, err
	}
}

// remove deletes what create made: pods at once (grace period 0), then the
// claim or the PodGroup. An object already gone is not an error.
func (l *loader) remove(ctx context.Context, c created) error {
	now := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	pods := []string{c.name}
	if c.kind == kindGang {
		pods = pods[:0]
		for i := range c.pods {
			pods = append(pods, fmt.Sprintf("%s-%d", c.name, i))
		}
	}
	for _, p := range pods {
		if err := l.client.CoreV1().Pods(namespace).Delete(ctx, p, now); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	var err error
	switch {
	case c.claim:
		err = l.client.ResourceV1beta1().ResourceClaims(namespace).Delete(ctx, c.name, metav1.DeleteOptions{})
	case c.kind == kindGang:
		err = l.c.Dynamic.Resource(cluster.PodGroupResource).Namespace(namespace).Delete(ctx, c.name, metav1.DeleteOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
