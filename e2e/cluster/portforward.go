package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// A kubeadm control plane runs kube-scheduler as a static pod in
// kube-system (labels component=kube-scheduler, tier=control-plane); an
// operator reaches its secure port with a port-forward through the API
// server. Here the scheduler is a local process, so kwok, which serves the
// fake nodes' kubelet API, forwards the scheduler pod's port 10259 to it,
// and the tests create the pod as the kubelet creates a static pod's mirror.

const (
	// SchedulerSecurePort is the secure port a kubeadm scheduler pod
	// serves, which kwok forwards to the local scheduler.
	SchedulerSecurePort = 10259
	// PlainSchedulerNamespace holds a stand-in for a scheduler without
	// kspatch: kwok forwards port 10259 of its pods to the
	// kube-controller-manager's secure port, the same server library as
	// kube-scheduler's, without kspatch's /debug/kspatch routes.
	PlainSchedulerNamespace = "kspatch-e2e-plain"
	// DebugUser is the user of Cluster.UserKubeconfig, in the group
	// DebugGroup, which scheduler/deploy/debug-rbac.yaml binds.
	DebugUser  = "kspatch-e2e-debugger"
	DebugGroup = "kspatch:debuggers"
)

// kwokPortForwards is kwok's configuration: port 10259 of the pods in
// kube-system to the scheduler's secure port, and of the pods in
// PlainSchedulerNamespace to the controller manager's.
func kwokPortForwards(schedPort, cmPort int) string {
	return fmt.Sprintf(`kind: ClusterPortForward
apiVersion: kwok.x-k8s.io/v1alpha1
metadata:
  name: kube-scheduler
spec:
  selector:
    matchNamespaces: [kube-system]
  forwards:
  - ports: [%[1]d]
    target:
      address: 127.0.0.1
      port: %[2]d
---
kind: ClusterPortForward
apiVersion: kwok.x-k8s.io/v1alpha1
metadata:
  name: plain-scheduler
spec:
  selector:
    matchNamespaces: [%[3]s]
  forwards:
  - ports: [%[1]d]
    target:
      address: 127.0.0.1
      port: %[4]d
`, SchedulerSecurePort, schedPort, PlainSchedulerNamespace, cmPort)
}

// CreateSchedulerPod creates, on node (a kwok node), a pod like the mirror
// pod of kubeadm's kube-scheduler static pod, and waits until kwok reports
// it Running.
func (c *Cluster) CreateSchedulerPod(ctx context.Context, namespace, name, node string) error {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Labels: map[string]string{"component": "kube-scheduler", "tier": "control-plane"}},
		Spec: v1.PodSpec{
			NodeName:    node,
			Containers:  []v1.Container{{Name: "kube-scheduler", Image: "registry.k8s.io/kube-scheduler:v1.33.13", Ports: []v1.ContainerPort{{Name: "probe-port", ContainerPort: SchedulerSecurePort}}}},
			Tolerations: []v1.Toleration{{Operator: v1.TolerationOpExists}},
		},
	}
	if _, err := c.Client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := c.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.Status.Phase == v1.PodRunning, nil
	})
}

// DebugRBACManifest (in scheduler/deploy) grants what kubectl kspatch needs
// to the group DebugGroup.
const DebugRBACManifest = "debug-rbac.yaml"

// ExposeScheduler makes the cluster look like a kubeadm control plane to
// kubectl kspatch: a kube-scheduler pod in kube-system on the first node
// (kwok forwards its port 10259 to the scheduler) and, with rbac, the grants
// of DebugRBACManifest. It is idempotent; the nodes must exist.
func (c *Cluster) ExposeScheduler(ctx context.Context, rbac bool) error {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	if len(nodes.Items) == 0 {
		return fmt.Errorf("no node to run the scheduler pod on")
	}
	node := nodes.Items[0].Name
	if err := c.CreateSchedulerPod(ctx, "kube-system", "kube-scheduler-"+node, node); err != nil {
		return fmt.Errorf("creating the scheduler pod: %w", err)
	}
	if !rbac {
		return nil
	}
	if _, err := c.Client.RbacV1().ClusterRoles().Get(ctx, "kspatch:debug-reader", metav1.GetOptions{}); err == nil {
		return nil
	}
	return c.applyAll(ctx, filepath.Join(c.opts.DeployDir, DebugRBACManifest))
}

// GrantDebuggersView binds the built-in ClusterRole view to DebugGroup in
// namespace: the kspatch admin API shows a namespace's pods only to users
// who may get pods there, and the debugger role of debug-rbac.yaml grants
// no namespace.
func (c *Cluster) GrantDebuggersView(ctx context.Context, namespace string) error {
	_, err := c.Client.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "kspatch-debuggers-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: DebugGroup}},
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
