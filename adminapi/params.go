package adminapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file parses and validates query and path parameters. Every route
// declares the parameters it takes; anything else is a 400 that names the
// parameter and lists the allowed ones, and every bad value is a 400 that
// names the parameter and says what is allowed. What a message echoes from
// the request is bounded (clip, printable) and escaped.

// Limits of the list routes.
const (
	queueLimitDefault     = 100
	queueLimitMax         = 5000
	apiCallLimitDefault   = 100
	apiCallLimitMax       = 5000
	placementLimitDefault = 20
	placementLimitMax     = 1000
	// maxValueLen bounds any parameter value (names are at most 253 bytes).
	maxValueLen = 253
	// maxContinueLen bounds a continue token.
	maxContinueLen = 1024
	// defaultUISeconds is the CPU profile length of a new pprof UI session.
	defaultUISeconds = 5
)

// paramError is a bad query parameter. Its message names the parameter.
type paramError struct {
	param string
	msg   string
}

func (e *paramError) Error() string { return e.msg }

func invalid(param, value, allowed string) *paramError {
	return &paramError{param: param, msg: fmt.Sprintf("invalid %s %q: %s", param, value, allowed)}
}

// clip shortens what a message echoes: a string longer than 64 bytes is cut
// to its first 32 bytes (whole characters) and "...".
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	n := 32
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// printable returns s for a one-line message, unquoted: control, format and
// other non-printable characters and invalid bytes are escaped the way Go
// quotes them (\x1b, \r, \u202e), backslashes are doubled, and beyond limit
// bytes of output the rest is cut to "...".
func printable(s string, limit int) string {
	var b strings.Builder
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		var piece string
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, s[0])
		case r == '\\':
			piece = `\\`
		case unicode.IsPrint(r):
			piece = s[:size]
		default:
			q := strconv.QuoteRune(r)
			piece = q[1 : len(q)-1]
		}
		if b.Len()+len(piece) > limit {
			b.WriteString("...")
			break
		}
		b.WriteString(piece)
		s = s[size:]
	}
	return b.String()
}

// The names in a path are checked the way Kubernetes validates them, so that
// a name no object can have is a 400 that says what is allowed, and error
// messages never echo more than a valid name.
const (
	namespaceRule = "must be a DNS label: at most 63 characters, lowercase letters, digits and '-', " +
		"starting and ending with a letter or digit"
	objectNameRule = "must be a DNS subdomain: at most 253 characters, lowercase letters, digits, '-' and '.', " +
		"each dot-separated part starting and ending with a letter or digit"
	// podGroupNameRule: a PodGroup's name is a DNS subdomain that is also
	// a label value, since pods join the group with the label
	// scheduling.kspatch.io/pod-group=<name> (the CRD refuses a longer one).
	podGroupNameRule = "must be a pod group name: at most 63 characters, since pods join the group with the label " +
		"scheduling.kspatch.io/pod-group=<name> and a label value is at most 63 characters; lowercase letters, digits, " +
		"'-' and '.', each dot-separated part starting and ending with a letter or digit"
)

// maxPodGroupNameLen is the longest pod group name: a label value's length
// (validation.LabelValueMaxLength).
const maxPodGroupNameLen = 63

// isLabelText reports whether s is non-empty, of lowercase letters, digits
// and '-', and starts and ends with a letter or digit (RFC 1123 label
// characters; no length bound).
func isLabelText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

// isDNSLabel reports whether s is a valid namespace name (an RFC 1123 label
// of at most 63 characters).
func isDNSLabel(s string) bool {
	return len(s) <= 63 && isLabelText(s)
}

// isDNSSubdomain reports whether s is a valid pod or pod group name (an RFC
// 1123 subdomain of at most 253 characters: dot-separated label texts).
func isDNSSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isLabelText(part) {
			return false
		}
	}
	return true
}

// isPodGroupName reports whether s can name a PodGroup its pods join: a
// DNS subdomain of at most 63 characters (a label value's length).
func isPodGroupName(s string) bool {
	return len(s) <= maxPodGroupNameLen && isDNSSubdomain(s)
}

// parseObjectPath returns the {namespace} and the {nameKey} parameters of
// the request's path, unescaped and checked; the name is a pod's.
func parseObjectPath(r *http.Request, nameKey string) (namespace, name string, err error) {
	namespace, name = urlParam(r, "namespace"), urlParam(r, nameKey)
	if !isDNSLabel(namespace) {
		return "", "", invalid("namespace", clip(namespace), namespaceRule)
	}
	if !isDNSSubdomain(name) {
		return "", "", invalid(nameKey, clip(name), objectNameRule)
	}
	return namespace, name, nil
}

// parsePodGroupPath is parseObjectPath for a path that names a pod group:
// the name must be one pods can join (isPodGroupName).
func parsePodGroupPath(r *http.Request, nameKey string) (namespace, name string, err error) {
	namespace, name = urlParam(r, "namespace"), urlParam(r, nameKey)
	if !isDNSLabel(namespace) {
		return "", "", invalid("namespace", clip(namespace), namespaceRule)
	}
	if !isPodGroupName(name) {
		return "", "", invalid(nameKey, clip(name), podGroupNameRule)
	}
	return namespace, name, nil
}

// pair is one key=value of a query, unescaped.
type pair struct {
	key, value string
	badValue   bool // the value is not correctly URL-encoded
}

// splitQuery splits a raw query at '&' (not ';') and unescapes each key and
// value. Empty segments are skipped, as url.ParseQuery does.
func splitQuery(raw string) ([]pair, error) {
	var pairs []pair
	for raw != "" {
		var seg string
		seg, raw, _ = strings.Cut(raw, "&")
		if seg == "" {
			continue
		}
		rk, rv, _ := strings.Cut(seg, "=")
		k, err := url.QueryUnescape(rk)
		if err != nil {
			return nil, &paramError{param: rk, msg: fmt.Sprintf("query parameter %q is not correctly URL-encoded", clip(rk))}
		}
		v, err := url.QueryUnescape(rv)
		pairs = append(pairs, pair{key: k, value: v, badValue: err != nil})
	}
	return pairs, nil
}

// rawParam returns the first value of key in raw, ignoring malformed pairs.
// It serves content negotiation, which must work even for a bad query.
func rawParam(raw, key string) (string, bool) {
	for raw != "" {
		var seg string
		seg, raw, _ = strings.Cut(raw, "&")
		rk, rv, _ := strings.Cut(seg, "=")
		if k, err := url.QueryUnescape(rk); err == nil && k == key {
			v, err := url.QueryUnescape(rv)
			return v, err == nil
		}
	}
	return "", false
}

// params is a validated query: every key is allowed, and only repeatable
// keys have more than one value.
type params map[string][]string

// parseParams splits raw and checks it against the allowed parameter names.
// Keys listed in repeatable may be given more than once.
func parseParams(raw string, allowed []string, repeatable ...string) (params, error) {
	pairs, err := splitQuery(raw)
	if err != nil {
		return nil, err
	}
	p := params{}
	for _, kv := range pairs {
		if !slices.Contains(allowed, kv.key) {
			return nil, unknownParam(kv.key, allowed)
		}
		if kv.badValue {
			return nil, &paramError{param: kv.key, msg: fmt.Sprintf("invalid %s: the value is not correctly URL-encoded", kv.key)}
		}
		p[kv.key] = append(p[kv.key], kv.value)
		if n := len(p[kv.key]); n > 1 && !slices.Contains(repeatable, kv.key) {
			return nil, &paramError{param: kv.key, msg: fmt.Sprintf("query parameter %q is given more than once; give it once", kv.key)}
		}
		// A continue token and a pod group name have bounds of their own
		// (maxContinueLen; isPodGroupName's 63), which their checks
		// report.
		if len(kv.value) > maxValueLen && kv.key != "continue" && kv.key != "podGroup" {
			return nil, invalid(kv.key, kv.value[:32]+"...", fmt.Sprintf("must be at most %d bytes long", maxValueLen))
		}
	}
	if err := p.checkOutput(); err != nil {
		return nil, err
	}
	return p, nil
}

func unknownParam(key string, allowed []string) *paramError {
	if len(allowed) == 0 {
		return &paramError{param: key, msg: fmt.Sprintf("unknown query parameter %q: this route takes no query parameters", clip(key))}
	}
	sorted := slices.Clone(allowed)
	slices.Sort(sorted)
	return &paramError{param: key, msg: fmt.Sprintf("unknown query parameter %q: allowed parameters are %s", clip(key), strings.Join(sorted, ", "))}
}

// get returns the value of a single-valued parameter.
func (p params) get(key string) (string, bool) {
	v, ok := p[key]
	if !ok {
		return "", false
	}
	return v[0], true
}

// checkOutput validates output=, if present.
func (p params) checkOutput() error {
	v, ok := p.get("output")
	if !ok {
		return nil
	}
	switch strings.ToLower(v) {
	case "text", "json":
		return nil
	}
	return invalid("output", v, "allowed values are text, json")
}

// name returns a non-empty name-like parameter, or "" if absent.
func (p params) name(key string) (string, error) {
	v, ok := p.get(key)
	if !ok {
		return "", nil
	}
	if v == "" {
		return "", invalid(key, v, "must not be empty")
	}
	return v, nil
}

// intParam returns an integer parameter in [lo, hi], or def if absent.
func (p params) intParam(key string, def, lo, hi int) (int, error) {
	v, ok := p.get(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, invalid(key, v, fmt.Sprintf("must be an integer between %d and %d", lo, hi))
	}
	return n, nil
}

// queueParams are the validated parameters of /debug/queue.
type queueParams struct {
	// queues has bit i set for Queues()[i]; 0 means every queue.
	queues                      uint8
	namespace, podGroup, plugin string
	limit                       int
	// after is the key the continue token points after; nil on page one.
	after *PodKey
}

func parseQueueParams(raw string) (queueParams, error) {
	p, err := parseParams(raw, []string{"queue", "namespace", "podGroup", "plugin", "limit", "continue", "output"}, "queue")
	if err != nil {
		return queueParams{}, err
	}
	var qp queueParams
	for _, v := range p["queue"] {
		for _, q := range strings.Split(v, ",") {
			i := queueIndexFold(strings.TrimSpace(q))
			if i < 0 {
				return queueParams{}, invalid("queue", q, "allowed values are active, backoff, unschedulable, gated, inFlight")
			}
			qp.queues |= 1 << i
		}
	}
	if qp.namespace, err = p.name("namespace"); err != nil {
		return queueParams{}, err
	}
	if qp.podGroup, err = p.name("podGroup"); err != nil {
		return queueParams{}, err
	}
	if qp.podGroup != "" && !isPodGroupName(qp.podGroup) {
		return queueParams{}, invalid("podGroup", clip(qp.podGroup), podGroupNameRule)
	}
	if qp.plugin, err = p.name("plugin"); err != nil {
		return queueParams{}, err
	}
	if qp.limit, err = p.intParam("limit", queueLimitDefault, 1, queueLimitMax); err != nil {
		return queueParams{}, err
	}
	if tok, _ := p.get("continue"); tok != "" {
		key, err := decodeContinue(tok, qp.filterHash())
		if err != nil {
			return queueParams{}, err
		}
		qp.after = &key
	}
	return qp, nil
}

// queueIndexFold returns the index in Queues() of the queue named s, case
// insensitively, or -1.
func queueIndexFold(s string) int {
	for i, q := range Queues() {
		if strings.EqualFold(s, string(q)) {
			return i
		}
	}
	return -1
}

// filterHash identifies the filters a continue token was issued for.
func (qp queueParams) filterHash() string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s", qp.queues, qp.namespace, qp.podGroup, qp.plugin)
	return strconv.FormatUint(h.Sum64(), 36)
}

// Continue tokens are opaque to clients: base64url of a small JSON array
// [version, namespace, name, uid, filterHash] followed by a checksum. They
// hold a position in the stable (namespace, name, uid) order, not an offset,
// so pods added or removed between pages never shift what comes next, and a
// token stays valid across scheduler restarts. The checksum refuses corrupted
// or hand-edited tokens; it is not a secret because a token grants nothing a
// client could not list anyway.
const (
	continueVersion = 1
	continueDomain  = "kspatch.dev/adminapi continue v1\x00"
	continueSumLen  = 8
)

func continueSum(payload []byte) []byte {
	h := sha256.New()
	h.Write([]byte(continueDomain))
	h.Write(payload)
	return h.Sum(nil)[:continueSumLen]
}

// encodeContinue returns the token for the page after key.
func encodeContinue(key PodKey, filterHash string) string {
	payload, _ := json.Marshal([]any{continueVersion, key.Namespace, key.Name, key.UID, filterHash})
	return base64.RawURLEncoding.EncodeToString(append(payload, continueSum(payload)...))
}

// decodeContinue checks a token and returns its position.
func decodeContinue(tok, filterHash string) (PodKey, error) {
	bad := &paramError{param: "continue", msg: "invalid continue token: it is malformed or was not issued by this API; start again without continue="}
	if len(tok) > maxContinueLen {
		return PodKey{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) <= continueSumLen {
		return PodKey{}, bad
	}
	payload, sum := b[:len(b)-continueSumLen], b[len(b)-continueSumLen:]
	if !bytes.Equal(sum, continueSum(payload)) {
		return PodKey{}, bad
	}
	var fields []any
	if err := json.Unmarshal(payload, &fields); err != nil || len(fields) != 5 {
		return PodKey{}, bad
	}
	if v, ok := fields[0].(float64); !ok || v != continueVersion {
		return PodKey{}, bad
	}
	var s [4]string
	for i := range s {
		str, ok := fields[i+1].(string)
		if !ok {
			return PodKey{}, bad
		}
		s[i] = str
	}
	if s[3] != filterHash {
		return PodKey{}, &paramError{param: "continue", msg: "invalid continue token: it was issued for other filters; keep queue, namespace, podGroup and plugin unchanged while paging, or start again without continue="}
	}
	return PodKey{Namespace: s[0], Name: s[1], UID: s[2]}, nil
}

// apiCallParams are the validated parameters of /debug/apicalls.
type apiCallParams struct {
	callType string
	limit    int
}

func parseAPICallParams(raw string) (apiCallParams, error) {
	p, err := parseParams(raw, []string{"type", "limit", "output"})
	if err != nil {
		return apiCallParams{}, err
	}
	var ap apiCallParams
	if ap.callType, err = p.name("type"); err != nil {
		return apiCallParams{}, err
	}
	if ap.limit, err = p.intParam("limit", apiCallLimitDefault, 1, apiCallLimitMax); err != nil {
		return apiCallParams{}, err
	}
	return ap, nil
}

// parsePlacementParams returns the limit= of /debug/placements.
func parsePlacementParams(raw string) (limit int, err error) {
	p, err := parseParams(raw, []string{"limit", "output"})
	if err != nil {
		return 0, err
	}
	return p.intParam("limit", placementLimitDefault, 1, placementLimitMax)
}

// podGroupParams are the validated parameters of
// /debug/queue/podgroups/{namespace}/{name}.
type podGroupParams struct {
	// limit bounds the pods listed; candidates, the candidate placements.
	limit, candidates int
}

const (
	podGroupCandidatesDefault = 5
	podGroupCandidatesMax     = 100
)

func parsePodGroupParams(raw string) (podGroupParams, error) {
	p, err := parseParams(raw, []string{"limit", "candidates", "output"})
	if err != nil {
		return podGroupParams{}, err
	}
	var gp podGroupParams
	if gp.limit, err = p.intParam("limit", queueLimitDefault, 1, queueLimitMax); err != nil {
		return podGroupParams{}, err
	}
	if gp.candidates, err = p.intParam("candidates", podGroupCandidatesDefault, 1, podGroupCandidatesMax); err != nil {
		return podGroupParams{}, err
	}
	return gp, nil
}

// parseOutputOnly validates the query of a route that takes only output=.
func parseOutputOnly(raw string) error {
	_, err := parseParams(raw, []string{"output"})
	return err
}

// pprofParams are the validated parameters of a pprof route.
type pprofParams struct {
	seconds int // 0 if absent
}

// parsePprofParams validates the query of a pprof route: seconds= (1 to
// MaxProfileSeconds) where the route samples over time, debug= and gc= where
// the route takes them.
func parsePprofParams(raw string, allowed ...string) (pprofParams, error) {
	p, err := parseParams(raw, allowed)
	if err != nil {
		return pprofParams{}, err
	}
	var pp pprofParams
	if pp.seconds, err = p.intParam("seconds", 0, 1, MaxProfileSeconds); err != nil {
		return pprofParams{}, err
	}
	if _, err = p.intParam("debug", 0, 0, 2); err != nil {
		return pprofParams{}, err
	}
	if _, err = p.intParam("gc", 0, 0, 1); err != nil {
		return pprofParams{}, err
	}
	return pp, nil
}
