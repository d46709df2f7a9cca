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
	"testing"
	"time"

	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/integration/framework"
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
	if _, err := exec.LookPath("etcd"); err != nil {
		if os.Getenv("KSPATCH_REQUIRE_ETCD") != "" {
			t.Fatalf("etcd not on PATH (run make tools): %v", err)
		}
		t.Skipf("etcd not on PATH (make tools puts it in _output/bin): %v", err)
	}
	framework.StartEtcd(t, io.Discard, true)

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "tokens.csv")
	const adminToken, nobodyToken = "kspatch-admin-token", "kspatch-nobody-token"
	writeFile(t, tokenFile, fmt.Sprintf("%s,admin,1,\"system:masters\"\n%s,nobody,2\n", adminToken, nobodyToken))
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

	securePort, adminPort := freePort(t), freePort(t)
	handleSignals = false
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newSchedulerCommand()
	cmd.SetArgs([]string{
		"--kubeconfig", kubeconfig,
		"--authentication-kubeconfig", kubeconfig,
		"--authorization-kubeconfig", kubeconfig,
		"--leader-elect=false",
		"--bind-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(securePort),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--admin-address", "127.0.0.1",
		"--admin-port", fmt.Sprint(adminPort),
	})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			// Without leader election upstream's Run always ends so.
			if err != nil && err.Error() != "finished without leader elect" {
				t.Errorf("scheduler command: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("scheduler did not stop within 30s of its context being cancelled")
		}
	})

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
		case err := <-done:
			t.Fatalf("scheduler exited before serving: %v", err)
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
