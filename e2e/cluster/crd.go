package cluster

import (
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installCRD creates a CustomResourceDefinition from a one-document manifest
// and waits until the API server serves it.
func (c *Cluster) installCRD(ctx context.Context, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var obj map[string]any
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	crd := &unstructured.Unstructured{Object: obj}
	if _, err := c.Dynamic.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the CRD in %s: %w", path, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := c.Dynamic.Resource(crdResource).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err == nil && established(got) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("CRD %s is not established after 30s (last error %v)", crd.GetName(), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
