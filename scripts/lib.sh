# shellcheck shell=bash
# Shared helpers for the kspatch series scripts. Source it; it sets:
#   ROOT      the project checkout
#   OUT       $ROOT/_output (override with KSPATCH_OUTPUT)
#   PATCHES   the directory holding the series (override with KSPATCH_PATCHES)
#   BASE_MODULE BASE_VERSION BASE_SUM   from $PATCHES/BASE
#   FIXUP_TAG the tag on the build fix-up commit (not part of the series)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${KSPATCH_OUTPUT:-$ROOT/_output}
PATCHES=${KSPATCH_PATCHES:-$ROOT/patches}
FIXUP_TAG=kspatch/fixup

# Commits made by the scripts use one identity and fixed dates, so the same
# base and series always give the same commit hashes.
export GIT_AUTHOR_NAME=kspatch GIT_AUTHOR_EMAIL=kspatch@invalid
export GIT_COMMITTER_NAME=kspatch GIT_COMMITTER_EMAIL=kspatch@invalid
# Do not let a developer's git configuration change what the scripts produce.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# read_base FILE: sets BASE_MODULE, BASE_VERSION, BASE_SUM.
read_base() {
  local file=$1 key value
  [ -f "$file" ] || die "$file is missing: it records the upstream release the series applies to"
  BASE_MODULE= BASE_VERSION= BASE_SUM=
  while read -r key value; do
    case "$key" in
      module) BASE_MODULE=$value ;;
      version) BASE_VERSION=$value ;;
      sum) BASE_SUM=$value ;;
      ''|'#'*) ;;
      *) die "$file: unknown key '$key' (allowed: module, version, sum)" ;;
    esac
  done <"$file"
  [ -n "$BASE_MODULE" ] && [ -n "$BASE_VERSION" ] && [ -n "$BASE_SUM" ] ||
    die "$file must set module, version and sum"
}

# staging_version v1.33.13 -> v0.33.13: the published staging modules' version.
staging_version() {
  local v=${1#v}
  [[ $v =~ ^1\.([0-9]+)\.([0-9]+)$ ]] || die "not a Kubernetes release version: $1"
  printf 'v0.%s.%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
}

# json_field NAME < json: the string value of a top-level field of `go mod download -json`.
json_field() {
  sed -n "s/^\t\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" | sed -n 1p
}

# fetch_upstream MODULE VERSION [EXPECTED_SUM]: downloads the module through the
# Go module proxy (checksum-verified against the Go checksum database), checks
# its h1: sum against EXPECTED_SUM when given, and prints "DIR<TAB>SUM<TAB>TIME".
fetch_upstream() {
  local module=$1 version=$2 want=${3:-} json dir sum info time
  json=$(cd "$OUT" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$module@$version") ||
    die "go mod download $module@$version failed: $(printf '%s' "$json" | json_field Error)"
  dir=$(printf '%s\n' "$json" | json_field Dir)
  sum=$(printf '%s\n' "$json" | json_field Sum)
  info=$(printf '%s\n' "$json" | json_field Info)
  [ -d "$dir" ] || die "go mod download gave no directory for $module@$version"
  if [ -n "$want" ] && [ "$sum" != "$want" ]; then
    die "checksum mismatch for $module@$version: patches/BASE records $want, the module proxy served $sum"
  fi
  time=$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' "$info")
  printf '%s\t%s\t%s\n' "$dir" "$sum" "${time:-1970-01-01T00:00:00Z}"
}

# make_tree DEST MODULE VERSION [EXPECTED_SUM]: DEST becomes a git repository
# whose first commit is the pristine release (tag upstream/VERSION) and whose
# second is the build fix-up (tag kspatch/fixup): staging replace directives
# point at the published modules, and the in-tree go.work and vendor/ (which
# only work together with staging/, absent from the module) are removed.
make_tree() {
  local dest=$1 module=$2 version=$3 want=${4:-} fetched dir sum time staging
  fetched=$(fetch_upstream "$module" "$version" "$want")
  IFS=$'\t' read -r dir sum time <<<"$fetched"
  staging=$(staging_version "$version")
  log "unpacking $module@$version ($sum) into ${dest#"$ROOT"/}"
  rm -rf "$dest" && mkdir -p "$(dirname "$dest")"
  cp -R "$dir" "$dest"
  chmod -R u+w "$dest"
  (
    cd "$dest"
    export GIT_AUTHOR_DATE=$time GIT_COMMITTER_DATE=$time
    git init -q -b main .
    git add -A -f .
    git commit -q --no-verify -m "upstream: $module $version" -m "Pristine module zip from the Go module proxy, $sum."
    git tag "upstream/$version"

    # The build fix-up: not part of the series.
    local m dropped=()
    sed -i -E "s#^(\tk8s\.io/[a-z0-9-]+) => \./staging/src/(k8s\.io/[a-z0-9-]+)\$#\1 => \2 $staging#" go.mod
    if grep -q '=> ./staging/' go.mod; then die "go.mod still has staging replaces after the fix-up"; fi
    # Modules the proxy does not serve at this version (the k8s.io/sample-*
    # examples) are dropped: only upstream's own example tests import them.
    for m in $(sed -n -E "s#^\tk8s\.io/[a-z0-9-]+ => (k8s\.io/[a-z0-9-]+) $staging\$#\1#p" go.mod); do
      if ! GOWORK=off GOFLAGS=-mod=mod go mod download "$m@$staging" >/dev/null 2>&1; then
        dropped+=("$m")
        sed -i -E "\#^\t${m//./\\.} #d" go.mod
      fi
    done
    [ ${#dropped[@]} -eq 0 ] || log "the module proxy does not serve ${dropped[*]} at $staging: dropped from go.mod"
    rm -rf vendor go.work go.work.sum
    # Record the published modules' checksums in go.sum.
    GOWORK=off GOFLAGS=-mod=mod go list -m all >/dev/null
    GOWORK=off GOFLAGS=-mod=mod go list -deps ./cmd/kube-scheduler ./pkg/scheduler/... >/dev/null
    git add -A .
    git commit -q --no-verify -m "kspatch: build fix-up (not part of the series)" -m "Point the staging replace directives at the published $staging modules and drop
vendor/, go.work and go.work.sum, which only work with staging/ present.${dropped:+
Dropped (not served by the module proxy at $staging): ${dropped[*]}.}"
    git tag "$FIXUP_TAG"
  )
}

# export_series TREE DIR: writes the commits after the fix-up in TREE as
# patch files into DIR (which must be empty). Stable across re-exports: zero
# commit ids, no signature, full blob ids, no numbering in the subject.
export_series() {
  local tree=$1 dir=$2
  git -C "$tree" format-patch -q --zero-commit --no-signature --full-index -N \
    --no-renames -o "$dir" "$FIXUP_TAG..HEAD" >/dev/null
}

# apply_series TREE DIR: git am every DIR/*.patch onto TREE; on failure names
# the patch that does not apply and leaves TREE at the fix-up.
apply_series() {
  local tree=$1 dir=$2 p
  for p in "$dir"/*.patch; do
    [ -e "$p" ] || continue
    if ! git -C "$tree" am -q --committer-date-is-author-date --keep-cr "$p" >"$OUT/.am.log" 2>&1; then
      git -C "$tree" am --abort >/dev/null 2>&1 || true
      sed 's/^/    /' "$OUT/.am.log" >&2
      die "patch $(basename "$p") does not apply"
    fi
  done
}

# same_series DIR_A DIR_B: true when both hold the same patch files byte for byte.
same_series() {
  diff -r -q "$1" "$2" >/dev/null 2>&1
}
