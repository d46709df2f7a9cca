package deploy

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	csapi "k8s.io/kubernetes/pkg/scheduler/apis/coscheduling/v1alpha1"
	pgapi "k8s.io/kubernetes/pkg/scheduler/apis/podgroup/v1alpha1"
	"k8s.io/kubernetes/pkg/scheduler/backend/podgroup"
	rbacauthorizer "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

const (
	podGroupRBAC     = "podgroup-rbac.yaml"
	coschedulingRBAC = "coscheduling-rbac.yaml"
)

// podGroupRules are the rules both manifests grant on PodGroups: read them
// (the scheduler's PodGroup informer lists and watches; get is granted with
// them, as for every object the scheduler reads) and write their status (the
// status writer merge-patches podgroups/status; update is granted with patch,
// as system:kube-scheduler grants both on pods/status). Nothing else: no
// create or delete, no other resource of the group, no wildcard.
var podGroupRules = []rbacv1.PolicyRule{
	{APIGroups: []string{pgapi.SchemeGroupVersion.Group}, Resources: []string{"podgroups"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{pgapi.SchemeGroupVersion.Group}, Resources: []string{"podgroups/status"}, Verbs: []string{"patch", "update"}},
}

// coschedulingRules are the same rules on coscheduling PodGroups
// (CoschedulingPodGroups): the scheduler's coscheduling source lists and
// watches them, and its status writer JSON-patches podgroups/status.
var coschedulingRules = []rbacv1.PolicyRule{
	{APIGroups: []string{csapi.GroupName}, Resources: []string{"podgroups"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{csapi.GroupName}, Resources: []string{"podgroups/status"}, Verbs: []string{"patch", "update"}},
}

// request is one API request, as RBAC sees it.
type request struct {
	verb, group, resource, subresource string
}

func (r request) String() string {
	res := r.resource
	if r.subresource != "" {
		res += "/" + r.subresource
	}
	return fmt.Sprintf("%s %s.%s", r.verb, res, r.group)
}

func (r request) attributes(u user.Info) authorizer.Attributes {
	return authorizer.AttributesRecord{
		User: u, Verb: r.verb, APIGroup: r.group, Resource: r.resource, Subresource: r.subresource,
		Namespace: "ns", Name: "g", ResourceRequest: true,
	}
}

// schedulerPodGroupRequests runs the scheduler's PodGroup manager
// (pkg/scheduler/backend/podgroup) on a fake API, with a PodGroup of each
// API (kspatch's, and a coscheduling one: CoschedulingPodGroups is on by
// default) and a bound member of each, until it has listed and watched both
// APIs and written the status of both groups, and returns the requests it
// made.
func schedulerPodGroupRequests(t *testing.T) []request {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{pgapi.Resource: "PodGroupList", csapi.Resource: "PodGroupList"})
	pg := &pgapi.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: pgapi.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"},
		Spec:       pgapi.PodGroupSpec{SchedulingPolicy: pgapi.PodGroupSchedulingPolicy{Gang: &pgapi.GangSchedulingPolicy{MinCount: 1}}},
	}
	cs := &csapi.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: csapi.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cg"},
		Spec:       csapi.PodGroupSpec{MinMember: 1},
	}
	for gvr, o := range map[schema.GroupVersionResource]runtime.Object{pgapi.Resource: pg, csapi.Resource: cs} {
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Resource(gvr).Namespace("ns").Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dyn.ClearActions()

	bound := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "p", Labels: map[string]string{pgapi.PodGroupLabel: "g"}},
		Spec:       v1.PodSpec{NodeName: "node-1"},
	}
	csBound := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cp", UID: "cp", Labels: map[string]string{csapi.PodGroupLabel: "cg"}},
		Spec:       v1.PodSpec{NodeName: "node-1"},
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(bound, csBound), 0)
	m, err := podgroup.New(ctx, dyn, factory.Core().V1().Pods(), 1)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	go m.Run(ctx)
	csKey := types.NamespacedName{Namespace: "ns", Name: "cg"}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		// The coscheduling source lists its API once it finds it served
		// (at once here): then Get finds the group.
		_, err := m.Get(csKey)
		return m.HasSynced() && err == nil, nil
	}); err != nil {
		_, csErr := m.Get(csKey)
		t.Fatalf("the PodGroup manager did not sync both APIs: %v (coscheduling group: %v)", err, csErr)
	}
	// Only a leader writes: this replica leads once it runs a pod-group
	// cycle (a scheduler without leader election does at once), and then
	// writes every group's status once.
	m.SchedulingCycleStarted()
	m.ReportCondition(klog.FromContext(ctx), types.NamespacedName{Namespace: "ns", Name: "g"}, true, podgroup.ReasonScheduled, "1 of 1 pods fit")

	var got []request
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		got = nil
		wrote := map[string]bool{}
		for _, a := range dyn.Actions() {
			r := request{verb: a.GetVerb(), group: a.GetResource().Group, resource: a.GetResource().Resource, subresource: a.GetSubresource()}
			if !slices.Contains(got, r) {
				got = append(got, r)
			}
			if _, ok := a.(clienttesting.PatchAction); ok && r.subresource == "status" {
				wrote[r.group] = true
			}
		}
		return wrote[pgapi.SchemeGroupVersion.Group] && wrote[csapi.GroupName], nil
	}); err != nil {
		t.Fatalf("the PodGroup manager did not write the status of both groups; its requests: %v", got)
	}
	return got
}

// schedulerRequests are the requests the scheduler makes because of
// GangScheduling and CoschedulingPodGroups: those of its PodGroup manager,
// on both PodGroup APIs, and the events the pod-group cycle records on
// PodGroups (through the scheduler's events.k8s.io recorder, like every
// scheduler event).
func schedulerRequests(t *testing.T) []request {
	got := schedulerPodGroupRequests(t)
	t.Logf("the PodGroup manager's requests: %v", got)
	for _, group := range []string{pgapi.SchemeGroupVersion.Group, csapi.GroupName} {
		for _, want := range []request{
			{verb: "list", group: group, resource: "podgroups"},
			{verb: "watch", group: group, resource: "podgroups"},
			{verb: "patch", group: group, resource: "podgroups", subresource: "status"},
		} {
			if !slices.Contains(got, want) {
				t.Errorf("the PodGroup manager made no request %s (it made %v): update this test and the manifests' rules", want, got)
			}
		}
	}
	return append(got,
		request{verb: "create", group: "events.k8s.io", resource: "events"},
		request{verb: "patch", group: "events.k8s.io", resource: "events"})
}

// bootstrapRole returns one of the API server's default ClusterRoles.
func bootstrapRole(t *testing.T, name string) rbacv1.ClusterRole {
	t.Helper()
	for _, r := range bootstrappolicy.ClusterRoles() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no bootstrap ClusterRole %s", name)
	return rbacv1.ClusterRole{}
}

// grantedRules returns the rules that the ClusterRoleBindings among objs
// grant subject: those of the ClusterRoles among objs and of the API
// server's default ClusterRoles they refer to. It fails on a binding to a
// ClusterRole that is neither.
func grantedRules(t *testing.T, objs []runtime.Object, subject rbacv1.Subject) (own, all []rbacv1.PolicyRule) {
	t.Helper()
	roles := map[string]*rbacv1.ClusterRole{}
	for _, obj := range objs {
		if r, ok := obj.(*rbacv1.ClusterRole); ok {
			roles[r.Name] = r
		}
	}
	for _, obj := range objs {
		b, ok := obj.(*rbacv1.ClusterRoleBinding)
		if !ok || !slices.Contains(b.Subjects, subject) {
			continue
		}
		if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.APIGroup != rbacv1.GroupName {
			t.Errorf("ClusterRoleBinding %s refers to %+v, want a ClusterRole", b.Name, b.RoleRef)
			continue
		}
		if r, ok := roles[b.RoleRef.Name]; ok {
			own = append(own, r.Rules...)
			all = append(all, r.Rules...)
			continue
		}
		stock := bootstrapRole(t, b.RoleRef.Name)
		all = append(all, stock.Rules...)
	}
	return own, all
}

// checkPodGroupRules checks that the rules manifests grant subject are
// exactly want and that, with the stock roles, they allow every request the
// scheduler makes for GangScheduling and CoschedulingPodGroups on the API
// groups of want (and its events).
func checkPodGroupRules(t *testing.T, want, own, all []rbacv1.PolicyRule, u user.Info) {
	t.Helper()
	if diff := cmp.Diff(want, own); diff != "" {
		t.Errorf("rules on PodGroups (-want +got):\n%s", diff)
	}
	groups := map[string]bool{"events.k8s.io": true}
	for _, r := range want {
		for _, g := range r.APIGroups {
			groups[g] = true
		}
	}
	checked := 0
	for _, r := range schedulerRequests(t) {
		if !groups[r.group] {
			continue
		}
		checked++
		if !rbacauthorizer.RulesAllow(r.attributes(u), all...) {
			t.Errorf("%s is not allowed", r)
		}
	}
	if checked == 0 {
		t.Error("no request of the scheduler was checked")
	}
}

// TestPodGroupRBAC checks podgroup-rbac.yaml and coscheduling-rbac.yaml:
// they grant the user the drop-in static pod authenticates as (kubeadm's
// scheduler.conf, the user the stock system:kube-scheduler ClusterRole is
// bound to) what the stock role lacks for gang scheduling of each PodGroup
// API, and nothing more; each alone covers its API, and both together
// cover every request the scheduler makes on PodGroups.
func TestPodGroupRBAC(t *testing.T) {
	schedulerUser := &user.DefaultInfo{Name: user.KubeScheduler}

	// The stock binding names the same user, and the stock role alone does
	// not let the scheduler read PodGroups of either API: the manifests
	// are needed.
	stockBound := false
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		if b.RoleRef.Name == "system:kube-scheduler" && slices.Contains(b.Subjects, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: schedulerUser.Name}) {
			stockBound = true
		}
	}
	if !stockBound {
		t.Errorf("the stock system:kube-scheduler ClusterRole is not bound to user %s", schedulerUser.Name)
	}
	stock := bootstrapRole(t, "system:kube-scheduler")
	for _, group := range []string{pgapi.SchemeGroupVersion.Group, csapi.GroupName} {
		list := request{verb: "list", group: group, resource: "podgroups"}
		if rbacauthorizer.RulesAllow(list.attributes(schedulerUser), stock.Rules...) {
			t.Errorf("the stock system:kube-scheduler ClusterRole already allows %s", list)
		}
	}

	subject := rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: schedulerUser.Name}
	for _, tc := range []struct {
		name      string
		manifests []string
		want      []rbacv1.PolicyRule
	}{
		{podGroupRBAC, []string{podGroupRBAC}, podGroupRules},
		{coschedulingRBAC, []string{coschedulingRBAC}, coschedulingRules},
		{"both", []string{podGroupRBAC, coschedulingRBAC}, append(slices.Clone(podGroupRules), coschedulingRules...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			for _, m := range tc.manifests {
				o := decode(t, m)
				if len(o) != 2 {
					t.Fatalf("%s has %d objects, want a ClusterRole and its ClusterRoleBinding", m, len(o))
				}
				objs = append(objs, o...)
			}
			own, all := grantedRules(t, objs, subject)
			all = append(all, stock.Rules...)
			checkPodGroupRules(t, tc.want, own, all, schedulerUser)
		})
	}
}

// TestSecondSchedulerPodGroupRBAC checks that second-scheduler.yaml grants
// its service account the same rules on PodGroups of both APIs.
func TestSecondSchedulerPodGroupRBAC(t *testing.T) {
	objs := decode(t, "second-scheduler.yaml")
	var sa *v1.ServiceAccount
	for _, obj := range objs {
		if o, ok := obj.(*v1.ServiceAccount); ok {
			sa = o
		}
	}
	if sa == nil {
		t.Fatal("second-scheduler.yaml has no ServiceAccount")
	}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}
	own, all := grantedRules(t, objs, subject)
	u := &user.DefaultInfo{Name: fmt.Sprintf("system:serviceaccount:%s:%s", sa.Namespace, sa.Name)}
	checkPodGroupRules(t, append(slices.Clone(podGroupRules), coschedulingRules...), own, all, u)
}
