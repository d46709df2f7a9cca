package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// The leader-change scenario (#26): a burst of haPods pods (haDRA with a
// device each from a claim template, haGangs gangs of haGangSize with a rack
// constraint, the rest plain pods) on a control plane with two schedulers on
// one lease; the leader is killed once half of them are bound.
const (
	haPods     = 500
	haDRA      = 250
	haGangs    = 3
	haGangSize = 8
)

// TestLeaderChange runs two kspatch schedulers with the static pod's flags
// (leader election on the kube-system/kube-scheduler lease), kills the leader
// mid-burst with SIGKILL, then, with the killed one back as a follower, stops
// the new leader with SIGTERM. Both with the kspatch gates at their defaults
// and with every kspatch gate off.
func TestLeaderChange(t *testing.T) {
	for _, tc := range []struct{ name, gates string }{
		{"default gates", ""},
		{"kspatch gates off", allGatesOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startClusterWith(t, cluster.Options{FeatureGates: tc.gates, Replicas: 2})
			ctx := t.Context()
			// With the default gates, Prometheus scrapes both replicas and
			// the overview dashboard is drawn at the end: the leader moves
			// from one instance to the other and back.
			var promBase string
			since := time.Now()
			if tc.gates == "" {
				promBase = startPrometheus(ctx, t, c)
			}
			for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
				name := map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM"}[sig]
				t.Run(name, func(t *testing.T) { leaderChange(ctx, t, c, sig, name, tc.gates == "") })
			}
			if tc.gates == "" {
				t.Run("the overview dashboard shows the leader per instance", func(t *testing.T) {
					leaderPerInstance(ctx, t, c, promBase, since)
				})
			}
		})
	}
}

// leaderChange is one run of the scenario with signal sig.
func leaderChange(ctx context.Context, t *testing.T, c *cluster.Cluster, sig syscall.Signal, sigName string, gatesOn bool) {
	ns := "ha-" + strings.ToLower(sigName)
	if err := c.CreateNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateClaimTemplate(ctx, ns, "gpu"); err != nil {
		t.Fatal(err)
	}
	old := waitLeader(ctx, t, c, "")
	var err error
	// The other one says it waits for the lease. (A replica just restarted
	// answers 403 until it has read the client CA it authenticates with.)
	for _, r := range c.Schedulers {
		if r.Component == old.Component {
			continue
		}
		var text string
		deadline := time.Now().Add(30 * time.Second)
		for {
			if text, err = c.ReplicaMetrics(ctx, r); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("follower %s: %v", r.Component, err)
		}
		if v, ok := cluster.MetricValue(text, "scheduler_leading"); !ok || v != 0 {
			t.Errorf("follower %s: scheduler_leading %v (exported: %v), want 0", r.Component, v, ok)
		}
	}
	leaseBefore := schedulerLease(ctx, t, c)
	t.Logf("leader: %s (lease holder %s, %d transitions)", old.Component, ptrString(leaseBefore.Spec.HolderIdentity), ptrInt(leaseBefore.Spec.LeaseTransitions))

	// The burst: the gangs' PodGroups first, then every pod, a gang at the
	// start, one in the middle (bound about when the leader goes) and one
	// at the end.
	var pods []*v1.Pod
	gangAt := map[int]int{0: 0, haPods/2 - haGangSize: 1, haPods - haGangSize: 2} // first pod → gang
	plain, dra := 0, 0
	for g := range haGangs {
		if err := c.CreatePodGroup(ctx, ns, gangName(g), haGangSize, cluster.RackLabel); err != nil {
			t.Fatal(err)
		}
	}
	for len(pods) < haPods {
		if g, ok := gangAt[len(pods)]; ok {
			for m := range haGangSize {
				pods = append(pods, cluster.Pod(ns, fmt.Sprintf("%s-%d", gangName(g), m),
					cluster.PodOptions{Labels: map[string]string{cluster.PodGroupLabel: gangName(g)}}))
			}
			continue
		}
		// Alternate DRA and plain pods until haDRA have a device.
		if dra < haDRA && (len(pods)%2 == 0 || plain >= haPods-haDRA-haGangs*haGangSize) {
			pods = append(pods, cluster.Pod(ns, fmt.Sprintf("dra-%d", dra), cluster.PodOptions{ClaimTemplate: "gpu"}))
			dra++
		} else {
			pods = append(pods, cluster.Pod(ns, fmt.Sprintf("plain-%d", plain), cluster.PodOptions{}))
			plain++
		}
	}
	created := make(chan error, 1)
	go func() { created <- createConcurrently(ctx, c, pods, 8) }()

	// Kill the leader once half the pods are bound.
	start := time.Now()
	boundAtKill := 0
	for boundAtKill < haPods/2 {
		n, err := c.CountBound(ctx, ns, "")
		if err != nil {
			t.Fatal(err)
		}
		boundAtKill = n
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("%d of %d pods bound after 3 minutes, before the leader was stopped", n, haPods)
		}
		time.Sleep(100 * time.Millisecond)
	}
	tKill := time.Now()
	exit, err := c.Signal(old.Component, sig)
	if err != nil {
		t.Fatal(err)
	}
	tExit := time.Now()
	// The stopped scheduler comes back as a follower, whatever happens.
	defer func() {
		if err := c.Restart(ctx, old.Component); err != nil {
			t.Errorf("restarting %s: %v", old.Component, err)
		}
	}()
	t.Logf("%s sent to %s with %d of %d pods bound; it ended after %.2fs: %s", sigName, old.Component, boundAtKill, haPods, tExit.Sub(tKill).Seconds(), exit.Status)
	if sig == syscall.SIGTERM && exit.Code != 0 {
		t.Errorf("%s exited with %s after SIGTERM, want exit status 0 (graceful); its log is %s", old.Component, exit.Status, exit.Log)
	}

	// The other scheduler takes the lease.
	leader := waitLeader(ctx, t, c, old.Component)
	tLeader := time.Now()
	leaseAfter := schedulerLease(ctx, t, c)
	if ptrString(leaseAfter.Spec.HolderIdentity) == ptrString(leaseBefore.Spec.HolderIdentity) {
		t.Errorf("the lease is still held by %s", ptrString(leaseAfter.Spec.HolderIdentity))
	}
	if ptrInt(leaseAfter.Spec.LeaseTransitions) <= ptrInt(leaseBefore.Spec.LeaseTransitions) {
		t.Errorf("lease transitions %d after the change, %d before: want more", ptrInt(leaseAfter.Spec.LeaseTransitions), ptrInt(leaseBefore.Spec.LeaseTransitions))
	}

	if err := <-created; err != nil {
		t.Fatal(err)
	}
	// Every pod ends bound.
	if _, err := c.WaitBound(ctx, ns, "", haPods, 3*time.Minute); err != nil {
		t.Fatal(err)
	}
	if gatesOn {
		// The new leader's queue has sent what it holds before the pods'
		// conditions are read.
		waitNoPendingAPICalls(ctx, t, c, leader)
	}
	podList, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// No pod bound twice; conflicts only where a retry explains them.
	calls, err := c.Bindings(ns)
	if err != nil {
		t.Fatal(err)
	}
	// An exit without a drain (SIGKILL, or SIGTERM with the kspatch gates
	// off: v1.33.13 exits at once, with its bindings in flight) can cut
	// Bindings off around the signal.
	var cutOff []window
	if sig == syscall.SIGKILL || !gatesOn {
		cutOff = []window{{from: tKill.Add(-time.Second), to: tExit.Add(5 * time.Second)}}
	}
	audit := bindingsOnce(podList.Items, calls, cutOff)
	for _, p := range audit.problems {
		t.Error(p)
	}
	beforeExit := 0
	for _, p := range podList.Items {
		if b := audit.bound[p.Name]; len(b) == 1 && b[0].Before(tExit) {
			beforeExit++
		}
	}
	var last time.Time
	for _, b := range calls {
		if b.Code == 201 && b.At.After(last) {
			last = b.At
		}
	}

	// No running pod has PodScheduled=False.
	var stale []string
	for _, p := range podList.Items {
		if cond := podScheduledCondition(&p); p.Spec.NodeName != "" && cond != nil && cond.Status == v1.ConditionFalse {
			stale = append(stale, fmt.Sprintf("%s (%s: %s)", p.Name, cond.Reason, cond.Message))
		}
	}
	if len(stale) > 0 {
		t.Errorf("%d bound pods have PodScheduled=False: %v", len(stale), stale)
	}

	// No gang partly bound: each one whole in one rack, and its PodGroup
	// says so. (With GangScheduling off the members are ordinary pods.)
	if gatesOn {
		racks := nodeRacks(ctx, t, c)
		for g := range haGangs {
			inRack := map[string][]string{}
			members := 0
			for _, p := range podList.Items {
				if p.Labels[cluster.PodGroupLabel] == gangName(g) {
					members++
					inRack[racks[p.Spec.NodeName]] = append(inRack[racks[p.Spec.NodeName]], p.Name)
				}
			}
			if members != haGangSize || len(inRack) != 1 {
				t.Errorf("gang %s: %d members in racks %v, want %d in one rack", gangName(g), members, inRack, haGangSize)
			}
			s, err := c.WaitPodGroupState(ctx, ns, gangName(g), 30*time.Second, func(s cluster.PodGroupState) bool {
				return s.Scheduled == haGangSize && s.Status == "True"
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("PodGroup %s/%s: %v", ns, gangName(g), s)
		}
	}

	// SIGTERM: the old leader's queue sent what it held before it let the
	// lease go, and said so.
	drain := "lost with the process (SIGKILL)"
	if !gatesOn {
		drain = "none (no API call queue with the gates off)"
	}
	if sig == syscall.SIGTERM {
		line, at := lastLogLine(t, exit.Log, "Asynchronous API call queue stopped", tKill)
		switch {
		case !gatesOn && line != "":
			t.Errorf("with the kspatch gates off, %s logged %q", old.Component, line)
		case gatesOn && line == "":
			t.Errorf("%s logged no line on its API call queue after SIGTERM; its log is %s", old.Component, exit.Log)
		case gatesOn:
			drain = line[strings.Index(line, "] ")+2:]
			if strings.Contains(line, "before sending every queued call") {
				t.Errorf("the old leader dropped API calls on SIGTERM with a healthy API server: %s", drain)
			}
			if acquired := leaseAfter.Spec.AcquireTime; acquired == nil || !acquired.Time.After(at) {
				t.Errorf("the new leader acquired the lease at %v, not after the old leader's queue stopped (%s)", acquired, at.Format(time.StampMicro))
			}
			drain += "; " + checkDrainAgainstAudit(t, line, calls, tKill, at)
		}
	}

	acquired := "unknown"
	if a := leaseAfter.Spec.AcquireTime; a != nil {
		acquired = fmt.Sprintf("+%.2fs", a.Time.Sub(tKill).Seconds())
	}
	gates := "default gates"
	if !gatesOn {
		gates = "kspatch gates off"
	}
	report(t, fmt.Sprintf("timeline (%s, %s): %s at 0s with %d/%d bound; exited +%.2fs; %s acquired the lease %s (seen leading +%.2fs); last pod bound +%.2fs",
		ns, gates, sigName, boundAtKill, haPods, tExit.Sub(tKill).Seconds(), leader.Component, acquired, tLeader.Sub(tKill).Seconds(), last.Sub(tKill).Seconds()))
	report(t, fmt.Sprintf("counts (%s, %s): %d pods bound once each (%d before the old leader exited, %d after), 0 twice; %s; %d bound pods with PodScheduled=False; old leader's queue: %s",
		ns, gates, len(podList.Items), beforeExit, len(podList.Items)-beforeExit, audit, len(stale), drain))
}

// report logs line and, when KSPATCH_E2E_REPORT names a file, appends it
// there: go test prints no log of a passing test without -v, and make
// test-e2e prints that file after the run, so CI's output has the
// leader-change timelines.
func report(t *testing.T, line string) {
	t.Helper()
	t.Log(line)
	path := os.Getenv("KSPATCH_E2E_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = fmt.Fprintln(f, line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Errorf("KSPATCH_E2E_REPORT: %v", err)
	}
}

// leaderPerInstance checks, in Prometheus, that each replica led at some
// point of the run (scheduler_leading 1; each led in one of the scenarios)
// and draws the overview dashboard of the run.
func leaderPerInstance(ctx context.Context, t *testing.T, c *cluster.Cluster, base string, since time.Time) {
	if base == "" {
		t.Skip("no Prometheus (KSPATCH_PROMETHEUS)")
	}
	window := time.Since(since).Round(time.Second) + 10*time.Second
	q := fmt.Sprintf(`max by (instance) (max_over_time(scheduler_leading{job="kube-scheduler"}[%s]))`, window)
	var led map[string]string
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		led, err = cluster.PromQuery(ctx, base, q)
		if err == nil && len(led) == len(c.Schedulers) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v (err %v), want one series per replica (%d)", q, led, err, len(c.Schedulers))
		}
		time.Sleep(2 * time.Second)
	}
	for instance, v := range led {
		if v != "1" {
			t.Errorf("instance %s never reported scheduler_leading 1 (max %s); each replica led in one scenario", instance, v)
		}
	}
	t.Logf("%s: %v", q, led)
	dashboardsShowData(ctx, t, base, since, map[string]bool{"kspatch-overview": true}, "leader-change")
}

func gangName(g int) string { return "gang-" + strconv.Itoa(g) }

// createConcurrently creates pods with n clients at once.
func createConcurrently(ctx context.Context, c *cluster.Cluster, pods []*v1.Pod, n int) error {
	work := make(chan *v1.Pod)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if _, err := c.Client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("creating pod %s/%s: %w", p.Namespace, p.Name, err)
					return
				}
			}
		}()
	}
	var err error
feed:
	for _, p := range pods {
		select {
		case work <- p:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

// waitLeader waits until a scheduler replica other than not reports that it
// leads (scheduler_leading 1 on its /metrics, the overview dashboard's
// leader panel) and returns it.
func waitLeader(ctx context.Context, t *testing.T, c *cluster.Cluster, not string) cluster.Replica {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		for _, r := range c.Schedulers {
			if r.Component == not {
				continue
			}
			text, err := c.ReplicaMetrics(ctx, r)
			if err != nil {
				continue
			}
			if v, ok := cluster.MetricValue(text, "scheduler_leading"); ok && v >= 1 {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduler replica (other than %q) leads after a minute", not)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func schedulerLease(ctx context.Context, t *testing.T, c *cluster.Cluster) *coordinationv1.Lease {
	t.Helper()
	l, err := c.Client.CoordinationV1().Leases("kube-system").Get(ctx, "kube-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// waitNoPendingAPICalls waits until replica r's asynchronous API call queue
// holds nothing (scheduler_pending_async_api_calls sums to 0).
func waitNoPendingAPICalls(ctx context.Context, t *testing.T, c *cluster.Cluster, r cluster.Replica) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		text, err := c.ReplicaMetrics(ctx, r)
		if err == nil {
			if v, _ := cluster.MetricValue(text, "scheduler_pending_async_api_calls"); v == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still has pending API calls after 30s (err %v)", r.Component, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// klogHeader is the start of a klog text line: severity, mmdd, time of day.
var klogHeader = regexp.MustCompile(`^[IWEF](\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}\.\d{6})`)

// lastLogLine returns the last line of the log at path that contains what
// and was written after since, and its time; "" when there is none.
func lastLogLine(t *testing.T, path, what string, since time.Time) (string, time.Time) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	var at time.Time
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, what) {
			continue
		}
		m := klogHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ts, err := time.ParseInLocation("2006 01 02 15:04:05.000000", fmt.Sprintf("%d %s %s %s", since.Year(), m[1], m[2], m[3]), time.Local)
		if err != nil || ts.Before(since.Truncate(time.Microsecond)) {
			continue
		}
		line, at = l, ts
	}
	return line, at
}

// drainBindings reads the bindings the queue's stop line says it sent
// during the drain (succeededByType's pod_binding).
var drainBindings = regexp.MustCompile(`succeededByType=\{[^}]*"pod_binding":([0-9]+)`)

// checkDrainAgainstAudit compares the bindings the old leader's drain says
// it sent with the Bindings the API server accepted between the SIGTERM
// and the drain's end (only the old leader binds then: the new one takes
// the lease after it). The drain counts the calls that finish once it has
// begun, a few microseconds after the signal; a Binding the API server
// answered within 50ms of the signal may fall on either side, so it is
// allowed on either, and said so.
func checkDrainAgainstAudit(t *testing.T, line string, calls []cluster.BindingCall, signal, stopped time.Time) string {
	t.Helper()
	said := 0
	if m := drainBindings.FindStringSubmatch(line); m != nil {
		said, _ = strconv.Atoi(m[1])
	}
	const margin = 50 * time.Millisecond
	strict, loose := 0, 0
	for _, b := range calls {
		if b.Code != 201 || b.At.After(stopped) {
			continue
		}
		if b.At.After(signal.Add(margin)) {
			strict++
		}
		if b.At.After(signal.Add(-margin)) {
			loose++
		}
	}
	if said < strict || said > loose {
		t.Errorf("the old leader's drain says it sent %d bindings; the audit log shows %d accepted between the SIGTERM and its stop line (%d counting those within %s of the signal): %s", said, strict, loose, margin, line)
	}
	return fmt.Sprintf("audit log: %d bindings accepted during the drain (%d counting those within %s of the signal), drain says %d", strict, loose, margin, said)
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptrInt(i *int32) int32 {
	if i == nil {
		return 0
	}
	return *i
}
