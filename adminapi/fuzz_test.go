package adminapi

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzQueryParams feeds arbitrary raw queries to every route's parameter
// parser: none may panic, and each either accepts the query with values in
// range or returns an error naming a parameter.
func FuzzQueryParams(f *testing.F) {
	for _, seed := range []string{
		"", "limit=10", "queue=active,backoff&queue=INFLIGHT", "namespace=a&podGroup=g&plugin=p",
		"limit=abc", "limit=0", "limit=99999999999999999999", "queue=", "queue=,", "%zz=1", "a=%zz",
		"output=json", "output=yaml", "continue=abc", "continue=WzEsImEiLCJiIiwiYyIsIngiXQ",
		"seconds=61", "debug=2&gc=1", "type=pod_binding", "candidates=0", "candidates=5&limit=3", "candidates=101", ";;&&==", "=", "&=&", "limit=1&limit=1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// The query's keys, raw and unescaped.
		var keys []string
		for _, seg := range strings.Split(raw, "&") {
			k, _, _ := strings.Cut(seg, "=")
			keys = append(keys, k)
			if u, err := url.QueryUnescape(k); err == nil {
				keys = append(keys, u)
			}
		}
		check := func(route string, err error, allowed []string) {
			t.Helper()
			if err == nil {
				return
			}
			var pe *paramError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: %q: error %v is not a parameter error", route, raw, err)
			}
			// The parameter is one the route allows, or a key of the query.
			if !slices.Contains(allowed, pe.param) && !slices.Contains(keys, pe.param) {
				t.Fatalf("%s: %q: error names %q, which is neither allowed nor in the query", route, raw, pe.param)
			}
			// (A long name is shown cut short.)
			if !strings.Contains(err.Error(), clip(pe.param)) && !strings.Contains(err.Error(), strconv.Quote(clip(pe.param))) {
				t.Fatalf("%s: %q: message %q does not name %q", route, raw, err, pe.param)
			}
		}

		qp, err := parseQueueParams(raw)
		check("queue", err, []string{"queue", "namespace", "podGroup", "plugin", "limit", "continue", "output"})
		if err == nil {
			if qp.limit < 1 || qp.limit > queueLimitMax || qp.queues >= 1<<len(Queues()) {
				t.Fatalf("%q: out of range: %+v", raw, qp)
			}
			// The filters' own token always continues the same listing.
			if qp.after != nil {
				if k, err := decodeContinue(encodeContinue(*qp.after, qp.filterHash()), qp.filterHash()); err != nil || k != *qp.after {
					t.Fatalf("%q: token round trip: %v %v", raw, k, err)
				}
			}
		}

		ap, err := parseAPICallParams(raw)
		check("apicalls", err, []string{"type", "limit", "output"})
		if err == nil && (ap.limit < 1 || ap.limit > apiCallLimitMax) {
			t.Fatalf("%q: apicalls limit %d", raw, ap.limit)
		}

		limit, err := parsePlacementParams(raw)
		check("placements", err, []string{"limit", "output"})
		if err == nil && (limit < 1 || limit > placementLimitMax) {
			t.Fatalf("%q: placements limit %d", raw, limit)
		}

		gp, err := parsePodGroupParams(raw)
		check("podgroups", err, []string{"limit", "candidates", "output"})
		if err == nil && (gp.limit < 1 || gp.limit > queueLimitMax || gp.candidates < 1 || gp.candidates > podGroupCandidatesMax) {
			t.Fatalf("%q: podgroups params %+v", raw, gp)
		}

		pp, err := parsePprofParams(raw, "seconds", "debug", "gc")
		check("pprof", err, []string{"seconds", "debug", "gc"})
		if err == nil && (pp.seconds < 0 || pp.seconds > MaxProfileSeconds) {
			t.Fatalf("%q: seconds %d", raw, pp.seconds)
		}

		// Tokens straight from the fuzzer.
		if _, err := decodeContinue(raw, ""); err != nil {
			check("continue", err, []string{"continue"})
		}
		_ = wantJSONRaw(raw)
	})
}

// wantJSONRaw exercises the lenient output= lookup used for negotiation.
func wantJSONRaw(raw string) bool {
	v, ok := rawParam(raw, "output")
	return ok && strings.EqualFold(v, "json")
}
