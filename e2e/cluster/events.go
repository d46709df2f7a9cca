package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventMatch selects events (events.k8s.io) for WaitEvent.
type EventMatch struct {
	// Kind and Name are those of the object the event is regarding; an
	// empty Kind matches any.
	Kind, Name string
	// Reason is the event's reason.
	Reason string
	// Note is a part of the event's note.
	Note string
}

// WaitEvent polls the events of namespace every 500ms until one matches m
// and returns its note. After timeout it returns an error that lists the
// reasons and notes of the object's events.
func (c *Cluster) WaitEvent(ctx context.Context, namespace string, m EventMatch, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		list, err := c.Client.EventsV1().Events(namespace).List(ctx, metav1.ListOptions{})
		var seen []string
		if err == nil {
			for _, ev := range list.Items {
				if (m.Kind != "" && ev.Regarding.Kind != m.Kind) || ev.Regarding.Name != m.Name {
					continue
				}
				seen = append(seen, ev.Reason+": "+ev.Note)
				if ev.Reason == m.Reason && strings.Contains(ev.Note, m.Note) {
					return ev.Note, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no event %s %q on %s %s after %s (err %v); its events: %q", m.Reason, m.Note, m.Kind, m.Name, timeout, err, seen)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
