package cluster

import (
	"fmt"
	"testing"
)

// TestNodeSpecTopology: nodes go round-robin over the zones, then over the
// racks of a zone; a block is RacksPerBlock racks of one zone (two by
// default), the last block of a zone may hold fewer.
func TestNodeSpecTopology(t *testing.T) {
	for _, tc := range []struct {
		spec NodeSpec
		want []string // zone/block/rack of node-0, node-1, …
	}{
		{NodeSpec{Count: 6, Zones: 1, Racks: 3}, []string{
			"zone-a/zone-a-block-0/zone-a-rack-0", "zone-a/zone-a-block-0/zone-a-rack-1", "zone-a/zone-a-block-1/zone-a-rack-2",
			"zone-a/zone-a-block-0/zone-a-rack-0", "zone-a/zone-a-block-0/zone-a-rack-1", "zone-a/zone-a-block-1/zone-a-rack-2",
		}},
		{NodeSpec{Count: 8, Zones: 2, Racks: 2}, []string{
			"zone-a/zone-a-block-0/zone-a-rack-0", "zone-b/zone-b-block-0/zone-b-rack-0",
			"zone-a/zone-a-block-0/zone-a-rack-1", "zone-b/zone-b-block-0/zone-b-rack-1",
			"zone-a/zone-a-block-0/zone-a-rack-0", "zone-b/zone-b-block-0/zone-b-rack-0",
			"zone-a/zone-a-block-0/zone-a-rack-1", "zone-b/zone-b-block-0/zone-b-rack-1",
		}},
		{NodeSpec{Count: 4, Racks: 4, RacksPerBlock: 3}, []string{
			"zone-a/zone-a-block-0/zone-a-rack-0", "zone-a/zone-a-block-0/zone-a-rack-1",
			"zone-a/zone-a-block-0/zone-a-rack-2", "zone-a/zone-a-block-1/zone-a-rack-3",
		}},
	} {
		for i, want := range tc.want {
			zone, block, rack := tc.spec.Topology(i)
			if got := fmt.Sprintf("%s/%s/%s", zone, block, rack); got != want {
				t.Errorf("%+v: node-%d is in %s, want %s", tc.spec, i, got, want)
			}
		}
	}
}

func TestControllers(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "every controller", opts: Options{}, want: "*"},
		{name: "static nodes need no lifecycle controller", opts: Options{NoNodeLifecycle: true}, want: "*,-node-lifecycle-controller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := controllers(tt.opts); got != tt.want {
				t.Errorf("controllers = %q, want %q", got, tt.want)
			}
		})
	}
}
