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

# series_staging_modules DIR: the staging modules (k8s.io/NAME, one a line)
# whose files the series in DIR edits, i.e. that its patches name under
# staging/src/k8s.io/NAME/. Empty for a series that edits none.
series_staging_modules() {
  local p
  for p in "$1"/*.patch; do
    [ -e "$p" ] || continue
    sed -n -E 's#^diff --git a/staging/src/(k8s\.io/[a-z0-9-]+)/.*#\1#p' "$p"
  done | sort -u
}

# make_tree DEST MODULE VERSION [EXPECTED_SUM [LOCAL_MODULE...]]: DEST becomes
# a git repository whose first commit is the pristine release (tag
# upstream/VERSION) and whose second is the build fix-up (tag kspatch/fixup):
# staging replace directives point at the published modules, and the in-tree
# go.work and vendor/ (which only work together with staging/, absent from the
# module) are removed.
# Staging modules the series edits (series_staging_modules $PATCHES) and any
# LOCAL_MODULE given are the exception: the fix-up unpacks their published
# module into staging/src/k8s.io/NAME and keeps their replace directive local,
# so that patches can edit them. A series that edits no staging module and no
# LOCAL_MODULE give the plain fix-up.
make_tree() {
  local dest=$1 module=$2 version=$3 want=${4:-} fetched dir sum time staging
  local -a locals=()
  fetched=$(fetch_upstream "$module" "$version" "$want")
  IFS=$'\t' read -r dir sum time <<<"$fetched"
  staging=$(staging_version "$version")
  mapfile -t locals < <({ series_staging_modules "$PATCHES"; [ $# -le 4 ] || printf '%s\n' "${@:5}"; } | sed '/^$/d' | sort -u)
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
    local m dropped=() kept=()
    for m in ${locals[@]+"${locals[@]}"}; do
      grep -q -F -x "$(printf '\t%s => ./staging/src/%s' "$m" "$m")" go.mod ||
        die "$m is not a staging module of $module $version (no replace $m => ./staging/src/$m in its go.mod)"
    done
    sed -i -E "s#^(\tk8s\.io/[a-z0-9-]+) => \./staging/src/(k8s\.io/[a-z0-9-]+)\$#\1 => \2 $staging#" go.mod
    # The staging modules kept local: the published module, unpacked where
    # upstream's own tree has it, and the replace directive back to it.
    for m in ${locals[@]+"${locals[@]}"}; do
      fetched=$(fetch_upstream "$m" "$staging")
      mkdir -p "staging/src/$m"
      cp -R "${fetched%%$'\t'*}/." "staging/src/$m/"
      chmod -R u+w "staging/src/$m"
      sed -i "s#^\t${m//./\\.} => ${m//./\\.} $staging\$#\t$m => ./staging/src/$m#" go.mod
      kept+=("$m $staging in staging/src/$m")
    done
    if grep '=> ./staging/' go.mod | grep -v -q -F -x -f <(for m in ${locals[@]+"${locals[@]}"}; do printf '\t%s => ./staging/src/%s\n' "$m" "$m"; done); then
      die "go.mod still has staging replaces after the fix-up"
    fi
    [ ${#kept[@]} -eq 0 ] || log "kept local (the series edits them): ${kept[*]}"
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
    for m in ${locals[@]+"${locals[@]}"}; do git add -A -f "staging/src/$m"; done
    git commit -q --no-verify -m "kspatch: build fix-up (not part of the series)" -m "Point the staging replace directives at the published $staging modules and drop
vendor/, go.work and go.work.sum, which only work with staging/ present.${dropped:+
Dropped (not served by the module proxy at $staging): ${dropped[*]}.}${kept:+
Kept local, so that the series can edit them (the published module unpacked,
its replace directive pointing at it): ${kept[*]}.}"
    git tag "$FIXUP_TAG"
  )
}

# staging_modules_of GO_MOD: the staging modules (k8s.io/NAME, one a line)
# that a pristine Kubernetes go.mod replaces with ./staging/src/k8s.io/NAME.
staging_modules_of() {
  sed -n -E 's#^\t(k8s\.io/[a-z0-9-]+) => \./staging/src/(k8s\.io/[a-z0-9-]+)$#\1#p' "$1"
}

# module_dirs VERSION MODULE...: "MODULE<TAB>DIR" for each MODULE the module
# proxy serves at VERSION (downloaded into the module cache, in one go
# command); modules it does not serve are left out.
module_dirs() {
  local version=$1; shift
  [ $# -gt 0 ] || return 0
  (cd "$OUT" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "${@/%/@$version}" 2>/dev/null) |
    awk -F'"' '/^\t"Path": /{p=$4} /^\t"Error": /{p=""} /^\t"Dir": /{if (p != "") print p "\t" $4}' || true
}

# go_decls FILE: the names of FILE's top-level Go types and functions
# (methods as Receiver.Name), one a line, sorted.
go_decls() {
  [ -f "$1" ] || return 0
  sed -n -E -e 's/^type ([A-Za-z0-9_]+).*/\1/p' \
    -e 's/^func \([a-zA-Z0-9_]* *\*?([A-Za-z0-9_]+)(\[[^]]*\])?\) ([A-Za-z0-9_]+).*/\1.\3/p' \
    -e 's/^func ([A-Za-z0-9_]+).*/\1/p' "$1" | sort -u
}

# staging_moves OLD_TREE NEW_TREE OLD_VERSION NEW_VERSION FILE...: for each
# FILE (a Go file in the Kubernetes tree) whose code the release NEW_VERSION
# moved, whole or in part, into one of its staging modules, prints
# "FILE<TAB>MODULE<TAB>PATH<TAB>NAMES" (PATH as in upstream's tree,
# staging/src/MODULE/...; NAMES the moved declarations, comma-separated).
# OLD_TREE and NEW_TREE are the unpacked releases (NEW_TREE's go.mod names
# the staging modules). A move is a file with FILE's directory and file name
# (framework/interface.go) that the published staging module has at
# NEW_VERSION and did not have at OLD_VERSION, and that declares types or
# functions FILE declared in OLD_TREE and no longer declares in NEW_TREE:
# v1.34 moved Status, Code and more from pkg/scheduler/framework/interface.go
# to staging/src/k8s.io/kube-scheduler/framework/interface.go.
staging_moves() {
  local oldtree=$1 newtree=$2 old new f m olddir newdir rel names
  old=$(staging_version "$3") new=$(staging_version "$4"); shift 4
  [ $# -gt 0 ] || return 0
  local -a modules=()
  mapfile -t modules < <(staging_modules_of "$newtree/go.mod")
  [ ${#modules[@]} -gt 0 ] || return 0
  declare -A olddirs=()
  while IFS=$'\t' read -r m olddir; do olddirs[$m]=$olddir; done < <(module_dirs "$old" "${modules[@]}")
  while IFS=$'\t' read -r m newdir; do
    # Every file of the module whose last two path elements are a FILE's.
    while IFS=$'\t' read -r f rel; do
      [ -z "${olddirs[$m]:-}" ] || [ ! -e "${olddirs[$m]}/$rel" ] || continue
      names=$(comm -12 <(go_decls "$oldtree/$f") <(go_decls "$newdir/$rel") | comm -23 - <(go_decls "$newtree/$f") | paste -s -d, -)
      [ -z "$names" ] || printf '%s\t%s\tstaging/src/%s/%s\t%s\n' "$f" "$m" "$m" "$rel" "$names"
    done < <(cd "$newdir" && find . -type f -name '*.go' | sed 's#^\./##' |
      awk -v files="$(printf '%s\n' "$@")" 'BEGIN { n = split(files, fs, "\n"); for (i = 1; i <= n; i++) { k = fs[i]; if (sub(/^.*\//, "", k) == 0) continue; d = fs[i]; sub(/\/[^\/]*$/, "", d); sub(/^.*\//, "", d); want[d "/" k] = want[d "/" k] (want[d "/" k] == "" ? "" : "\n") fs[i] } }
        { k = $0; if (split(k, parts, "/") < 2) next; key = parts[length(parts) - 1] "/" parts[length(parts)]; if (key in want) { m = split(want[key], hits, "\n"); for (i = 1; i <= m; i++) print hits[i] "\t" $0 } }' | sort)
  done < <(module_dirs "$new" "${modules[@]}")
}

# tree_moves OLD_TREE NEW_TREE FILE...: for each Go FILE (a path in both
# trees) some of whose types and functions NEW_TREE declares in another file
# of FILE's package directory instead (names compared ignoring case, so an
# unexported rename counts), prints "FILE<TAB>-<TAB>PATH<TAB>NAMES" like
# staging_moves: v1.34 moved UnschedulablePods out of
# pkg/scheduler/backend/queue/scheduling_queue.go into unschedulable_pods.go.
tree_moves() {
  local oldtree=$1 newtree=$2 f g rel removed names; shift 2
  for f in "$@"; do
    [ -f "$oldtree/$f" ] && [ -d "$newtree/$(dirname "$f")" ] || continue
    removed=$(comm -23 <(go_decls "$oldtree/$f" | tr '[:upper:]' '[:lower:]' | sort -u) <(go_decls "$newtree/$f" | tr '[:upper:]' '[:lower:]' | sort -u))
    [ -n "$removed" ] || continue
    for g in "$newtree/$(dirname "$f")"/*.go; do
      rel=${g#"$newtree"/}
      [ "$rel" != "$f" ] || continue
      names=$(go_decls "$g" | awk -v removed="$removed" -v had="$(go_decls "$oldtree/$rel" | tr '[:upper:]' '[:lower:]')" '
        BEGIN { n = split(removed, r, "\n"); for (i = 1; i <= n; i++) want[r[i]] = 1
                n = split(had, h, "\n"); for (i = 1; i <= n; i++) old[h[i]] = 1 }
        { k = tolower($0); if ((k in want) && !(k in old)) print }' | paste -s -d, -)
      [ -z "$names" ] || printf '%s\t-\t%s\t%s\n' "$f" "$rel" "$names"
    done
  done
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

# cpu_ticks prints the machine's busy and total CPU ticks so far
# (/proc/stat): the difference between two calls says how busy the CPUs were.
cpu_ticks() { awk '/^cpu / { busy = $2 + $3 + $4 + $7 + $8; print busy, busy + $5 + $6 }' /proc/stat 2>/dev/null || echo "0 0"; }
