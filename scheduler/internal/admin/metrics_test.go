package admin

import (
	"strings"
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
)

func TestLeadingMetric(t *testing.T) {
	RegisterMetrics()
	for _, tc := range []struct {
		name string
		set  func() bool // nil: SetLeading not called
		want string
	}{
		{name: "before the scheduler runs", want: "0"},
		{name: "waiting for the lease", set: func() bool { return false }, want: "0"},
		{name: "leading", set: func() bool { return true }, want: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.set == nil {
				leading.Store(nil)
			} else {
				SetLeading(tc.set)
			}
			want := `# HELP scheduler_leading [ALPHA] 1 while this kube-scheduler schedules pods (it holds the leader-election lease, or runs without leader election), 0 while it waits for the lease.
# TYPE scheduler_leading gauge
scheduler_leading ` + tc.want + "\n"
			if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), "scheduler_leading"); err != nil {
				t.Error(err)
			}
		})
	}
}
