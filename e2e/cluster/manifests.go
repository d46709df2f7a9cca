package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// The manifests in scheduler/deploy that the control plane uses, so that
// what operators install is what the end-to-end tests run.
const (
	// StaticPodManifest is the kubeadm static pod: the harness runs the
	// scheduler with its container's flags.
	StaticPodManifest = "kube-scheduler.yaml"
	// SecondSchedulerManifest installs kspatch as a second scheduler.
	SecondSchedulerManifest = "second-scheduler.yaml"
	// PodGroupCRDManifest is the PodGroup CustomResourceDefinition.
	PodGroupCRDManifest = "podgroup-crd.yaml"
	// PodGroupRBACManifest grants the static pod's user
	// (system:kube-scheduler) access to PodGroups.
	PodGroupRBACManifest = "podgroup-rbac.yaml"
	// CoschedulingCRDManifest is the coscheduling PodGroup
	// CustomResourceDefinition (scheduling.x-k8s.io), for clusters without
	// scheduler-plugins' own.
	CoschedulingCRDManifest = "coscheduling-crd.yaml"
	// CoschedulingRBACManifest grants the static pod's user access to
	// coscheduling PodGroups.
	CoschedulingRBACManifest = "coscheduling-rbac.yaml"
)

// ReadManifest decodes every object of a multi-document YAML file.
func ReadManifest(path string) ([]runtime.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, len(objs)+1, err)
		}
		objs = append(objs, obj)
	}
}

func stripComments(doc []byte) []byte {
	var out bytes.Buffer
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			out.WriteString(line + "\n")
		}
	}
	return out.Bytes()
}

// SchedulerContainer returns the kube-scheduler container of a Pod or
// Deployment object.
func SchedulerContainer(obj runtime.Object) (*v1.Container, bool) {
	var spec *v1.PodSpec
	switch o := obj.(type) {
	case *v1.Pod:
		spec = &o.Spec
	case *appsv1.Deployment:
		spec = &o.Spec.Template.Spec
	default:
		return nil, false
	}
	for i := range spec.Containers {
		if spec.Containers[i].Name == "kube-scheduler" {
			return &spec.Containers[i], true
		}
	}
	return nil, false
}

// StaticPodFlags returns the flags the static pod manifest at path passes
// to kube-scheduler, with each file path in paths replaced by its value.
func StaticPodFlags(path string, paths map[string]string) ([]string, error) {
	objs, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		if ctr, ok := SchedulerContainer(obj); ok {
			return containerFlags(ctr, paths), nil
		}
	}
	return nil, fmt.Errorf("%s has no kube-scheduler container", path)
}

// containerFlags returns the container's command and args after the
// binary's name, with file paths replaced.
func containerFlags(ctr *v1.Container, paths map[string]string) []string {
	all := append(append([]string{}, ctr.Command...), ctr.Args...)
	if len(all) > 0 && !strings.HasPrefix(all[0], "-") {
		all = all[1:]
	}
	flags := make([]string, 0, len(all))
	for _, f := range all {
		for from, to := range paths {
			f = strings.ReplaceAll(f, "="+from, "="+to)
		}
		flags = append(flags, f)
	}
	return flags
}

// Apply creates the RBAC objects, service accounts and config maps among
// objs; every other object (a Deployment needs a kubelet the local control
// plane does not have) is returned for the caller to use.
func (c *Cluster) Apply(ctx context.Context, objs []runtime.Object) ([]runtime.Object, error) {
	var rest []runtime.Object
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *v1.ServiceAccount:
			_, err = c.Client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *v1.ConfigMap:
			_, err = c.Client.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = c.Client.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = c.Client.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = c.Client.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = c.Client.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		default:
			rest = append(rest, obj)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("creating %T %s: %w", obj, objectName(obj), err)
		}
	}
	return rest, nil
}

func objectName(obj runtime.Object) string {
	if m, ok := obj.(metav1.Object); ok {
		if m.GetNamespace() != "" {
			return m.GetNamespace() + "/" + m.GetName()
		}
		return m.GetName()
	}
	return "?"
}

// applyAll creates every object of the manifest at path; it fails on an
// object Apply does not create.
func (c *Cluster) applyAll(ctx context.Context, path string) error {
	objs, err := ReadManifest(path)
	if err != nil {
		return err
	}
	rest, err := c.Apply(ctx, objs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(rest) > 0 {
		return fmt.Errorf("%s: %T %s is not an object the local control plane applies", path, rest[0], objectName(rest[0]))
	}
	return nil
}
