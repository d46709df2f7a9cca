package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"kspatch.dev/e2e/cluster"
)

// The upgrade rehearsal (#49): the namespace, the node label that holds
// pods back until the test sets it, and the size of each burst during which
// the scheduler is swapped.
const (
	upgradeNS    = "upgrade"
	upgradeLabel = "kspatch.dev/upgrade-rehearsal"
	upgradeBurst = 120
	upgradeGang  = 4
	// upgradeBurstCPU is what each burst pod asks: the two bursts fill the
	// six nodes of 32 CPUs to about 83 %, so that a scheduler starting with
	// a stale view of the cluster would overfill some node.
	upgradeBurstCPU = "650m"
)

// TestUpgradeAndRollback rehearses what docs/upgrade.md tells an operator to
// do: the control plane runs upstream's v1.33.13 scheduler with the drop-in
// static pod's flags; its binary is swapped for the patched one (the release
// build make test builds) while pods and a gang wait and a burst is being
// scheduled, then swapped back to vanilla while a gang waits for members,
// another cannot fit, and a burst is being scheduled. Each swap is what the
// kubelet does when the manifest's image changes: SIGTERM, then the new
// binary with the same flags. Nothing is lost (every pod ends bound), nothing
// is bound twice (the API server's audit log), a gang is never partly bound
// by the patched scheduler, and what it wrote on PodGroups stays.
func TestUpgradeAndRollback(t *testing.T) {
	bin := binDir(t)
	vanilla := filepath.Join(bin, "kube-scheduler-vanilla")
	if _, err := os.Stat(vanilla); err != nil {
		if os.Getenv("KSPATCH_REQUIRE_E2E") != "" {
			t.Fatalf("%s: make build-vanilla builds it", vanilla)
		}
		t.Skipf("%s missing (make build-vanilla)", vanilla)
	}
	patched := filepath.Join(bin, "kube-scheduler")
	// One scheduler with the manifest's --leader-elect=true, as on a
	// kubeadm control-plane node: each one takes the lease, and releases it
	// on SIGTERM.
	c := startClusterWith(t, cluster.Options{Vanilla: true, SchedulerBinary: vanilla, LeaderElection: true})
	ctx := t.Context()
	if err := c.CreateNamespace(ctx, upgradeNS); err != nil {
		t.Fatal(err)
	}
	held := cluster.PodOptions{NodeSelector: map[string]string{upgradeLabel: "open"}}
	var created int
	create := func(prefix string, n int, o cluster.PodOptions) {
		t.Helper()
		if err := c.CreatePods(ctx, upgradeNS, prefix, n, o); err != nil {
			t.Fatal(err)
		}
		created += n
	}
	gangPods := func(group string, n int, o cluster.PodOptions) {
		t.Helper()
		o.Labels = map[string]string{cluster.PodGroupLabel: group}
		create(group, n, o)
	}

	// 1. Vanilla: pods bound, pods waiting for the label, and a gang's
	// PodGroup with its members waiting too (vanilla knows no PodGroups; the
	// label holds them).
	create("before", 20, cluster.PodOptions{})
	if _, err := c.WaitBound(ctx, upgradeNS, "before", 20, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := c.CreatePodGroup(ctx, upgradeNS, "held", upgradeGang, cluster.RackLabel); err != nil {
		t.Fatal(err)
	}
	create("waiting", 10, held)
	gangPods("held", upgradeGang, held)
	waitUnschedulable(ctx, t, c, []string{"waiting", "held"}, 10+upgradeGang)

	// 2. Upgrade during a burst.
	lease := schedulerLease(ctx, t, c)
	up := swapDuringBurst(ctx, t, c, "up", patched, false)
	lease = leaseChanged(ctx, t, c, lease)
	created += upgradeBurst
	t.Logf("upgrade: vanilla %s", up)
	if _, err := c.WaitBound(ctx, upgradeNS, "up", upgradeBurst, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	labelNodes(ctx, t, c, "open")
	if _, err := c.WaitBound(ctx, upgradeNS, "waiting", 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, upgradeNS, "held", upgradeGang, time.Minute); err != nil {
		t.Fatal(err)
	}
	oneRack(ctx, t, c, "held")
	if _, err := c.WaitPodGroupState(ctx, upgradeNS, "held", 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Scheduled == upgradeGang && s.Status == "True"
	}); err != nil {
		t.Fatal(err)
	}

	// 3. Rollback while a gang waits for its last member, a gang does not
	// fit, and a burst is being scheduled.
	if err := c.CreatePodGroup(ctx, upgradeNS, "partial", upgradeGang, ""); err != nil {
		t.Fatal(err)
	}
	gangPods("partial", upgradeGang-1, cluster.PodOptions{})
	if err := c.CreatePodGroup(ctx, upgradeNS, "nofit", upgradeGang, ""); err != nil {
		t.Fatal(err)
	}
	gangPods("nofit", upgradeGang, cluster.PodOptions{NodeSelector: map[string]string{upgradeLabel: "later"}})
	if _, err := c.WaitPodGroupState(ctx, upgradeNS, "partial", 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Status == "False" && s.Reason == "WaitingForMembers"
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitPodGroupState(ctx, upgradeNS, "nofit", 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Status == "False" && s.Reason == "Unschedulable"
	}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"partial", "nofit"} {
		if n, err := c.CountBound(ctx, upgradeNS, g); err != nil || n != 0 {
			t.Fatalf("gang %s: %d members bound before the rollback (err %v), want 0", g, n, err)
		}
	}
	tDown := time.Now()
	down := swapDuringBurst(ctx, t, c, "down", vanilla, true)
	created += upgradeBurst
	leaseChanged(ctx, t, c, lease)
	t.Logf("rollback: patched %s", down)
	if down.exit.Code != 0 {
		t.Errorf("the patched scheduler exited with %s after SIGTERM, want exit status 0 (graceful); its log is %s", down.exit.Status, down.exit.Log)
	}
	line, stopped := lastLogLine(t, down.exit.Log, "Asynchronous API call queue stopped", tDown)
	drain := "no line"
	switch {
	case line == "":
		t.Errorf("the patched scheduler logged no line on its API call queue after SIGTERM; its log is %s", down.exit.Log)
	case strings.Contains(line, "before sending every queued call"):
		t.Errorf("the patched scheduler dropped API calls on SIGTERM with a healthy API server: %s", line)
	default:
		drain = line[strings.Index(line, "] ")+2:]
		// The burst keeps bindings queued (the scheduler's client sends
		// 50 a second): a drain with nothing to send rehearses nothing.
		if m := drainBindings.FindStringSubmatch(line); m == nil || m[1] == "0" {
			t.Errorf("the patched scheduler's drain sent no binding: the rollback did not happen with bindings in flight: %s", line)
		}
	}

	// 4. Vanilla again: it schedules what the patched scheduler left, the
	// members of the two gangs one by one (docs/upgrade.md, "Rolling back").
	if _, err := c.WaitBound(ctx, upgradeNS, "down", upgradeBurst, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, upgradeNS, "partial", upgradeGang-1, time.Minute); err != nil {
		t.Fatal(err)
	}
	labelNodes(ctx, t, c, "later")
	if _, err := c.WaitBound(ctx, upgradeNS, "nofit", upgradeGang, time.Minute); err != nil {
		t.Fatal(err)
	}
	s, err := c.PodGroupState(ctx, upgradeNS, "held")
	if err != nil || s.Scheduled != upgradeGang || s.Status != "True" {
		t.Errorf("PodGroup held after the rollback: %v (err %v), want the status the patched scheduler wrote (scheduled %d, True)", s, err, upgradeGang)
	}

	// Nothing lost, nothing bound twice.
	pods, err := c.Client.CoreV1().Pods(upgradeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != created {
		t.Errorf("%d pods in %s, %d created", len(pods.Items), upgradeNS, created)
	}
	// No node holds more than it has: a scheduler that started with a
	// stale view would put pods where others already run.
	overCommitted(ctx, t, c, pods.Items)
	calls, err := c.Bindings(upgradeNS)
	if err != nil {
		t.Fatal(err)
	}
	// Vanilla exits at once on SIGTERM: a Binding it sent then may be
	// answered after it left (504, the pod bound; or 500, nothing stored).
	cutOff := []window{{from: up.signalled.Add(-time.Second), to: up.exited.Add(5 * time.Second)}}
	audit := bindingsOnce(pods.Items, calls, cutOff)
	for _, p := range audit.problems {
		t.Error(p)
	}
	// Between the SIGTERM and the drain's end only the patched scheduler
	// binds (vanilla starts after it exited).
	if line != "" {
		drain += "; " + checkDrainAgainstAudit(t, line, calls, down.signalled, stopped)
	}
	report(t, fmt.Sprintf("upgrade rehearsal: %d pods, each bound once (%s); vanilla→patched: %s; patched→vanilla: %s; the patched scheduler's drain: %s",
		len(pods.Items), audit, up, down, drain))
}

// swapped is how a swap went: when the old scheduler was signalled and
// exited, how, and how many pods of the burst were bound then.
type swapped struct {
	exit              cluster.Exit
	signalled, exited time.Time
	boundAtSignal     int
}

func (s swapped) String() string {
	return fmt.Sprintf("SIGTERM with %d/%d of the burst bound, exited after %.2fs (%s)",
		s.boundAtSignal, upgradeBurst, s.exited.Sub(s.signalled).Seconds(), s.exit.Status)
}

// swapDuringBurst creates upgradeBurst pods named prefix-N and, once a
// quarter of them are bound, replaces the scheduler by binary.
func swapDuringBurst(ctx context.Context, t *testing.T, c *cluster.Cluster, prefix, binary string, vanilla bool) swapped {
	t.Helper()
	pods := make([]*v1.Pod, upgradeBurst)
	for i := range pods {
		pods[i] = cluster.Pod(upgradeNS, fmt.Sprintf("%s-%d", prefix, i), cluster.PodOptions{CPU: upgradeBurstCPU})
	}
	done := make(chan error, 1)
	go func() { done <- createConcurrently(ctx, c, pods, 8) }()
	var s swapped
	deadline := time.Now().Add(time.Minute)
	for s.boundAtSignal < upgradeBurst/4 {
		n, err := c.CountBound(ctx, upgradeNS, prefix)
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pods %s-* bound after a minute", n, upgradeBurst, prefix)
		}
		s.boundAtSignal = n
		time.Sleep(20 * time.Millisecond)
	}
	s.signalled = time.Now()
	exit, err := c.SwapScheduler(ctx, binary, vanilla)
	if err != nil {
		t.Fatal(err)
	}
	s.exit, s.exited = exit, exit.At
	// The new process says which build it is.
	want := `version="v1.33.13-kspatch.`
	if vanilla {
		want = `version="v1.33.13"`
	}
	if line, _ := lastLogLine(t, exit.Log, "Starting Kubernetes Scheduler", s.signalled); !strings.Contains(line, want) {
		t.Errorf("after the swap to %s, the scheduler's log says %q, want %s", binary, line, want)
	}
	if s.boundAtSignal >= upgradeBurst {
		t.Fatalf("the whole burst %s-* was bound before the swap: nothing was in flight", prefix)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return s
}

// waitUnschedulable waits until want pods whose names start with one of
// prefixes have PodScheduled=False: the scheduler tried them.
func waitUnschedulable(ctx context.Context, t *testing.T, c *cluster.Cluster, prefixes []string, want int) {
	t.Helper()
	waitFor(t, time.Minute, fmt.Sprintf("%d pods %v* unschedulable", want, prefixes), func() bool {
		pods, err := c.Client.CoreV1().Pods(upgradeNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		n := 0
		for _, p := range pods.Items {
			cond := podScheduledCondition(&p)
			for _, prefix := range prefixes {
				if strings.HasPrefix(p.Name, prefix) && cond != nil && cond.Status == v1.ConditionFalse {
					n++
				}
			}
		}
		return n == want
	})
}

// labelNodes sets upgradeLabel=value on every node.
func labelNodes(ctx context.Context, t *testing.T, c *cluster.Cluster, value string) {
	t.Helper()
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, upgradeLabel, value)
	for _, n := range nodes.Items {
		if _, err := c.Client.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// oneRack fails the test unless every pod named group-N is in one rack.
func oneRack(ctx context.Context, t *testing.T, c *cluster.Cluster, group string) {
	t.Helper()
	racks := nodeRacks(ctx, t, c)
	pods, err := c.Client.CoreV1().Pods(upgradeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string][]string{}
	for _, p := range pods.Items {
		if p.Labels[cluster.PodGroupLabel] == group {
			in[racks[p.Spec.NodeName]] = append(in[racks[p.Spec.NodeName]], p.Name)
		}
	}
	if len(in) != 1 {
		t.Errorf("gang %s: members in racks %v, want one rack", group, in)
	}
}

// leaseChanged waits until the scheduler lease has another holder than
// before (the new scheduler took it) and returns it.
func leaseChanged(ctx context.Context, t *testing.T, c *cluster.Cluster, before *coordinationv1.Lease) *coordinationv1.Lease {
	t.Helper()
	var now *coordinationv1.Lease
	waitFor(t, time.Minute, "the new scheduler to take the lease", func() bool {
		now = schedulerLease(ctx, t, c)
		holder := ptrString(now.Spec.HolderIdentity)
		return holder != "" && holder != ptrString(before.Spec.HolderIdentity)
	})
	if ptrInt(now.Spec.LeaseTransitions) <= ptrInt(before.Spec.LeaseTransitions) {
		t.Errorf("lease transitions %d after the swap, %d before: want more", ptrInt(now.Spec.LeaseTransitions), ptrInt(before.Spec.LeaseTransitions))
	}
	return now
}

// overCommitted fails the test for every node whose pods ask more CPU than
// the node has.
func overCommitted(ctx context.Context, t *testing.T, c *cluster.Cluster, pods []v1.Pod) {
	t.Helper()
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every pod counts, whatever its phase.
	asked := cluster.CPURequestsByNode(pods, nil)
	for _, n := range nodes.Items {
		if have := n.Status.Allocatable.Cpu().MilliValue(); asked[n.Name] > have {
			t.Errorf("node %s: its pods ask %dm CPU, it has %dm", n.Name, asked[n.Name], have)
		}
	}
}
