package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAdminOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    adminOptions
		wantErr string
	}{
		{name: "defaults (listener off)", opts: adminOptions{Address: "127.0.0.1", Port: 0}},
		{name: "loopback listener", opts: adminOptions{Address: "127.0.0.1", Port: 10261}},
		{name: "ipv6 loopback", opts: adminOptions{Address: "::1", Port: 10261}},
		{name: "host name", opts: adminOptions{Address: "localhost", Port: 10261}, wantErr: `invalid --admin-address "localhost"`},
		{name: "negative port", opts: adminOptions{Address: "127.0.0.1", Port: -1}, wantErr: "invalid --admin-port -1"},
		{name: "port too large", opts: adminOptions{Address: "127.0.0.1", Port: 70000}, wantErr: "invalid --admin-port 70000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.validate()
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestAdminFlagsRegistered(t *testing.T) {
	cmd := newSchedulerCommand()
	// The unauthenticated listener is off unless asked for (#44).
	for name, want := range map[string]string{"admin-address": "127.0.0.1", "admin-port": "0"} {
		f := cmd.Flags().Lookup(name)
		if f == nil {
			t.Fatalf("flag --%s is missing", name)
		}
		if f.DefValue != want {
			t.Errorf("--%s defaults to %q, want %q", name, f.DefValue, want)
		}
	}
	// Upstream's flags are all there too.
	for _, name := range []string{"config", "kubeconfig", "feature-gates", "secure-port", "leader-elect", "version"} {
		if cmd.Flags().Lookup(name) == nil {
			t.Errorf("upstream flag --%s is missing", name)
		}
	}
}

func TestOnSecurePort(t *testing.T) {
	var got string
	router := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.URL.Path })
	for path, want := range map[string]string{
		"/debug/kspatch/queue":                "/debug/queue",
		"/debug/kspatch/queue/pods/ns/name":   "/debug/queue/pods/ns/name",
		"/debug/kspatch/pprof/":               "/debug/pprof/",
		"/debug/kspatch/placements/ns/group1": "/debug/placements/ns/group1",
	} {
		onSecurePort(router).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
		if got != want {
			t.Errorf("%s reached the router as %s, want %s", path, got, want)
		}
	}
}
