package deploy

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	rbacauthorizer "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"
)

// TestDebugRBAC checks debug-rbac.yaml: a member of kspatch:debuggers may do
// exactly what kubectl kspatch does (find the scheduler pod and its lease in
// kube-system, port-forward to it, GET /debug/kspatch/...), and nothing
// beyond: no port-forward outside kube-system, no writes, no secrets.
func TestDebugRBAC(t *testing.T) {
	objs := decode(t, "debug-rbac.yaml")
	roles := map[string]*rbacv1.ClusterRole{}
	var clusterRules, kubeSystemRules []rbacv1.PolicyRule
	for _, obj := range objs {
		if r, ok := obj.(*rbacv1.ClusterRole); ok {
			roles[r.Name] = r
		}
	}
	group := rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "kspatch:debuggers"}
	for _, obj := range objs {
		switch b := obj.(type) {
		case *rbacv1.ClusterRoleBinding:
			if len(b.Subjects) == 1 && b.Subjects[0] == group && roles[b.RoleRef.Name] != nil {
				clusterRules = append(clusterRules, roles[b.RoleRef.Name].Rules...)
			}
		case *rbacv1.RoleBinding:
			if b.Namespace != "kube-system" {
				t.Errorf("RoleBinding %s in %q, want kube-system", b.Name, b.Namespace)
			}
			if len(b.Subjects) == 1 && b.Subjects[0] == group && b.RoleRef.Kind == "ClusterRole" && roles[b.RoleRef.Name] != nil {
				kubeSystemRules = append(kubeSystemRules, roles[b.RoleRef.Name].Rules...)
			}
		}
	}
	u := &user.DefaultInfo{Name: "alice", Groups: []string{"kspatch:debuggers", user.AllAuthenticated}}
	allowed := func(a authorizer.AttributesRecord) bool {
		a.User = u
		if rbacauthorizer.RulesAllow(a, clusterRules...) {
			return true
		}
		return a.Namespace == "kube-system" && rbacauthorizer.RulesAllow(a, kubeSystemRules...)
	}
	resource := func(verb, ns, group, res, sub, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{Verb: verb, Namespace: ns, APIGroup: group, Resource: res, Subresource: sub, Name: name, ResourceRequest: true}
	}
	url := func(path string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{Verb: "get", Path: path}
	}
	for _, tc := range []struct {
		what  string
		attrs authorizer.AttributesRecord
		want  bool
	}{
		{"list the scheduler pods", resource("list", "kube-system", "", "pods", "", ""), true},
		{"get a scheduler pod", resource("get", "kube-system", "", "pods", "", "kube-scheduler-cp-0"), true},
		{"port-forward to it", resource("create", "kube-system", "", "pods", "portforward", "kube-scheduler-cp-0"), true},
		{"read the scheduler's lease", resource("get", "kube-system", "coordination.k8s.io", "leases", "", "kube-scheduler"), true},
		{"GET the group route", url("/debug/kspatch/queue/podgroups/ml/train"), true},
		{"GET the queue route", url("/debug/kspatch/queue"), true},
		{"port-forward outside kube-system", resource("create", "default", "", "pods", "portforward", "web-0"), false},
		{"list pods elsewhere", resource("list", "default", "", "pods", "", ""), false},
		{"exec in the scheduler pod", resource("create", "kube-system", "", "pods", "exec", "kube-scheduler-cp-0"), false},
		{"delete the scheduler pod", resource("delete", "kube-system", "", "pods", "", "kube-scheduler-cp-0"), false},
		{"read secrets", resource("get", "kube-system", "", "secrets", "", "x"), false},
		{"read another lease", resource("get", "kube-system", "coordination.k8s.io", "leases", "", "kube-controller-manager"), false},
		{"GET /metrics", url("/metrics"), false},
		{"POST to the admin API", authorizer.AttributesRecord{Verb: "post", Path: "/debug/kspatch/queue"}, false},
	} {
		if got := allowed(tc.attrs); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.what, got, tc.want)
		}
	}
}
