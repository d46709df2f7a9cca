package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestSecurePortNamespaces runs the scheduler command against an API server
// with RBAC: alice may GET /debug/kspatch/* (the debugger role) and get pods
// in team-a only. She reads team-a's pending pod; team-b's pod, by name or
// in the queue listing, stays hidden from her with a message naming the
// permission; the admin sees both. A burst of her requests costs fewer
// SubjectAccessReviews than requests (the answers are cached).
func TestSecurePortNamespaces(t *testing.T) {
	kubeconfig := startAPIServer(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	for _, ns := range []string{"team-a", "team-b"} {
		if _, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// No controller manager makes the default service account.
		if _, err := client.CoreV1().ServiceAccounts(ns).Create(ctx, &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// No node: the pod waits in the queue.
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ns + "-pod"},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
		if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	grantNamespaceReader(ctx, t, client, "team-a", "alice", "bob")
	// In a process of its own: the command registers process-wide state
	// (configz) that TestSecurePortAdminRoutes's in-process run registers.
	rs := startSchedulerProcess(t, kubeconfig, "--leader-elect=false")
	httpClient := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // self-signed serving cert
	}
	url := func(path string) string {
		return fmt.Sprintf("https://127.0.0.1:%d/debug/kspatch%s", rs.securePort, path)
	}
	// Both pods queued (after one failed attempt each), seen by the admin.
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, body, err := get(httpClient, url("/queue?output=json"), adminToken)
		if err == nil && code == http.StatusOK && strings.Contains(body, "team-a-pod") && strings.Contains(body, "team-b-pod") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admin does not see both pods queued after 60s: %d %v\n%s", code, err, body)
		}
		time.Sleep(200 * time.Millisecond)
	}

	tests := []struct {
		name     string
		path     string
		token    string
		wantCode int
		want     []string
		wantNot  []string
	}{
		{name: "alice, a pod of her namespace", path: "/queue/pods/team-a/team-a-pod", token: aliceToken, wantCode: http.StatusOK,
			want: []string{"team-a/team-a-pod"}},
		{name: "alice, a pod of another namespace", path: "/queue/pods/team-b/team-b-pod", token: aliceToken, wantCode: http.StatusForbidden,
			want: []string{`namespace "team-b" only to users allowed "get" on "pods" in it`}, wantNot: []string{"Unschedulable"}},
		{name: "alice, the queue of another namespace", path: "/queue?namespace=team-b", token: aliceToken, wantCode: http.StatusForbidden,
			wantNot: []string{"team-b-pod"}},
		{name: "alice, the whole queue", path: "/queue", token: aliceToken, wantCode: http.StatusOK,
			want: []string{"team-a-pod", "Not shown: what belongs to 1 namespace you may not read"}, wantNot: []string{"team-b-pod", "team-b"}},
		{name: "alice, placements", path: "/placements", token: aliceToken, wantCode: http.StatusOK},
		{name: "the admin, a pod of team-b", path: "/queue/pods/team-b/team-b-pod", token: adminToken, wantCode: http.StatusOK,
			want: []string{"team-b/team-b-pod"}},
		{name: "the admin, the whole queue", path: "/queue", token: adminToken, wantCode: http.StatusOK,
			want: []string{"team-a-pod", "team-b-pod"}, wantNot: []string{"Not shown: "}},
		{name: "a user without the debugger role", path: "/queue", token: nobodyToken, wantCode: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, err := get(httpClient, url(tt.path), tt.token)
			if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Errorf("GET %s: status %d, want %d; body:\n%s", tt.path, code, tt.wantCode, body)
			}
			for _, s := range tt.want {
				if !strings.Contains(body, s) {
					t.Errorf("GET %s: body lacks %q:\n%s", tt.path, s, body)
				}
			}
			for _, s := range tt.wantNot {
				if strings.Contains(body, s) {
					t.Errorf("GET %s: body shows %q:\n%s", tt.path, s, body)
				}
			}
		})
	}

	t.Run("a burst of requests is not a burst of reviews", func(t *testing.T) {
		// bob, alice's twin, has asked nothing yet: nothing of his is cached.
		const burst = 20
		before := subjectAccessReviews(ctx, t, client)
		for range burst {
			if code, body, err := get(httpClient, url("/queue"), bobToken); err != nil || code != http.StatusOK || !strings.Contains(body, "team-a-pod") {
				t.Fatalf("GET /queue as bob: %d %v %s", code, err, body)
			}
		}
		reviews := subjectAccessReviews(ctx, t, client) - before
		t.Logf("%d requests, %d SubjectAccessReviews", burst, reviews)
		// Each request asks about its route, every namespace, team-a and
		// team-b: without caching, 4 reviews a request; the first request
		// asks at least once.
		if reviews < 1 || reviews >= burst {
			t.Errorf("%d requests cost %d SubjectAccessReviews, want at least one and fewer than one a request", burst, reviews)
		}
	})
}

// grantNamespaceReader gives users the debugger role (scheduler/deploy's
// kspatch:debug-reader, the non-resource URLs) and get on pods in namespace.
func grantNamespaceReader(ctx context.Context, t *testing.T, client kubernetes.Interface, namespace string, users ...string) {
	t.Helper()
	var subject []rbacv1.Subject
	for _, u := range users {
		subject = append(subject, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u})
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "debug-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/debug/kspatch", "/debug/kspatch/*"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "debug-readers"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "debug-reader"}, Subjects: subject}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "pod-readers"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "pod-reader"}, Subjects: subject}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// subjectAccessReviews reads, from the API server's metrics, how many
// SubjectAccessReviews it has served.
func subjectAccessReviews(ctx context.Context, t *testing.T, client kubernetes.Interface) int {
	t.Helper()
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="subjectaccessreviews"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		total += int(v)
	}
	return total
}
