package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"k8s.io/apiserver/pkg/server"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version/verflag"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"kspatch.dev/adminapi"
	"kspatch.dev/scheduler/internal/admin"
)

// adminOptions are the flags of the admin API.
type adminOptions struct {
	Address string
	Port    int
}

func (o *adminOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Address, "admin-address", o.Address, "The IP address of the kspatch admin API's own listener (/debug/queue, /debug/apicalls, /debug/placements, pprof), which has no authentication and shows every namespace: keep it on loopback. The same routes are served on the secure port under /debug/kspatch/, behind authentication and authorization, each caller seeing only the namespaces whose pods it may get.")
	fs.IntVar(&o.Port, "admin-port", o.Port, "The port of the kspatch admin API's own listener; 0 (the default) disables it. Any local process, host-network pods included, can read it: turn it on only where that is acceptable (a local test cluster, a pod's own network namespace). The secure-port routes are always served.")
}

func (o *adminOptions) validate() error {
	if net.ParseIP(o.Address) == nil {
		return fmt.Errorf("invalid --admin-address %q: must be an IP address, such as 127.0.0.1", o.Address)
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("invalid --admin-port %d: must be between 0 (disabled) and 65535", o.Port)
	}
	return nil
}

// newSchedulerCommand is upstream's kube-scheduler command with the admin
// API's flags added and the admin API started with the scheduler.
func newSchedulerCommand() *cobra.Command {
	opts := options.NewOptions()
	// The unauthenticated listener is off unless asked for (#44): a drop-in
	// image in a host-network static pod would otherwise show every
	// namespace's pods to every process on the node.
	adminOpts := &adminOptions{Address: "127.0.0.1", Port: 0}

	cmd := &cobra.Command{
		Use: "kube-scheduler",
		Long: `The Kubernetes scheduler (kspatch build) assigns Pods to Nodes. It is the
upstream kube-scheduler of the pinned release with the kspatch enhancements
behind their feature gates, and a read-only admin API that shows why pods wait.`,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			// Feature gates must be set before RunE.
			return opts.ComponentGlobalsRegistry.Set()
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduler(cmd, opts, adminOpts)
		},
		Args: func(cmd *cobra.Command, args []string) error {
			for _, arg := range args {
				if len(arg) > 0 {
					return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
				}
			}
			return nil
		},
	}

	nfs := opts.Flags
	verflag.AddFlags(nfs.FlagSet("global"))
	globalflag.AddGlobalFlags(nfs.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	adminOpts.addFlags(nfs.FlagSet("admin API"))
	fs := cmd.Flags()
	for _, f := range nfs.FlagSets {
		fs.AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, *nfs, cols)
	if err := cmd.MarkFlagFilename("config", "yaml", "yml", "json"); err != nil {
		klog.Background().Error(err, "Failed to mark flag filename")
	}
	return cmd
}

func runScheduler(cmd *cobra.Command, opts *options.Options, adminOpts *adminOptions) error {
	verflag.PrintAndExitIfRequested()
	fg := opts.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	// Activate logging as soon as possible, then show the flags with it.
	if err := logsapi.ValidateAndApply(opts.Logs, fg); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	cliflag.PrintFlags(cmd.Flags())
	if err := adminOpts.validate(); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	if handleSignals {
		go func() {
			<-server.SetupSignalHandler()
			cancel()
		}()
	}

	cc, sched, err := app.Setup(ctx, opts)
	if err != nil {
		return err
	}
	fg.(featuregate.MutableFeatureGate).AddMetrics()
	logger := klog.FromContext(ctx).WithName("admin-api")

	var isLeader atomic.Pointer[func() bool]
	// With leader election on: this instance's identity and the observed
	// leader's (app.WithLeaderIdentity).
	type leadership struct {
		self   string
		leader func() string
	}
	var elected atomic.Pointer[leadership]
	admin.RegisterMetrics()
	snapshotter, _ := sched.SchedulingQueue.(admin.QueueSnapshotter)
	adminAPI := adminapi.Options{
		Queue: &admin.QueueSource{Queue: snapshotter},
		Leader: func() bool {
			if f := isLeader.Load(); f != nil {
				return (*f)()
			}
			return false
		},
		Leadership: func() (string, string) {
			if l := elected.Load(); l != nil {
				return l.self, l.leader()
			}
			return "", ""
		},
		Observer:         admin.Observer,
		Logger:           slog.New(logr.ToSlogHandler(logger)),
		DisableProfiling: !cc.ComponentConfig.EnableProfiling,
	}
	if q := sched.APIQueue(); q != nil {
		adminAPI.APICalls = &admin.APICallSource{Queue: q}
	}
	if pg := sched.PodGroups(); pg != nil {
		adminAPI.Placements = &admin.PlacementSource{Recorder: pg.Recorder()}
		adminAPI.PodGroups = &admin.PodGroupSource{Groups: pg}
	}
	if adminOpts.Port != 0 {
		srv := adminapi.NewServer(net.JoinHostPort(adminOpts.Address, strconv.Itoa(adminOpts.Port)), adminAPI)
		if err := srv.Start(); err != nil {
			return fmt.Errorf("starting the admin API on %s:%d (change --admin-port, or 0 to disable it): %w", adminOpts.Address, adminOpts.Port, err)
		}
		defer func() {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdownCtx)
		}()
	}
	// On the secure port the callers are authenticated: each sees only the
	// namespaces whose pods it may get (docs/admin-api.md, threat model).
	secureAPI := adminAPI
	secureAPI.Authorize = admin.NewPodReadAuthorizer(cc.Authorization.Authorizer).CanReadPods
	return app.Run(ctx, cc, sched,
		app.WithSecureHandler(securePrefix, onSecurePort(adminapi.NewRouter(secureAPI))),
		app.WithLeaderStatus(func(f func() bool) {
			isLeader.Store(&f)
			admin.SetLeading(f)
		}),
		app.WithLeaderIdentity(func(self string, leader func() string) { elected.Store(&leadership{self: self, leader: leader}) }),
	)
}

// handleSignals makes SIGTERM and SIGINT stop the scheduler. Tests, which
// run the command in-process and stop it through its context, turn it off
// (the signal handler can be set up only once per process).
var handleSignals = true

// securePrefix is where the admin routes live on the secure port:
// /debug/kspatch/queue there is /debug/queue on the admin listener.
const securePrefix = "/debug/kspatch/"

// onSecurePort maps /debug/kspatch/X to the router's /debug/X.
func onSecurePort(router http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/debug/" + strings.TrimPrefix(r.URL.Path, securePrefix)
		r2.URL.RawPath = ""
		router.ServeHTTP(w, r2)
	})
}
