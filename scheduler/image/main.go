// Command kspatch-image packages a static kube-scheduler binary as a
// single-layer OCI image, without a container engine.
//
// It writes an OCI image layout to <out>/oci and the same layout as a tar
// archive (an "oci-archive") to <out>/kube-scheduler.oci.tar. The output is
// reproducible: the same binary and flags always give the same digest and
// the same bytes.
//
// Usage:
//
//	GOWORK=off go run . --binary PATH --out DIR --version VERSION \
//	    [--revision SHA] [--source URL] [--created RFC3339] [--arch amd64]
//
// Exit status is 2 for usage errors (bad or missing flags, a bad
// SOURCE_DATE_EPOCH) and 1 for any other failure, such as a missing,
// non-ELF, dynamically linked or wrong-architecture binary.
package main

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// Names of the outputs inside --out.
const (
	layoutDirName = "oci"
	tarballName   = "kube-scheduler.oci.tar"
)

// supportedArchs maps the --arch values to the ELF machine the binary must
// be built for (the platforms Kubernetes ships kube-scheduler for).
var supportedArchs = map[string]elf.Machine{
	"amd64":   elf.EM_X86_64,
	"arm64":   elf.EM_AARCH64,
	"ppc64le": elf.EM_PPC64,
	"s390x":   elf.EM_S390,
}

// validVersion is the grammar of an image tag; the version becomes the
// layout's ref.name and is normally pushed as a tag as well.
var validVersion = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// errReported is returned by parseFlags when the flag package has already
// printed the problem and the usage text.
var errReported = errors.New("invalid flags")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command; it returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	spec, out, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errReported):
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "kspatch-image: %v\nRun 'kspatch-image -h' for usage.\n", err)
		return 2
	}
	digest, err := writeImage(spec, out)
	if err != nil {
		fmt.Fprintf(stderr, "kspatch-image: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "digest: %s\nimage: %s\n", digest, filepath.Join(out, tarballName))
	return 0
}

// parseFlags turns args into an image spec and output directory. Every
// error it returns is a usage error.
func parseFlags(args []string, stderr io.Writer) (imageSpec, string, error) {
	var spec imageSpec
	var out, created string
	fset := flag.NewFlagSet("kspatch-image", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprintf(stderr, "Usage: kspatch-image --binary PATH --out DIR --version VERSION [flags]\n\n"+
			"Writes DIR/%s and DIR/%s, an OCI image of the static kube-scheduler at PATH.\n\nFlags:\n",
			layoutDirName, tarballName)
		fset.PrintDefaults()
	}
	fset.StringVar(&spec.Binary, "binary", "", "path of the static kube-scheduler binary (required)")
	fset.StringVar(&out, "out", "", "output directory (required)")
	fset.StringVar(&spec.Version, "version", "", "image version, e.g. v1.33.13-kspatch.1 (required)")
	fset.StringVar(&spec.Revision, "revision", "unknown", "git commit of the project")
	fset.StringVar(&spec.Source, "source", "https://kspatch.dev", "value of the org.opencontainers.image.source label")
	fset.StringVar(&created, "created", "", "image creation time, RFC3339 (default: $SOURCE_DATE_EPOCH, else the Unix epoch)")
	fset.StringVar(&spec.Arch, "arch", "amd64", "architecture of the binary: amd64, arm64, ppc64le or s390x")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return spec, "", err
		}
		return spec, "", errReported
	}

	switch {
	case fset.NArg() > 0:
		return spec, "", fmt.Errorf("unexpected argument %q", fset.Arg(0))
	case spec.Binary == "":
		return spec, "", errors.New("--binary is required")
	case out == "":
		return spec, "", errors.New("--out is required")
	case spec.Version == "":
		return spec, "", errors.New("--version is required")
	case !validVersion.MatchString(spec.Version):
		return spec, "", fmt.Errorf("--version %q is not a valid image tag", spec.Version)
	case spec.Revision == "":
		return spec, "", errors.New("--revision must not be empty (use \"unknown\")")
	case spec.Source == "":
		return spec, "", errors.New("--source must not be empty")
	}
	if _, ok := supportedArchs[spec.Arch]; !ok {
		return spec, "", fmt.Errorf("--arch %q is not supported (want amd64, arm64, ppc64le or s390x)", spec.Arch)
	}
	t, err := createdTime(created)
	if err != nil {
		return spec, "", err
	}
	spec.Created = t
	return spec, out, nil
}

// createdTime resolves the image creation time from the --created flag,
// then SOURCE_DATE_EPOCH, then the Unix epoch. The result is UTC with
// whole seconds, so equivalent spellings give the same image.
func createdTime(flagValue string) (time.Time, error) {
	var t time.Time
	switch epoch := os.Getenv("SOURCE_DATE_EPOCH"); {
	case flagValue != "":
		var err error
		if t, err = time.Parse(time.RFC3339, flagValue); err != nil {
			return t, fmt.Errorf("--created: %w", err)
		}
	case epoch != "":
		secs, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return t, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
		}
		t = time.Unix(secs, 0)
	default:
		t = time.Unix(0, 0)
	}
	if t.Before(time.Unix(0, 0)) {
		return t, fmt.Errorf("creation time %s is before the Unix epoch", t.Format(time.RFC3339))
	}
	return t.UTC().Truncate(time.Second), nil
}

// checkBinary makes sure path is a statically linked ELF executable for
// the machine that matches arch, so it can run in an image with no libc.
func checkBinary(path, arch string) error {
	f, err := elf.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("binary %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return fmt.Errorf("binary %s is not a readable ELF executable: %w", path, err)
	}
	defer f.Close()
	if want := supportedArchs[arch]; f.Machine != want {
		return fmt.Errorf("binary %s is built for %s, but --arch %s needs %s", path, f.Machine, arch, want)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("binary %s is dynamically linked; build it with CGO_ENABLED=0", path)
		}
	}
	return nil
}

// writeImage builds the image and writes <out>/oci and <out>/kube-scheduler.oci.tar.
// It returns the image manifest digest.
func writeImage(spec imageSpec, out string) (string, error) {
	if err := checkBinary(spec.Binary, spec.Arch); err != nil {
		return "", err
	}
	img, err := buildImage(spec)
	if err != nil {
		return "", err
	}
	digest, err := img.Digest()
	if err != nil {
		return "", fmt.Errorf("computing digest: %w", err)
	}

	// Start from an empty layout so no stale blobs end up in the tarball,
	// but never delete a directory that is not an earlier OCI layout.
	layoutDir := filepath.Join(out, layoutDirName)
	if _, err := os.Stat(layoutDir); err == nil {
		if _, err := os.Stat(filepath.Join(layoutDir, "oci-layout")); err != nil {
			return "", fmt.Errorf("%s exists and is not an OCI layout; refusing to overwrite it", layoutDir)
		}
		if err := os.RemoveAll(layoutDir); err != nil {
			return "", fmt.Errorf("removing old layout: %w", err)
		}
	}
	if err := os.MkdirAll(layoutDir, 0o755); err != nil {
		return "", fmt.Errorf("creating output directory: %w", err)
	}
	if _, err := layout.Write(layoutDir, imageIndex(img, spec)); err != nil {
		return "", fmt.Errorf("writing OCI layout: %w", err)
	}
	if err := writeTarball(layoutDir, filepath.Join(out, tarballName), spec.Created); err != nil {
		return "", fmt.Errorf("writing %s: %w", tarballName, err)
	}
	return digest.String(), nil
}

// writeTarball archives the directory tree dir into the tar file dest with
// the layout at the archive root. Entries come in lexical order and carry
// only a name, a fixed mode (0755 directories, 0644 files), uid/gid 0 and
// modTime, so the archive depends on the layout contents alone.
func writeTarball(dir, dest string, modTime time.Time) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".tmp-"+filepath.Base(dest))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	tw := tar.NewWriter(tmp)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), ModTime: modTime, Uid: 0, Gid: 0, Format: tar.FormatUSTAR}
		switch {
		case d.IsDir():
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, hdr.Name+"/", 0o755
			return tw.WriteHeader(hdr)
		case d.Type().IsRegular():
			return addFile(tw, hdr, path)
		default:
			return fmt.Errorf("%s: unexpected file type %s", path, d.Type())
		}
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp uses 0600
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// addFile writes the regular file at path to tw under hdr (mode 0644).
func addFile(tw *tar.Writer, hdr *tar.Header, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, info.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
