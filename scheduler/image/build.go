package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Fixed facts about the image produced by this command.
const (
	// binaryPath is where the kube-scheduler lives inside the image.
	binaryPath = "/usr/local/bin/kube-scheduler"
	// nonRootUser is the distroless "nonroot" UID; the image has no
	// /etc/passwd, so a numeric user is required.
	nonRootUser = "65532"
	// defaultPath is the PATH environment variable of the image.
	defaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

	// OCI annotation and label keys.
	labelTitle    = "org.opencontainers.image.title"
	labelVersion  = "org.opencontainers.image.version"
	labelSource   = "org.opencontainers.image.source"
	labelRevision = "org.opencontainers.image.revision"
	annotationRef = "org.opencontainers.image.ref.name"
)

// imageSpec holds every input of the image. Identical specs (and identical
// binaries) produce identical image digests.
type imageSpec struct {
	Binary   string    // path of the static kube-scheduler on the host
	Version  string    // image version, e.g. v1.33.13-kspatch.1
	Revision string    // git commit of the project, or "unknown"
	Source   string    // value of org.opencontainers.image.source
	Arch     string    // GOARCH-style architecture, e.g. amd64
	Created  time.Time // creation time, also used as every file mtime
}

// buildImage assembles the single-layer OCI image described by spec.
func buildImage(spec imageSpec) (v1.Image, error) {
	bin, err := os.ReadFile(spec.Binary)
	if err != nil {
		return nil, fmt.Errorf("reading binary: %w", err)
	}
	layerTar, err := layerTarball(bin, spec.Created)
	if err != nil {
		return nil, fmt.Errorf("building layer: %w", err)
	}
	layerGz, err := gzipLayer(layerTar)
	if err != nil {
		return nil, fmt.Errorf("compressing layer: %w", err)
	}
	// The layer is handed over compressed, so go-containerregistry keeps
	// these bytes as they are.
	layer, err := tarball.LayerFromOpener(
		func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerGz)), nil },
		tarball.WithMediaType(types.OCILayer), // gzip-compressed OCI layer
	)
	if err != nil {
		return nil, fmt.Errorf("building layer: %w", err)
	}
	// Refuse a layer that is not exactly our gzip stream (the library
	// recompresses, e.g. as estargz when GGCR_EXPERIMENT_ESTARGZ=1 is set):
	// its digest would depend on the environment, not on the inputs.
	if got, err := layer.Digest(); err != nil {
		return nil, fmt.Errorf("layer digest: %w", err)
	} else if want := sha256.Sum256(layerGz); got.Hex != hex.EncodeToString(want[:]) {
		return nil, fmt.Errorf("the layer was recompressed (digest %s, want sha256:%x); is GGCR_EXPERIMENT_ESTARGZ set?", got, want)
	}

	created := v1.Time{Time: spec.Created}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   created,
			CreatedBy: "kspatch-image: COPY kube-scheduler " + binaryPath,
			Comment:   "kspatch kube-scheduler " + spec.Version,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("appending layer: %w", err)
	}

	// Start from the config mutate.Append produced so that the rootfs
	// diff_ids and history stay intact, then fill in the runtime config.
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.Created = created
	cfg.OS = "linux"
	cfg.Architecture = spec.Arch
	cfg.Config = v1.Config{
		User:       nonRootUser,
		Entrypoint: []string{binaryPath},
		WorkingDir: "/",
		Env:        []string{defaultPath},
		Labels: map[string]string{
			labelTitle:    "kube-scheduler",
			labelVersion:  spec.Version,
			labelSource:   spec.Source,
			labelRevision: spec.Revision,
		},
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("setting config: %w", err)
	}
	return img, nil
}

// layerTarball returns the uncompressed layer: the directories leading to
// binaryPath and the binary itself, all root-owned (uid/gid 0, no names),
// mode 0755, with mtime modTime, in ustar format, in a fixed order. Nothing
// of the host file (its mode, mtime, owner or path) goes into the layer.
func layerTarball(bin []byte, modTime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entry := func(typ byte, name string, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: 0o755, Size: size, ModTime: modTime,
			Uid: 0, Gid: 0, Format: tar.FormatUSTAR}
	}
	for _, dir := range []string{"usr/", "usr/local/", "usr/local/bin/"} {
		if err := tw.WriteHeader(entry(tar.TypeDir, dir, 0)); err != nil {
			return nil, fmt.Errorf("writing %s: %w", dir, err)
		}
	}
	name := binaryPath[1:] // layer paths are relative
	if err := tw.WriteHeader(entry(tar.TypeReg, name, int64(len(bin)))); err != nil {
		return nil, fmt.Errorf("writing %s: %w", name, err)
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing layer tar: %w", err)
	}
	return buf.Bytes(), nil
}

// gzipLayer compresses the layer tar with a fixed header: no file name, no
// comment, mtime 0 and OS "unknown", so the bytes depend on the tar alone
// (and on the Go version's compress/flate).
func gzipLayer(layerTar []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	zw.Header = gzip.Header{OS: 255} // Name "", Comment "", ModTime zero (written as 0)
	if _, err := zw.Write(layerTar); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// imageIndex wraps img in an OCI image index whose single entry carries
// the platform and the version as org.opencontainers.image.ref.name.
func imageIndex(img v1.Image, spec imageSpec) v1.ImageIndex {
	return mutate.AppendManifests(empty.Index, mutate.IndexAddendum{
		Add: img,
		Descriptor: v1.Descriptor{
			Annotations: map[string]string{annotationRef: spec.Version},
			Platform:    &v1.Platform{OS: "linux", Architecture: spec.Arch},
		},
	})
}
