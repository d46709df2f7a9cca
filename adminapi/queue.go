package adminapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// queueList is the JSON document of /debug/queue (kind QueueList).
type queueList struct {
	APIVersion      string       `json:"apiVersion"`
	Kind            string       `json:"kind"`
	TakenAt         time.Time    `json:"takenAt"`
	Leader          bool         `json:"leader"`
	SchedulingCycle int64        `json:"schedulingCycle"`
	Summary         queueSummary `json:"summary"`
	// Matched counts the pods that pass the filters, on every page.
	Matched int `json:"matched"`
	// Remaining counts the matching pods after this page.
	Remaining int `json:"remaining"`
	// Continue is the token for the next page; empty on the last page.
	Continue string          `json:"continue,omitempty"`
	Items    []queuedPodView `json:"items"`
	// Groups are the pod groups of the matching pods (on every page, not
	// only this one), with their pods per sub-queue; GroupsOmitted counts
	// the groups beyond MaxQueueGroups.
	Groups        []queueGroupView `json:"groups"`
	GroupsOmitted int              `json:"groupsOmitted,omitempty"`
	// HiddenNamespaces counts the namespaces with queued pods that the
	// caller may not read: their pods are in no count, item or group above.
	HiddenNamespaces int `json:"hiddenNamespaces,omitempty"`
}

// queueGroupView is one pod group of a QueueList: its queued pods per
// sub-queue and, in one word, where the group stands.
type queueGroupView struct {
	Namespace string `json:"namespace"`
	PodGroup  string `json:"podGroup"`
	// State is the most advanced sub-queue any of its pods is in:
	// scheduling (in flight), active, backoff, unschedulable, then gated.
	State  string       `json:"state"`
	Counts queueSummary `json:"counts"`
}

// groupState is a queueGroupView's State.
func groupState(c QueueCounts) string {
	switch {
	case c.InFlight > 0:
		return "scheduling"
	case c.Active > 0:
		return string(QueueActive)
	case c.Backoff > 0:
		return string(QueueBackoff)
	case c.Unschedulable > 0:
		return string(QueueUnschedulable)
	default:
		return string(QueueGated)
	}
}

func newQueueSummary(c QueueCounts) queueSummary {
	return queueSummary{Active: c.Active, Backoff: c.Backoff, Unschedulable: c.Unschedulable, Gated: c.Gated, InFlight: c.InFlight, Total: c.Total()}
}

// queueSummary counts the whole queue's pods per sub-queue, ignoring filters.
type queueSummary struct {
	Active        int `json:"active"`
	Backoff       int `json:"backoff"`
	Unschedulable int `json:"unschedulable"`
	Gated         int `json:"gated"`
	InFlight      int `json:"inFlight"`
	Total         int `json:"total"`
}

// queuedPodView is one pod of a QueueList, and the core of a QueuedPod.
type queuedPodView struct {
	Namespace               string    `json:"namespace"`
	Name                    string    `json:"name"`
	UID                     string    `json:"uid"`
	Queue                   QueueName `json:"queue"`
	Priority                int32     `json:"priority"`
	Attempts                int       `json:"attempts"`
	InitialAttemptTimestamp time.Time `json:"initialAttemptTimestamp,omitzero"`
	Timestamp               time.Time `json:"timestamp"`
	AgeSeconds              float64   `json:"ageSeconds"`
	BackoffExpiry           time.Time `json:"backoffExpiry,omitzero"`
	UnschedulablePlugins    []string  `json:"unschedulablePlugins,omitempty"`
	PendingPlugins          []string  `json:"pendingPlugins,omitempty"`
	GatingPlugin            string    `json:"gatingPlugin,omitempty"`
	PodGroup                string    `json:"podGroup,omitempty"`
}

// queuedPodDoc is the JSON document of /debug/queue/pods/{ns}/{name} (kind
// QueuedPod).
type queuedPodDoc struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	TakenAt    time.Time `json:"takenAt"`
	queuedPodView
	// PlacementLevel, for a pod of a group whose latest recorded cycle
	// chose no placement, is the topology level the group is held at and
	// why no domain of it fits (that cycle's heldAt; multi-level topology).
	PlacementLevel    string `json:"placementLevel,omitempty"`
	NominatedNodeName string `json:"nominatedNodeName,omitempty"`
	// NextEligibleTime is when the pod may next be attempted: takenAt for an
	// active pod, the backoff expiry for a backing-off one; absent when it
	// waits for an event, a gate or its current cycle (see waitingFor).
	NextEligibleTime time.Time      `json:"nextEligibleTime,omitzero"`
	WaitingFor       string         `json:"waitingFor"`
	LastFailure      *diagnosisView `json:"lastFailure,omitempty"`
}

type diagnosisView struct {
	Time              time.Time              `json:"time,omitzero"`
	Message           string                 `json:"message"`
	NumAllNodes       int                    `json:"numAllNodes"`
	PreFilterMessage  string                 `json:"preFilterMessage,omitempty"`
	PostFilterMessage string                 `json:"postFilterMessage,omitempty"`
	Plugins           []pluginDiagnosisView  `json:"plugins"`
	OmittedPlugins    int                    `json:"omittedPlugins,omitempty"`
	PodGroup          *podGroupDiagnosisView `json:"podGroup,omitempty"`
}

type podGroupDiagnosisView struct {
	Fit  bool   `json:"fit"`
	Node string `json:"node,omitempty"`
}

type pluginDiagnosisView struct {
	Plugin  string            `json:"plugin"`
	Nodes   int               `json:"nodes"`
	Reasons []reasonCountView `json:"reasons"`
	// OmittedReasons is set in a pod's last failure only.
	OmittedReasons int `json:"omittedReasons,omitempty"`
}

type reasonCountView struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

func (a *api) listQueue(w http.ResponseWriter, r *http.Request) {
	if a.opts.Queue == nil {
		notImplemented(w, r, "the scheduling queue is not available to the admin API in this scheduler")
		return
	}
	qp, err := parseQueueParams(r.URL.RawQuery)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	x, err := a.accessFor(r)
	if err != nil {
		a.authorizationError(w, r, err)
		return
	}
	if qp.namespace != "" && !x.may(qp.namespace) {
		if x.err != nil {
			a.authorizationError(w, r, x.err)
			return
		}
		writeError(w, r, http.StatusForbidden, forbiddenMessage(qp.namespace))
		return
	}
	q := qp.query()
	if err := a.readableNamespaces(r, &q, x); err != nil {
		a.sourceError(w, r, "the scheduling queue", err)
		return
	}
	if x.err != nil {
		a.authorizationError(w, r, x.err)
		return
	}
	page, err := fetch(a, r, func(ctx context.Context) (*QueuePage, error) {
		return queuePage(ctx, a.opts.Queue, q)
	})
	if err != nil {
		a.sourceError(w, r, "the scheduling queue", err)
		return
	}
	c := page.Counts
	doc := queueList{
		APIVersion:       APIVersion,
		Kind:             "QueueList",
		TakenAt:          utc(page.TakenAt),
		Leader:           a.leader(),
		SchedulingCycle:  page.SchedulingCycle,
		Summary:          newQueueSummary(c),
		Matched:          page.Matched,
		Remaining:        page.Remaining,
		Items:            make([]queuedPodView, len(page.Pods)),
		Groups:           make([]queueGroupView, len(page.Groups)),
		GroupsOmitted:    page.GroupsOmitted,
		HiddenNamespaces: x.hiddenNamespaces(),
	}
	for i, g := range page.Groups {
		doc.Groups[i] = queueGroupView{Namespace: g.Namespace, PodGroup: g.Name, State: groupState(g.Counts), Counts: newQueueSummary(g.Counts)}
	}
	// limit= bounds the groups as it bounds the pods.
	if len(doc.Groups) > qp.limit {
		doc.GroupsOmitted += len(doc.Groups) - qp.limit
		doc.Groups = doc.Groups[:qp.limit]
	}
	for i := range page.Pods {
		doc.Items[i] = newQueuedPodView(&page.Pods[i], page.TakenAt)
	}
	if page.Remaining > 0 && len(page.Pods) > 0 {
		doc.Continue = encodeContinue(keyOf(&page.Pods[len(page.Pods)-1]), qp.filterHash())
	}
	a.render(w, r, doc, doc.writeText)
}

// queuePage asks src for the page qp describes: from the source itself when
// it is a QueuePager, else by selecting it from a snapshot of the whole queue.
func queuePage(ctx context.Context, src QueueSource, q QueueQuery) (*QueuePage, error) {
	if pager, ok := src.(QueuePager); ok {
		page, err := pager.QueuePage(ctx, q)
		if page == nil && err == nil {
			page = &QueuePage{}
		}
		return page, err
	}
	snap, err := src.QueueSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	if snap == nil {
		snap = &QueueSnapshot{}
	}
	return selectQueuePage(snap, q), nil
}

func (a *api) getQueuedPod(w http.ResponseWriter, r *http.Request) {
	if a.opts.Queue == nil {
		notImplemented(w, r, "the scheduling queue is not available to the admin API in this scheduler")
		return
	}
	ns, name, err := parseObjectPath(r, "name")
	if err != nil {
		badRequest(w, r, err)
		return
	}
	if err := parseOutputOnly(r.URL.RawQuery); err != nil {
		badRequest(w, r, err)
		return
	}
	if !a.authorizeNamespace(w, r, ns) {
		return
	}
	d, err := fetch(a, r, func(ctx context.Context) (*QueuedPodDetail, error) {
		return a.opts.Queue.QueuedPod(ctx, ns, name)
	})
	if err != nil {
		a.sourceError(w, r, "the scheduling queue", err)
		return
	}
	if d == nil {
		writeError(w, r, http.StatusNotFound, fmt.Sprintf("pod %s/%s is not in the scheduling queue", ns, name))
		return
	}
	doc := newQueuedPodDoc(d)
	if d.PodGroup != "" && a.opts.Placements != nil {
		snap, err := fetch(a, r, a.opts.Placements.PlacementSnapshot)
		if err != nil {
			a.sourceError(w, r, "the placement decisions", err)
			return
		}
		doc.PlacementLevel = heldAt(snap, ns, d.PodGroup)
	}
	a.render(w, r, doc, doc.writeText)
}

// heldAt returns the HeldAt of the latest recorded decision of the pod
// group namespace/name: where the group waits, if its last cycle chose no
// placement. It is empty when that decision chose one, has no levels, or
// when no decision of the group is recorded.
func heldAt(snap *PlacementSnapshot, namespace, name string) string {
	if snap == nil {
		return ""
	}
	for i := range snap.Decisions {
		if d := &snap.Decisions[i]; d.Namespace == namespace && d.PodGroup == name {
			return d.HeldAt
		}
	}
	return ""
}

// urlParam returns a path parameter, unescaped.
func urlParam(r *http.Request, key string) string {
	v := chi.URLParam(r, key)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// selectQueuePage filters and pages a snapshot of the whole queue.
func selectQueuePage(snap *QueueSnapshot, q QueueQuery) *QueuePage {
	sel := NewPageSelector[int](q)
	for i := range snap.Pods {
		p := &snap.Pods[i]
		sel.Offer(PageCandidate{
			Key:         keyOf(p),
			Queue:       p.Queue,
			PodGroup:    p.PodGroup,
			PluginMatch: q.Plugin != "" && (p.GatingPlugin == q.Plugin || slices.Contains(p.UnschedulablePlugins, q.Plugin) || slices.Contains(p.PendingPlugins, q.Plugin)),
		}, i)
	}
	page := &QueuePage{TakenAt: snap.TakenAt, SchedulingCycle: snap.SchedulingCycle}
	var idx []int
	page.Counts, page.Matched, page.Remaining, idx = sel.Result()
	page.Groups, page.GroupsOmitted = sel.Groups()
	page.Pods = make([]QueuedPod, len(idx))
	for i, j := range idx {
		page.Pods[i] = snap.Pods[j]
	}
	return page
}

// queueIndex returns the index of q in Queues(), or -1 for an unknown name.
// The names have distinct lengths, so a length switch and one comparison
// decide (this runs once per queued pod per request).
func queueIndex(q QueueName) int {
	var i int
	var want QueueName
	switch len(q) {
	case len(QueueActive):
		i, want = 0, QueueActive
	case len(QueueBackoff):
		i, want = 1, QueueBackoff
	case len(QueueUnschedulable):
		i, want = 2, QueueUnschedulable
	case len(QueueGated):
		i, want = 3, QueueGated
	case len(QueueInFlight):
		i, want = 4, QueueInFlight
	default:
		return -1
	}
	if q != want {
		return -1
	}
	return i
}

// query is the QueueQuery of the parsed parameters.
func (qp *queueParams) query() QueueQuery {
	q := QueueQuery{Namespace: qp.namespace, PodGroup: qp.podGroup, Plugin: qp.plugin, Limit: qp.limit, After: qp.after}
	for i, name := range Queues() {
		if qp.queues&(1<<i) != 0 {
			q.Queues = append(q.Queues, name)
		}
	}
	return q
}

func keyOf(p *QueuedPod) PodKey {
	return PodKey{Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// sortedCopy returns ss sorted, without modifying ss (snapshot data).
func sortedCopy(ss []string) []string {
	if slices.IsSorted(ss) {
		return ss
	}
	c := slices.Clone(ss)
	slices.Sort(c)
	return c
}

func newQueuedPodView(p *QueuedPod, now time.Time) queuedPodView {
	return queuedPodView{
		Namespace:               p.Namespace,
		Name:                    p.Name,
		UID:                     p.UID,
		Queue:                   p.Queue,
		Priority:                p.Priority,
		Attempts:                p.Attempts,
		InitialAttemptTimestamp: utc(p.InitialAttemptTimestamp),
		Timestamp:               utc(p.Timestamp),
		AgeSeconds:              seconds(now.Sub(p.Timestamp)),
		BackoffExpiry:           utc(p.BackoffExpiry),
		UnschedulablePlugins:    sortedCopy(p.UnschedulablePlugins),
		PendingPlugins:          sortedCopy(p.PendingPlugins),
		GatingPlugin:            p.GatingPlugin,
		PodGroup:                p.PodGroup,
	}
}

func newQueuedPodDoc(d *QueuedPodDetail) queuedPodDoc {
	doc := queuedPodDoc{
		APIVersion:        APIVersion,
		Kind:              "QueuedPod",
		TakenAt:           utc(d.TakenAt),
		queuedPodView:     newQueuedPodView(&d.QueuedPod, d.TakenAt),
		NominatedNodeName: d.NominatedNodeName,
	}
	switch d.Queue {
	case QueueActive:
		doc.NextEligibleTime = utc(d.TakenAt)
		doc.WaitingFor = "a scheduling cycle: the pod is ready and is popped in priority order"
	case QueueBackoff:
		doc.NextEligibleTime = utc(d.BackoffExpiry)
		doc.WaitingFor = "its backoff to expire"
	case QueueUnschedulable:
		doc.WaitingFor = "a cluster event that may make it schedulable, or the periodic flush"
		switch g := groupFailure(d.LastFailure); {
		case g != nil && g.Fit:
			doc.WaitingFor = "its pod group to fit: this pod fit (on " + g.Node + ") and was taken back because too few of the group's pods fit"
			if len(doc.UnschedulablePlugins) > 0 {
				doc.WaitingFor += "; requeued by events of the group's rejecting plugins " + strings.Join(doc.UnschedulablePlugins, ", ")
			}
		case g != nil:
			doc.WaitingFor = "its pod group to fit"
			if len(doc.UnschedulablePlugins) > 0 {
				doc.WaitingFor += "; requeued by events of the group's rejecting plugins " + strings.Join(doc.UnschedulablePlugins, ", ")
			}
		case len(doc.UnschedulablePlugins) > 0:
			doc.WaitingFor += "; rejected by " + strings.Join(doc.UnschedulablePlugins, ", ")
		}
		if len(doc.PendingPlugins) > 0 {
			doc.WaitingFor += "; pending on " + strings.Join(doc.PendingPlugins, ", ")
		}
	case QueueGated:
		doc.WaitingFor = "its scheduling gate to be lifted"
		if d.GatingPlugin != "" {
			doc.WaitingFor += " (plugin " + d.GatingPlugin + ")"
		}
	case QueueInFlight:
		doc.WaitingFor = "its current scheduling cycle to finish"
	default:
		doc.WaitingFor = "unknown (queue " + strconv.Quote(string(d.Queue)) + ")"
	}
	if f := d.LastFailure; f != nil {
		v := &diagnosisView{
			Time:              utc(f.Time),
			Message:           f.Message,
			NumAllNodes:       f.NumAllNodes,
			PreFilterMessage:  f.PreFilterMessage,
			PostFilterMessage: f.PostFilterMessage,
			Plugins:           make([]pluginDiagnosisView, len(f.Plugins)),
			OmittedPlugins:    f.OmittedPlugins,
		}
		if f.PodGroup != nil {
			v.PodGroup = &podGroupDiagnosisView{Fit: f.PodGroup.Fit, Node: f.PodGroup.Node}
		}
		for i, pd := range f.Plugins {
			pv := pluginDiagnosisView{Plugin: pd.Plugin, Nodes: pd.Nodes, Reasons: make([]reasonCountView, len(pd.Reasons)), OmittedReasons: pd.OmittedReasons}
			for j, rc := range pd.Reasons {
				pv.Reasons[j] = reasonCountView{Reason: rc.Reason, Count: rc.Count}
			}
			slices.SortFunc(pv.Reasons, func(a, b reasonCountView) int {
				if a.Count != b.Count {
					return b.Count - a.Count
				}
				return strings.Compare(a.Reason, b.Reason)
			})
			v.Plugins[i] = pv
		}
		slices.SortFunc(v.Plugins, func(a, b pluginDiagnosisView) int {
			if a.Nodes != b.Nodes {
				return b.Nodes - a.Nodes
			}
			return strings.Compare(a.Plugin, b.Plugin)
		})
		doc.LastFailure = v
	}
	return doc
}

// groupFailure returns the pod-group part of a diagnosis, or nil.
func groupFailure(d *Diagnosis) *PodGroupDiagnosis {
	if d == nil {
		return nil
	}
	return d.PodGroup
}

// rejectedBy lists the unschedulable plugins, then the pending ones marked
// "(pending)".
func (v *queuedPodView) rejectedBy() string {
	parts := slices.Clone(v.UnschedulablePlugins)
	for _, p := range v.PendingPlugins {
		parts = append(parts, p+"(pending)")
	}
	return joinOrNone(parts)
}

// backoff describes the backoff expiry relative to now.
func backoff(now, expiry time.Time) string {
	switch {
	case expiry.IsZero():
		return none
	case expiry.After(now):
		return "in " + age(expiry.Sub(now))
	default:
		return "expired"
	}
}

func (doc queueList) writeText(w io.Writer) error {
	t := newTable(w)
	row(t, "LEADER", "CYCLE", "ACTIVE", "BACKOFF", "UNSCHEDULABLE", "GATED", "IN FLIGHT", "TOTAL")
	s := doc.Summary
	row(t, yesNo(doc.Leader), strconv.FormatInt(doc.SchedulingCycle, 10), strconv.Itoa(s.Active), strconv.Itoa(s.Backoff),
		strconv.Itoa(s.Unschedulable), strconv.Itoa(s.Gated), strconv.Itoa(s.InFlight), strconv.Itoa(s.Total))
	if err := t.Flush(); err != nil {
		return err
	}
	if len(doc.Items) == 0 {
		_, err := fmt.Fprintf(w, "\nNo queued pods matched.\n")
		if note := hiddenNote(doc.HiddenNamespaces); note != "" && err == nil {
			_, err = fmt.Fprintf(w, "%s\n", note)
		}
		return err
	}
	if len(doc.Groups) > 0 {
		_, _ = io.WriteString(w, "\n")
		t = newTable(w)
		row(t, "NAMESPACE", "POD GROUP", "STATE", "ACTIVE", "BACKOFF", "UNSCHEDULABLE", "GATED", "IN FLIGHT", "TOTAL")
		for _, g := range doc.Groups {
			c := g.Counts
			row(t, g.Namespace, g.PodGroup, g.State, strconv.Itoa(c.Active), strconv.Itoa(c.Backoff), strconv.Itoa(c.Unschedulable),
				strconv.Itoa(c.Gated), strconv.Itoa(c.InFlight), strconv.Itoa(c.Total))
		}
		if err := t.Flush(); err != nil {
			return err
		}
		if doc.GroupsOmitted > 0 {
			_, _ = fmt.Fprintf(w, "... and %s more: raise limit=, or filter with namespace= or podGroup=\n", count(doc.GroupsOmitted, "pod group", "pod groups"))
		}
	}
	_, _ = io.WriteString(w, "\n")
	t = newTable(w)
	row(t, "NAMESPACE", "NAME", "QUEUE", "PRIORITY", "ATTEMPTS", "AGE", "FIRST ATTEMPT", "BACKOFF", "REJECTED BY", "GATED BY", "POD GROUP")
	for i := range doc.Items {
		p := &doc.Items[i]
		row(t, p.Namespace, p.Name, string(p.Queue), strconv.Itoa(int(p.Priority)), strconv.Itoa(p.Attempts),
			age(doc.TakenAt.Sub(p.Timestamp)), ageSince(doc.TakenAt, p.InitialAttemptTimestamp),
			backoff(doc.TakenAt, p.BackoffExpiry), p.rejectedBy(), orNone(p.GatingPlugin), orNone(p.PodGroup))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	var err error
	if doc.Remaining > 0 {
		_, err = fmt.Fprintf(w, "\n%s matched; showing %d, %d more: add continue=%s\n",
			count(doc.Matched, "pod", "pods"), len(doc.Items), doc.Remaining, doc.Continue)
	} else {
		_, err = fmt.Fprintf(w, "\n%s matched; showing %d.\n", count(doc.Matched, "pod", "pods"), len(doc.Items))
	}
	if note := hiddenNote(doc.HiddenNamespaces); note != "" && err == nil {
		_, err = fmt.Fprintf(w, "%s\n", note)
	}
	return err
}

func (doc queuedPodDoc) writeText(w io.Writer) error {
	now := doc.TakenAt
	at := func(t time.Time) string {
		if t.IsZero() {
			return none
		}
		if t.After(now) {
			return fmt.Sprintf("%s (in %s)", timestamp(t), age(t.Sub(now)))
		}
		return fmt.Sprintf("%s (%s ago)", timestamp(t), age(now.Sub(t)))
	}
	next := at(doc.NextEligibleTime)
	if doc.Queue == QueueActive {
		next = "now"
	}
	t := newTable(w)
	row(t, "Pod:", doc.Namespace+"/"+doc.Name)
	row(t, "UID:", orNone(doc.UID))
	row(t, "Queue:", string(doc.Queue))
	row(t, "Priority:", strconv.Itoa(int(doc.Priority)))
	row(t, "Attempts:", strconv.Itoa(doc.Attempts))
	row(t, "First attempt:", at(doc.InitialAttemptTimestamp))
	row(t, "In queue since:", at(doc.Timestamp))
	row(t, "Backoff expiry:", at(doc.BackoffExpiry))
	row(t, "Next eligible:", next)
	row(t, "Waiting for:", doc.WaitingFor)
	if doc.LastFailure != nil && doc.LastFailure.PodGroup != nil {
		// Not this pod's rejectors: its group's (the members that did not fit).
		row(t, "Group's rejecting plugins:", joinOrNone(doc.UnschedulablePlugins))
	} else {
		row(t, "Unschedulable plugins:", joinOrNone(doc.UnschedulablePlugins))
	}
	row(t, "Pending plugins:", joinOrNone(doc.PendingPlugins))
	row(t, "Gating plugin:", orNone(doc.GatingPlugin))
	row(t, "Pod group:", orNone(doc.PodGroup))
	if doc.PlacementLevel != "" {
		row(t, "Placement level:", doc.PlacementLevel)
	}
	row(t, "Nominated node:", orNone(doc.NominatedNodeName))
	if doc.LastFailure == nil {
		row(t, "Last failure:", none)
		return t.Flush()
	}
	f := doc.LastFailure
	row(t, "Last failure:", at(f.Time))
	row(t, "  Message:", orNone(f.Message))
	switch g := f.PodGroup; {
	case g != nil && g.Fit:
		row(t, "  This pod:", "fit on "+g.Node+"; taken back because too few of its group's pods fit")
	case g != nil:
		row(t, "  This pod:", "not scheduled with its group (see the message)")
	default:
		row(t, "  Nodes considered:", strconv.Itoa(f.NumAllNodes))
	}
	if f.PreFilterMessage != "" {
		row(t, "  PreFilter:", f.PreFilterMessage)
	}
	if f.PostFilterMessage != "" {
		row(t, "  PostFilter:", f.PostFilterMessage)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if len(f.Plugins) == 0 {
		return nil
	}
	_, _ = io.WriteString(w, "\n")
	t = newTable(w)
	row(t, "PLUGIN", "NODES", "REASONS")
	for _, p := range f.Plugins {
		reasons := make([]string, len(p.Reasons))
		for i, rc := range p.Reasons {
			reasons[i] = fmt.Sprintf("%s (%d)", rc.Reason, rc.Count)
		}
		if p.OmittedReasons > 0 {
			reasons = append(reasons, fmt.Sprintf("and %d more reasons, not kept", p.OmittedReasons))
		}
		row(t, p.Plugin, strconv.Itoa(p.Nodes), orNone(strings.Join(reasons, "; ")))
	}
	if f.OmittedPlugins > 0 {
		row(t, fmt.Sprintf("(%d more plugins, not kept)", f.OmittedPlugins), "", "")
	}
	return t.Flush()
}
