package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// prefix is where the scheduler's secure port serves the admin API.
const prefix = "/debug/kspatch"

// leaseName is the scheduler's leader-election lease (kube-system).
const leaseName = "kube-scheduler"

// run carries out the command: it finds the scheduler pod, forwards a local
// port to its secure port, and copies the answer to out.
func run(ctx context.Context, o *options, out io.Writer) error {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	loading.ExplicitPath = o.kubeconfig
	kc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{CurrentContext: o.context})
	cfg, err := kc.ClientConfig()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	ns := o.namespace
	if ns == "" {
		if ns, _, err = kc.Namespace(); err != nil {
			return fmt.Errorf("reading the kubeconfig's namespace: %w", err)
		}
	}
	path, err := route(o.args, url.PathEscape(ns), o.namespaceSet)
	if err != nil {
		return err
	}
	if o.output == "json" {
		if strings.Contains(path, "?") {
			path += "&output=json"
		} else {
			path += "?output=json"
		}
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	pod, err := schedulerPod(ctx, client, o)
	if err != nil {
		return err
	}
	local, stop, err := forward(ctx, cfg, client, pod, o.schedulerPort)
	if err != nil {
		return err
	}
	defer stop()

	// The scheduler's serving certificate is its own (self-signed unless
	// the operator gave it one); the tunnel is what identifies it: the API
	// server opened it to this pod. The kubeconfig's credentials go along,
	// and the scheduler checks them with the API server.
	sc := rest.CopyConfig(cfg)
	sc.Host = fmt.Sprintf("https://127.0.0.1:%d", local)
	sc.APIPath = ""
	sc.TLSClientConfig.Insecure = true
	sc.TLSClientConfig.CAFile, sc.TLSClientConfig.CAData, sc.TLSClientConfig.ServerName = "", nil, ""
	httpClient, err := rest.HTTPClientFor(sc)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("pod %s/%s port %d", pod.Namespace, pod.Name, o.schedulerPort)
	code, body, err := get(ctx, httpClient, sc.Host+prefix+path)
	if err != nil {
		return notAnswered(pod, o.schedulerPort, forwardErrors.last(), err)
	}
	switch {
	case code == http.StatusOK:
		_, err = out.Write(body)
		return err
	case code == http.StatusForbidden && strings.Contains(string(body), namespaceRefusal):
		// The admin API's own refusal: the route is allowed, the namespace
		// is not. Its message names the permission.
		return errors.New(strings.TrimSpace(string(body)))
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("the scheduler (%s) refused GET %s%s: HTTP %d: %s\nYour user needs get on the non-resource URL %s/* (the ClusterRole kspatch:debug-reader in scheduler/deploy/debug-rbac.yaml)",
			where, prefix, path, code, strings.TrimSpace(string(body)), prefix)
	case code == http.StatusNotFound:
		// The admin API's own 404 (no such pod in the queue) or no admin
		// API at all: its queue route, always there, tells them apart.
		if qc, _, err := get(ctx, httpClient, sc.Host+prefix+"/queue?limit=1"); err == nil && qc == http.StatusNotFound {
			return fmt.Errorf("%s runs a kube-scheduler without kspatch's admin API (GET %s/queue: HTTP %d): this cluster does not run the kspatch scheduler, or runs one built without it", where, prefix, qc)
		}
		return errors.New(strings.TrimSpace(string(body)))
	}
	return fmt.Errorf("GET %s%s on %s: HTTP %d: %s", prefix, path, where, code, strings.TrimSpace(string(body)))
}

func get(ctx context.Context, c *http.Client, u string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, body, err
}

// schedulerPod returns the pod to ask: --scheduler-pod, else the running
// scheduler pod on the node of the lease's holder (the leader), else the
// first running one.
func schedulerPod(ctx context.Context, client kubernetes.Interface, o *options) (*v1.Pod, error) {
	if o.schedulerPod != "" {
		pod, err := client.CoreV1().Pods(o.schedulerNamespace).Get(ctx, o.schedulerPod, metav1.GetOptions{})
		if apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("getting the scheduler pod %s/%s: %w\nYour user needs get on pods in %s: %s", o.schedulerNamespace, o.schedulerPod, err, o.schedulerNamespace, grantPortForward(o.schedulerNamespace))
		}
		if err != nil {
			return nil, fmt.Errorf("getting the scheduler pod %s/%s: %w", o.schedulerNamespace, o.schedulerPod, err)
		}
		return pod, nil
	}
	pods, err := client.CoreV1().Pods(o.schedulerNamespace).List(ctx, metav1.ListOptions{LabelSelector: o.schedulerSelector})
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("listing the kube-scheduler pods (%s in %s): %w\nYour user needs list on pods in %s: %s", o.schedulerSelector, o.schedulerNamespace, err, o.schedulerNamespace, grantPortForward(o.schedulerNamespace))
		}
		return nil, fmt.Errorf("listing the kube-scheduler pods (%s in %s): %w", o.schedulerSelector, o.schedulerNamespace, err)
	}
	var running []*v1.Pod
	for i := range pods.Items {
		if p := &pods.Items[i]; p.Status.Phase == v1.PodRunning && p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	if len(running) == 0 {
		return nil, fmt.Errorf("no running kube-scheduler pod in %s with the labels %s (%d found): is the scheduler a static pod of this cluster? Name it with --scheduler-pod",
			o.schedulerNamespace, o.schedulerSelector, len(pods.Items))
	}
	// The lease's holder is "<hostname>_<uuid>"; the static pod runs on
	// that node. Without the right to read the lease, any running one.
	lease, err := client.CoordinationV1().Leases(o.schedulerNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err == nil {
		if node := leaderNode(lease); node != "" {
			for _, p := range running {
				if p.Spec.NodeName == node {
					return p, nil
				}
			}
		}
	} else if !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("reading the scheduler's lease %s/%s: %w", o.schedulerNamespace, leaseName, err)
	}
	return running[0], nil
}

// leaderNode returns the node name in the lease holder's identity.
func leaderNode(lease *coordinationv1.Lease) string {
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	node, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return node
}

// forward opens a port-forward from a free local port to the pod's port,
// through the API server, and returns the local port and a function that
// closes it.
func forward(ctx context.Context, cfg *rest.Config, client kubernetes.Interface, pod *v1.Pod, port int) (int, func(), error) {
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return 0, nil, err
	}
	u := client.CoreV1().RESTClient().Post().Resource("pods").Namespace(pod.Namespace).Name(pod.Name).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u)
	stopCh, readyCh := make(chan struct{}), make(chan struct{})
	var errOut strings.Builder
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stopCh, readyCh, io.Discard, &errOut)
	if err != nil {
		return 0, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- fw.ForwardPorts() }()
	select {
	case <-readyCh:
	case err := <-done:
		if apierrors.IsForbidden(err) || strings.Contains(fmt.Sprint(err), "forbidden") {
			return 0, nil, fmt.Errorf("port-forward to %s/%s refused: %w\nYour user needs create on pods/portforward in %s: %s", pod.Namespace, pod.Name, err, pod.Namespace, grantPortForward(pod.Namespace))
		}
		return 0, nil, fmt.Errorf("port-forward to %s/%s: %w", pod.Namespace, pod.Name, err)
	case <-ctx.Done():
		close(stopCh)
		return 0, nil, fmt.Errorf("port-forward to %s/%s: %w", pod.Namespace, pod.Name, ctx.Err())
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		close(stopCh)
		return 0, nil, fmt.Errorf("port-forward to %s/%s: no local port (%v)", pod.Namespace, pod.Name, err)
	}
	return int(ports[0].Local), func() { close(stopCh) }, nil
}
