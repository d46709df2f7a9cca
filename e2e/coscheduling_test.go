package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"kspatch.dev/e2e/cluster"
)

// The coscheduling scenarios (CoschedulingPodGroups): a training operator
// that gang-schedules a distributed job (Kubeflow's operators with
// scheduler-plugins' coscheduling) creates a coscheduling PodGroup
// (scheduling.x-k8s.io) for the job and then the job's pods, labelled
// scheduling.x-k8s.io/pod-group, one by one. The kspatch scheduler reads
// such groups as gangs, next to its own PodGroups. The objects are
// unstructured: the published scheduler-plugins module is not on the
// module proxy this project uses, and would bring its own scheduler's
// dependencies into the suite for three fields.

// operatorDelay is the pause between two pods of a job, as an operator's
// reconcile loop creates them one by one.
const operatorDelay = 100 * time.Millisecond

// kspatchSchedulerName is the schedulerName the jobs' pods name: the
// scheduler that runs their gang scheduling. An operator configured for
// coscheduling sets the pods' spec.schedulerName to that scheduler; here
// it is the kspatch scheduler running as the cluster's default scheduler
// (the drop-in static pod: its profile is default-scheduler).
const kspatchSchedulerName = v1.DefaultSchedulerName

// trainingJob is a distributed training job as a training operator runs it
// with gang scheduling: one master and some workers, one pod each, all in
// one coscheduling PodGroup whose minMember is the number of replicas and
// whose minResources is the sum of their requests.
type trainingJob struct {
	name    string
	workers int
	// masterCPU and workerCPU are the pods' CPU requests; memory is each
	// pod's memory request.
	masterCPU, workerCPU, memory string
	// timeout is spec.scheduleTimeoutSeconds.
	timeout int
}

func (j trainingJob) replicas() int { return 1 + j.workers }

// pods returns the job's pods in the order the operator creates them: the
// master, then the workers.
func (j trainingJob) pods() []*v1.Pod {
	pod := func(replicaType string, index int, cpu string) *v1.Pod {
		name := fmt.Sprintf("%s-%s-%d", j.name, replicaType, index)
		p := cluster.Pod("e2e", name, cluster.PodOptions{CPU: cpu, Labels: map[string]string{
			cluster.CoschedulingPodGroupLabel: j.name,
			"e2e.kspatch.io/job":              j.name,
			"e2e.kspatch.io/replica-type":     replicaType,
			"e2e.kspatch.io/replica-index":    strconv.Itoa(index),
		}})
		p.Spec.SchedulerName = kspatchSchedulerName
		p.Spec.Containers[0].Resources.Requests[v1.ResourceMemory] = resource.MustParse(j.memory)
		return p
	}
	pods := []*v1.Pod{pod("master", 0, j.masterCPU)}
	for i := range j.workers {
		pods = append(pods, pod("worker", i, j.workerCPU))
	}
	return pods
}

// podGroup returns the job's PodGroup: minMember the replicas,
// minResources the sum of the pods' requests.
func (j trainingJob) podGroup() cluster.CoschedulingSpec {
	sum := v1.ResourceList{}
	for _, p := range j.pods() {
		for name, q := range p.Spec.Containers[0].Resources.Requests {
			total := sum[name]
			total.Add(q)
			sum[name] = total
		}
	}
	return cluster.CoschedulingSpec{Namespace: "e2e", Name: j.name, MinMember: j.replicas(), MinResources: sum, ScheduleTimeoutSeconds: j.timeout}
}

// createPods creates the pods one by one, operatorDelay apart, and returns
// when it sent the last one (no pod of them exists before).
func createPods(ctx context.Context, t *testing.T, c *cluster.Cluster, pods []*v1.Pod) time.Time {
	t.Helper()
	var last time.Time
	for i, p := range pods {
		if i > 0 {
			time.Sleep(operatorDelay)
		}
		last = time.Now()
		if _, err := c.Client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return last
}

// waitBound polls the pods every 200ms until every one is bound, and
// returns how long that took.
func waitBound(ctx context.Context, t *testing.T, c *cluster.Cluster, pods []*v1.Pod, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		bound := 0
		for _, p := range pods {
			got, err := c.Client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
			if err == nil && got.Spec.NodeName != "" {
				bound++
			}
		}
		if bound == len(pods) {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("%d of %d pods bound after %s", bound, len(pods), timeout)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// jobPods lists the pods of namespace e2e that join the coscheduling
// PodGroup group.
func jobPods(ctx context.Context, t *testing.T, c *cluster.Cluster, group string) []v1.Pod {
	t.Helper()
	pods, err := c.Client.CoreV1().Pods("e2e").List(ctx, metav1.ListOptions{LabelSelector: cluster.CoschedulingPodGroupLabel + "=" + group})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// waitPodsRefused polls the group's pods every 250ms until all n of them
// have PodScheduled=False with a message that contains want, failing the
// test at once if one is bound; it returns one such message.
func waitPodsRefused(ctx context.Context, t *testing.T, c *cluster.Cluster, group string, n int, want string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		pods := jobPods(ctx, t, c, group)
		refused, msg := 0, ""
		var seen []string
		for i := range pods {
			if pods[i].Spec.NodeName != "" {
				t.Fatalf("pod %s of %s was bound to %s", pods[i].Name, group, pods[i].Spec.NodeName)
			}
			cond := podScheduledCondition(&pods[i])
			if cond == nil {
				continue
			}
			seen = append(seen, cond.Message)
			if cond.Status == v1.ConditionFalse && strings.Contains(cond.Message, want) {
				refused++
				msg = cond.Message
			}
		}
		if len(pods) == n && refused == n {
			return msg
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pods of %s have PodScheduled=False with %q after %s; their messages: %q", refused, n, group, want, timeout, seen)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func waitCoscheduling(ctx context.Context, t *testing.T, c *cluster.Cluster, name string, timeout time.Duration, ok func(cluster.CoschedulingState) bool) cluster.CoschedulingState {
	t.Helper()
	s, err := c.WaitCoschedulingState(ctx, "e2e", name, timeout, ok)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCoschedulingPodGroups runs the coscheduling scenarios with the
// default gates (CoschedulingPodGroups on): the local control plane
// installs scheduler/deploy/coscheduling-crd.yaml and coscheduling-rbac.yaml
// before the scheduler starts.
func TestCoschedulingPodGroups(t *testing.T) {
	c := startCluster(t, "")
	ctx := t.Context()
	if err := c.CreateNamespace(ctx, "e2e"); err != nil {
		t.Fatal(err)
	}
	t.Run("API validation", func(t *testing.T) { coschedulingValidation(ctx, t, c) })
	t.Run("RBAC of the scheduler", func(t *testing.T) { coschedulingRBAC(ctx, t, c) })
	t.Run("job binds all or nothing", func(t *testing.T) { coschedulingJobFits(ctx, t, c) })
	t.Run("job too big stays pending", func(t *testing.T) { coschedulingJobTooBig(ctx, t, c) })
	t.Run("pods before their PodGroup", func(t *testing.T) { coschedulingPodsFirst(ctx, t, c) })
	t.Run("pod naming two groups", func(t *testing.T) { coschedulingTwoLabels(ctx, t, c) })
}

// coschedulingValidation: the API server serves the coscheduling CRD from
// scheduler/deploy, refuses with a message what the scheduler could not
// read as a gang (or reads as nonsense: a negative quantity), and lets an
// operator change the spec of an existing group (a resized job).
func coschedulingValidation(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	groups := c.Dynamic.Resource(cluster.CoschedulingPodGroupResource).Namespace("e2e")
	object := func(name string, spec map[string]any) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": cluster.CoschedulingPodGroupResource.GroupVersion().String(), "kind": "PodGroup",
			"metadata": map[string]any{"name": name, "namespace": "e2e"},
		}}
		if spec != nil {
			obj.Object["spec"] = spec
		}
		return obj
	}
	for _, tc := range []struct {
		name, pgName string
		spec         map[string]any
		want         string
	}{
		{"no spec", "bad", nil, "spec: Required value"},
		{"no minMember", "bad", map[string]any{"scheduleTimeoutSeconds": int64(60)}, "spec.minMember: Required value"},
		{"minMember 0", "bad", map[string]any{"minMember": int64(0)}, "spec.minMember in body should be greater than or equal to 1"},
		{"negative quantity", "bad", map[string]any{"minMember": int64(2), "minResources": map[string]any{"cpu": "-1"}},
			`spec.minResources.cpu: Invalid value: "-1": spec.minResources.cpu in body should match`},
		{"negative integer", "bad", map[string]any{"minMember": int64(2), "minResources": map[string]any{"cpu": int64(-1)}},
			"spec.minResources.cpu in body should be greater than or equal to 0"},
		{"not a quantity", "bad", map[string]any{"minMember": int64(2), "minResources": map[string]any{"memory": "1 GB"}},
			`spec.minResources.memory: Invalid value: "1 GB"`},
		{"not a resource name", "bad", map[string]any{"minMember": int64(2), "minResources": map[string]any{"gpu count": "1"}},
			"each key must be a resource name such as cpu, memory or example.com/gpu"},
		{"timeout 86401", "bad", map[string]any{"minMember": int64(2), "scheduleTimeoutSeconds": int64(86401)},
			"spec.scheduleTimeoutSeconds in body should be less than or equal to 86400"},
		{"name of 64", strings.Repeat("g", 64), map[string]any{"minMember": int64(2)},
			"a PodGroup name must be at most 63 characters, the longest label value (pods join it with the label scheduling.x-k8s.io/pod-group=<name>)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := groups.Create(ctx, object(tc.pgName, tc.spec), metav1.CreateOptions{})
			if err == nil {
				if err := groups.Delete(ctx, tc.pgName, metav1.DeleteOptions{}); err != nil {
					t.Error(err)
				}
				t.Fatal("the API server accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
	t.Run("a resized job", func(t *testing.T) {
		const name = "resized"
		if _, err := groups.Create(ctx, object(name, map[string]any{
			"minMember": int64(4), "minResources": map[string]any{"cpu": int64(4), "memory": "16Gi", "example.com/gpu": "4"}, "scheduleTimeoutSeconds": int64(60),
		}), metav1.CreateOptions{}); err != nil {
			t.Fatalf("a valid PodGroup is rejected: %v", err)
		}
		defer func() {
			if err := groups.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Error(err)
			}
		}()
		// A merge patch: the scheduler writes the new group's status
		// meanwhile, which an update of the object as created would
		// conflict with.
		patch := []byte(`{"spec":{"minMember":8,"minResources":{"cpu":"8"}}}`)
		got, err := groups.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("changing minMember and minResources: %v", err)
		}
		if mm, _, _ := unstructured.NestedInt64(got.Object, "spec", "minMember"); mm != 8 {
			t.Errorf("minMember %d after the patch, want 8", mm)
		}
	})
}

// coschedulingRBAC: the scheduler (user system:kube-scheduler) may read
// coscheduling PodGroups and write their status, with the stock roles and
// scheduler/deploy/coscheduling-rbac.yaml, and nothing more on them.
func coschedulingRBAC(ctx context.Context, t *testing.T, c *cluster.Cluster) {
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
				Namespace: "e2e", Verb: tc.verb, Group: cluster.CoschedulingPodGroupResource.Group,
				Resource: cluster.CoschedulingPodGroupResource.Resource, Subresource: tc.subresource,
			},
		}}
		got, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != tc.allowed {
			t.Errorf("system:kube-scheduler %s podgroups.%s/%s: allowed=%v (%s), want %v", tc.verb, cluster.CoschedulingPodGroupResource.Group,
				tc.subresource, got.Status.Allowed, got.Status.Reason, tc.allowed)
		}
	}
}

// coschedulingJobFits: a job of a master and three workers, whose pods the
// operator creates one by one after the PodGroup, is bound all or nothing:
// no pod while one is missing (not even a second after the others), all
// of them in one pod-group cycle once the last exists; the PodGroup's
// status says Scheduling or Running with every pod scheduled, and Running
// once kwok reports the pods running.
func coschedulingJobFits(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	job := trainingJob{name: "pytorch-fits", workers: 3, masterCPU: "2", workerCPU: "4", memory: "8Gi", timeout: 60}
	n := job.replicas()
	if err := c.CreateCoschedulingPodGroup(ctx, job.podGroup()); err != nil {
		t.Fatal(err)
	}
	pods := job.pods()
	createPods(ctx, t, c, pods[:n-1])
	// One member short: the gang waits, however long.
	time.Sleep(time.Second)
	if bound, err := c.CountBound(ctx, "e2e", job.name+"-"); err != nil || bound != 0 {
		t.Fatalf("%d pods of %s bound with %d of its %d pods created (err %v), want none", bound, job.name, n-1, n, err)
	}
	last := createPods(ctx, t, c, pods[n-1:])
	took := waitBound(ctx, t, c, pods, 30*time.Second)
	t.Logf("all %d pods of %s bound %s after the last was created", n, job.name, took.Round(10*time.Millisecond))

	// No binding before the last member existed (the API server's audit
	// log has the time of every binding).
	calls, err := c.Bindings("e2e")
	if err != nil {
		t.Fatal(err)
	}
	bindings := 0
	for _, b := range calls {
		if strings.HasPrefix(b.Pod, job.name+"-") && b.Code == http.StatusCreated {
			bindings++
			if b.At.Before(last) {
				t.Errorf("pod %s was bound at %s, before its last group member was created (%s)", b.Pod, b.At.Format(time.StampMicro), last.Format(time.StampMicro))
			}
		}
	}
	if bindings != n {
		t.Errorf("the audit log has %d bindings of %s's pods, want %d", bindings, job.name, n)
	}

	// One pod-group cycle bound them all.
	var list placementList
	getJSON(t, c.Admin+"/debug/placements/e2e/"+job.name+"?output=json", &list)
	scheduled := 0
	for _, d := range list.Items {
		if d.Result != "Scheduled" {
			t.Errorf("decision for %s: %s (%s); want only the cycle that scheduled it", job.name, d.Result, d.Message)
			continue
		}
		scheduled++
		if d.Pods != n || len(d.Assignments) != n {
			t.Errorf("the cycle that scheduled %s had %d pods and %d assignments, want %d", job.name, d.Pods, len(d.Assignments), n)
		}
		for _, a := range d.Assignments {
			if a.Node == "" {
				t.Errorf("the cycle that scheduled %s did not place %s: %s", job.name, a.Pod, a.Failure)
			}
		}
	}
	if scheduled != 1 {
		t.Errorf("/debug/placements/e2e/%s has %d Scheduled decisions, want 1: %+v", job.name, scheduled, list.Items)
	}

	s := waitCoscheduling(ctx, t, c, job.name, 15*time.Second, func(s cluster.CoschedulingState) bool {
		return s.Scheduled == int64(n)
	})
	t.Logf("PodGroup %s with every pod bound: %v", job.name, s)
	if s.Phase != "Scheduling" && s.Phase != "Running" {
		t.Errorf("PodGroup %s: phase %q with every pod scheduled, want Scheduling or Running", job.name, s.Phase)
	}
	if s.ScheduleStartTime == "" {
		t.Errorf("PodGroup %s: no scheduleStartTime once scheduled", job.name)
	}
	// kwok runs the pods bound to its nodes: the group runs.
	s = waitCoscheduling(ctx, t, c, job.name, 15*time.Second, func(s cluster.CoschedulingState) bool {
		return s.Phase == "Running" && s.Running == int64(n)
	})
	t.Logf("PodGroup %s once its pods run: %v", job.name, s)
}

// coschedulingJobTooBig: a job whose summed requests (its minResources)
// exceed the cluster's free CPU stays wholly pending: no pod is bound,
// every pod and the admin API's why-pending route for the group say that
// the cluster's free allocatable cannot hold spec.minResources, with the
// shortfall, and the PodGroup's status says Pending, tried.
func coschedulingJobTooBig(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	// 8 + 7 × 30 = 218 CPUs, more than the 6 × 32 the nodes have; one
	// worker per node would fit, not the whole job.
	job := trainingJob{name: "pytorch-too-big", workers: 7, masterCPU: "8", workerCPU: "30", memory: "8Gi", timeout: 60}
	n := job.replicas()
	nodes, err := c.NodeCPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var free int64
	for _, node := range nodes {
		free += max(0, node.Free())
	}
	spec := job.podGroup()
	need := spec.MinResources.Cpu().MilliValue()
	if need <= free {
		t.Fatalf("the job needs %dm CPU, and %dm is free: it is not too big", need, free)
	}
	// The shortfall as the scheduler words it.
	milli := func(v int64) string { return resource.NewMilliQuantity(v, resource.DecimalSI).String() }
	shortfall := fmt.Sprintf("cpu %s free of %s (short %s)", milli(free), milli(need), milli(need-free))

	if err := c.CreateCoschedulingPodGroup(ctx, spec); err != nil {
		t.Fatal(err)
	}
	// The pods and the group go when the checks are done: the scenarios
	// that follow do not run with a gang retried on every event.
	defer deleteJob(ctx, t, c, job.name)
	createPods(ctx, t, c, job.pods())
	msg := waitPodsRefused(ctx, t, c, job.name, n, "spec.minResources", 30*time.Second)
	t.Logf("pod message: %s", msg)
	if !strings.Contains(msg, shortfall) {
		t.Errorf("pod message %q does not give the shortfall %q", msg, shortfall)
	}

	s := waitCoscheduling(ctx, t, c, job.name, 15*time.Second, func(s cluster.CoschedulingState) bool {
		return s.Phase == "Pending" && s.ScheduleStartTime != ""
	})
	t.Logf("PodGroup %s: %v", job.name, s)
	if s.Scheduled != 0 || s.Running != 0 {
		t.Errorf("PodGroup %s: %v, want nothing scheduled", job.name, s)
	}

	// Why is it pending: the group's route.
	var doc struct {
		Spec struct {
			Found    bool   `json:"found"`
			Problem  string `json:"problem"`
			MinCount int    `json:"minCount"`
		} `json:"spec"`
		Members struct {
			Exist  int `json:"exist"`
			Bound  int `json:"bound"`
			Queued struct {
				Total int `json:"total"`
			} `json:"queued"`
		} `json:"members"`
		LastCycle *struct {
			Result  string `json:"result"`
			Message string `json:"message"`
		} `json:"lastCycle"`
		Unblock string `json:"unblock"`
	}
	route := "/debug/queue/podgroups/e2e/" + job.name
	getJSON(t, c.Admin+route+"?output=json", &doc)
	if !doc.Spec.Found || doc.Spec.Problem != "" || doc.Spec.MinCount != n {
		t.Errorf("%s: spec %+v, want the gang of %d", route, doc.Spec, n)
	}
	// The pods wait in the scheduling queue (unschedulable, until enough
	// is free), and the route finds them there as for a kspatch group.
	if doc.Members.Exist != n || doc.Members.Bound != 0 || doc.Members.Queued.Total != n {
		t.Errorf("%s: members %+v, want %d existing and queued, none bound", route, doc.Members, n)
	}
	if doc.LastCycle == nil || !strings.Contains(doc.LastCycle.Message, "spec.minResources") || !strings.Contains(doc.LastCycle.Message, shortfall) {
		t.Errorf("%s: last cycle %+v, want its message to give the minResources shortfall %q", route, doc.LastCycle, shortfall)
	}
	// Each pod waits for an event that may free room (NodeResourcesFit's:
	// a node added, a pod deleted), not for its backoff alone.
	var queued struct {
		Queue                string   `json:"queue"`
		UnschedulablePlugins []string `json:"unschedulablePlugins"`
	}
	getJSON(t, c.Admin+"/debug/queue/pods/e2e/"+job.name+"-worker-0?output=json", &queued)
	if (queued.Queue != "unschedulable" && queued.Queue != "backoff") || !slices.Contains(queued.UnschedulablePlugins, "NodeResourcesFit") {
		t.Errorf("/debug/queue/pods/e2e/%s-worker-0: in %q rejected by %v, want unschedulable (or backoff) by NodeResourcesFit", job.name, queued.Queue, queued.UnschedulablePlugins)
	}
	code, text := getText(t, c.Admin+route)
	if code != http.StatusOK || !strings.Contains(text, shortfall) {
		t.Errorf("%s: HTTP %d, want the shortfall %q in:\n%s", route, code, shortfall, text)
	}
	t.Logf("%s:\n%s", route, text)
	t.Logf("unblock: %s", doc.Unblock)
	if calls, err := c.Bindings("e2e"); err == nil {
		for _, b := range calls {
			if strings.HasPrefix(b.Pod, job.name+"-") {
				t.Errorf("the audit log has a binding of %s (HTTP %d)", b.Pod, b.Code)
			}
		}
	}
}

// deleteJob deletes the pods and the coscheduling PodGroup of a job.
func deleteJob(ctx context.Context, t *testing.T, c *cluster.Cluster, name string) {
	if err := c.Client.CoreV1().Pods("e2e").DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: cluster.CoschedulingPodGroupLabel + "=" + name}); err != nil {
		t.Errorf("deleting the pods of %s: %v", name, err)
	}
	if err := c.Dynamic.Resource(cluster.CoschedulingPodGroupResource).Namespace("e2e").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Errorf("deleting PodGroup %s: %v", name, err)
	}
}

// podsFirstBound is how long the pods created before their PodGroup may
// take to be bound once it is created. The scheduler refused them (the
// group did not exist) and parked them; the PodGroup's add event
// activates them, and one pod-group cycle and the bindings follow, well
// under a second on this cluster. Without that activation they would wait
// in the unschedulable pool for its periodic flush (five minutes). 10 s
// leaves room for a loaded 2-CPU CI machine and is still 30 times shorter.
const podsFirstBound = 10 * time.Second

// coschedulingPodsFirst: an operator that creates the job's pods before its
// PodGroup (or a PodGroup the scheduler has not seen yet): the pods are
// told that their PodGroup does not exist, naming the label, and are bound
// promptly once it is created.
func coschedulingPodsFirst(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	job := trainingJob{name: "pytorch-late-group", workers: 2, masterCPU: "1", workerCPU: "1", memory: "1Gi", timeout: 60}
	n := job.replicas()
	pods := job.pods()
	createPods(ctx, t, c, pods)
	msg := waitPodsRefused(ctx, t, c, job.name, n, "does not exist", 30*time.Second)
	t.Logf("pod message before the PodGroup: %s", msg)
	if !strings.Contains(msg, cluster.CoschedulingPodGroupLabel) {
		t.Errorf("pod message %q does not name the label %s", msg, cluster.CoschedulingPodGroupLabel)
	}
	// The why-pending route says the same: create the group, or remove
	// the label the pods carry.
	var doc struct {
		Spec struct {
			Found bool `json:"found"`
		} `json:"spec"`
		Members struct {
			Exist int `json:"exist"`
		} `json:"members"`
		Unblock string `json:"unblock"`
	}
	route := "/debug/queue/podgroups/e2e/" + job.name
	getJSON(t, c.Admin+route+"?output=json", &doc)
	if doc.Spec.Found || doc.Members.Exist != n || !strings.Contains(doc.Unblock, cluster.CoschedulingPodGroupLabel) {
		t.Errorf("%s before the PodGroup: found %v, %d members, unblock %q; want not found, %d members, and the label %s named",
			route, doc.Spec.Found, doc.Members.Exist, doc.Unblock, n, cluster.CoschedulingPodGroupLabel)
	}
	if err := c.CreateCoschedulingPodGroup(ctx, job.podGroup()); err != nil {
		t.Fatal(err)
	}
	took := waitBound(ctx, t, c, pods, time.Minute)
	t.Logf("all %d pods of %s bound %s after the PodGroup was created", n, job.name, took.Round(10*time.Millisecond))
	if took > podsFirstBound {
		t.Errorf("the pods of %s took %s to be bound once their PodGroup existed, want at most %s", job.name, took, podsFirstBound)
	}
	s := waitCoscheduling(ctx, t, c, job.name, 15*time.Second, func(s cluster.CoschedulingState) bool {
		return s.Scheduled == int64(n)
	})
	t.Logf("PodGroup %s: %v", job.name, s)
}

// coschedulingTwoLabels: a pod whose labels name a kspatch PodGroup and a
// different coscheduling PodGroup (both exist) is not scheduled: its
// PodScheduled condition and a FailedScheduling event say it names two
// groups. Once one label is removed it joins the other group and is bound
// promptly (the scheduler requeues a pod whose group labels change).
func coschedulingTwoLabels(ctx context.Context, t *testing.T, c *cluster.Cluster) {
	const kspatchGroup, coschedGroup, name = "two-labels-kspatch", "two-labels-cosched", "two-labels"
	if err := c.CreatePodGroup(ctx, "e2e", kspatchGroup, 1, ""); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateCoschedulingPodGroup(ctx, cluster.CoschedulingSpec{Namespace: "e2e", Name: coschedGroup, MinMember: 1}); err != nil {
		t.Fatal(err)
	}
	pod := cluster.Pod("e2e", name, cluster.PodOptions{CPU: "100m", Labels: map[string]string{
		cluster.PodGroupLabel: kspatchGroup, cluster.CoschedulingPodGroupLabel: coschedGroup,
	}})
	pod.Spec.SchedulerName = kspatchSchedulerName
	if _, err := c.Client.CoreV1().Pods("e2e").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	note, err := c.WaitEvent(ctx, "e2e", cluster.EventMatch{Kind: "Pod", Name: name, Reason: "FailedScheduling", Note: "names two pod groups"}, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("event: %s", note)
	got, err := c.Client.CoreV1().Pods("e2e").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "" {
		t.Fatalf("pod %s naming two groups was bound to %s", name, got.Spec.NodeName)
	}
	cond := podScheduledCondition(got)
	if cond == nil || cond.Status != v1.ConditionFalse || cond.Reason != v1.PodReasonUnschedulable {
		t.Fatalf("pod %s: PodScheduled %+v, want False, Unschedulable", name, cond)
	}
	for _, want := range []string{kspatchGroup, coschedGroup, cluster.PodGroupLabel, cluster.CoschedulingPodGroupLabel} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("pod %s: PodScheduled message %q does not name %s", name, cond.Message, want)
		}
	}

	// The fix: remove the kspatch label. The pod joins the coscheduling
	// group (minMember 1) and is bound.
	patch := []byte(`{"metadata":{"labels":{"` + cluster.PodGroupLabel + `":null}}}`)
	if _, err := c.Client.CoreV1().Pods("e2e").Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	took := waitBound(ctx, t, c, []*v1.Pod{pod}, time.Minute)
	t.Logf("pod %s bound %s after its kspatch label was removed", name, took.Round(10*time.Millisecond))
	if took > podsFirstBound {
		t.Errorf("pod %s took %s to be bound once its labels named one group, want at most %s", name, took, podsFirstBound)
	}
	s := waitCoscheduling(ctx, t, c, coschedGroup, 15*time.Second, func(s cluster.CoschedulingState) bool { return s.Scheduled == 1 })
	t.Logf("PodGroup %s: %v", coschedGroup, s)
	if !slices.Contains([]string{"Scheduling", "Running"}, s.Phase) {
		t.Errorf("PodGroup %s: phase %q with its pod bound, want Scheduling or Running", coschedGroup, s.Phase)
	}
}
