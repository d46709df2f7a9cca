package cluster

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// BindingCall is one Binding the API server answered, from its audit log.
type BindingCall struct {
	Namespace, Pod string
	// Code is the HTTP status of the answer: 201 bound, 409 the pod was
	// already bound, …
	Code int
	// At is when the API server answered.
	At time.Time
}

// auditEvent is the part of an audit.k8s.io/v1 Event the scenarios read.
type auditEvent struct {
	Stage     string `json:"stage"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// Bindings returns the Bindings of pods in namespace that the API server
// answered, in the order of its audit log.
func (c *Cluster) Bindings(namespace string) ([]BindingCall, error) {
	f, err := os.Open(c.AuditLog())
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []BindingCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for line := 1; sc.Scan(); line++ {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", c.AuditLog(), line, err)
		}
		if e.Stage != "ResponseComplete" || e.ObjectRef == nil || e.ObjectRef.Resource != "pods" || e.ObjectRef.Subresource != "binding" || e.ObjectRef.Namespace != namespace {
			continue
		}
		code := 0
		if e.ResponseStatus != nil {
			code = e.ResponseStatus.Code
		}
		out = append(out, BindingCall{Namespace: namespace, Pod: e.ObjectRef.Name, Code: code, At: e.StageTimestamp})
	}
	return out, sc.Err()
}
