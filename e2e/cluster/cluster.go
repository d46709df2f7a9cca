// Package cluster runs a local Kubernetes control plane for kspatch's
// end-to-end tests and `make run`: etcd, kube-apiserver and
// kube-controller-manager built from the patched tree, kwok for fake nodes,
// and the patched kube-scheduler, each a process on loopback with its own
// certificates and kubeconfig, its log in the cluster's directory.
package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options configure a Cluster.
type Options struct {
	// Dir holds certificates, kubeconfigs, etcd's data and the logs. It is
	// created; an existing one is emptied.
	Dir string
	// Bin holds etcd, kube-apiserver, kube-controller-manager, kwok and
	// kube-scheduler.
	Bin string
	// FeatureGates is passed to every component (e.g.
	// "SchedulerPreQueueingHints=false").
	FeatureGates string
	// DeployDir is scheduler/deploy. The scheduler runs with the flags of
	// the static pod manifest there, so the tests run what operators install.
	DeployDir string
	// SchedulerArgs are extra kube-scheduler flags.
	SchedulerArgs []string
	// SchedulerBinary is the kube-scheduler to run; empty for
	// Bin/kube-scheduler (the patched one).
	SchedulerBinary string
	// Vanilla says SchedulerBinary is upstream's kube-scheduler (make
	// build-vanilla), which has no admin API: it gets no --admin-* flags,
	// Admin stays empty, and readiness is checked on the secure port.
	// FeatureGates must then name no kspatch gate. Only with one replica.
	Vanilla bool
	// AdminPort is the scheduler's admin API port; 0 picks a free one.
	AdminPort int
	// Replicas, when 2 or more, runs that many schedulers with leader
	// election on one lease, as a highly available control plane does (the
	// manifest's --leader-elect=true is kept). Otherwise one scheduler runs
	// without leader election.
	Replicas int
	// LeaderElection keeps the manifest's --leader-elect=true with one
	// scheduler, as kubeadm's single control-plane node runs it: the
	// scheduler takes the kube-system/kube-scheduler lease before it
	// schedules, and on SIGTERM releases it and exits 0.
	LeaderElection bool
	// NoNodeLifecycle runs kube-controller-manager without its node
	// lifecycle controller, so that nodes created with NodeSpec.Static
	// (which nothing heartbeats) stay Ready and untainted. A workload that
	// only needs nodes to exist (memload's pending pods) then spares the API
	// server thousands of kwok lease renewals a minute.
	NoNodeLifecycle bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// OnExit is called, after the report on Log, when a component exits
	// without being stopped (before Stop); nil only reports. make run stops
	// the control plane then.
	OnExit func(Exit)
}

// Exit describes a component that exited without being stopped.
type Exit struct {
	// Component is the component's name, e.g. "kube-scheduler".
	Component string
	// Status is how it ended: "exit status 3", "signal: terminated".
	Status string
	// Code is its exit code, -1 when a signal killed it.
	Code int
	// Log is the path of its log.
	Log string
	// At is when the harness saw it exit.
	At time.Time
}

func (e Exit) Error() string {
	return fmt.Sprintf("%s exited unexpectedly (%s); its log is %s", e.Component, e.Status, e.Log)
}

// SecureCurl returns a curl command line that GETs path (e.g.
// "/debug/kspatch/queue") on the scheduler's secure port as the cluster
// admin: the admin client certificate this control plane made, and the
// serving certificate the scheduler wrote into its --cert-dir as the trusted
// CA.
func (c *Cluster) SecureCurl(path string) string {
	pkiDir := filepath.Join(c.opts.Dir, "pki")
	return strings.Join([]string{"curl -s",
		"--cacert", shellQuote(filepath.Join(c.schedulerCertDir(), "kube-scheduler.crt")),
		"--cert", shellQuote(filepath.Join(pkiDir, "admin.crt")),
		"--key", shellQuote(filepath.Join(pkiDir, "admin.key")),
		shellQuote(c.SchedulerSecure + path)}, " ")
}

// schedulerCertDir is the scheduler's --cert-dir, where it writes the
// self-signed serving certificate of its secure port (kube-scheduler.crt,
// its CA appended).
func (c *Cluster) schedulerCertDir() string { return filepath.Join(c.opts.Dir, "scheduler-certs") }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Cluster is a running local control plane.
type Cluster struct {
	opts Options
	// Kubeconfig is the path of a kubeconfig with cluster-admin rights.
	Kubeconfig string
	// UserKubeconfig is the path of a kubeconfig for DebugUser, a user with
	// no rights until the tests grant some (kubectl kspatch's user).
	UserKubeconfig string
	// APIServer is the API server's URL.
	APIServer string
	// Admin is the base URL of the scheduler's admin API
	// (http://127.0.0.1:PORT).
	Admin string
	// SchedulerSecure is the base URL of the scheduler's secure port.
	SchedulerSecure string
	// Client is a clientset with cluster-admin rights.
	Client kubernetes.Interface
	// Dynamic is a dynamic client with cluster-admin rights (PodGroups).
	Dynamic dynamic.Interface
	// Schedulers are the scheduler processes: one, or Options.Replicas.
	// The first one's ports are Admin and SchedulerSecure.
	Schedulers []Replica

	// gates are the feature gates every component runs with.
	gates string

	mu    sync.Mutex
	procs map[string]*process
	// stopping is set once Stop begins: components that exit from then on
	// are not reported as having died.
	stopping bool
	// args remembers how each component was started, for restarts.
	args map[string][]string
}

// Replica is one kube-scheduler process.
type Replica struct {
	// Component names its process and log ("kube-scheduler",
	// "kube-scheduler-2", …).
	Component string
	// Admin is the base URL of its admin API, Secure of its secure port.
	Admin, Secure string
}

// The dynamic resource allocation API the control plane serves.
const draRuntimeConfig = "resource.k8s.io/v1beta1=true"

// Start brings the control plane up and returns once the API server is
// ready, the controller manager has created the default service account,
// and the scheduler's admin API answers. On error everything started is
// stopped.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.DeployDir == "" {
		return nil, fmt.Errorf("Options.DeployDir is not set (the scheduler/deploy directory)")
	}
	manifest := filepath.Join(opts.DeployDir, StaticPodManifest)
	if _, err := os.Stat(manifest); err != nil {
		return nil, fmt.Errorf("the scheduler's static pod manifest: %w", err)
	}
	if opts.SchedulerBinary == "" {
		opts.SchedulerBinary = filepath.Join(opts.Bin, "kube-scheduler")
	}
	if opts.Vanilla && opts.Replicas > 1 {
		return nil, fmt.Errorf("Options.Vanilla runs one scheduler, not %d replicas", opts.Replicas)
	}
	for _, bin := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kwok"} {
		if _, err := os.Stat(filepath.Join(opts.Bin, bin)); err != nil {
			return nil, fmt.Errorf("%s is missing in %s (make cluster-bins builds the control plane): %w", bin, opts.Bin, err)
		}
	}
	if _, err := os.Stat(opts.SchedulerBinary); err != nil {
		return nil, fmt.Errorf("the scheduler binary (make build, or make build-vanilla): %w", err)
	}
	if err := os.RemoveAll(opts.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(opts.Dir, "logs"), 0o755); err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, procs: map[string]*process{}, args: map[string][]string{}}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	ports, err := freePorts(6)
	if err != nil {
		return nil, err
	}
	etcdPort, etcdPeer, apiPort, schedPort, cmPort, kwokPort := ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]
	adminPort := opts.AdminPort
	if adminPort == 0 {
		if adminPort, err = freePort(); err != nil {
			return nil, err
		}
	}
	c.APIServer = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	c.Admin = "http://127.0.0.1:" + strconv.Itoa(adminPort)
	if opts.Vanilla {
		c.Admin = ""
	}
	c.SchedulerSecure = "https://127.0.0.1:" + strconv.Itoa(schedPort)
	c.Schedulers = []Replica{{Component: "kube-scheduler", Admin: c.Admin, Secure: c.SchedulerSecure}}
	schedPorts := [][2]int{{schedPort, adminPort}}
	for i := 2; i <= opts.Replicas; i++ {
		more, err := freePorts(2)
		if err != nil {
			return nil, err
		}
		schedPorts = append(schedPorts, [2]int{more[0], more[1]})
		c.Schedulers = append(c.Schedulers, Replica{Component: fmt.Sprintf("kube-scheduler-%d", i),
			Admin: "http://127.0.0.1:" + strconv.Itoa(more[1]), Secure: "https://127.0.0.1:" + strconv.Itoa(more[0])})
	}

	p, err := newPKI(filepath.Join(opts.Dir, "pki"))
	if err != nil {
		return nil, err
	}
	serving, err := p.issue("apiserver", "kube-apiserver", nil, []string{"127.0.0.1", "localhost", "10.0.0.1", "kubernetes", "kubernetes.default", "kubernetes.default.svc"})
	if err != nil {
		return nil, err
	}
	frontProxy, err := p.issue("front-proxy-client", "front-proxy-client", nil, nil)
	if err != nil {
		return nil, err
	}
	saKey, err := p.serviceAccountKey()
	if err != nil {
		return nil, err
	}
	kubeconfigs := map[string]string{}
	for _, user := range []struct{ name, cn, org string }{
		{"admin", "kspatch-admin", "system:masters"},
		{"controller-manager", "system:kube-controller-manager", ""},
		{"scheduler", "system:kube-scheduler", ""},
		{"kwok", "kspatch-kwok", "system:masters"},
		{"user", DebugUser, DebugGroup},
	} {
		var orgs []string
		if user.org != "" {
			orgs = []string{user.org}
		}
		kp, err := p.issue(user.name, user.cn, orgs, nil)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(opts.Dir, user.name+".kubeconfig")
		if err := writeKubeconfig(path, c.APIServer, p.caFile(), kp); err != nil {
			return nil, err
		}
		kubeconfigs[user.name] = path
	}
	c.Kubeconfig = kubeconfigs["admin"]
	c.UserKubeconfig = kubeconfigs["user"]

	fmt.Fprintf(opts.Log, "starting etcd on 127.0.0.1:%d\n", etcdPort)
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	if err := c.start("etcd", "--data-dir", filepath.Join(opts.Dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+strconv.Itoa(etcdPeer),
		"--initial-advertise-peer-urls", "http://127.0.0.1:"+strconv.Itoa(etcdPeer),
		"--initial-cluster", "default=http://127.0.0.1:"+strconv.Itoa(etcdPeer),
		"--quota-backend-bytes", strconv.Itoa(2<<30),
		// The data lives as long as the control plane (Start empties Dir):
		// nothing is ever recovered from it, so etcd need not wait for the
		// disk on every write.
		"--unsafe-no-fsync"); err != nil {
		return nil, err
	}

	gates := "DynamicResourceAllocation=true"
	if opts.FeatureGates != "" {
		gates += "," + opts.FeatureGates
	}
	c.gates = gates
	auditPolicy := filepath.Join(opts.Dir, "audit-policy.yaml")
	if err := os.WriteFile(auditPolicy, []byte(auditPolicyYAML), 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Log, "starting kube-apiserver on 127.0.0.1:%d\n", apiPort)
	if err := c.start("kube-apiserver", "--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(apiPort),
		"--tls-cert-file", serving.cert, "--tls-private-key-file", serving.key,
		"--client-ca-file", p.caFile(),
		"--requestheader-client-ca-file", p.caFile(), "--requestheader-allowed-names", "front-proxy-client",
		"--requestheader-username-headers", "X-Remote-User", "--requestheader-group-headers", "X-Remote-Group",
		"--requestheader-extra-headers-prefix", "X-Remote-Extra-",
		"--proxy-client-cert-file", frontProxy.cert, "--proxy-client-key-file", frontProxy.key,
		"--service-account-key-file", saKey, "--service-account-signing-key-file", saKey,
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--authorization-mode", "Node,RBAC",
		// kwok's nodes name their kubelet (kwok's server) by InternalIP
		// (127.0.0.1): port-forwards to their pods go there.
		"--kubelet-preferred-address-types", "InternalIP",
		"--runtime-config", draRuntimeConfig,
		"--feature-gates", gates,
		// Every Binding, with its answer, for the leader-change scenario.
		"--audit-policy-file", auditPolicy, "--audit-log-path", c.AuditLog(),
		"--allow-privileged"); err != nil {
		return nil, err
	}
	if err := c.waitAPIServer(ctx, 90*time.Second); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 500, 1000
	// The v1beta1 DRA API warns of its future deprecation on every call.
	cfg.WarningHandler = rest.NoWarnings{}
	if c.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if c.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	// Both PodGroup APIs: kspatch's own, and the coscheduling one that
	// training operators create (scheduler-plugins' scheduling.x-k8s.io),
	// which the scheduler reads too (CoschedulingPodGroups). Installed
	// before the scheduler starts, whose first look for the coscheduling
	// API then finds it served.
	fmt.Fprintln(opts.Log, "installing the PodGroup CRDs")
	for _, m := range []string{PodGroupCRDManifest, CoschedulingCRDManifest} {
		if err := c.installCRD(ctx, filepath.Join(opts.DeployDir, m)); err != nil {
			return nil, err
		}
	}
	// The scheduler authenticates as system:kube-scheduler under RBAC, like
	// kubeadm's static pod: it reads PodGroups only with the grants an
	// operator applies.
	fmt.Fprintln(opts.Log, "installing the scheduler's PodGroup RBAC")
	for _, m := range []string{PodGroupRBACManifest, CoschedulingRBACManifest} {
		if err := c.applyAll(ctx, filepath.Join(opts.DeployDir, m)); err != nil {
			return nil, err
		}
	}

	fmt.Fprintln(opts.Log, "starting kube-controller-manager")
	if err := c.start("kube-controller-manager", "--kubeconfig", kubeconfigs["controller-manager"],
		"--authentication-kubeconfig", kubeconfigs["controller-manager"],
		"--authorization-kubeconfig", kubeconfigs["controller-manager"],
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(cmPort),
		"--leader-elect=false", "--use-service-account-credentials=true",
		"--service-account-private-key-file", saKey, "--root-ca-file", p.caFile(),
		"--cluster-signing-cert-file", p.caFile(),
		"--controllers", controllers(opts),
		"--feature-gates", gates); err != nil {
		return nil, err
	}

	fmt.Fprintln(opts.Log, "starting kwok (fake nodes)")
	kwokConfig := filepath.Join(opts.Dir, "kwok.yaml")
	if err := os.WriteFile(kwokConfig, []byte(kwokPortForwards(schedPort, cmPort)), 0o644); err != nil {
		return nil, err
	}
	if err := c.start("kwok", "--kubeconfig", kubeconfigs["kwok"], "--config", kwokConfig,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector", KwokNodeAnnotation+"=fake",
		// Node leases renewed by kwok keep the node lifecycle controller from
		// marking the fake nodes NotReady (and tainting them) between kwok's
		// status updates.
		"--node-lease-duration-seconds=40",
		// The nodes' kubelet is kwok's server, at 127.0.0.1 and kwokPort,
		// which serves port-forwards as kwokPortForwards says.
		"--cidr", "10.244.0.0/16", "--node-ip", "127.0.0.1", "--node-port", strconv.Itoa(kwokPort),
		"--server-address", "127.0.0.1:"+strconv.Itoa(kwokPort)); err != nil {
		return nil, err
	}

	if opts.Vanilla {
		fmt.Fprintf(opts.Log, "starting the vanilla kube-scheduler %s (secure port %s)\n", opts.SchedulerBinary, c.SchedulerSecure)
	} else {
		fmt.Fprintf(opts.Log, "starting the patched kube-scheduler (admin API %s)\n", c.Admin)
	}
	// The flags of the drop-in static pod, with the node's kubeconfig path
	// replaced by the local one. Then what a local process needs instead of
	// a pod: its own ports, a certificate directory, and no leader election
	// (a static pod that loses its lease while the API server restarts exits
	// and is restarted by the kubelet; there is no kubelet here).
	manifestFlags, err := StaticPodFlags(manifest, map[string]string{"/etc/kubernetes/scheduler.conf": kubeconfigs["scheduler"]})
	if err != nil {
		return nil, err
	}
	for _, f := range manifestFlags {
		if strings.Contains(f, "=/etc/") {
			return nil, fmt.Errorf("%s: flag %s names a node path the local control plane does not replace", manifest, f)
		}
	}
	for i, r := range c.Schedulers {
		args := slices.Clone(manifestFlags)
		if len(c.Schedulers) == 1 && !opts.LeaderElection {
			args = append(args, "--leader-elect=false")
		}
		certDir := c.schedulerCertDir()
		if i > 0 {
			certDir += "-" + strconv.Itoa(i+1)
		}
		args = append(args,
			"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(schedPorts[i][0]),
			"--cert-dir="+certDir)
		if !opts.Vanilla {
			args = append(args, "--admin-address=127.0.0.1", "--admin-port="+strconv.Itoa(schedPorts[i][1]))
		}
		args = append(args, "--feature-gates="+gates)
		args = append(args, opts.SchedulerArgs...)
		if err := c.startBinary(r.Component, opts.SchedulerBinary, args...); err != nil {
			return nil, err
		}
	}
	for _, r := range c.Schedulers {
		health := r.Admin + "/healthz"
		if opts.Vanilla {
			health = r.Secure + "/healthz"
		}
		if err := c.waitHTTP(ctx, r.Component, health, 60*time.Second); err != nil {
			return nil, err
		}
	}
	if err := c.waitDefaultServiceAccount(ctx, 60*time.Second); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops every component (extra ones such as a second scheduler or
// Prometheus first, then the scheduler, etcd last) and waits for them to
// exit.
func (c *Cluster) Stop() {
	order := []string{"kube-scheduler", "kwok", "kube-controller-manager", "kube-apiserver", "etcd"}
	c.mu.Lock()
	c.stopping = true
	var extra []string
	for name := range c.procs {
		if !slices.Contains(order, name) {
			extra = append(extra, name)
		}
	}
	c.mu.Unlock()
	for _, name := range append(extra, order...) {
		c.stopProcess(name)
	}
}

// LogTail returns the last n lines of a component's log.
func (c *Cluster) LogTail(component string, n int) string {
	return tail(c.Logs(component), n)
}

// Logs returns the path of a component's log.
func (c *Cluster) Logs(component string) string {
	return filepath.Join(c.opts.Dir, "logs", component+".log")
}

// AuditLog is the path of the API server's audit log: one JSON event per
// Binding (pods/binding create), with its response code.
func (c *Cluster) AuditLog() string { return filepath.Join(c.opts.Dir, "logs", "audit.log") }

// auditPolicyYAML records the Bindings only, at the Metadata level (who,
// which pod, the answer's code), once each when the response is sent.
const auditPolicyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
  verbs: ["create"]
  resources:
  - group: ""
    resources: ["pods/binding"]
- level: None
`

// Signal sends sig to a component and waits until it exits (up to a
// minute); the exit is expected, not reported as a death. It returns how
// the component ended.
func (c *Cluster) Signal(name string, sig syscall.Signal) (Exit, error) {
	c.mu.Lock()
	p := c.procs[name]
	delete(c.procs, name)
	c.mu.Unlock()
	if p == nil {
		return Exit{}, fmt.Errorf("%s is not running", name)
	}
	p.stopped.Store(true)
	if err := p.cmd.Process.Signal(sig); err != nil {
		return Exit{}, fmt.Errorf("signalling %s: %w", name, err)
	}
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		_ = p.cmd.Process.Kill()
		<-p.done
		return Exit{}, fmt.Errorf("%s did not exit within a minute of %v; killed", name, sig)
	}
	e := Exit{Component: name, Code: -1, Log: c.Logs(name), Status: fmt.Sprint(p.err), At: time.Now()}
	if st := p.cmd.ProcessState; st != nil {
		e.Status, e.Code = st.String(), st.ExitCode()
	}
	return e, nil
}

// Restart starts a component that was stopped by Signal again, with the
// flags it was first given; for a scheduler replica, it waits until its
// admin API answers.
func (c *Cluster) Restart(ctx context.Context, name string) error {
	c.mu.Lock()
	args, running := c.args[name], c.procs[name] != nil
	c.mu.Unlock()
	if running {
		return fmt.Errorf("%s is running", name)
	}
	if len(args) == 0 {
		return fmt.Errorf("%s was never started", name)
	}
	if err := c.startBinary(name, args[0], args[1:]...); err != nil {
		return err
	}
	for _, r := range c.Schedulers {
		if r.Component == name {
			return c.waitHTTP(ctx, name, r.Admin+"/healthz", 60*time.Second)
		}
	}
	return nil
}

// RestartAPIServer stops the API server, starts it again with the same
// flags and waits until it is ready.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	c.stopProcess("kube-apiserver")
	c.mu.Lock()
	args := c.args["kube-apiserver"]
	c.mu.Unlock()
	if err := c.startBinary("kube-apiserver", args[0], args[1:]...); err != nil {
		return err
	}
	return c.waitAPIServer(ctx, 90*time.Second)
}

// process is one running component.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  *os.File
	// stopped is set before the harness signals the process, so that its
	// exit is not reported as unexpected.
	stopped atomic.Bool
}

func (c *Cluster) start(name string, args ...string) error {
	return c.startBinary(name, filepath.Join(c.opts.Bin, name), args...)
}

// startBinary runs binary as the component name, logging to its log.
func (c *Cluster) startBinary(name, binary string, args ...string) error {
	log, err := os.OpenFile(c.Logs(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: a Ctrl-C in the terminal reaches the harness,
	// which stops the components in order.
	// If the harness dies without stopping them, the kernel kills them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{}), log: log}
	go func() {
		p.err = cmd.Wait()
		_ = log.Close()
		close(p.done)
		if !p.stopped.Load() {
			c.died(name, p)
		}
	}()
	c.mu.Lock()
	c.procs[name] = p
	c.args[name] = append([]string{binary}, args...)
	c.mu.Unlock()
	return nil
}

func (c *Cluster) stopProcess(name string) {
	c.mu.Lock()
	p := c.procs[name]
	delete(c.procs, name)
	c.mu.Unlock()
	if p == nil {
		return
	}
	p.stopped.Store(true)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// died reports a component that exited without being stopped: at once, to
// the progress log (name, exit status, the path of its log and its last
// lines), then to Options.OnExit.
func (c *Cluster) died(name string, p *process) {
	c.mu.Lock()
	stopping := c.stopping
	c.mu.Unlock()
	if stopping {
		return
	}
	e := Exit{Component: name, Code: -1, Log: c.Logs(name)}
	if st := p.cmd.ProcessState; st != nil {
		e.Status, e.Code = st.String(), st.ExitCode()
	} else {
		e.Status = fmt.Sprint(p.err)
	}
	last := tail(e.Log, 5)
	if strings.TrimSpace(last) == "" {
		last = "(empty)"
	}
	fmt.Fprintf(c.opts.Log, "%v, which ends:\n    %s\n", e, strings.ReplaceAll(last, "\n", "\n    "))
	if c.opts.OnExit != nil {
		c.opts.OnExit(e)
	}
}

// exited returns an error naming the first component that is no longer
// running, with the end of its log.
func (c *Cluster) exited() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, p := range c.procs {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", name, p.err, c.Logs(name), tail(c.Logs(name), 15))
		default:
		}
	}
	return nil
}

func (c *Cluster) waitAPIServer(ctx context.Context, timeout time.Duration) error {
	return c.waitHTTP(ctx, "kube-apiserver", c.APIServer+"/readyz", timeout)
}

// waitHTTP polls url until it answers 200, a component exits, or timeout.
func (c *Cluster) waitHTTP(ctx context.Context, what, url string, timeout time.Duration) error {
	client, err := c.httpClient()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if err := c.exited(); err != nil {
			return err
		}
		resp, err := client.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		last = err
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s (%s: %v); see %s", what, timeout, url, last, c.Logs(what))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// httpClient authenticates as the cluster admin.
func (c *Cluster) httpClient() (*http.Client, error) {
	pkiDir := filepath.Join(c.opts.Dir, "pki")
	cert, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "admin.crt"), filepath.Join(pkiDir, "admin.key"))
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		Certificates:       []tls.Certificate{cert},
		InsecureSkipVerify: true, // loopback, our own CA; kubeconfigs verify it
	}}}, nil
}

func (c *Cluster) waitDefaultServiceAccount(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := c.exited(); err != nil {
			return err
		}
		if _, err := c.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the controller manager did not create the default service account within %s; see %s", timeout, c.Logs("kube-controller-manager"))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// writeKubeconfig writes a kubeconfig for a client certificate.
func writeKubeconfig(path, server, ca string, kp keyPair) error {
	return writeKubeconfigFor(path, server, ca, fmt.Sprintf("client-certificate: %s\n    client-key: %s", kp.cert, kp.key))
}

// writeKubeconfigFor writes a kubeconfig whose user has the given
// credentials (YAML fields under user:).
func writeKubeconfigFor(path, server, ca, credentials string) error {
	return os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kspatch
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: user
  user:
    %s
contexts:
- name: kspatch
  context:
    cluster: kspatch
    user: user
current-context: kspatch
`, server, ca, credentials)), 0o600)
}

func freePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// freePorts returns n distinct TCP ports nothing listens on right now.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// controllers is kube-controller-manager's --controllers for opts.
func controllers(opts Options) string {
	if opts.NoNodeLifecycle {
		return "*,-node-lifecycle-controller"
	}
	return "*"
}
