package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kspatch.dev/e2e/cluster"
)

func podGroup(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.kspatch.io/v1alpha1", "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": "e2e"},
		"spec":     spec,
	}}
}

func gang(minCount int64) map[string]any {
	return map[string]any{"gang": map[string]any{"minCount": minCount}}
}

// topologyKey is the spec of a gang of 2 constrained to the node label key.
func topologyKey(key string) map[string]any {
	return map[string]any{"schedulingPolicy": gang(2), "schedulingConstraints": map[string]any{"topology": []any{map[string]any{"key": key}}}}
}

// level is one entry of spec.schedulingConstraints.topology; mode "" leaves
// the field out (Required).
func level(key, mode string) map[string]any {
	l := map[string]any{"key": key}
	if mode != "" {
		l["mode"] = mode
	}
	return l
}

// levels is the spec of a gang of 2 with the topology levels.
func levels(l ...map[string]any) map[string]any {
	topology := make([]any, len(l))
	for i := range l {
		topology[i] = l[i]
	}
	return map[string]any{"schedulingPolicy": gang(2), "schedulingConstraints": map[string]any{"topology": topology}}
}

// podGroupValidation: the API server serves the PodGroup CRD from
// scheduler/deploy and rejects bad specs with a message that says what is
// wrong.
func podGroupValidation(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	groups := c.Dynamic.Resource(cluster.PodGroupResource).Namespace("e2e")
	good := podGroup("train", map[string]any{
		"schedulingPolicy":       gang(4),
		"schedulingConstraints":  map[string]any{"topology": []any{map[string]any{"key": "topology.kubernetes.io/rack"}}},
		"scheduleTimeoutSeconds": int64(120),
	})
	created, err := groups.Create(ctx, good, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a valid PodGroup is rejected: %v", err)
	}
	if _, err := groups.Create(ctx, podGroup("basic", map[string]any{"schedulingPolicy": map[string]any{"basic": map[string]any{}}}), metav1.CreateOptions{}); err != nil {
		t.Errorf("a valid basic PodGroup is rejected: %v", err)
	}

	// Limits of a node label key (validation.IsQualifiedName): a prefix of
	// at most 253 characters and a name of at most 63.
	name63, prefix253 := strings.Repeat("n", 63), strings.Repeat("p", 249)+".com"
	for _, tc := range []struct {
		name string
		spec map[string]any
		want string
		// pgName is the PodGroup's name; "bad" when empty.
		pgName string
	}{
		{"gang and basic", map[string]any{"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": int64(2)}, "basic": map[string]any{}}},
			"exactly one of schedulingPolicy.gang or schedulingPolicy.basic must be set", ""},
		{"no policy", map[string]any{"schedulingPolicy": map[string]any{}},
			"exactly one of schedulingPolicy.gang or schedulingPolicy.basic must be set", ""},
		{"minCount 0", map[string]any{"schedulingPolicy": gang(0)},
			"spec.schedulingPolicy.gang.minCount: Invalid value: 0: spec.schedulingPolicy.gang.minCount in body should be greater than or equal to 1", ""},
		// Topology levels (PodGroupTopologyLevels): widest first, at most
		// one Required and it first, each key once, at most 4.
		{"two required levels", levels(level("topology.kubernetes.io/block", ""), level("topology.kubernetes.io/rack", "")),
			"at most one level may be Required (a level without a mode is Required)", ""},
		{"required below preferred", levels(level("topology.kubernetes.io/block", "Preferred"), level("topology.kubernetes.io/rack", "Required")),
			"the Required level must be the first entry, with the Preferred levels below it", ""},
		{"a key twice", levels(level("topology.kubernetes.io/rack", ""), level("topology.kubernetes.io/rack", "Preferred")),
			"each level needs a key of its own", ""},
		{"zone below hostname", levels(level("kubernetes.io/hostname", ""), level("topology.kubernetes.io/zone", "Preferred")),
			"from widest to narrowest", ""},
		{"five levels", levels(level("example.com/a", ""), level("example.com/b", "Preferred"), level("example.com/c", "Preferred"),
			level("example.com/d", "Preferred"), level("example.com/e", "Preferred")),
			"spec.schedulingConstraints.topology: Too many: 5: must have at most 4 items", ""},
		{"unknown mode", levels(level("topology.kubernetes.io/rack", "Sometimes")),
			`spec.schedulingConstraints.topology[0].mode: Unsupported value: "Sometimes": supported values: "Required", "Preferred"`, ""},
		{"bad label key", map[string]any{"schedulingPolicy": gang(2), "schedulingConstraints": map[string]any{"topology": []any{map[string]any{"key": "rack name"}}}},
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key such as topology.kubernetes.io/rack", ""},
		{"no spec", nil, "spec: Required value", ""},
		// minCount is an int32 in the scheduler: a larger value must not be
		// stored (4294967298 would be read as 2, 2147483648 as -2147483648).
		{"minCount 4294967298", map[string]any{"schedulingPolicy": gang(4294967298)},
			"spec.schedulingPolicy.gang.minCount: Invalid value: 4294967298: spec.schedulingPolicy.gang.minCount in body should be less than or equal to 2147483647", ""},
		{"minCount 2147483648", map[string]any{"schedulingPolicy": gang(2147483648)},
			"spec.schedulingPolicy.gang.minCount: Invalid value: 2147483648: spec.schedulingPolicy.gang.minCount in body should be less than or equal to 2147483647", ""},
		{"label key name of 64", topologyKey("example.com/" + name63 + "x"),
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key, whose name (after the '/', or the whole key without one) is at most 63 characters", ""},
		{"label key prefix of 254", topologyKey("a" + prefix253 + "/rack"),
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key, whose prefix (before the '/') is at most 253 characters", ""},
		{"label key of 318", topologyKey(prefix253 + "/" + name63 + "x"),
			"spec.schedulingConstraints.topology[0].key: Too long: may not be more than 317 bytes", ""},
		{"label key with an empty name", topologyKey("example.com/"),
			"spec.schedulingConstraints.topology[0].key: Invalid value: \"string\": must be a node label key such as topology.kubernetes.io/rack", ""},
		{"scheduleTimeoutSeconds 0", map[string]any{"schedulingPolicy": gang(2), "scheduleTimeoutSeconds": int64(0)},
			"spec.scheduleTimeoutSeconds: Invalid value: 0: spec.scheduleTimeoutSeconds in body should be greater than or equal to 1", ""},
		{"scheduleTimeoutSeconds 86401", map[string]any{"schedulingPolicy": gang(2), "scheduleTimeoutSeconds": int64(86401)},
			"spec.scheduleTimeoutSeconds: Invalid value: 86401: spec.scheduleTimeoutSeconds in body should be less than or equal to 86400", ""},
		// Pods join a group with a label whose value is its name: a label
		// value is at most 63 characters.
		{"name of 64", map[string]any{"schedulingPolicy": gang(2)},
			"<nil>: Invalid value: \"object\": a PodGroup name must be at most 63 characters, the longest label value (pods join it with the label scheduling.kspatch.io/pod-group=<name>)",
			strings.Repeat("g", 64)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.pgName
			if name == "" {
				name = "bad"
			}
			obj := podGroup(name, tc.spec)
			if tc.spec == nil {
				delete(obj.Object, "spec")
			}
			_, err := groups.Create(ctx, obj, metav1.CreateOptions{})
			if err == nil {
				// Deleted, so that the rows after this one are not
				// answered "already exists".
				if err := groups.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					t.Error(err)
				}
				t.Fatal("the API server accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			t.Logf("rejected: %v", err)
		})
	}

	// The limits themselves are valid.
	for _, tc := range []struct {
		name, pgName string
		spec         map[string]any
	}{
		{"minCount 2147483647", "max-min-count", map[string]any{"schedulingPolicy": gang(2147483647)}},
		{"label key name of 63", "max-key-name", topologyKey("example.com/" + name63)},
		{"label key prefix of 253", "max-key-prefix", topologyKey(prefix253 + "/" + name63)},
		{"scheduleTimeoutSeconds 86400", "max-timeout", map[string]any{"schedulingPolicy": gang(2), "scheduleTimeoutSeconds": int64(86400)}},
		{"name of 63", strings.Repeat("g", 63), map[string]any{"schedulingPolicy": gang(2)}},
		{"required block, preferred rack", "block-rack", levels(level("topology.kubernetes.io/block", "Required"), level("topology.kubernetes.io/rack", "Preferred"))},
		{"preferred levels only", "preferred-only", levels(level("topology.kubernetes.io/block", "Preferred"), level("topology.kubernetes.io/rack", "Preferred"))},
		{"four levels", "four-levels", levels(level("topology.kubernetes.io/zone", ""), level("example.com/block", "Preferred"),
			level("example.com/rack", "Preferred"), level("kubernetes.io/hostname", "Preferred"))},
	} {
		t.Run(tc.name+" accepted", func(t *testing.T) {
			if _, err := groups.Create(ctx, podGroup(tc.pgName, tc.spec), metav1.CreateOptions{}); err != nil {
				t.Fatalf("the API server rejected it: %v", err)
			}
			// No pod joins it; it goes so that the scenarios that follow
			// see only their own groups.
			if err := groups.Delete(ctx, tc.pgName, metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
		})
	}

	t.Run("spec is immutable", func(t *testing.T) {
		if err := unstructured.SetNestedField(created.Object, int64(8), "spec", "schedulingPolicy", "gang", "minCount"); err != nil {
			t.Fatal(err)
		}
		_, err := groups.Update(ctx, created, metav1.UpdateOptions{})
		if err == nil || !strings.Contains(err.Error(), "spec is immutable; delete and re-create the PodGroup to change it") {
			t.Fatalf("changing spec: %v, want the immutability message", err)
		}
		t.Logf("rejected: %v", err)
	})
}

// placementList is the part of /debug/placements?output=json the scenarios
// read.
type placementList struct {
	Kind  string              `json:"kind"`
	Items []placementDecision `json:"items"`
}

// placementDecision is one item of placementList: a pod-group cycle.
type placementDecision struct {
	Namespace string `json:"namespace"`
	PodGroup  string `json:"podGroup"`
	Result    string `json:"result"`
	Message   string `json:"message"`
	Pods      int    `json:"pods"`
	// HeldAt and Levels: a group with a Preferred topology level
	// (PodGroupTopologyLevels).
	HeldAt     string           `json:"heldAt"`
	Levels     []placementLevel `json:"levels"`
	Placements []struct {
		Name  string `json:"name"`
		Nodes int    `json:"nodes"`
		Level string `json:"level"`
	} `json:"placements"`
	Evaluations []struct {
		Placement string `json:"placement"`
		Level     string `json:"level"`
		Domains   []struct {
			Domain string `json:"domain"`
			Pods   int    `json:"pods"`
		} `json:"domains"`
		Feasible bool   `json:"feasible"`
		Reason   string `json:"reason"`
		PodsFit  int    `json:"podsFit"`
		Scores   []struct {
			Plugin string `json:"plugin"`
			Score  int64  `json:"score"`
		} `json:"scores"`
		TotalScore int64 `json:"totalScore"`
	} `json:"evaluations"`
	Chosen      string `json:"chosen"`
	Assignments []struct {
		Pod     string `json:"pod"`
		Node    string `json:"node"`
		Failure string `json:"failure"`
	} `json:"assignments"`
	// Preemption: a gang that did not fit and tried to preempt
	// (WorkloadAwarePreemption).
	Preemption *placementPreemption `json:"preemption"`
}

// placementPreemption is the preemption part of a placementDecision.
type placementPreemption struct {
	Priority   int32  `json:"priority"`
	Result     string `json:"result"`
	Message    string `json:"message"`
	Candidates []struct {
		Placement        string            `json:"placement"`
		PotentialVictims int               `json:"potentialVictims"`
		Fits             bool              `json:"fits"`
		VictimCount      int               `json:"victimCount"`
		HighestPriority  *int32            `json:"highestPriority"`
		Victims          []preemptedVictim `json:"victims"`
		Reason           string            `json:"reason"`
	} `json:"candidates"`
	Chosen      string            `json:"chosen"`
	Victims     []preemptedVictim `json:"victims"`
	VictimCount int               `json:"victimCount"`
}

// preemptedVictim is a victim of a placementPreemption: its pod as
// namespace/name.
type preemptedVictim struct {
	Pod      string `json:"pod"`
	Node     string `json:"node"`
	Priority int32  `json:"priority"`
	PodGroup string `json:"podGroup"`
}

// placementLevel is one topology level of a placementDecision.
type placementLevel struct {
	Key         string `json:"key"`
	Mode        string `json:"mode"`
	Placements  int    `json:"placements"`
	Evaluated   int    `json:"evaluated"`
	RoomLeftOut int    `json:"roomLeftOut"`
	Feasible    int    `json:"feasible"`
	Result      string `json:"result"`
	Reason      string `json:"reason"`
}

// waitPodGroupState polls the PodGroup e2e/name until ok accepts its state
// (the scheduler writes PodGroup status asynchronously) and returns that
// state; after timeout it fails the test.
func waitPodGroupState(ctx context.Context, t *testing.T, c *cluster.Cluster, name string, timeout time.Duration, ok func(cluster.PodGroupState) bool) cluster.PodGroupState {
	t.Helper()
	s, err := c.WaitPodGroupState(ctx, "e2e", name, timeout, ok)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func podScheduledCondition(pod *v1.Pod) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1.PodScheduled {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// groupPods lists the pods of namespace e2e that join the group.
func groupPods(ctx context.Context, t *testing.T, c *cluster.Cluster, group string) []v1.Pod {
	t.Helper()
	pods, err := c.Client.CoreV1().Pods("e2e").List(ctx, metav1.ListOptions{LabelSelector: cluster.PodGroupLabel + "=" + group})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

func getText(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// gangFits: a gang of 4 whose pods fit is bound in a pod-group cycle; the
// scheduler marks the PodGroup scheduled and counts its bound pods, and the
// admin API shows the cycle with the node of every pod.
func gangFits(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const group, n = "gang-fits", 4
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n,
		Pod: cluster.PodOptions{CPU: "1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", group+"-", n, time.Minute); err != nil {
		t.Fatal(err)
	}
	s := waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Scheduled == n && s.Status == "True"
	})
	if s.Reason != "Scheduled" {
		t.Errorf("PodGroup %s: %v, want reason Scheduled", group, s)
	}
	t.Logf("PodGroup %s: %v", group, s)
	nodeOf := map[string]string{}
	for _, p := range groupPods(ctx, t, c, group) {
		nodeOf[p.Name] = p.Spec.NodeName
	}

	// The list names the cycle that scheduled the group, pod by pod.
	var list placementList
	getJSON(t, c.Admin+"/debug/placements?output=json", &list)
	found := false
	for _, d := range list.Items {
		if d.Namespace != "e2e" || d.PodGroup != group || d.Result != "Scheduled" {
			continue
		}
		found = true
		if d.Pods != n || len(d.Assignments) != n {
			t.Errorf("decision for %s: %d pods, %d assignments; want %d", group, d.Pods, len(d.Assignments), n)
		}
		for _, a := range d.Assignments {
			if a.Node == "" || a.Node != nodeOf[a.Pod] {
				t.Errorf("decision for %s assigns %s to %q (failure %q); the pod is bound to %q", group, a.Pod, a.Node, a.Failure, nodeOf[a.Pod])
			}
		}
	}
	if !found {
		t.Errorf("/debug/placements lists no Scheduled decision for e2e/%s: %+v", group, list.Items)
	}
	_, table := getText(t, c.Admin+"/debug/placements")
	t.Logf("/debug/placements:\n%s", table)

	// The group's route shows the newest cycle in full.
	// Compared with the table's alignment squashed to single spaces.
	newest := placementDecisions(t, c, group)[0]
	want := []string{"Pod group: e2e/" + group, "Result: Scheduled", fmt.Sprintf("Assignments (%d):", n)}
	for name, node := range nodeOf {
		want = append(want, name+" "+node+" <none>")
	}
	for _, w := range want {
		if !strings.Contains(newest, w) {
			t.Errorf("/debug/placements/e2e/%s: the newest decision does not show %q", group, w)
		}
	}
}

// gangTooBig: a gang with one pod more than the cluster has room for binds
// none of them. Every pod says so in its PodScheduled condition, the
// PodGroup is marked unschedulable, and /debug/queue shows the pods waiting
// with their group.
func gangTooBig(ctx context.Context, t *testing.T, c *cluster.Cluster, nodes int) {
	const group = "gang-too-big"
	// 17 CPUs: one pod per 32-CPU node, so nodes of them fit and one does not.
	n := nodes + 1
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: n, Pods: n,
		Pod: cluster.PodOptions{CPU: "17"}}); err != nil {
		t.Fatal(err)
	}
	// The pods go when the checks are done: the scenarios that follow do
	// not run with a gang retried on every event.
	defer deleteGroupPods(ctx, t, c, group)
	deadline := time.Now().Add(time.Minute)
	for {
		pods := groupPods(ctx, t, c, group)
		failed := 0
		var last string
		for i := range pods {
			if pods[i].Spec.NodeName != "" {
				t.Fatalf("pod %s of the gang that does not fit was bound to %s", pods[i].Name, pods[i].Spec.NodeName)
			}
			cond := podScheduledCondition(&pods[i])
			if cond != nil && cond.Status == v1.ConditionFalse && cond.Reason == v1.PodReasonUnschedulable &&
				strings.Contains(cond.Message, "no pod of the group was bound") {
				failed++
				last = cond.Message
			}
		}
		if len(pods) == n && failed == n {
			t.Logf("pod message: %s", last)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pods of %s have PodScheduled=False with the group's message after a minute", failed, n, group)
		}
		time.Sleep(500 * time.Millisecond)
	}
	s := waitPodGroupState(ctx, t, c, group, 30*time.Second, func(s cluster.PodGroupState) bool {
		return s.Status == "False" && s.Reason == "Unschedulable"
	})
	t.Logf("PodGroup %s: %v", group, s)
	if s.Scheduled != 0 {
		t.Errorf("PodGroup %s: status.scheduled %d, want 0", group, s.Scheduled)
	}

	// The admin API shows every member waiting, with its group.
	code, queue := getText(t, c.Admin+"/debug/queue?namespace=e2e&podGroup="+group)
	if code != http.StatusOK {
		t.Fatalf("/debug/queue: HTTP %d: %s", code, queue)
	}
	t.Logf("/debug/queue?namespace=e2e&podGroup=%s:\n%s", group, queue)
	lines := strings.Split(queue, "\n")
	// The pods' table (after the pod groups' table, whose header also
	// starts with NAMESPACE).
	header := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "NAMESPACE") && strings.Contains(l, " QUEUE ") })
	if header < 0 || !strings.HasSuffix(strings.TrimSpace(lines[header]), "POD GROUP") {
		t.Fatalf("/debug/queue has no POD GROUP column:\n%s", queue)
	}
	for i := range n {
		name := fmt.Sprintf("%s-%d", group, i)
		if !slices.ContainsFunc(lines, func(l string) bool {
			f := strings.Fields(l)
			return len(f) > 2 && f[0] == "e2e" && f[1] == name && f[len(f)-1] == group
		}) {
			t.Errorf("/debug/queue does not list %s with POD GROUP %s", name, group)
		}
	}

	// And the cycles that did not bind the group.
	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+group+"?output=json", &list)
	if len(list.Items) == 0 || list.Items[0].Result != "Unschedulable" {
		t.Fatalf("/debug/placements/e2e/%s: %+v, want the newest Unschedulable", group, list.Items)
	}
	for _, a := range list.Items[0].Assignments {
		if a.Node != "" || a.Failure == "" {
			t.Errorf("the unschedulable cycle assigns %s to %q with failure %q; want no node and a reason", a.Pod, a.Node, a.Failure)
		}
	}
}

// podGroupsIgnoredGatesOff: with GangScheduling off the scheduler ignores
// PodGroups: three pods of a gang of minCount 4 (which the gate would hold
// until a fourth exists) are bound one by one, the PodGroup gets no status,
// and /debug/placements answers 501.
func podGroupsIgnoredGatesOff(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const group = "gates-off"
	if err := c.CreateGang(ctx, cluster.GangSpec{Namespace: "e2e", Name: group, MinCount: 4, Pods: 3,
		Pod: cluster.PodOptions{CPU: "100m"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitBound(ctx, "e2e", group+"-", 3, time.Minute); err != nil {
		t.Fatal(err)
	}
	if s, err := c.PodGroupState(ctx, "e2e", group); err != nil || s.Conditions != 0 || s.Scheduled != 0 {
		t.Errorf("PodGroup %s with the gate off: %v (err %v), want no status", group, s, err)
	}
	if code, body := getText(t, c.Admin+"/debug/placements"); code != http.StatusNotImplemented {
		t.Errorf("/debug/placements with the gate off: HTTP %d, want 501: %s", code, body)
	}
}

// podGroupRBAC: the local control plane authorizes the scheduler (user
// system:kube-scheduler, RBAC) with the stock roles and
// scheduler/deploy/podgroup-rbac.yaml only: it may read PodGroups and write
// their status, and nothing more on them.
func podGroupRBAC(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	for _, tc := range []struct {
		verb, subresource string
		allowed           bool
	}{
		{"list", "", true}, {"watch", "", true}, {"get", "", true},
		{"patch", "status", true}, {"update", "status", true},
		{"create", "", false}, {"delete", "", false}, {"update", "", false}, {"patch", "", false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "system:kube-scheduler",
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "e2e", Verb: tc.verb, Group: cluster.PodGroupResource.Group,
				Resource: cluster.PodGroupResource.Resource, Subresource: tc.subresource,
			},
		}}
		got, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != tc.allowed {
			t.Errorf("system:kube-scheduler %s podgroups/%s: allowed=%v (%s), want %v", tc.verb, tc.subresource, got.Status.Allowed, got.Status.Reason, tc.allowed)
		}
	}
}

// deleteGroupPods deletes the pods of group in namespace e2e.
func deleteGroupPods(ctx context.Context, t *testing.T, c *cluster.Cluster, group string) {
	if err := c.Client.CoreV1().Pods("e2e").DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: cluster.PodGroupLabel + "=" + group}); err != nil {
		t.Errorf("deleting the pods of %s: %v", group, err)
	}
}
