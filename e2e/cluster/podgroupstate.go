package cluster

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// PodGroupState is what the scheduler wrote on a PodGroup: status.scheduled
// and the PodGroupScheduled condition (empty strings when there is none),
// and how many conditions there are.
type PodGroupState struct {
	Scheduled               int64
	Status, Reason, Message string
	Conditions              int
}

func (s PodGroupState) String() string {
	return fmt.Sprintf("scheduled=%d, PodGroupScheduled=%q reason %q (%d conditions): %s", s.Scheduled, s.Status, s.Reason, s.Conditions, s.Message)
}

// PodGroupState reads the state of the PodGroup namespace/name.
func (c *Cluster) PodGroupState(ctx context.Context, namespace, name string) (PodGroupState, error) {
	pg, err := c.Dynamic.Resource(PodGroupResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return PodGroupState{}, err
	}
	var s PodGroupState
	s.Scheduled, _, _ = unstructured.NestedInt64(pg.Object, "status", "scheduled")
	conds, _, _ := unstructured.NestedSlice(pg.Object, "status", "conditions")
	s.Conditions = len(conds)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "PodGroupScheduled" {
			s.Status, _ = m["status"].(string)
			s.Reason, _ = m["reason"].(string)
			s.Message, _ = m["message"].(string)
		}
	}
	return s, nil
}

// WaitPodGroupState polls the PodGroup namespace/name every 250ms until ok
// accepts its state (the scheduler writes PodGroup status asynchronously),
// and returns that state; after timeout, the last state read and an error
// that shows it.
func (c *Cluster) WaitPodGroupState(ctx context.Context, namespace, name string, timeout time.Duration, ok func(PodGroupState) bool) (PodGroupState, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := c.PodGroupState(ctx, namespace, name)
		if err == nil && ok(s) {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("PodGroup %s/%s after %s: %v (err %v)", namespace, name, timeout, s, err)
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
