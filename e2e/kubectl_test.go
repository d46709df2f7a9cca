package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"kspatch.dev/e2e/cluster"
)

// plugin runs kubectl-kspatch (make build) as the cluster's debug user,
// who has nothing but a kubeconfig, and returns its output and exit code.
func plugin(t *testing.T, c *cluster.Cluster, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir(t), "kubectl-kspatch"), args...)
	// Only the kubeconfig: no other credentials, no kubectl config of the
	// machine.
	cmd.Env = []string{"KUBECONFIG=" + c.UserKubeconfig, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running kubectl-kspatch %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// pluginReady makes the cluster look like a kubeadm control plane to
// kubectl kspatch (cluster.ExposeScheduler), without the RBAC if noRBAC.
func pluginReady(ctx context.Context, t *testing.T, c *cluster.Cluster, noRBAC bool) {
	t.Helper()
	if err := c.ExposeScheduler(ctx, !noRBAC); err != nil {
		t.Fatal(err)
	}
}

// kubectlPlugin: kubectl kspatch reaches the admin API from a "workstation"
// with nothing but the debug user's kubeconfig, through a port-forward to
// the scheduler pod: refused with advice before the RBAC is applied; then
// queue (text and JSON, -n) and apicalls answer; a cluster whose scheduler
// has no kspatch admin API, and one without a scheduler pod, get clear
// errors.
func kubectlPlugin(ctx context.Context, t *testing.T, c *cluster.Cluster, apiCalls bool) {
	pluginReady(ctx, t, c, true)
	if _, errOut, code := plugin(t, c, "queue"); code != 1 || !strings.Contains(errOut, "forbidden") || !strings.Contains(errOut, "listing the kube-scheduler pods") {
		t.Errorf("kubectl kspatch queue without RBAC: exit %d, stderr %q; want 1 and the refused list of the scheduler pods", code, errOut)
	}
	pluginReady(ctx, t, c, false)
	// RBAC objects take effect once the API server's informers see them.
	var out, errOut string
	var code int
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, errOut, code = plugin(t, c, "queue")
		if code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code != 0 || !strings.HasPrefix(out, "LEADER ") {
		t.Fatalf("kubectl kspatch queue: exit %d, stdout %q, stderr %q; want the queue table", code, out, errOut)
	}
	t.Logf("kubectl kspatch queue:\n%s", out)

	pluginNamespaces(ctx, t, c)

	out, errOut, code = plugin(t, c, "queue", "-n", "e2e", "-o", "json")
	var list struct {
		Kind  string `json:"kind"`
		Items []struct {
			Namespace string `json:"namespace"`
		} `json:"items"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || list.Kind != "QueueList" {
		t.Errorf("kubectl kspatch queue -n e2e -o json: exit %d, stderr %q, stdout %.300q; want a QueueList", code, errOut, out)
	}
	for _, p := range list.Items {
		if p.Namespace != "e2e" {
			t.Errorf("kubectl kspatch queue -n e2e lists a pod of namespace %s", p.Namespace)
		}
	}

	out, errOut, code = plugin(t, c, "apicalls")
	switch {
	case apiCalls && code != 0:
		t.Errorf("kubectl kspatch apicalls: exit %d, stderr %q", code, errOut)
	case !apiCalls && (code != 1 || !strings.Contains(errOut, "SchedulerAsyncAPICalls")):
		t.Errorf("kubectl kspatch apicalls with the gate off: exit %d, stderr %q; want 1 and the 501 naming the gate", code, errOut)
	}

	// A pod that is not queued: the admin API's 404, word for word (the
	// debug user reads e2e since pluginNamespaces).
	if _, errOut, code := plugin(t, c, "why", "pod/no-such-pod", "-n", "e2e"); code != 1 || !strings.Contains(errOut, "pod e2e/no-such-pod is not in the scheduling queue") {
		t.Errorf("kubectl kspatch why pod/no-such-pod: exit %d, stderr %q", code, errOut)
	}
	// Usage errors exit 2, before anything is asked of the cluster.
	if _, errOut, code := plugin(t, c, "why", "deployment/web"); code != 2 || !strings.Contains(errOut, "neither pod nor podgroup") {
		t.Errorf("kubectl kspatch why deployment/web: exit %d, stderr %q; want 2 and a usage error", code, errOut)
	}
	// A wrong --scheduler-port: the port tried, that nothing answered, the
	// port to use; no client-go log line, no bare EOF.
	if _, errOut, code := plugin(t, c, "queue", "--scheduler-port", "10258"); code != 1 || !strings.Contains(errOut, "nothing answered on port 10258") ||
		!strings.Contains(errOut, "--scheduler-port 10259") || strings.Contains(errOut, "Unhandled Error") || strings.HasSuffix(strings.TrimSpace(errOut), "EOF") {
		t.Errorf("kubectl kspatch queue --scheduler-port 10258: exit %d, stderr %q; want 1 and a message naming the port and the right one", code, errOut)
	}

	// A scheduler without kspatch's admin API: the controller manager's
	// secure port stands in for a vanilla kube-scheduler's.
	if err := c.CreateNamespace(ctx, cluster.PlainSchedulerNamespace); err != nil {
		t.Fatal(err)
	}
	nodes, _ := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err := c.CreateSchedulerPod(ctx, cluster.PlainSchedulerNamespace, "kube-scheduler-plain", nodes.Items[0].Name); err != nil {
		t.Fatal(err)
	}
	// The debug user may read this namespace's pods and port-forward there
	// as it may in kube-system.
	grantPortForward(ctx, t, c, cluster.PlainSchedulerNamespace)
	_, errOut, code = plugin(t, c, "queue", "--scheduler-namespace", cluster.PlainSchedulerNamespace)
	if code != 1 || !strings.Contains(errOut, "without kspatch's admin API") {
		t.Errorf("kubectl kspatch queue against a scheduler without kspatch: exit %d, stderr %q", code, errOut)
	}
	// No scheduler pod with these labels.
	_, errOut, code = plugin(t, c, "queue", "--scheduler-selector", "component=no-such-scheduler")
	if code != 1 || !strings.Contains(errOut, "no running kube-scheduler pod in kube-system with the labels component=no-such-scheduler") {
		t.Errorf("kubectl kspatch queue without a scheduler pod: exit %d, stderr %q", code, errOut)
	}
}

// grantPortForward binds kspatch:debug-portforward to the debug group in
// namespace.
func grantPortForward(ctx context.Context, t *testing.T, c *cluster.Cluster, namespace string) {
	t.Helper()
	objs, err := cluster.ReadManifest(filepath.Join(deployDir(), cluster.DebugRBACManifest))
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		if rb, ok := obj.(*rbacv1.RoleBinding); ok {
			b := rb.DeepCopy()
			b.Namespace = namespace
			if _, err := c.Apply(ctx, []runtime.Object{b}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// kubectlWhyPodGroup: kubectl kspatch why podgroup/NAME prints the group's
// diagnosis, with the line that says what would unblock it.
func kubectlWhyPodGroup(ctx context.Context, t *testing.T, c *cluster.Cluster, group, wantUnblock string) {
	pluginReady(ctx, t, c, false)
	// The debug user may read e2e (the admin API shows a namespace only to
	// those who may get its pods).
	if err := c.GrantDebuggersView(ctx, "e2e"); err != nil {
		t.Fatal(err)
	}
	var out, errOut string
	var code int
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, errOut, code = plugin(t, c, "why", "podgroup/"+group, "-n", "e2e")
		if code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if code != 0 || !strings.Contains(out, "Unblock:") || !strings.Contains(out, wantUnblock) {
		t.Errorf("kubectl kspatch why podgroup/%s: exit %d, stderr %q, stdout:\n%s\nwant an Unblock line with %q", group, code, errOut, out, wantUnblock)
	}
	t.Logf("kubectl kspatch why podgroup/%s -n e2e:\n%s", group, out)
}

// pluginNamespaces: the debug user, with the debugger role of
// scheduler/deploy/debug-rbac.yaml and no right on pods in e2e or
// e2e-private, reads neither namespace's pods through kubectl kspatch (by
// name: refused with the permission it needs; in the listing: left out and
// named), while the admin listener shows them; once a RoleBinding to
// the built-in view role lets the debuggers read e2e, e2e's pods are shown and
// e2e-private's still are not.
func pluginNamespaces(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const private = "e2e-private"
	if err := c.CreateNamespace(ctx, private); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client.CoreV1().Pods(private).Create(ctx, cluster.Pod(private, "secret-0", cluster.PodOptions{CPU: "1000"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.Client.CoreV1().Pods(private).Delete(context.WithoutCancel(ctx), "secret-0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	}()
	// Queued, as the loopback admin listener (no authorization) shows.
	waitFor(t, 30*time.Second, "secret-0 in the queue", func() bool {
		resp, err := http.Get(c.Admin + "/debug/queue/pods/" + private + "/secret-0")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	forbidden := `only to users allowed "get" on "pods" in it`
	if _, errOut, code := plugin(t, c, "why", "pod/secret-0", "-n", private); code != 1 || !strings.Contains(errOut, `namespace "`+private+`" `+forbidden) {
		t.Errorf("kubectl kspatch why pod/secret-0 -n %s: exit %d, stderr %q; want 1 and the refusal naming the permission", private, code, errOut)
	}
	if _, errOut, code := plugin(t, c, "queue", "-n", "e2e"); code != 1 || !strings.Contains(errOut, forbidden) {
		t.Errorf("kubectl kspatch queue -n e2e without the right to read e2e: exit %d, stderr %q; want 1 and the refusal", code, errOut)
	}
	hidden := func() (items []string, hiddenNS int) {
		out, errOut, code := plugin(t, c, "queue", "-o", "json")
		var list struct {
			Items []struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"items"`
			HiddenNamespaces int `json:"hiddenNamespaces"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
			t.Fatalf("kubectl kspatch queue -o json: exit %d, stderr %q, stdout %.300q", code, errOut, out)
		}
		for _, p := range list.Items {
			items = append(items, p.Namespace+"/"+p.Name)
		}
		return items, list.HiddenNamespaces
	}
	items, hiddenNS := hidden()
	for _, p := range items {
		if strings.HasPrefix(p, "e2e/") || strings.HasPrefix(p, private+"/") {
			t.Errorf("kubectl kspatch queue lists %s, of a namespace the debug user may not read", p)
		}
	}
	// e2e and e2e-private at least (the names are not shown: the debug
	// user may not list namespaces either).
	if hiddenNS < 2 {
		t.Errorf("kubectl kspatch queue: hiddenNamespaces %d, want at least 2 (e2e and %s)", hiddenNS, private)
	}
	if out, _, _ := plugin(t, c, "queue"); !strings.Contains(out, "Not shown: what belongs to ") || strings.Contains(out, private) {
		t.Errorf("kubectl kspatch queue does not say what it leaves out, or names %s:\n%s", private, out)
	}

	// The debuggers may view e2e: its pods are listed, e2e-private's not.
	if err := c.GrantDebuggersView(ctx, "e2e"); err != nil {
		t.Fatal(err)
	}
	// The API server's RBAC and the scheduler's cached answers (10 s) catch up.
	waitFor(t, 45*time.Second, "the debug user to read e2e", func() bool {
		items, _ := hidden()
		return slices.Contains(items, "e2e/too-big")
	})
	if items, _ := hidden(); slices.ContainsFunc(items, func(p string) bool { return strings.HasPrefix(p, private+"/") }) {
		t.Errorf("kubectl kspatch queue lists %v: a pod of %s after e2e was granted", items, private)
	}
}

// waitFor polls cond every half second until it holds, failing the test
// after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", timeout, what)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
