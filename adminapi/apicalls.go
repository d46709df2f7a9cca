package adminapi

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// apiCallList is the JSON document of /debug/apicalls (kind APICallList).
type apiCallList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	TakenAt    time.Time `json:"takenAt"`
	// Summary counts every call per type, ignoring filters (but not the
	// caller's namespaces), sorted by type.
	Summary []apiCallTypeCount `json:"summary"`
	// Matched counts the calls that pass the filters; Remaining those left
	// out by limit=.
	Matched   int           `json:"matched"`
	Remaining int           `json:"remaining"`
	Items     []apiCallView `json:"items"`
	// HiddenCalls counts the calls left out of Summary and Items because
	// the caller may not read their objects' namespaces (HiddenNamespaces),
	// or, for a cluster-scoped object, every namespace.
	HiddenCalls      int `json:"hiddenCalls,omitempty"`
	HiddenNamespaces int `json:"hiddenNamespaces,omitempty"`
}

type apiCallTypeCount struct {
	Type     string `json:"type"`
	Pending  int    `json:"pending"`
	InFlight int    `json:"inFlight"`
}

// Values of apiCallView.State.
const (
	callPending  = "pending"
	callInFlight = "inFlight"
)

type apiCallView struct {
	Type          string        `json:"type"`
	Object        objectRefView `json:"object"`
	State         string        `json:"state"`
	EnqueuedAt    time.Time     `json:"enqueuedAt"`
	AgeSeconds    float64       `json:"ageSeconds"`
	Merges        int           `json:"merges"`
	InFlightSince time.Time     `json:"inFlightSince,omitzero"`
}

type objectRefView struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

func (a *api) listAPICalls(w http.ResponseWriter, r *http.Request) {
	if a.opts.APICalls == nil {
		notImplemented(w, r, "asynchronous API calls are not available: the SchedulerAsyncAPICalls feature gate is disabled or not in this build")
		return
	}
	ap, err := parseAPICallParams(r.URL.RawQuery)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	x, err := a.accessFor(r)
	if err != nil {
		a.authorizationError(w, r, err)
		return
	}
	snap, err := fetch(a, r, a.opts.APICalls.APICallSnapshot)
	if err != nil {
		a.sourceError(w, r, "the API call queue", err)
		return
	}
	if snap == nil {
		snap = &APICallSnapshot{}
	}
	doc := apiCallList{APIVersion: APIVersion, Kind: "APICallList", TakenAt: utc(snap.TakenAt), Items: []apiCallView{}}
	counts := map[string]*apiCallTypeCount{}
	var matched []int
	hiddenCalls := 0
	if !x.all {
		namespaces := make([]string, 0, len(snap.Calls))
		for i := range snap.Calls {
			if ns := snap.Calls[i].Object.Namespace; ns != "" {
				namespaces = append(namespaces, ns)
			}
		}
		x.prefetch(namespaces)
	}
	for i := range snap.Calls {
		c := &snap.Calls[i]
		if !x.all && (c.Object.Namespace == "" || !x.may(c.Object.Namespace)) {
			// A cluster-scoped object's call only to a cluster-wide reader.
			hiddenCalls++
			continue
		}
		tc := counts[c.Type]
		if tc == nil {
			tc = &apiCallTypeCount{Type: c.Type}
			counts[c.Type] = tc
		}
		if c.InFlightSince.IsZero() {
			tc.Pending++
		} else {
			tc.InFlight++
		}
		if ap.callType == "" || c.Type == ap.callType {
			matched = append(matched, i)
		}
	}
	if x.err != nil {
		a.authorizationError(w, r, x.err)
		return
	}
	doc.HiddenNamespaces = x.hiddenNamespaces()
	doc.HiddenCalls = hiddenCalls
	doc.Summary = make([]apiCallTypeCount, 0, len(counts))
	for _, tc := range counts {
		doc.Summary = append(doc.Summary, *tc)
	}
	slices.SortFunc(doc.Summary, func(x, y apiCallTypeCount) int { return strings.Compare(x.Type, y.Type) })

	// Oldest first: the calls most likely stuck lead the list.
	slices.SortFunc(matched, func(i, j int) int {
		x, y := &snap.Calls[i], &snap.Calls[j]
		return cmp.Or(x.EnqueuedAt.Compare(y.EnqueuedAt), strings.Compare(x.Type, y.Type),
			strings.Compare(x.Object.Namespace, y.Object.Namespace), strings.Compare(x.Object.Name, y.Object.Name),
			strings.Compare(x.Object.UID, y.Object.UID))
	})
	doc.Matched = len(matched)
	if len(matched) > ap.limit {
		doc.Remaining = len(matched) - ap.limit
		matched = matched[:ap.limit]
	}
	for _, i := range matched {
		c := &snap.Calls[i]
		state := callPending
		if !c.InFlightSince.IsZero() {
			state = callInFlight
		}
		doc.Items = append(doc.Items, apiCallView{
			Type:          c.Type,
			Object:        objectRefView{Namespace: c.Object.Namespace, Name: c.Object.Name, UID: c.Object.UID},
			State:         state,
			EnqueuedAt:    utc(c.EnqueuedAt),
			AgeSeconds:    seconds(snap.TakenAt.Sub(c.EnqueuedAt)),
			Merges:        c.Merges,
			InFlightSince: utc(c.InFlightSince),
		})
	}
	a.render(w, r, doc, doc.writeText)
}

func (doc apiCallList) writeText(w io.Writer) error {
	t := newTable(w)
	row(t, "CALL TYPE", "PENDING", "IN FLIGHT")
	var pending, inFlight int
	for _, c := range doc.Summary {
		row(t, c.Type, strconv.Itoa(c.Pending), strconv.Itoa(c.InFlight))
		pending += c.Pending
		inFlight += c.InFlight
	}
	row(t, "total", strconv.Itoa(pending), strconv.Itoa(inFlight))
	if err := t.Flush(); err != nil {
		return err
	}
	if len(doc.Items) == 0 {
		_, err := io.WriteString(w, "\nNo API calls matched.\n")
		if err == nil {
			err = doc.writeHidden(w)
		}
		return err
	}
	_, _ = io.WriteString(w, "\n")
	t = newTable(w)
	row(t, "TYPE", "NAMESPACE", "NAME", "UID", "STATE", "AGE", "MERGES", "IN FLIGHT FOR")
	for _, c := range doc.Items {
		row(t, c.Type, orNone(c.Object.Namespace), c.Object.Name, orNone(c.Object.UID), c.State,
			age(doc.TakenAt.Sub(c.EnqueuedAt)), strconv.Itoa(c.Merges), ageSince(doc.TakenAt, c.InFlightSince))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	var err error
	if doc.Remaining > 0 {
		_, err = fmt.Fprintf(w, "\n%s matched; showing the %d oldest, %d more: raise limit=\n",
			count(doc.Matched, "call", "calls"), len(doc.Items), doc.Remaining)
	} else {
		_, err = fmt.Fprintf(w, "\n%s matched.\n", count(doc.Matched, "call", "calls"))
	}
	if err == nil {
		err = doc.writeHidden(w)
	}
	return err
}

// writeHidden says how many calls the caller's namespaces left out.
func (doc apiCallList) writeHidden(w io.Writer) error {
	if doc.HiddenCalls == 0 {
		return nil
	}
	msg := fmt.Sprintf("Not shown: %s on objects you may not read", count(doc.HiddenCalls, "call", "calls"))
	if note := hiddenNote(doc.HiddenNamespaces); note != "" {
		msg += ". " + note
	} else {
		msg += fmt.Sprintf(" (cluster-scoped objects: %s in every namespace is needed)", podsPermission)
	}
	_, err := fmt.Fprintf(w, "%s\n", msg)
	return err
}
