package admin

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// TestLastFailureIsBounded checks that what a queued pod's last failure keeps
// does not grow with the number of nodes: every pending pod keeps one, and a
// plugin that words its reason per node (an extender, an out-of-tree plugin)
// would otherwise keep thousands of reasons per pod (#43).
func TestLastFailureIsBounded(t *testing.T) {
	const nodes = 5000
	perNodeReasons := func(plugins int) *framework.FitError {
		m := framework.NewDefaultNodeToStatus()
		for i := range nodes {
			m.Set(fmt.Sprintf("node-%d", i), framework.NewStatus(framework.Unschedulable,
				fmt.Sprintf("node-%d has no room for the pod's scratch volume", i)).WithPlugin(fmt.Sprintf("Plugin%02d", i%plugins)))
		}
		return &framework.FitError{Pod: &v1.Pod{}, NumAllNodes: nodes, Diagnosis: framework.Diagnosis{NodeToStatus: m}}
	}
	tests := []struct {
		name        string
		err         *framework.FitError
		wantPlugins int
		wantReasons int
		// wantNodes is the nodes the first (largest) plugin rejected.
		wantNodes int
		// wantOmittedPlugins and wantOmittedReasons (per kept plugin) say
		// what was left out.
		wantOmittedPlugins, wantOmittedReasons int
	}{
		{name: "one plugin, a reason per node", err: perNodeReasons(1), wantPlugins: 1, wantReasons: 8, wantNodes: nodes, wantOmittedReasons: nodes - 8},
		{name: "40 plugins, a reason per node", err: perNodeReasons(40), wantPlugins: 16, wantReasons: 8, wantNodes: nodes / 40,
			wantOmittedPlugins: 24, wantOmittedReasons: nodes/40 - 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			message := tt.err.Error()
			if len(message) < 100_000 {
				t.Fatalf("the test's message is %d bytes; it should be long", len(message))
			}
			d := diagnosis(framework.NewFailureSummaryWithMessage(time.Now(), tt.err, message))
			if len(d.Plugins) != tt.wantPlugins {
				t.Errorf("%d plugins kept, want %d", len(d.Plugins), tt.wantPlugins)
			}
			if d.OmittedPlugins != tt.wantOmittedPlugins {
				t.Errorf("%d plugins said omitted, want %d", d.OmittedPlugins, tt.wantOmittedPlugins)
			}
			for _, p := range d.Plugins {
				if len(p.Reasons) != tt.wantReasons || p.OmittedReasons != tt.wantOmittedReasons {
					t.Errorf("plugin %s: %d reasons kept and %d said omitted, want %d and %d", p.Plugin, len(p.Reasons), p.OmittedReasons, tt.wantReasons, tt.wantOmittedReasons)
				}
			}
			if len(d.Plugins) > 0 && d.Plugins[0].Nodes != tt.wantNodes {
				t.Errorf("plugin %s rejected %d nodes, want %d (the counts are kept whole)", d.Plugins[0].Plugin, d.Plugins[0].Nodes, tt.wantNodes)
			}
			if len(d.Message) > 1024 || !utf8.ValidString(d.Message) {
				t.Errorf("message kept: %d bytes (valid UTF-8: %v), want at most 1024", len(d.Message), utf8.ValidString(d.Message))
			}
			if !strings.HasPrefix(message, strings.TrimSuffix(d.Message, " … (cut: the PodScheduled condition has the whole message)")) {
				t.Errorf("message kept %q is not the start of the attempt's message", d.Message)
			}
		})
	}
}
