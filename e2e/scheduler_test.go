package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kspatch.dev/e2e/cluster"
)

// The suite needs the control plane's binaries (make build tools
// cluster-bins). Without them it skips, unless KSPATCH_REQUIRE_E2E is set (as
// make test does), in which case it fails.
func binDir(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(repoDir(), "_output", "bin")
	if d := os.Getenv("KSPATCH_BIN"); d != "" {
		bin = d
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kwok", "kube-scheduler"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			if os.Getenv("KSPATCH_REQUIRE_E2E") != "" {
				t.Fatalf("%s missing in %s: run make build tools cluster-bins", b, bin)
			}
			t.Skipf("%s missing in %s (make build tools cluster-bins)", b, bin)
		}
	}
	return bin
}

// deployDir is scheduler/deploy: the manifests the suite runs the scheduler
// with.
func deployDir() string {
	return filepath.Join(repoDir(), "scheduler", "deploy")
}

// The fake nodes startCluster creates: e2eNodes nodes in one zone, over
// e2eRacks racks (cluster.RackLabel: zone-a-rack-0, -1 and -2) of two nodes
// each for the placement scenarios. Racks 0 and 1 make the block
// zone-a-block-0, rack 2 alone the block zone-a-block-1
// (cluster.BlockLabel): a gang can spill over two racks of the first block.
const (
	e2eNodes = 6
	e2eRacks = 3
)

// startCluster starts a control plane with e2eNodes fake nodes (32 CPUs,
// 500 pods and 100 devices each) for the test, and stops it when the test
// ends.
func startCluster(t *testing.T, gates string) *cluster.Cluster {
	t.Helper()
	return startClusterWith(t, cluster.Options{FeatureGates: gates})
}

// startClusterWith is startCluster with more options (the directories and
// the log are filled in).
func startClusterWith(t *testing.T, opts cluster.Options) *cluster.Cluster {
	t.Helper()
	ctx := t.Context()
	// KSPATCH_E2E_DIR keeps each test's certificates, data and logs for a
	// look afterwards; by default they are removed with the test.
	dir := t.TempDir()
	if keep := os.Getenv("KSPATCH_E2E_DIR"); keep != "" {
		dir = filepath.Join(keep, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	opts.Dir, opts.Bin, opts.DeployDir, opts.Log = dir, binDir(t), deployDir(), testWriter{t}
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			comps := []string{cluster.SecondSchedulerComponent, "kube-apiserver", "kube-controller-manager", "kwok"}
			for _, r := range c.Schedulers {
				comps = append(comps, r.Component)
			}
			for _, comp := range comps {
				t.Logf("last lines of %s:\n%s", comp, c.LogTail(comp, 20))
			}
		}
		c.Stop()
	})
	if err := c.CreateNodes(ctx, cluster.NodeSpec{Count: e2eNodes, Zones: 1, Racks: e2eRacks, Pods: 500, Devices: 100}); err != nil {
		t.Fatal(err)
	}
	return c
}

// allGatesOff turns every kspatch gate off: the scheduler is v1.33.13's.
const allGatesOff = "SchedulerPreQueueingHints=false,SchedulerAsyncAPICalls=false,GangScheduling=false,TopologyAwareWorkloadScheduling=false,PodGroupTopologyLevels=false,SchedulerDRASliceCache=false,WorkloadAwarePreemption=false"

// TestScheduler runs the generic scenarios with the kspatch gates at their
// defaults and with every kspatch gate off (v1.33.13 behaviour).
func TestScheduler(t *testing.T) {
	for _, tc := range []struct{ name, gates string }{
		{"default gates", ""},
		{"kspatch gates off", allGatesOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, tc.gates)
			ctx := t.Context()
			// Prometheus scrapes from the start, so the dashboards' check
			// at the end sees the workloads.
			since := time.Now()
			promBase := startPrometheus(ctx, t, c)
			if err := c.CreateNamespace(ctx, "e2e"); err != nil {
				t.Fatal(err)
			}
			t.Run("binds ordinary pods", func(t *testing.T) { bindsOrdinaryPods(ctx, t, c) })
			t.Run("unschedulable pod", func(t *testing.T) { unschedulablePod(ctx, t, c) })
			t.Run("API calls through the queue", func(t *testing.T) { asyncAPICalls(ctx, t, c, tc.gates == "") })
			t.Run("kubectl kspatch", func(t *testing.T) { kubectlPlugin(ctx, t, c, tc.gates == "") })
			// Early, so that Prometheus has scraped the pod-group metrics
			// by the time the dashboards are checked.
			if tc.gates == "" {
				t.Run("PodGroup API validation", func(t *testing.T) { podGroupValidation(ctx, t, c) })
				t.Run("PodGroup RBAC of the scheduler", func(t *testing.T) { podGroupRBAC(ctx, t, c) })
				t.Run("PodGroup gang that fits", func(t *testing.T) { gangFits(ctx, t, c) })
				t.Run("PodGroup gang too big", func(t *testing.T) { gangTooBig(ctx, t, c, e2eNodes) })
				t.Run("placement: rack gang in one rack", func(t *testing.T) { rackGangFits(ctx, t, c) })
				t.Run("placement: gang too big for any rack", func(t *testing.T) { rackGangTooBig(ctx, t, c) })
				t.Run("placement metrics", func(t *testing.T) { placementMetrics(ctx, t, c) })
				t.Run("topology levels: gang spills over two racks of a block", func(t *testing.T) { blockGangSpills(ctx, t, c) })
				t.Run("topology levels: gang too big for any block", func(t *testing.T) { blockGangTooBig(ctx, t, c) })
				// Before the dashboards: the Preemption row charts it.
				t.Run("gang preemption", func(t *testing.T) { gangPreemption(ctx, t, c) })
			} else {
				t.Run("PodGroup labels ignored", func(t *testing.T) { podGroupsIgnoredGatesOff(ctx, t, c) })
			}
			t.Run("DRA claim-template burst", func(t *testing.T) { draBurst(ctx, t, c, 500) })
			t.Run("shared claim", func(t *testing.T) { sharedClaim(ctx, t, c) })
			t.Run("API server restart during a burst", func(t *testing.T) { apiServerRestart(ctx, t, c) })
			t.Run("second scheduler from the deploy manifest", func(t *testing.T) { secondScheduler(ctx, t, c) })
			t.Run("Prometheus scrapes the scheduler", func(t *testing.T) { prometheusScrapes(ctx, t, c, promBase) })
			// Every panel of the dashboards shows data. With the kspatch
			// gates off only the overview applies: the enhancements' metrics
			// stay empty.
			gatesOff := tc.gates != ""
			dashboards := map[string]bool{"kspatch-overview": true, "kspatch-prequeueinghint": !gatesOff, "kspatch-apicalls": !gatesOff, "kspatch-podgroups": !gatesOff}
			variant := ""
			if gatesOff {
				variant = "gates-off"
			}
			t.Run("dashboards show live data", func(t *testing.T) { dashboardsShowData(ctx, t, promBase, since, dashboards, variant) })
		})
	}
}

func bindsOrdinaryPods(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	if err := c.CreatePods(ctx, "e2e", "plain", 30, cluster.PodOptions{CPU: "200m"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", "plain-", 30, time.Minute); err != nil {
		t.Fatal(err)
	}
}

func unschedulablePod(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	if _, err := c.Client.CoreV1().Pods("e2e").Create(ctx, cluster.Pod("e2e", "too-big", cluster.PodOptions{CPU: "1000"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		pod, err := c.Client.CoreV1().Pods("e2e").Get(ctx, "too-big", metav1.GetOptions{})
		if err == nil {
			for _, cond := range pod.Status.Conditions {
				if cond.Type == v1.PodScheduled && cond.Status == v1.ConditionFalse && cond.Reason == v1.PodReasonUnschedulable {
					if !strings.Contains(cond.Message, "Insufficient cpu") {
						t.Errorf("PodScheduled=False message %q does not name the cause (Insufficient cpu)", cond.Message)
					}
					// The admin API shows it waiting, rejected by NodeResourcesFit.
					var doc struct {
						Queue                string   `json:"queue"`
						UnschedulablePlugins []string `json:"unschedulablePlugins"`
					}
					getJSON(t, c.Admin+"/debug/queue/pods/e2e/too-big?output=json", &doc)
					if doc.Queue != "unschedulable" || len(doc.UnschedulablePlugins) == 0 || doc.UnschedulablePlugins[0] != "NodeResourcesFit" {
						t.Errorf("admin API shows too-big in %q rejected by %v, want unschedulable by NodeResourcesFit", doc.Queue, doc.UnschedulablePlugins)
					}
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod too-big has no PodScheduled=False/Unschedulable condition after a minute: %+v", pod.Status.Conditions)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// asyncAPICalls checks, after the scenarios above bound pods and failed
// one, that with SchedulerAsyncAPICalls the bindings and the status patch
// went through the API call queue (its metrics) and /debug/apicalls answers;
// with the gate off there is neither.
func asyncAPICalls(ctx context.Context, t *testing.T, c *cluster.Cluster, on bool) {
	metrics, err := c.SchedulerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bindings, found := cluster.MetricValue(metrics, `scheduler_async_api_call_execution_total{call_type="pod_binding",result="success"}`)
	patches, _ := cluster.MetricValue(metrics, `scheduler_async_api_call_execution_total{call_type="pod_status_patch",result="success"}`)
	resp, err := http.Get(c.Admin + "/debug/apicalls?output=json")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if !on {
		if found {
			t.Errorf("the gate is off, yet the scheduler exports scheduler_async_api_call_execution_total")
		}
		if resp.StatusCode != http.StatusNotImplemented {
			t.Errorf("/debug/apicalls answered %d with the gate off, want 501", resp.StatusCode)
		}
		return
	}
	if bindings < 30 || patches < 1 {
		t.Errorf("async API calls: %v bindings and %v status patches succeeded, want at least 30 and 1", bindings, patches)
	}
	var list struct {
		Kind  string `json:"kind"`
		Items []any  `json:"items"`
	}
	getJSON(t, c.Admin+"/debug/apicalls?output=json", &list)
	if list.Kind != "APICallList" {
		t.Errorf("/debug/apicalls answered kind %q, want APICallList", list.Kind)
	}
}

func draBurst(ctx context.Context, t *testing.T, c *cluster.Cluster, n int) {
	if err := c.CreateClaimTemplate(ctx, "e2e", "one-gpu"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreatePods(ctx, "e2e", "burst", n, cluster.PodOptions{CPU: "10m", ClaimTemplate: "one-gpu"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", "burst-", n, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	metrics, err := c.SchedulerMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, found := cluster.MetricValue(metrics, "scheduler_pod_scheduled_after_flush_total"); !found || v != 0 {
		t.Errorf("scheduler_pod_scheduled_after_flush_total = %v (exported: %v), want 0 after the burst", v, found)
	}
}

func sharedClaim(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	if err := c.CreateClaim(ctx, "e2e", "shared-gpu"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreatePods(ctx, "e2e", "sharer", 4, cluster.PodOptions{CPU: "10m", Claim: "shared-gpu"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", "sharer-", 4, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	// One device for all of them: they share the node it is on.
	pods, err := c.Client.CoreV1().Pods("e2e").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, p := range pods.Items {
		if strings.HasPrefix(p.Name, "sharer-") {
			nodes[p.Spec.NodeName] = true
		}
	}
	if len(nodes) != 1 {
		t.Errorf("pods sharing one claim landed on %d nodes, want 1: %v", len(nodes), nodes)
	}
}

// apiServerRestart stops the API server while the scheduler works through a
// burst, starts it again, and adds more pods: every pod of both halves is
// bound, none lost to the watch errors and failed bindings in between.
func apiServerRestart(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const first, second = 300, 100
	if err := c.CreatePods(ctx, "e2e", "restart", first, cluster.PodOptions{CPU: "10m"}); err != nil {
		t.Fatal(err)
	}
	if bound, err := c.CountBound(ctx, "e2e", "restart-"); err == nil {
		t.Logf("%d of %d pods bound when the API server was stopped", bound, first)
	}
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.CreatePods(ctx, "e2e", "after-restart", second, cluster.PodOptions{CPU: "10m"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", "restart-", first, 3*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", "after-restart-", second, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
}

// secondScheduler installs scheduler/deploy/second-scheduler.yaml (its
// RBAC, service account and configuration, the Deployment's command) next to
// the running scheduler: pods that name it are bound by it, under its
// service account's permissions, and it holds its own lease.
func secondScheduler(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	s, err := c.StartSecondScheduler(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		pod := cluster.Pod("e2e", fmt.Sprintf("second-%d", i), cluster.PodOptions{CPU: "10m"})
		pod.Spec.SchedulerName = s.SchedulerName
		if _, err := c.Client.CoreV1().Pods("e2e").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.WaitBound(ctx, "e2e", "second-", 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	// The Scheduled events come from the second scheduler's profile.
	events, err := c.Client.CoreV1().Events("e2e").List(ctx, metav1.ListOptions{FieldSelector: "reason=Scheduled"})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, e := range events.Items {
		if strings.HasPrefix(e.InvolvedObject.Name, "second-") {
			by[e.InvolvedObject.Name] = e.ReportingController
		}
	}
	for i := range 5 {
		name := fmt.Sprintf("second-%d", i)
		if by[name] != s.SchedulerName {
			t.Errorf("pod %s: Scheduled event reported by %q, want %q", name, by[name], s.SchedulerName)
		}
	}
	lease, err := c.Client.CoordinationV1().Leases(s.LeaseNamespace).Get(ctx, s.LeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the second scheduler's lease %s/%s: %v", s.LeaseNamespace, s.LeaseName, err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("lease %s/%s has no holder", s.LeaseNamespace, s.LeaseName)
	}
	var queue struct {
		Kind string `json:"kind"`
	}
	getJSON(t, s.Admin+"/debug/queue?output=json", &queue)
	if queue.Kind != "QueueList" {
		t.Errorf("the second scheduler's admin API answered kind %q, want QueueList", queue.Kind)
	}
}

// startPrometheus starts Prometheus the way make run PROMETHEUS=1 does.
// KSPATCH_PROMETHEUS names the binary (make test installs Debian's package
// when missing). Without it the test fails if KSPATCH_REQUIRE_E2E is set;
// otherwise it returns "" and the checks that need Prometheus skip.
func startPrometheus(ctx context.Context, t *testing.T, c *cluster.Cluster) string {
	binary := os.Getenv("KSPATCH_PROMETHEUS")
	if binary == "" {
		if os.Getenv("KSPATCH_REQUIRE_E2E") != "" {
			t.Fatal("KSPATCH_PROMETHEUS is not set (make test-e2e sets it from scripts/ensure-prometheus)")
		}
		t.Log("KSPATCH_PROMETHEUS is not set: the Prometheus and dashboard checks skip")
		return ""
	}
	base, err := c.StartPrometheus(ctx, binary)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// prometheusScrapes waits for Prometheus to have scraped the scheduler's
// metrics, the KEP's among them.
func prometheusScrapes(ctx context.Context, t *testing.T, c *cluster.Cluster, base string) {
	if base == "" {
		t.Skip("no Prometheus (KSPATCH_PROMETHEUS)")
	}
	queries := []string{
		`up{job="kube-scheduler"} == 1`,
		`up{job="kube-apiserver"} == 1`,
		`scheduler_pod_scheduled_after_flush_total{job="kube-scheduler"}`,
		`scheduler_schedule_attempts_total{job="kube-scheduler",result="scheduled"} > 0`,
	}
	deadline := time.Now().Add(time.Minute)
	for _, q := range queries {
		for {
			got, err := cluster.PromQuery(ctx, base, q)
			if err == nil && len(got) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("Prometheus has no result for %s after a minute (err %v); log:\n%s", q, err, c.LogTail(cluster.PrometheusComponent, 20))
			}
			time.Sleep(time.Second)
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	code, body := getText(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
