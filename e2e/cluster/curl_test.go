package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// TestSecureCurlWorks runs the curl line SecureCurl prints against a stand-in
// for the scheduler's secure port that authenticates like the real one: a
// serving certificate made the way kube-scheduler makes it in --cert-dir, and
// client certificates signed by the cluster's CA.
func TestSecureCurlWorks(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	dir := t.TempDir()
	p, err := newPKI(filepath.Join(dir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.issue("admin", "kspatch-admin", []string{"system:masters"}, nil); err != nil {
		t.Fatal(err)
	}
	// What kube-scheduler does with --cert-dir and --bind-address=127.0.0.1
	// (SecureServingOptions.MaybeDefaultWithSelfSignedCerts: its own
	// 127.0.0.1, then the bind address).
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKeyWithFixtures("localhost", []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("127.0.0.1")}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(dir, "scheduler-certs")
	if err := certutil.WriteCert(filepath.Join(certDir, "kube-scheduler.crt"), certPEM); err != nil {
		t.Fatal(err)
	}
	if err := keyutil.WriteKey(filepath.Join(certDir, "kube-scheduler.key"), keyPEM); err != nil {
		t.Fatal(err)
	}
	serving, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(p.caFile())
	if err != nil {
		t.Fatal(err)
	}
	clientCAs := x509.NewCertPool()
	clientCAs.AppendCertsFromPEM(caPEM)

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/kspatch/queue" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("queue of " + r.TLS.PeerCertificates[0].Subject.CommonName + "\n"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serving}, ClientCAs: clientCAs, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	defer srv.Close()

	c := &Cluster{opts: Options{Dir: dir}, SchedulerSecure: srv.URL}
	line := c.SecureCurl("/debug/kspatch/queue")
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "queue of kspatch-admin" {
		t.Fatalf("%s\n=> %v, %q; want the admin's queue", line, err, out)
	}
	if strings.Contains(line, " -k") || strings.Contains(line, "--insecure") {
		t.Errorf("%s: verify the scheduler's certificate rather than skip the check", line)
	}
}
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b.crt":     "/a/b.crt",
		"/my dir/b":    "'/my dir/b'",
		"it's":         `'it'\''s'`,
		"":             "''",
		"https://x:1/": "https://x:1/",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
