package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// Environment variables that point the tests at a real image:
//
//	KSPATCH_IMAGE_DIR      the --out directory of a kspatch-image run
//	KSPATCH_IMAGE_VERSION  the expected version (label, ref.name and the
//	                       output of `kube-scheduler --version`)
const (
	envImageDir     = "KSPATCH_IMAGE_DIR"
	envImageVersion = "KSPATCH_IMAGE_VERSION"

	// fakeVersion is what the fake kube-scheduler built by the tests reports.
	fakeVersion = "v0.0.0-test"
)

// TestImage verifies a real image when KSPATCH_IMAGE_DIR is set, and
// otherwise an image built from a fake kube-scheduler.
func TestImage(t *testing.T) {
	outDir, version := os.Getenv(envImageDir), os.Getenv(envImageVersion)
	if outDir == "" {
		outDir, version = t.TempDir(), fakeVersion
		mustBuild(t, "--binary", fakeScheduler(t), "--out", outDir, "--version", version,
			"--revision", "0123abcd", "--arch", runtime.GOARCH)
	} else {
		t.Logf("verifying real image in %s (expected version %q)", outDir, version)
	}
	verifyOutput(t, outDir, version)
}

// TestTarballMatchesLayout checks that the tarball holds exactly the files
// of the layout directory and that both give the printed manifest digest.
func TestTarballMatchesLayout(t *testing.T) {
	out := t.TempDir()
	printed := mustBuild(t, "--binary", fakeScheduler(t), "--out", out, "--version", fakeVersion, "--arch", runtime.GOARCH)

	layoutDir := filepath.Join(out, layoutDirName)
	extracted := extractTarball(t, filepath.Join(out, tarballName))
	if want, got := readTree(t, layoutDir), readTree(t, extracted); !maps.Equal(want, got) {
		t.Errorf("tarball files %v differ from layout files %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for _, dir := range []string{layoutDir, extracted} {
		if got := manifestDigest(t, dir); got.String() != printed {
			t.Errorf("%s: manifest digest %s, printed %s", dir, got, printed)
		}
	}
}

// TestReproducible builds pairs of images and compares their digests and
// tarball bytes.
func TestReproducible(t *testing.T) {
	bin := fakeScheduler(t)
	// The same binary at another path, with another mode and mtime.
	otherBin := filepath.Join(t.TempDir(), "sched")
	if err := os.WriteFile(otherBin, readFile(t, bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(otherBin, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	base := []string{"--version", "v1.2.3", "--arch", runtime.GOARCH}
	type build struct {
		epoch  string   // SOURCE_DATE_EPOCH, "" for unset
		tz     string   // TZ, "" for unset
		binary string   // --binary, "" for bin
		args   []string // extra flags
	}
	tests := []struct {
		name    string
		a, b    build
		same    bool
		sameDir bool // build b into a's output directory (overwrite)
	}{
		{name: "same inputs", same: true},
		{name: "same inputs, same output dir", same: true, sameDir: true},
		{name: "binary's host path, mode and mtime do not matter", b: build{binary: otherBin}, same: true},
		{name: "TZ does not matter",
			a:    build{tz: "UTC", epoch: "1700000000"},
			b:    build{tz: "Pacific/Kiritimati", epoch: "1700000000"},
			same: true},
		{name: "default created is epoch 0", b: build{args: []string{"--created", "1970-01-01T00:00:00Z"}}, same: true},
		{name: "SOURCE_DATE_EPOCH equals --created",
			a:    build{epoch: "1700000000"},
			b:    build{args: []string{"--created", "2023-11-14T22:13:20Z"}},
			same: true},
		{name: "time zone and fractions do not matter",
			a:    build{args: []string{"--created", "2023-11-14T22:13:20Z"}},
			b:    build{args: []string{"--created", "2023-11-14T23:13:20.5+01:00"}},
			same: true},
		{name: "--created wins over SOURCE_DATE_EPOCH",
			a:    build{epoch: "5", args: []string{"--created", "1970-01-01T00:00:00Z"}},
			same: true},
		{name: "different created", b: build{args: []string{"--created", "2024-01-01T00:00:00Z"}}},
		{name: "different revision", b: build{args: []string{"--revision", "abc"}}},
		{name: "different source", b: build{args: []string{"--source", "https://example.com"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outA, outB := t.TempDir(), t.TempDir()
			if tc.sameDir {
				outB = outA
			}
			buildOne := func(b build, out string) (digest, tarSum string) {
				t.Setenv("SOURCE_DATE_EPOCH", b.epoch)
				t.Setenv("TZ", b.tz)
				binary := cmp.Or(b.binary, bin)
				digest = mustBuild(t, append(slices.Concat(base, []string{"--binary", binary, "--out", out}), b.args...)...)
				return digest, fileSHA256(t, filepath.Join(out, tarballName))
			}
			digestA, sumA := buildOne(tc.a, outA)
			digestB, sumB := buildOne(tc.b, outB)
			if got := digestA == digestB; got != tc.same {
				t.Errorf("digests %s and %s: same = %v, want %v", digestA, digestB, got, tc.same)
			}
			if got := sumA == sumB; got != tc.same {
				t.Errorf("tarball sha256 %s and %s: same = %v, want %v", sumA, sumB, got, tc.same)
			}
		})
	}
}

// TestEstargzRefused checks that an environment that makes
// go-containerregistry recompress the layer fails the build instead of
// giving an image whose digest depends on the environment.
func TestEstargzRefused(t *testing.T) {
	bin := fakeScheduler(t)
	t.Setenv("GGCR_EXPERIMENT_ESTARGZ", "1")
	var stdout, stderr bytes.Buffer
	code := run([]string{"--binary", bin, "--out", t.TempDir(), "--version", "v1", "--arch", runtime.GOARCH}, &stdout, &stderr)
	if want := "the layer was recompressed"; code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
}

// TestBadInput checks exit codes and messages for bad flags and inputs.
func TestBadInput(t *testing.T) {
	bin := fakeScheduler(t)
	notELF := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notLayout := t.TempDir()
	if err := os.Mkdir(filepath.Join(notLayout, layoutDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	otherArch := "arm64"
	if runtime.GOARCH == "arm64" {
		otherArch = "amd64"
	}

	tests := []struct {
		name     string
		epoch    string
		args     []string
		wantCode int
		wantErr  string
	}{
		{name: "help", args: []string{"-h"}, wantCode: 0, wantErr: "Usage: kspatch-image --binary PATH"},
		{name: "no flags", wantCode: 2, wantErr: "--binary is required"},
		{name: "unknown flag", args: []string{"--nope"}, wantCode: 2, wantErr: "flag provided but not defined: -nope"},
		{name: "positional argument", args: []string{"--binary", bin, "extra"}, wantCode: 2, wantErr: `unexpected argument "extra"`},
		{name: "no out", args: []string{"--binary", bin, "--version", "v1"}, wantCode: 2, wantErr: "--out is required"},
		{name: "no version", args: []string{"--binary", bin, "--out", "x"}, wantCode: 2, wantErr: "--version is required"},
		{name: "bad version", args: []string{"--binary", bin, "--out", "x", "--version", "v1/2"}, wantCode: 2, wantErr: "not a valid image tag"},
		{name: "empty revision", args: []string{"--binary", bin, "--out", "x", "--version", "v1", "--revision", ""}, wantCode: 2, wantErr: "--revision must not be empty"},
		{name: "bad arch", args: []string{"--binary", bin, "--out", "x", "--version", "v1", "--arch", "sparc"}, wantCode: 2, wantErr: `--arch "sparc" is not supported`},
		{name: "bad created", args: []string{"--binary", bin, "--out", "x", "--version", "v1", "--created", "yesterday"}, wantCode: 2, wantErr: "--created: parsing time"},
		{name: "created before epoch", args: []string{"--binary", bin, "--out", "x", "--version", "v1", "--created", "1969-12-31T23:59:59Z"}, wantCode: 2, wantErr: "before the Unix epoch"},
		{name: "bad SOURCE_DATE_EPOCH", epoch: "soon", args: []string{"--binary", bin, "--out", "x", "--version", "v1"}, wantCode: 2, wantErr: "SOURCE_DATE_EPOCH: strconv.ParseInt"},
		{name: "missing binary", args: []string{"--binary", "/does/not/exist", "--out", t.TempDir(), "--version", "v1"}, wantCode: 1, wantErr: "binary /does/not/exist: file does not exist"},
		{name: "not ELF", args: []string{"--binary", notELF, "--out", t.TempDir(), "--version", "v1"}, wantCode: 1, wantErr: "is not a readable ELF executable"},
		{name: "wrong arch", args: []string{"--binary", bin, "--out", t.TempDir(), "--version", "v1", "--arch", otherArch}, wantCode: 1, wantErr: "but --arch " + otherArch},
		{name: "out/oci is not a layout", args: []string{"--binary", bin, "--out", notLayout, "--version", "v1", "--arch", runtime.GOARCH}, wantCode: 1, wantErr: "is not an OCI layout; refusing to overwrite it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SOURCE_DATE_EPOCH", tc.epoch)
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.wantErr)
			}
			if stdout.Len() != 0 {
				t.Errorf("unexpected stdout %q", stdout.String())
			}
		})
	}
}

// verifyOutput verifies both outputs of kspatch-image in outDir and that
// they hold the same image. version is the expected image version; if it
// is empty, the image's version label is used.
func verifyOutput(t *testing.T, outDir, version string) {
	t.Helper()
	dirs := []struct{ name, path string }{
		{"layout-dir", filepath.Join(outDir, layoutDirName)},
		{"tarball", extractTarball(t, filepath.Join(outDir, tarballName))},
	}
	var digests []v1.Hash
	for _, dir := range dirs {
		t.Run(dir.name, func(t *testing.T) {
			digests = append(digests, verifyLayout(t, dir.path, version))
		})
	}
	if len(digests) == 2 && digests[0] != digests[1] {
		t.Errorf("layout directory has manifest %s, tarball has %s", digests[0], digests[1])
	}
}

// verifyLayout checks everything about the OCI layout in dir and returns
// the image manifest digest.
func verifyLayout(t *testing.T, dir, version string) v1.Hash {
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatalf("reading layout: %v", err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatalf("reading index: %v", err)
	}
	if err := validate.Index(idx); err != nil {
		t.Fatalf("invalid image index (digests, sizes, diff_ids): %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatalf("reading index.json: %v", err)
	}
	if im.MediaType != types.OCIImageIndex || len(im.Manifests) != 1 {
		t.Fatalf("index.json: media type %q with %d manifests, want %q with 1", im.MediaType, len(im.Manifests), types.OCIImageIndex)
	}
	desc := im.Manifests[0]

	img, err := p.Image(desc.Digest)
	if err != nil {
		t.Fatalf("reading image %s: %v", desc.Digest, err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatalf("reading manifest: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatalf("reading config: %v", err)
	}
	if version == "" {
		version = cfg.Config.Labels[labelVersion]
	}

	// Descriptor, manifest and config.
	if desc.MediaType != types.OCIManifestSchema1 || m.MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %q (descriptor %q), want %q", m.MediaType, desc.MediaType, types.OCIManifestSchema1)
	}
	if m.Config.MediaType != types.OCIConfigJSON {
		t.Errorf("config media type %q, want %q", m.Config.MediaType, types.OCIConfigJSON)
	}
	if got := desc.Annotations[annotationRef]; got != version {
		t.Errorf("index annotation %s = %q, want %q", annotationRef, got, version)
	}
	if pl := desc.Platform; pl == nil || pl.OS != cfg.OS || pl.Architecture != cfg.Architecture {
		t.Errorf("index platform %v does not match config %s/%s", pl, cfg.OS, cfg.Architecture)
	}
	if _, ok := supportedArchs[cfg.Architecture]; cfg.OS != "linux" || !ok {
		t.Errorf("config platform %s/%s, want linux/<supported arch>", cfg.OS, cfg.Architecture)
	}
	c := cfg.Config
	if c.User != "65532" {
		t.Errorf("config User %q, want 65532", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/kube-scheduler"}) || len(c.Cmd) != 0 {
		t.Errorf("config Entrypoint %q Cmd %q, want [/usr/local/bin/kube-scheduler] and no Cmd", c.Entrypoint, c.Cmd)
	}
	if c.WorkingDir != "/" || !slices.ContainsFunc(c.Env, func(e string) bool { return strings.HasPrefix(e, "PATH=") }) {
		t.Errorf("config WorkingDir %q Env %q, want / and a PATH", c.WorkingDir, c.Env)
	}
	for _, key := range []string{labelVersion, labelSource, labelRevision, labelTitle} {
		if c.Labels[key] == "" {
			t.Errorf("label %s is missing or empty", key)
		}
	}
	if got := c.Labels[labelVersion]; got != version {
		t.Errorf("label %s = %q, want %q", labelVersion, got, version)
	}
	if got := c.Labels[labelTitle]; got != "kube-scheduler" {
		t.Errorf("label %s = %q, want kube-scheduler", labelTitle, got)
	}

	// The one layer.
	layers, err := img.Layers()
	if err != nil {
		t.Fatalf("reading layers: %v", err)
	}
	if len(layers) != 1 || len(cfg.RootFS.DiffIDs) != 1 {
		t.Fatalf("image has %d layers and %d diff_ids, want 1", len(layers), len(cfg.RootFS.DiffIDs))
	}
	if mt, err := layers[0].MediaType(); err != nil || mt != types.OCILayer {
		t.Errorf("layer media type %q (%v), want %q", mt, err, types.OCILayer)
	}
	checkGzipHeader(t, layers[0])
	bin := extractBinary(t, layers[0], cfg.Created.Time)

	// Run the binary if this machine can.
	if runtime.GOOS != "linux" || runtime.GOARCH != cfg.Architecture {
		t.Logf("not running the %s binary on %s/%s", cfg.Architecture, runtime.GOOS, runtime.GOARCH)
		return desc.Digest
	}
	outBytes, err := exec.Command(bin, "--version").CombinedOutput()
	out := strings.TrimSpace(string(outBytes))
	if err != nil {
		t.Fatalf("kube-scheduler --version: %v: %s", err, out)
	}
	if !strings.HasPrefix(out, "Kubernetes ") || !strings.Contains(out, version) {
		t.Errorf("kube-scheduler --version printed %q, want \"Kubernetes ...%s...\"", out, version)
	}
	return desc.Digest
}

// extractBinary checks the layer holds exactly the expected entries, all
// root-owned with mode 0755 and mtime created, and writes the
// kube-scheduler binary to an executable temp file whose path it returns.
func extractBinary(t *testing.T, layer v1.Layer, created time.Time) string {
	want := map[string]byte{
		"usr/":                         tar.TypeDir,
		"usr/local/":                   tar.TypeDir,
		"usr/local/bin/":               tar.TypeDir,
		"usr/local/bin/kube-scheduler": tar.TypeReg,
	}
	rc, err := layer.Uncompressed()
	if err != nil {
		t.Fatalf("opening layer: %v", err)
	}
	defer rc.Close()

	bin := filepath.Join(t.TempDir(), "kube-scheduler")
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading layer: %v", err)
		}
		typ, ok := want[hdr.Name]
		if !ok {
			t.Fatalf("unexpected or duplicate layer entry %q", hdr.Name)
		}
		delete(want, hdr.Name)
		if hdr.Typeflag != typ || hdr.Mode != 0o755 {
			t.Errorf("%s: type %q mode %o, want type %q mode 755", hdr.Name, hdr.Typeflag, hdr.Mode, typ)
		}
		if hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" {
			t.Errorf("%s: owner %d:%d (%q:%q), want 0:0 without names", hdr.Name, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname)
		}
		if !hdr.ModTime.Equal(created) {
			t.Errorf("%s: mtime %s, want the created time %s", hdr.Name, hdr.ModTime, created)
		}
		if typ == tar.TypeReg {
			writeFile(t, bin, tr)
		}
	}
	if len(want) != 0 {
		t.Fatalf("layer lacks %v", slices.Sorted(maps.Keys(want)))
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// checkGzipHeader checks that the compressed layer's gzip header carries
// nothing of the build: no file name, no comment, no extra field, mtime 0.
func checkGzipHeader(t *testing.T, layer v1.Layer) {
	t.Helper()
	rc, err := layer.Compressed()
	if err != nil {
		t.Fatalf("opening compressed layer: %v", err)
	}
	defer rc.Close()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		t.Fatalf("layer is not gzip: %v", err)
	}
	if h := zr.Header; h.Name != "" || h.Comment != "" || len(h.Extra) != 0 || !h.ModTime.IsZero() {
		t.Errorf("layer gzip header name %q comment %q extra %q mtime %s, want all empty", h.Name, h.Comment, h.Extra, h.ModTime)
	}
}

// extractTarball unpacks a kube-scheduler.oci.tar into a temp dir, checking
// on the way that it is deterministic: sorted entries, uid/gid 0, no
// owner names, fixed modes and one mtime for all entries.
func extractTarball(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("opening tarball: %v", err)
	}
	defer f.Close()

	dir := t.TempDir()
	tr := tar.NewReader(f)
	var prev string
	var mtime time.Time
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading tarball: %v", err)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if !filepath.IsLocal(name) {
			t.Fatalf("tarball entry %q escapes the archive root", hdr.Name)
		}
		if hdr.Name <= prev {
			t.Errorf("tarball entry %q comes after %q: not sorted", hdr.Name, prev)
		}
		prev = hdr.Name
		if mtime.IsZero() {
			mtime = hdr.ModTime
		}
		if !hdr.ModTime.Equal(mtime) || hdr.Uid != 0 || hdr.Gid != 0 || hdr.Uname != "" || hdr.Gname != "" {
			t.Errorf("tarball entry %q: mtime %s owner %d:%d (%q:%q), want %s and 0:0 without names",
				hdr.Name, hdr.ModTime, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname, mtime)
		}
		target := filepath.Join(dir, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if hdr.Mode != 0o755 {
				t.Errorf("tarball dir %q: mode %o, want 755", hdr.Name, hdr.Mode)
			}
			if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			if hdr.Mode != 0o644 {
				t.Errorf("tarball file %q: mode %o, want 644", hdr.Name, hdr.Mode)
			}
			writeFile(t, target, tr)
		default:
			t.Fatalf("tarball entry %q has unexpected type %q", hdr.Name, hdr.Typeflag)
		}
	}
	return dir
}

// fakeScheduler compiles a static stand-in for kube-scheduler that prints
// "Kubernetes v0.0.0-test" for --version, and returns its path.
func fakeScheduler(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fake kube-scheduler is a linux binary; the command checks for ELF")
	}
	if _, ok := supportedArchs[runtime.GOARCH]; !ok {
		t.Skipf("GOARCH %s is not an architecture kspatch-image supports", runtime.GOARCH)
	}
	dir := t.TempDir()
	src := `package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println("Kubernetes ` + fakeVersion + `")
		return
	}
	fmt.Fprintln(os.Stderr, "fake kube-scheduler: only --version is supported")
	os.Exit(1)
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", "kube-scheduler", "main.go")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-buildvcs=false", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building fake kube-scheduler: %v\n%s", err, out)
	}
	return filepath.Join(dir, "kube-scheduler")
}

// mustBuild runs the command with args, checks its output format and
// returns the printed digest.
func mustBuild(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("kspatch-image %q: exit code %d: %s", args, code, stderr.String())
	}
	out := args[slices.Index(args, "--out")+1]
	re := regexp.MustCompile(`^digest: (sha256:[0-9a-f]{64})\nimage: ` + regexp.QuoteMeta(filepath.Join(out, tarballName)) + "\n$")
	match := re.FindStringSubmatch(stdout.String())
	if match == nil {
		t.Fatalf("unexpected stdout %q", stdout.String())
	}
	return match[1]
}

// manifestDigest returns the digest of the single manifest in the layout at dir.
func manifestDigest(t *testing.T, dir string) v1.Hash {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("reading layout %s: %v", dir, err)
	}
	im, err := idx.IndexManifest()
	if err != nil || len(im.Manifests) != 1 {
		t.Fatalf("layout %s: %d manifests (%v), want 1", dir, len(im.Manifests), err)
	}
	return im.Manifests[0].Digest
}

// readTree maps the slash-separated relative path of every regular file
// under dir to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeFile copies r to a new file at path.
func writeFile(t *testing.T, path string, r io.Reader) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// readFile returns the content of the file at path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fileSHA256 returns the hex SHA-256 of the file at path.
func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
