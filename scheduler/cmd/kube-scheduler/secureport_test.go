package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/component-base/cli"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/integration/framework"
	"k8s.io/utils/ptr"
)

// TestSecurePortAdminRoutes runs the kspatch kube-scheduler command in
// process against a real API server (etcd from make tools) and checks that
// /debug/kspatch/ on the secure port is behind the scheduler's delegated
// authentication and authorization: no credentials → 401, a user without
// permission → 403, a permitted user → the admin API's answer. Anonymous
// requests get 401 there even though upstream's chain would call them
// system:anonymous and let the authorizer answer 403. The admin
// listener answers the same route without credentials (it is loopback-only).
func TestSecurePortAdminRoutes(t *testing.T) {
	kubeconfig := startAPIServer(t)
	rs := startScheduler(t, kubeconfig, "--leader-elect=false")
	securePort, adminPort := rs.securePort, rs.adminPort

	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // self-signed serving cert
	}
	secureURL := fmt.Sprintf("https://127.0.0.1:%d/debug/kspatch/queue?output=json", securePort)
	adminURL := fmt.Sprintf("http://127.0.0.1:%d/debug/queue?output=json", adminPort)

	// Wait until both listeners answer and the scheduler runs (it leads
	// once its informers synced, leader election being off).
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, _, err1 := get(client, secureURL, "")
		_, body, err2 := get(client, adminURL, "")
		if err1 == nil && err2 == nil && strings.Contains(body, `"leader": true`) {
			break
		}
		select {
		case <-rs.exited:
			t.Fatalf("scheduler exited before serving: %v", rs.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("scheduler not serving as leader after 60s: secure port: %v, admin port: %v, last answer:\n%s", err1, err2, body)
		}
		time.Sleep(200 * time.Millisecond)
	}

	tests := []struct {
		name     string
		url      string
		token    string
		wantCode int
		wantBody string
	}{
		{name: "secure port without credentials", url: secureURL, wantCode: http.StatusUnauthorized},
		{name: "secure port, unknown token", url: secureURL, token: "not-a-token", wantCode: http.StatusUnauthorized},
		// /metrics keeps upstream's behaviour: anonymous, then not authorized.
		{name: "metrics without credentials", url: fmt.Sprintf("https://127.0.0.1:%d/metrics", securePort), wantCode: http.StatusForbidden},
		{name: "secure port, user without permission", url: secureURL, token: nobodyToken, wantCode: http.StatusForbidden},
		{name: "secure port, permitted user", url: secureURL, token: adminToken, wantCode: http.StatusOK, wantBody: `"kind": "QueueList"`},
		{name: "secure port, permitted user, unknown route", url: fmt.Sprintf("https://127.0.0.1:%d/debug/kspatch/nope", securePort), token: adminToken, wantCode: http.StatusNotFound},
		{name: "admin listener", url: adminURL, wantCode: http.StatusOK, wantBody: `"kind": "QueueList"`},
		// GangScheduling is on by default: the pod-group cycles' record is
		// served (empty here), not a 501.
		{name: "admin listener, placements", url: fmt.Sprintf("http://127.0.0.1:%d/debug/placements?output=json", adminPort), wantCode: http.StatusOK, wantBody: `"kind": "PlacementDecisionList"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, err := get(client, tt.url, tt.token)
			if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Errorf("GET %s: status %d, want %d; body:\n%s", tt.url, code, tt.wantCode, body)
			}
			if tt.wantBody != "" && !strings.Contains(body, tt.wantBody) {
				t.Errorf("GET %s: body does not contain %s:\n%s", tt.url, tt.wantBody, body)
			}
		})
	}
}

// The tokens of the API server startAPIServer starts: an admin
// (system:masters), a user without any permission, and alice and bob, who
// get permissions in TestSecurePortNamespaces.
const (
	adminToken, nobodyToken = "kspatch-admin-token", "kspatch-nobody-token"
	aliceToken, bobToken    = "kspatch-alice-token", "kspatch-bob-token"
)

// startAPIServer starts etcd (from make tools) and an API server with token
// authentication and RBAC, and returns the path of an admin kubeconfig. The
// test is skipped without etcd, unless KSPATCH_REQUIRE_ETCD is set.
func startAPIServer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		if os.Getenv("KSPATCH_REQUIRE_ETCD") != "" {
			t.Fatalf("etcd not on PATH (run make tools): %v", err)
		}
		t.Skipf("etcd not on PATH (make tools puts it in _output/bin): %v", err)
	}
	framework.StartEtcd(t, io.Discard, true)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokenFile, fmt.Sprintf("%s,admin,1,\"system:masters\"\n%s,nobody,2\n%s,alice,3\n%s,bob,4\n", adminToken, nobodyToken, aliceToken, bobToken))
	apiserver := kubeapiservertesting.StartTestServerOrDie(t, nil, []string{
		"--token-auth-file", tokenFile,
		"--authorization-mode", "RBAC",
	}, framework.SharedEtcd())
	t.Cleanup(apiserver.TearDownFn)

	kubeconfig := filepath.Join(dir, "kubeconfig")
	writeFile(t, kubeconfig, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster:
    server: %s
    certificate-authority: %s
  name: test
contexts:
- context:
    cluster: test
    user: admin
  name: test
current-context: test
users:
- name: admin
  user:
    token: %s
`, apiserver.ClientConfig.Host, apiserver.ServerOpts.SecureServing.ServerCert.CertKey.CertFile, adminToken))
	return kubeconfig
}

// runningScheduler is a scheduler command startScheduler runs: its ports,
// and exited, closed when the command returns with err.
type runningScheduler struct {
	securePort, adminPort int
	exited                chan struct{}
	err                   error
}

// startScheduler runs the kspatch kube-scheduler command in process against
// the API server of kubeconfig, with args, on free secure and admin ports,
// until the test ends.
func startScheduler(t *testing.T, kubeconfig string, args ...string) *runningScheduler {
	t.Helper()
	rs := &runningScheduler{securePort: freePort(t), adminPort: freePort(t), exited: make(chan struct{})}
	securePort, adminPort := rs.securePort, rs.adminPort
	handleSignals = false
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newSchedulerCommand()
	cmd.SetArgs(append([]string{
		"--kubeconfig", kubeconfig,
		"--authentication-kubeconfig", kubeconfig,
		"--authorization-kubeconfig", kubeconfig,
		"--bind-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(securePort),
		"--cert-dir", filepath.Join(t.TempDir(), "certs"),
		"--admin-address", "127.0.0.1",
		"--admin-port", fmt.Sprint(adminPort),
	}, args...))
	go func() {
		rs.err = cmd.ExecuteContext(ctx)
		close(rs.exited)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-rs.exited:
			// Without leader election upstream's Run always ends so; a
			// follower stopped by its context ends with "lost lease".
			if err := rs.err; err != nil && err.Error() != "finished without leader elect" && err.Error() != "lost lease" {
				t.Errorf("scheduler command: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("scheduler did not stop within 30s of its context being cancelled")
		}
	})
	return rs
}

func get(client *http.Client, url, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	var body bytes.Buffer
	_, err = io.Copy(&body, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, body.String(), err
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestFollowerAdminRoutes runs the scheduler command with leader election
// while another instance holds the lease: the follower's admin API refuses
// the state routes with 503 naming the leader, on both listeners, and still
// answers /healthz.
func TestFollowerAdminRoutes(t *testing.T) {
	kubeconfig := startAPIServer(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	const leader = "cp-1_0f6b3c1e"
	now := metav1.NewMicroTime(time.Now())
	if _, err := client.CoordinationV1().Leases("kube-system").Create(context.Background(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(leader), LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime: &now, RenewTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rs := startSchedulerProcess(t, kubeconfig, "--leader-elect=true")

	httpClient := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // self-signed serving cert
	}
	adminURL := fmt.Sprintf("http://127.0.0.1:%d/debug/queue", rs.adminPort)
	secureURL := fmt.Sprintf("https://127.0.0.1:%d/debug/kspatch/queue", rs.securePort)
	// The follower observes the lease's holder once its election starts.
	var code int
	var body string
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body, err = get(httpClient, adminURL, "")
		if err == nil && code == http.StatusServiceUnavailable {
			break
		}
		select {
		case <-rs.exited:
			t.Fatalf("scheduler exited: %v", rs.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %v, want 503 from a follower within 60s; last answer:\n%s", adminURL, code, err, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(body, "is not the leader") || !strings.Contains(body, "The leader is "+leader) {
		t.Errorf("GET %s: %s, want it to say this instance is not the leader and name %s", adminURL, body, leader)
	}
	if code, body, err := get(httpClient, secureURL, adminToken); err != nil || code != http.StatusServiceUnavailable || !strings.Contains(body, leader) {
		t.Errorf("GET %s: %d %v %s, want 503 naming %s", secureURL, code, err, body, leader)
	}
	if code, _, err := get(httpClient, fmt.Sprintf("http://127.0.0.1:%d/healthz", rs.adminPort), ""); err != nil || code != http.StatusOK {
		t.Errorf("/healthz on a follower: %d %v", code, err)
	}
}

// schedulerArgsEnv, when set, makes the test binary run the scheduler
// command with these arguments (one a line) instead of the tests.
const schedulerArgsEnv = "KSPATCH_TEST_SCHEDULER_ARGS"

// TestMain runs the scheduler command instead of the tests when
// schedulerArgsEnv is set: a scheduler with leader election runs in a
// process of its own, because upstream's Run exits the process when its
// election stops (os.Exit, which a test binary must not call).
func TestMain(m *testing.M) {
	if args := os.Getenv(schedulerArgsEnv); args != "" {
		cmd := newSchedulerCommand()
		cmd.SetArgs(strings.Split(args, "\n"))
		os.Exit(cli.Run(cmd))
	}
	os.Exit(m.Run())
}

// startSchedulerProcess is startScheduler in a child process (this test
// binary, see TestMain), stopped with SIGTERM when the test ends.
func startSchedulerProcess(t *testing.T, kubeconfig string, args ...string) *runningScheduler {
	t.Helper()
	rs := &runningScheduler{securePort: freePort(t), adminPort: freePort(t), exited: make(chan struct{})}
	all := append([]string{
		"--kubeconfig", kubeconfig,
		"--authentication-kubeconfig", kubeconfig,
		"--authorization-kubeconfig", kubeconfig,
		"--bind-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(rs.securePort),
		"--cert-dir", filepath.Join(t.TempDir(), "certs"),
		"--admin-address", "127.0.0.1",
		"--admin-port", fmt.Sprint(rs.adminPort),
	}, args...)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), schedulerArgsEnv+"="+strings.Join(all, "\n"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		rs.err = cmd.Wait()
		close(rs.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-rs.exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-rs.exited
			t.Error("scheduler process did not stop within 30s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("scheduler process output:\n%s", out.String())
		}
	})
	return rs
}
