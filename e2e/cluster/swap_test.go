package cluster

import (
	"slices"
	"testing"
)

func TestSwapFlags(t *testing.T) {
	manifest := []string{"--kubeconfig=/k", "--leader-elect=true", "--leader-elect=false", "--secure-port=1", "--cert-dir=/c"}
	for _, tc := range []struct {
		name    string
		args    []string
		vanilla bool
		want    []string
	}{
		{"patched to vanilla drops the admin API",
			append(slices.Clone(manifest), "--admin-address=127.0.0.1", "--admin-port=9", "--feature-gates=A=true", "--v=2"), true,
			append(slices.Clone(manifest), "--feature-gates=A=true", "--v=2")},
		{"vanilla to patched adds it before the gates",
			append(slices.Clone(manifest), "--feature-gates=A=true", "--v=2"), false,
			append(slices.Clone(manifest), "--admin-address=127.0.0.1", "--admin-port=9", "--feature-gates=A=true", "--v=2")},
		{"patched to patched keeps one admin API",
			append(slices.Clone(manifest), "--admin-address=127.0.0.1", "--admin-port=9", "--feature-gates=A=true"), false,
			append(slices.Clone(manifest), "--admin-address=127.0.0.1", "--admin-port=9", "--feature-gates=A=true")},
		{"no gates: at the end",
			slices.Clone(manifest), false,
			append(slices.Clone(manifest), "--admin-address=127.0.0.1", "--admin-port=9")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := swapFlags(tc.args, "9", tc.vanilla); !slices.Equal(got, tc.want) {
				t.Errorf("swapFlags:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
