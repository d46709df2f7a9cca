package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// namespaceRefusal is in the admin API's 403 for a namespace the caller
// may not read (adminapi's forbiddenMessage).
const namespaceRefusal = "forbidden: the admin API shows namespace"

// grantPortForward says which binding lets a user reach the scheduler pod.
func grantPortForward(namespace string) string {
	return fmt.Sprintf("bind the ClusterRole kspatch:debug-portforward to your user or group in %s, as the RoleBinding kspatch:debug-portforward of scheduler/deploy/debug-rbac.yaml does for the group kspatch:debuggers", namespace)
}

// forwardErrors keeps the last error client-go's port-forward reports
// through utilruntime.HandleError (a refused connection inside the pod,
// say), which it would otherwise log as "Unhandled Error" while the HTTP
// request sees only EOF. init installs it.
var forwardErrors = &errorRecorder{}

func init() {
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{forwardErrors.handle}
}

type errorRecorder struct {
	mu  sync.Mutex
	err error
}

func (r *errorRecorder) handle(_ context.Context, err error, _ string, _ ...interface{}) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

// last returns the last recorded error, or nil.
func (r *errorRecorder) last() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// notAnswered explains a request through the port-forward that got no
// HTTP answer: nothing listens on port in the pod (forwardErr, if the
// port-forward reported why), or the connection broke (err).
func notAnswered(pod *v1.Pod, port int, forwardErr, err error) error {
	var b strings.Builder
	if forwardErr == nil && answeredOtherwise(err) {
		// A server is there, but not an HTTPS one that takes the request
		// (the plain admin listener, another component's port).
		fmt.Fprintf(&b, "port %d of pod %s/%s answered, but not as the scheduler's secure port (%v)", port, pod.Namespace, pod.Name, err)
	} else {
		fmt.Fprintf(&b, "nothing answered on port %d of pod %s/%s", port, pod.Namespace, pod.Name)
	}
	switch {
	case forwardErr == nil && answeredOtherwise(err):
	case forwardErr != nil:
		fmt.Fprintf(&b, ": the port-forward reached the pod but not a server (%v)", forwardErr)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.HasSuffix(err.Error(), "EOF"):
		b.WriteString(": the port-forward reached the pod and the connection closed without an answer; usually nothing listens on that port")
	default:
		fmt.Fprintf(&b, ": %v", err)
	}
	b.WriteString(".\nThe scheduler serves /debug/kspatch on its secure port, the --secure-port flag (10259 by default)")
	if p, ok := securePort(pod); ok {
		if p == port {
			fmt.Fprintf(&b, "; this pod's command line sets --secure-port=%d: is the scheduler running?", p)
		} else {
			fmt.Fprintf(&b, "; this pod's command line sets --secure-port=%d: try --scheduler-port %d", p, p)
		}
	} else if port != 10259 {
		b.WriteString("; this pod's command line does not set it: try --scheduler-port 10259")
	}
	return errors.New(b.String())
}

// answeredOtherwise tells the errors of a request that reached a server
// which is not an HTTPS server accepting it: plain HTTP, or a TLS failure.
func answeredOtherwise(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "server gave HTTP response to HTTPS client") || strings.Contains(msg, "tls:") ||
		strings.Contains(msg, "x509:") || strings.Contains(msg, "first record does not look like a TLS handshake")
}

// securePort returns the --secure-port a container of pod is started with.
func securePort(pod *v1.Pod) (int, bool) {
	for _, c := range pod.Spec.Containers {
		args := append(append([]string(nil), c.Command...), c.Args...)
		for i, a := range args {
			v, ok := strings.CutPrefix(a, "--secure-port=")
			if !ok && a == "--secure-port" && i+1 < len(args) {
				v, ok = args[i+1], true
			}
			if !ok {
				continue
			}
			if p, err := strconv.Atoi(v); err == nil {
				return p, true
			}
		}
	}
	return 0, false
}
