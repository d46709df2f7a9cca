package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1beta1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// CreateNamespace creates a namespace.
func (c *Cluster) CreateNamespace(ctx context.Context, name string) error {
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	return err
}

// PodOptions describe pods made by Pod.
type PodOptions struct {
	CPU string
	// ClaimTemplate names a ResourceClaimTemplate: the pod gets its own
	// claim generated from it.
	ClaimTemplate string
	// Claim names a ResourceClaim the pod shares with others.
	Claim  string
	Labels map[string]string
	// PriorityClassName sets the pod's priority (the API server's Priority
	// admission plugin resolves it; without one the pod has priority 0).
	PriorityClassName string
	// NodeName binds the pod at creation, past the scheduler (as a kubelet
	// would run a pod bound elsewhere); NodeSelector leaves the binding to
	// the scheduler, among the nodes with those labels.
	NodeName     string
	NodeSelector map[string]string
}

// Pod returns a pod (pause container) that requests o.CPU and, optionally,
// one device through a claim.
func Pod(namespace, name string, o PodOptions) *v1.Pod {
	cpu := o.CPU
	if cpu == "" {
		cpu = "100m"
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: o.Labels},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{
				Name:      "pause",
				Image:     "registry.k8s.io/pause:3.10",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)}},
			}},
			PriorityClassName: o.PriorityClassName,
			NodeName:          o.NodeName,
			NodeSelector:      o.NodeSelector,
		},
	}
	if o.ClaimTemplate != "" || o.Claim != "" {
		rc := v1.PodResourceClaim{Name: "gpu"}
		if o.ClaimTemplate != "" {
			rc.ResourceClaimTemplateName = ptr.To(o.ClaimTemplate)
		} else {
			rc.ResourceClaimName = ptr.To(o.Claim)
		}
		pod.Spec.ResourceClaims = []v1.PodResourceClaim{rc}
		pod.Spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: "gpu"}}
	}
	return pod
}

// deviceClaimSpec asks for one device of DeviceClass.
func deviceClaimSpec() resourceapi.ResourceClaimSpec {
	return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
		Name: "gpu", DeviceClassName: DeviceClass,
	}}}}
}

// CreateClaimTemplate creates a ResourceClaimTemplate for one device.
func (c *Cluster) CreateClaimTemplate(ctx context.Context, namespace, name string) error {
	_, err := c.Client.ResourceV1beta1().ResourceClaimTemplates(namespace).Create(ctx, &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: deviceClaimSpec()},
	}, metav1.CreateOptions{})
	return err
}

// CreateClaim creates a ResourceClaim for one device, to be shared.
func (c *Cluster) CreateClaim(ctx context.Context, namespace, name string) error {
	_, err := c.Client.ResourceV1beta1().ResourceClaims(namespace).Create(ctx, &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       deviceClaimSpec(),
	}, metav1.CreateOptions{})
	return err
}

// CreatePriorityClass creates a PriorityClass of value, unless one of that
// name exists already.
func (c *Cluster) CreatePriorityClass(ctx context.Context, name string, value int32, description string) error {
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, Description: description}
	if _, err := c.Client.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating PriorityClass %s: %w", name, err)
	}
	// The API server's Priority admission plugin reads PriorityClasses from
	// its own informer: until that has seen the new one, a pod naming it is
	// refused ("no PriorityClass with name ... was found"). Wait for it
	// with a dry-run pod.
	probe := Pod(metav1.NamespaceDefault, "priorityclass-probe", PodOptions{PriorityClassName: name})
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		_, last = c.Client.CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if last == nil || !apierrors.IsForbidden(last) {
			return nil
		}
	}
	return fmt.Errorf("PriorityClass %s is not seen by the API server's admission after 30s: %w", name, last)
}

// CreatePods creates n pods named prefix-0 … prefix-(n-1).
func (c *Cluster) CreatePods(ctx context.Context, namespace, prefix string, n int, o PodOptions) error {
	for i := range n {
		if _, err := c.Client.CoreV1().Pods(namespace).Create(ctx, Pod(namespace, fmt.Sprintf("%s-%d", prefix, i), o), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating pod %s-%d: %w", prefix, i, err)
		}
	}
	return nil
}

// CountBound returns how many pods in namespace whose name starts with
// prefix have a node.
func (c *Cluster) CountBound(ctx context.Context, namespace, prefix string) (int, error) {
	pods, err := c.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	bound := 0
	for _, p := range pods.Items {
		if strings.HasPrefix(p.Name, prefix) && p.Spec.NodeName != "" {
			bound++
		}
	}
	return bound, nil
}

// WaitBound waits until every pod in namespace whose name starts with prefix
// (want of them) has a node, and returns how many are bound at the end.
func (c *Cluster) WaitBound(ctx context.Context, namespace, prefix string, want int, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	bound := 0
	for {
		// List errors (the API server restarting) are retried until the
		// deadline.
		if n, err := c.CountBound(ctx, namespace, prefix); err == nil {
			bound = n
			if bound >= want {
				return bound, nil
			}
		}
		if err := c.exited(); err != nil {
			return bound, err
		}
		if time.Now().After(deadline) {
			return bound, fmt.Errorf("%d of %d pods %s/%s* bound after %s", bound, want, namespace, prefix, timeout)
		}
		select {
		case <-ctx.Done():
			return bound, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// SchedulerMetrics returns the scheduler's /metrics text (read on its secure
// port as the cluster admin).
func (c *Cluster) SchedulerMetrics(ctx context.Context) (string, error) {
	return c.ReplicaMetrics(ctx, c.Schedulers[0])
}

// ReplicaMetrics returns a scheduler replica's /metrics text.
func (c *Cluster) ReplicaMetrics(ctx context.Context, r Replica) (string, error) {
	client, err := c.httpClient()
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.Secure+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("scheduler /metrics: HTTP %d: %s", resp.StatusCode, body)
	}
	return string(body), nil
}

// MetricValue sums the samples of a metric (any labels) in a /metrics text;
// found is false when no sample names it.
func MetricValue(text, name string) (sum float64, found bool) {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		if rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		fields := strings.Fields(line)
		var v float64
		if _, err := fmt.Sscan(fields[len(fields)-1], &v); err == nil {
			sum += v
			found = true
		}
	}
	return sum, found
}
