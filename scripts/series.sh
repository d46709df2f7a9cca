# shellcheck shell=bash
# Helpers for the series' blocks and patch headers (docs/series.md). Source
# it after lib.sh.

# read_blocks FILE: sets BLOCKS (the block names in series order),
# BLOCK_NEEDS[name] (the blocks it needs, comma-separated) and
# BLOCK_TITLE[name] from patches/BLOCKS: per line "name needs=a,b title"
# (needs=- for none), # comments.
read_blocks() {
  local file=$1 name needs title n
  [ -f "$file" ] || die "$file is missing: it lists the series' blocks in order"
  BLOCKS=()
  declare -gA BLOCK_TITLE=() BLOCK_NEEDS=()
  while read -r name needs title; do
    case "$name" in ''|'#'*) continue ;; esac
    [[ $name =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "$file: bad block name '$name' (lower case, digits and '-')"
    [ -z "${BLOCK_TITLE[$name]+x}" ] || die "$file: block '$name' is listed twice"
    [[ $needs =~ ^needs=(-|[a-z0-9,-]+)$ ]] || die "$file: block '$name': the second field must be needs=<blocks> (needs=- for none), not '$needs'"
    needs=${needs#needs=}; [ "$needs" != - ] || needs=
    for n in ${needs//,/ }; do
      [ -n "${BLOCK_TITLE[$n]+x}" ] || die "$file: block '$name' needs '$n', which is not a block listed before it"
    done
    [ -n "$title" ] || die "$file: block '$name' has no title"
    BLOCKS+=("$name")
    BLOCK_TITLE[$name]=$title
    BLOCK_NEEDS[$name]=$needs
  done <"$file"
  [ ${#BLOCKS[@]} -gt 0 ] || die "$file lists no block"
}

# patch_message PATCH: the commit message of a git format-patch file (the
# subject without "[PATCH] ", a blank line, the body up to the "---" line).
patch_message() {
  awk '
    /^Subject: / { sub(/^Subject: (\[PATCH[^]]*\] )?/, ""); subj = $0; insubj = 1; next }
    insubj && /^ / { subj = subj $0; next }
    insubj { insubj = 0; print subj; print ""; body = 1; next }
    body && /^---$/ { exit }
    body { print }
  ' "$1"
}

# patch_trailer PATCH KEY: the values of trailer KEY in PATCH's message, one
# per line.
patch_trailer() {
  patch_message "$1" | git interpret-trailers --parse | sed -n "s/^$2: //p"
}

# check_headers DIR: every DIR/*.patch carries the trailers Block, KEP, Gate
# and Upstream-Status once each, well formed; Block names a block of
# BLOCKS; the blocks come in BLOCKS' order, each in one run. Dies naming the
# first patch that breaks a rule.
check_headers() {
  local dir=$1 p name key n value last=-1 idx i gates
  declare -A seen=()
  # The gates the series declares (addKspatchGate in a kspatch_<gate>.go).
  gates=" $(cat "$dir"/*.patch 2>/dev/null | sed -n 's/^+var _ = addKspatchGate(\([A-Za-z0-9]*\),.*/\1/p' | tr '\n' ' ')"
  for p in "$dir"/*.patch; do
    [ -e "$p" ] || continue
    name=$(basename "$p")
    for key in Block KEP Gate Upstream-Status; do
      n=$(patch_trailer "$p" "$key" | grep -c . || true)
      [ "$n" = 1 ] || die "$name: the trailer '$key:' appears $n times; every patch ends with one each of Block:, KEP:, Gate: and Upstream-Status: (docs/series.md)"
    done
    value=$(patch_trailer "$p" Block)
    [ -n "${BLOCK_TITLE[$value]+x}" ] || die "$name: Block: '$value' is not a block of patches/BLOCKS (${BLOCKS[*]})"
    idx=-1
    for i in "${!BLOCKS[@]}"; do [ "${BLOCKS[$i]}" = "$value" ] && idx=$i; done
    if [ "$idx" != "$last" ]; then
      [ -z "${seen[$value]+x}" ] || die "$name: block '$value' is split: its patches must be contiguous"
      [ "$idx" -gt "$last" ] || die "$name: block '$value' comes after '${BLOCKS[$last]}', but patches/BLOCKS lists it before"
      seen[$value]=1
      last=$idx
    fi
    value=$(patch_trailer "$p" KEP)
    [[ $value =~ ^(none|KEP-[0-9]+)$ ]] || die "$name: KEP: '$value' is malformed (want KEP-<number> or none)"
    value=$(patch_trailer "$p" Gate)
    if [ "$value" != none ]; then
      local g
      for g in ${value//,/ }; do
        [[ $g =~ ^[A-Z][A-Za-z0-9]+$ ]] || die "$name: Gate: '$value' is malformed (want none, or gate names separated by ', ')"
        [[ $gates == *" $g "* ]] || die "$name: Gate: '$g' is not a gate the series declares (addKspatchGate in pkg/features/kspatch_*.go)"
      done
    fi
    value=$(patch_trailer "$p" Upstream-Status)
    [[ $value =~ ^(kspatch\ only|not\ released|v1\.[0-9]+(\.[0-9]+)?)(\ .*)?$ ]] ||
      die "$name: Upstream-Status: '$value' is malformed (want 'kspatch only', 'not released ...' or the first upstream release with an equivalent, v1.N)"
  done
}
