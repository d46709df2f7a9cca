// Command kubectl-kspatch is a kubectl plugin (`kubectl kspatch ...`) that
// reads the kspatch scheduler's admin API from a workstation, with nothing
// but the user's kubeconfig:
//
//	kubectl kspatch why pod/NAME        why a pod is pending
//	kubectl kspatch why podgroup/NAME   why a pod group is pending, and what would make it fit
//	kubectl kspatch queue               the scheduling queue and its pod groups
//	kubectl kspatch apicalls            the scheduler's pending API calls
//	kubectl kspatch convert -f FILE     rewrite pod groups for upstream's
//	                                    scheduling.k8s.io/v1beta1 API, or back
//
// It finds the kube-scheduler pod in kube-system (the leader, when the
// scheduler's lease names it), opens a port-forward to the scheduler's
// secure port (10259) through the API server, and sends the request there
// under /debug/kspatch/ with the kubeconfig's credentials: the scheduler
// authenticates and authorizes the user against the API server, as it does
// for /metrics. See docs/admin-api.md ("From a workstation") for the RBAC.
//
// convert works offline, on manifests (convert_cmd.go; docs/migration.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
)

const usage = `kubectl kspatch: read the kspatch scheduler's admin API.

Usage:
  kubectl kspatch why pod/NAME [-n NAMESPACE] [-o text|json]
  kubectl kspatch why podgroup/NAME [-n NAMESPACE] [-o text|json]
  kubectl kspatch queue [-n NAMESPACE] [-o text|json]
  kubectl kspatch apicalls [-o text|json]
  kubectl kspatch convert [-f FILE|-] [--to upstream|kspatch] (offline; convert --help)

The scheduler is reached through a port-forward to its pod, with the
credentials of your kubeconfig. You see the pods of the namespaces where
you may get pods; the others are left out, and the output says so.

Exit status: 0 the answer was printed; 1 the cluster, the scheduler or its
admin API refused or failed (the message says which and what to do);
2 a usage error (unknown command, flag, argument or output format).

Flags:
`

// Exit statuses (documented in usage).
const (
	exitFailed = 1
	exitUsage  = 2
)

// options are the command line: the request and how to reach the scheduler.
type options struct {
	kubeconfig, context, namespace, output string
	// schedulerNamespace, schedulerSelector and schedulerPod find the
	// scheduler's pod; schedulerPort is its secure port.
	schedulerNamespace, schedulerSelector, schedulerPod string
	schedulerPort                                       int
	timeout                                             time.Duration
	// namespaceSet tells whether -n was given (queue lists every namespace
	// without it).
	namespaceSet bool
	args         []string
}

func parse(argv []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := pflag.NewFlagSet("kubectl-kspatch", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&o.context, "context", "", "the kubeconfig context to use")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "the namespace of the pod or pod group (default: the context's)")
	fs.StringVarP(&o.output, "output", "o", "text", "text or json")
	fs.StringVar(&o.schedulerNamespace, "scheduler-namespace", "kube-system", "the namespace of the kube-scheduler pods")
	fs.StringVar(&o.schedulerSelector, "scheduler-selector", "component=kube-scheduler", "the label selector of the kube-scheduler pods (kubeadm's static pod label)")
	fs.StringVar(&o.schedulerPod, "scheduler-pod", "", "the kube-scheduler pod to ask (default: the leader, else the first running one)")
	fs.IntVar(&o.schedulerPort, "scheduler-port", 10259, "the scheduler's secure port")
	fs.DurationVar(&o.timeout, "request-timeout", 30*time.Second, "how long the whole command may take")
	fs.Usage = func() {
		_, _ = io.WriteString(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return nil, err
	}
	o.namespaceSet = fs.Changed("namespace")
	o.args = fs.Args()
	if o.output != "text" && o.output != "json" {
		return nil, fmt.Errorf("-o %q: the formats are text and json", o.output)
	}
	if o.schedulerPort < 1 || o.schedulerPort > 65535 {
		return nil, fmt.Errorf("--scheduler-port %d: not a port", o.schedulerPort)
	}
	// The command and its arguments are usage too: checked here, so that
	// every usage error exits 2.
	if _, err := route(o.args, "default", o.namespaceSet); err != nil {
		return nil, err
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("--request-timeout %s: must be positive", o.timeout)
	}
	if o.namespaceSet {
		if errs := validation.IsDNS1123Label(o.namespace); len(errs) > 0 {
			return nil, fmt.Errorf("-n %q: not a namespace name: %s", o.namespace, strings.Join(errs, "; "))
		}
	}
	if err := validateName(o.args); err != nil {
		return nil, err
	}
	return o, nil
}

// validateName checks the NAME of why pod/NAME (a pod name, a DNS
// subdomain) or why podgroup/NAME (a label value, since members name their
// group in a label: at most 63 characters), after route accepted the rest.
func validateName(args []string) error {
	if len(args) != 2 || args[0] != "why" {
		return nil
	}
	kind, name, _ := strings.Cut(args[1], "/")
	var errs []string
	switch strings.ToLower(kind) {
	case "pod", "pods", "po":
		errs = validation.IsDNS1123Subdomain(name)
	default:
		errs = validation.IsDNS1123Subdomain(name)
		if len(name) > validation.LabelValueMaxLength {
			errs = append(errs, fmt.Sprintf("must be no more than %d characters (pods name their group in a label value)", validation.LabelValueMaxLength))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("why %q: not a %s name: %s", args[1], strings.ToLower(kind), strings.Join(errs, "; "))
	}
	return nil
}

// route returns the admin API path (below /debug/kspatch) the arguments ask
// for, given the namespace to use.
func route(args []string, namespace string, namespaceSet bool) (string, error) {
	if len(args) == 0 {
		return "", errors.New("no command: use why, queue, apicalls or convert (--help for usage)")
	}
	switch args[0] {
	case "why":
		if len(args) != 2 {
			return "", errors.New("why takes one argument: pod/NAME or podgroup/NAME")
		}
		kind, name, ok := strings.Cut(args[1], "/")
		if !ok || name == "" || strings.Contains(name, "/") {
			return "", fmt.Errorf("why %q: want pod/NAME or podgroup/NAME", args[1])
		}
		switch strings.ToLower(kind) {
		case "pod", "pods", "po":
			return "/queue/pods/" + namespace + "/" + name, nil
		case "podgroup", "podgroups", "pg":
			return "/queue/podgroups/" + namespace + "/" + name, nil
		}
		return "", fmt.Errorf("why %q: kind %q is neither pod nor podgroup", args[1], kind)
	case "queue":
		if len(args) != 1 {
			return "", errors.New("queue takes no argument (filter with -n)")
		}
		if namespaceSet {
			return "/queue?namespace=" + namespace, nil
		}
		return "/queue", nil
	case "apicalls":
		if len(args) != 1 {
			return "", errors.New("apicalls takes no argument")
		}
		return "/apicalls", nil
	case "convert":
		return "", errors.New("convert comes first, before any flag: kubectl kspatch convert [-f FILE] [--to upstream|kspatch]")
	}
	return "", fmt.Errorf("unknown command %q: use why, queue, apicalls or convert", args[0])
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "convert" {
		os.Exit(runConvert(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, pflag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitUsage)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitFailed)
	}
}
