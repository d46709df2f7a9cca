package main

import (
	"archive/tar"
	"bytes"
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
	layer, err := tarball.LayerFromOpener(
		func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer), // gzip-compressed OCI layer
		tarball.WithCompressedCaching,         // gzip the 60+ MiB layer only once
	)
	if err != nil {
		return nil, fmt.Errorf("building layer: %w", err)
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
// binaryPath and the binary itself, all root-owned, mode 0755, with mtime
// set to modTime and no user/group names, in a fixed order.
func layerTarball(bin []byte, modTime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, dir := range []string{"usr/", "usr/local/", "usr/local/bin/"} {
		hdr := &tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: modTime}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("writing %s: %w", dir, err)
		}
	}
	name := binaryPath[1:] // layer paths are relative
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(bin)), ModTime: modTime}
	if err := tw.WriteHeader(hdr); err != nil {
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
