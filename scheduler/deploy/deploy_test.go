// Package deploy holds the manifests that install kspatch; its tests check
// them against what they claim to be.
package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	kubeadmconstants "k8s.io/kubernetes/cmd/kubeadm/app/constants"
	"k8s.io/kubernetes/cmd/kubeadm/app/phases/controlplane"
	configutil "k8s.io/kubernetes/cmd/kubeadm/app/util/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

func decode(t *testing.T, path string) []runtime.Object {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	reader := utilyaml.NewDocumentDecoder(f)
	var objs []runtime.Object
	buf := make([]byte, 1<<20)
	for {
		n, err := reader.Read(buf)
		if err != nil {
			break
		}
		doc := buf[:n]
		if strings.TrimSpace(stripComments(string(doc))) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

func stripComments(doc string) string {
	var out []string
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestStaticPodIsKubeadms checks that kube-scheduler.yaml is the static pod
// kubeadm v1.33.13 writes, with only the image changed: kubeadm's own
// manifest generator (from the pinned tree) is the reference.
func TestStaticPodIsKubeadms(t *testing.T) {
	// kubeadm copies proxy variables of its environment into the pod.
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		t.Setenv(v, "")
		_ = os.Unsetenv(v)
	}
	cfg, err := configutil.DefaultedStaticInitConfiguration()
	if err != nil {
		t.Fatal(err)
	}
	want := controlplane.GetStaticPodSpecs(&cfg.ClusterConfiguration, &cfg.LocalAPIEndpoint, nil)[kubeadmconstants.KubeScheduler]

	objs := decode(t, "kube-scheduler.yaml")
	if len(objs) != 1 {
		t.Fatalf("kube-scheduler.yaml has %d objects, want one Pod", len(objs))
	}
	got, ok := objs[0].(*v1.Pod)
	if !ok {
		t.Fatalf("kube-scheduler.yaml holds a %T, want a Pod", objs[0])
	}
	if img := got.Spec.Containers[0].Image; img != "IMAGE" {
		t.Errorf("the image is %q, want the placeholder IMAGE the comment tells operators to replace", img)
	}
	got = got.DeepCopy()
	got.Spec.Containers[0].Image = want.Spec.Containers[0].Image
	// The generator leaves TypeMeta to its YAML writer.
	want.TypeMeta = got.TypeMeta
	if diff := cmp.Diff(&want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("kube-scheduler.yaml differs from kubeadm's static pod beyond the image (-kubeadm +ours):\n%s", diff)
	}
}

// TestSecondScheduler checks second-scheduler.yaml: its configuration loads
// and validates as kube-scheduler loads it, the Deployment mounts it where
// --config points, and the RBAC covers the lease the configuration elects on.
func TestSecondScheduler(t *testing.T) {
	objs := decode(t, "second-scheduler.yaml")
	var (
		dep  *appsv1.Deployment
		cm   *v1.ConfigMap
		role *rbacv1.Role
	)
	for _, obj := range objs {
		switch o := obj.(type) {
		case *appsv1.Deployment:
			dep = o
		case *v1.ConfigMap:
			cm = o
		case *rbacv1.Role:
			if strings.HasSuffix(o.Name, "leader-election") {
				role = o
			}
		}
	}
	if dep == nil || cm == nil || role == nil {
		t.Fatalf("second-scheduler.yaml lacks the Deployment, ConfigMap or leader-election Role")
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	var configPath string
	for _, arg := range ctr.Command {
		if v, ok := strings.CutPrefix(arg, "--config="); ok {
			configPath = v
		}
	}
	if len(ctr.VolumeMounts) != 1 || !strings.HasPrefix(configPath, ctr.VolumeMounts[0].MountPath+"/") {
		t.Fatalf("--config=%s is not under the ConfigMap's mount %v", configPath, ctr.VolumeMounts)
	}
	key := strings.TrimPrefix(configPath, ctr.VolumeMounts[0].MountPath+"/")
	data, ok := cm.Data[key]
	if !ok {
		t.Fatalf("ConfigMap %s has no key %q for --config", cm.Name, key)
	}
	file := filepath.Join(t.TempDir(), key)
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), file)
	if err != nil {
		t.Fatalf("kube-scheduler cannot load the configuration: %v", err)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("the configuration does not validate: %v", err)
	}
	if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "kspatch-scheduler" {
		t.Errorf("profiles %+v, want one named kspatch-scheduler", cfg.Profiles)
	}
	le := cfg.LeaderElection
	if !le.LeaderElect || le.ResourceNamespace != role.Namespace {
		t.Errorf("leader election %+v: want on, in the Role's namespace %s", le, role.Namespace)
	}
	covered := false
	for _, rule := range role.Rules {
		if slices.Contains(rule.Resources, "leases") && slices.Contains(rule.ResourceNames, le.ResourceName) &&
			slices.Contains(rule.Verbs, "get") && slices.Contains(rule.Verbs, "update") {
			covered = true
		}
	}
	if !covered {
		t.Errorf("Role %s does not allow get and update of lease %s", role.Name, le.ResourceName)
	}
}
