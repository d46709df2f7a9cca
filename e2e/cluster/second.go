package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// SecondScheduler is kspatch installed next to the default scheduler from
// scheduler/deploy/second-scheduler.yaml.
type SecondScheduler struct {
	// SchedulerName is the profile's schedulerName pods opt in with.
	SchedulerName string
	// LeaseNamespace and LeaseName locate its leader-election lease.
	LeaseNamespace, LeaseName string
	// Admin is the base URL of its admin API.
	Admin string
}

// StartSecondScheduler installs second-scheduler.yaml the way a kubelet
// would run it: it creates the manifest's ServiceAccount, RBAC and
// ConfigMap, mounts the ConfigMap's files where the Deployment does (a local
// directory here), gives the scheduler the service account's token (a
// TokenRequest, as the projected token of the pod), and runs kube-scheduler
// with the Deployment's command. The only changes are the ones a local
// process needs: the config's clientConnection points at a kubeconfig with
// that token instead of the in-cluster one, and the ports are free loopback
// ports.
func (c *Cluster) StartSecondScheduler(ctx context.Context) (*SecondScheduler, error) {
	manifest := filepath.Join(c.opts.DeployDir, SecondSchedulerManifest)
	objs, err := ReadManifest(manifest)
	if err != nil {
		return nil, err
	}
	rest, err := c.Apply(ctx, objs)
	if err != nil {
		return nil, err
	}
	var dep *appsv1.Deployment
	for _, obj := range rest {
		if d, ok := obj.(*appsv1.Deployment); ok {
			dep = d
		}
	}
	if dep == nil {
		return nil, fmt.Errorf("%s has no Deployment", manifest)
	}
	ctr, ok := SchedulerContainer(dep)
	if !ok {
		return nil, fmt.Errorf("%s: the Deployment has no kube-scheduler container", manifest)
	}
	dir := filepath.Join(c.opts.Dir, "second-scheduler")

	// The ConfigMap volumes, as local directories.
	paths := map[string]string{}
	for _, m := range ctr.VolumeMounts {
		vol := volume(dep.Spec.Template.Spec.Volumes, m.Name)
		if vol == nil || vol.ConfigMap == nil {
			return nil, fmt.Errorf("%s: volume %q is not a ConfigMap; the local control plane mounts only those", manifest, m.Name)
		}
		cm := configMap(objs, dep.Namespace, vol.ConfigMap.Name)
		if cm == nil {
			return nil, fmt.Errorf("%s: ConfigMap %s/%s of volume %q is not in the manifest", manifest, dep.Namespace, vol.ConfigMap.Name, m.Name)
		}
		local := filepath.Join(dir, "volumes", m.Name)
		if err := os.MkdirAll(local, 0o755); err != nil {
			return nil, err
		}
		for key, value := range cm.Data {
			if err := os.WriteFile(filepath.Join(local, key), []byte(value), 0o644); err != nil {
				return nil, err
			}
		}
		paths[m.MountPath] = local
	}
	flags := containerFlags(ctr, paths)
	configFile := flagValue(flags, "--config")
	if configFile == "" {
		return nil, fmt.Errorf("%s: the kube-scheduler command has no --config", manifest)
	}

	// The service account's credentials, as the pod would have them.
	sa := dep.Spec.Template.Spec.ServiceAccountName
	tok, err := c.Client.CoreV1().ServiceAccounts(dep.Namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("a token for service account %s/%s: %w", dep.Namespace, sa, err)
	}
	kubeconfig := filepath.Join(dir, "serviceaccount.kubeconfig")
	if err := writeKubeconfigFor(kubeconfig, c.APIServer, filepath.Join(c.opts.Dir, "pki", "ca.crt"), "token: "+tok.Status.Token); err != nil {
		return nil, err
	}
	s, err := pointConfigAt(configFile, kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifest, err)
	}

	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	s.Admin = "http://127.0.0.1:" + strconv.Itoa(ports[1])
	flags = append(flags,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(ports[0]),
		"--admin-address=127.0.0.1", "--admin-port="+strconv.Itoa(ports[1]),
		"--feature-gates="+c.gates)
	fmt.Fprintf(c.opts.Log, "starting the second scheduler %q (admin API %s)\n", s.SchedulerName, s.Admin)
	if err := c.startBinary(SecondSchedulerComponent, filepath.Join(c.opts.Bin, "kube-scheduler"), flags...); err != nil {
		return nil, err
	}
	if err := c.waitHTTP(ctx, SecondSchedulerComponent, s.Admin+"/healthz", 60*time.Second); err != nil {
		return nil, err
	}
	return s, nil
}

// SecondSchedulerComponent names the second scheduler's process and log.
const SecondSchedulerComponent = "kspatch-scheduler"

// pointConfigAt rewrites the KubeSchedulerConfiguration in path to use
// kubeconfig and returns what it says about the scheduler.
func pointConfigAt(path, kubeconfig string) (*SecondScheduler, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("the scheduler configuration: %w", err)
	}
	if cc, ok := cfg["clientConnection"].(map[string]any); ok && cc["kubeconfig"] != nil {
		return nil, fmt.Errorf("the scheduler configuration sets clientConnection.kubeconfig; the in-cluster config is expected")
	}
	cc, _ := cfg["clientConnection"].(map[string]any)
	if cc == nil {
		cc = map[string]any{}
	}
	cc["kubeconfig"] = kubeconfig
	cfg["clientConnection"] = cc
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return nil, err
	}

	var typed struct {
		Profiles []struct {
			SchedulerName string `json:"schedulerName"`
		} `json:"profiles"`
		LeaderElection struct {
			ResourceNamespace string `json:"resourceNamespace"`
			ResourceName      string `json:"resourceName"`
		} `json:"leaderElection"`
	}
	if err := yaml.Unmarshal(data, &typed); err != nil {
		return nil, err
	}
	if len(typed.Profiles) == 0 || typed.Profiles[0].SchedulerName == "" {
		return nil, fmt.Errorf("the scheduler configuration names no profile schedulerName")
	}
	return &SecondScheduler{
		SchedulerName:  typed.Profiles[0].SchedulerName,
		LeaseNamespace: typed.LeaderElection.ResourceNamespace,
		LeaseName:      typed.LeaderElection.ResourceName,
	}, nil
}

func volume(vols []v1.Volume, name string) *v1.Volume {
	for i := range vols {
		if vols[i].Name == name {
			return &vols[i]
		}
	}
	return nil
}

func configMap(objs []runtime.Object, namespace, name string) *v1.ConfigMap {
	for _, obj := range objs {
		if cm, ok := obj.(*v1.ConfigMap); ok && cm.Namespace == namespace && cm.Name == name {
			return cm
		}
	}
	return nil
}

// flagValue returns the value of --name=value among flags.
func flagValue(flags []string, name string) string {
	for _, f := range flags {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}
