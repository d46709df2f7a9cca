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

# Limits every patch keeps (docs/series.md): a message a reviewer reads in
# one screen, a diff a reviewer reads in one sitting.
# (scripts/test-scripts lowers them to test the checks on a small series.)
MAX_MESSAGE_LINES=${KSPATCH_MAX_MESSAGE_LINES:-60}
MAX_PATCH_LINES=${KSPATCH_MAX_PATCH_LINES:-3000}

# check_sizes DIR: every DIR/*.patch has a message of at most
# MAX_MESSAGE_LINES lines (subject and trailers included) and is under
# MAX_PATCH_LINES lines. Dies naming the first patch over a limit.
check_sizes() {
  local dir=$1 p name n
  for p in "$dir"/*.patch; do
    [ -e "$p" ] || continue
    name=$(basename "$p")
    n=$(patch_message "$p" | wc -l)
    [ "$n" -le "$MAX_MESSAGE_LINES" ] ||
      die "$name: the message has $n lines, more than $MAX_MESSAGE_LINES: say what, why, gate, tests and upstream status (docs/series.md); history goes in CHANGELOG.md"
    n=$(wc -l <"$p")
    [ "$n" -lt "$MAX_PATCH_LINES" ] ||
      die "$name: $n lines, not under $MAX_PATCH_LINES: split it into logical steps (docs/series.md)"
  done
}

# block_ranges DIR: per block in series order, "name first last" with the
# first and last patch numbers (NNNN) that carry its Block: trailer.
block_ranges() {
  local dir=$1 p num block
  for p in "$dir"/*.patch; do
    [ -e "$p" ] || continue
    num=$(basename "$p" | cut -c1-4)
    block=$(patch_trailer "$p" Block)
    printf '%s %s\n' "$block" "$num"
  done | awk '!($1 in first) { order[++n] = $1; first[$1] = $2 } { last[$1] = $2 }
    END { for (i = 1; i <= n; i++) print order[i], first[order[i]], last[order[i]] }'
}

# check_series_doc DOC DIR: the block table of DOC (the rows after the
# "| block | what | patches | needs |" header) lists the blocks of BLOCKS in
# order, each with its needs and the range of DIR's patches that carry it.
check_series_doc() {
  local doc=$1 dir=$2 want got
  [ -f "$doc" ] || die "$doc is missing: it documents the series' blocks"
  want=$(block_ranges "$dir" | while read -r name first last; do
    local range=$first needs=
    [ "$first" = "$last" ] || range="$first–$last"
    needs=${BLOCK_NEEDS[$name]-}
    [ -n "$needs" ] || needs=—
    printf '%s | %s | %s\n' "$name" "$range" "${needs//,/, }"
  done)
  got=$(awk -F'|' '
    /^\|[ \t]*block[ \t]*\|[ \t]*what[ \t]*\|[ \t]*patches[ \t]*\|[ \t]*needs[ \t]*\|/ { intable = 1; next }
    intable && /^\|[ \t]*-/ { next }
    intable && !/^\|/ { exit }
    intable {
      # name first; patches and needs are the last two cells, so that a
      # "|" in the what column does not shift them
      name = $2; gsub(/[` \t]/, "", name)
      n = NF; if ($n ~ /^[ \t]*$/) n--
      range = $(n - 1); gsub(/[ \t]/, "", range)
      needs = $n; gsub(/^[ \t]+|[ \t]+$/, "", needs)
      printf "%s | %s | %s\n", name, range, needs
    }
  ' "$doc")
  [ -n "$got" ] || die "$doc: no block table (a '| block | what | patches | needs |' header) found"
  if [ "$got" != "$want" ]; then
    diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/    /' >&2 || true
    die "$doc: the block table differs from patches/BLOCKS and the series ('<' the series, '>' the doc): update the table"
  fi
}

# Functions a patch adds take at most this many parameters (the receiver
# not counted); scripts/test-scripts lowers it to test the check.
MAX_PARAMS=${KSPATCH_MAX_PARAMS:-6}

# patch_funcs PATCH: "name params" for every Go function declaration the
# patch adds to a .go file (a "+func" line, with the lines that continue
# its signature in the new file), params being the number of its
# parameters. A method whose doc comment starts "<Name> is part of" is
# left out: the interface, not the series, fixes its parameters.
patch_funcs() {
  awk '
    function count(s,   i, c, depth, n, seg, start) {
      start = index(s, "(")
      depth = 0; n = 0; seg = ""
      for (i = start; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(" || c == "[" || c == "{") { depth++; if (depth == 1) continue }
        if (c == ")" || c == "]" || c == "}") { depth--; if (depth == 0) break }
        if (depth == 1 && c == ",") { if (seg ~ /[^ \t]/) n++; seg = ""; continue }
        seg = seg c
      }
      if (seg ~ /[^ \t]/) n++
      return n
    }
    function flush(   s, i, c, depth, name, method) {
      s = sig; sig = ""; collecting = 0
      sub(/^func[ \t]*/, "", s)
      method = 0
      if (substr(s, 1, 1) == "(") {            # skip the receiver
        method = 1; depth = 0
        for (i = 1; i <= length(s); i++) {
          c = substr(s, i, 1)
          if (c == "(") depth++
          if (c == ")" && --depth == 0) break
        }
        s = substr(s, i + 1); sub(/^[ \t]*/, "", s)
      }
      name = s; sub(/[\[(].*/, "", name)
      if (index(s, "[") && index(s, "[") < index(s, "(")) {  # type parameters
        depth = 0
        for (i = index(s, "["); i <= length(s); i++) {
          c = substr(s, i, 1)
          if (c == "[") depth++
          if (c == "]" && --depth == 0) break
        }
        s = substr(s, i + 1)
      }
      if (method && doc ~ ("^// " name " is part of ")) return
      print name, count(s)
    }
    function balanced(s,   i, c, d, seen) {
      d = 0; seen = 0
      sub(/^func[ \t]*\([^)]*\)/, "", s)
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(") { d++; seen = 1 }
        if (c == ")") { d--; if (d == 0 && seen) return 1 }
      }
      return 0
    }
    function code(line) { line = substr(line, 2); sub(/[ \t]*\/\/.*$/, "", line); return line }
    /^\+\+\+ / { gofile = ($0 ~ /\.go$/); collecting = 0; next }
    collecting && /^[+ ]/ { sig = sig " " code($0); if (balanced(sig)) flush(); incomment = 0; next }
    collecting && /^-/ { next }
    collecting { collecting = 0 }
    gofile && /^\+func[ \t]/ {
      doc = docStart; sig = code($0); collecting = 1; incomment = 0; docStart = ""
      if (balanced(sig)) flush()
      next
    }
    # the first line of the comment block just before a line
    /^[+ ]\/\// { if (!incomment) docStart = substr($0, 2); incomment = 1; next }
    { incomment = 0; docStart = "" }
  ' "$1"
}

# check_params DIR: no function a DIR/*.patch adds takes more than
# MAX_PARAMS parameters. Dies naming the patch and the function.
check_params() {
  local dir=$1 p name fn n
  for p in "$dir"/*.patch; do
    [ -e "$p" ] || continue
    name=$(basename "$p")
    while read -r fn n; do
      [ "$n" -le "$MAX_PARAMS" ] ||
        die "$name: func $fn takes $n parameters, more than $MAX_PARAMS: pass a struct or make it a method of the value that owns them (docs/series.md)"
    done < <(patch_funcs "$p")
  done
}
