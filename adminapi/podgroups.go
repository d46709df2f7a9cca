package adminapi

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// /debug/queue/podgroups/{namespace}/{name} answers "why is this pod group
// pending, and what would make it fit": where each member is, what the
// group requires, the last pod-group cycle, the shortfall per candidate
// placement, and one line on what would unblock it. Everything comes from
// data the scheduler keeps anyway (the PodGroup informer, the queue and the
// decision recorder): a request costs the scheduling loop nothing.

// podGroupDoc is the JSON document of the route (kind PodGroupDiagnosis).
type podGroupDoc struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	TakenAt    time.Time `json:"takenAt"`
	Leader     bool      `json:"leader"`
	Namespace  string    `json:"namespace"`
	Name       string    `json:"name"`
	// Spec is what the group requires, as the scheduler reads its PodGroup.
	Spec podGroupSpecView `json:"spec"`
	// Members counts the group's pods.
	Members podGroupMembersView `json:"members"`
	// Pods are the group's pods (at most limit=), in the order the
	// scheduler tries them; PodsOmitted counts the others.
	Pods        []podGroupPodView `json:"pods"`
	PodsOmitted int               `json:"podsOmitted,omitempty"`
	// LastCycle is the group's most recent pod-group cycle the scheduler
	// still records; absent if none.
	LastCycle *podGroupCycleView `json:"lastCycle,omitempty"`
	// Candidates are the best placements of the last cycle (most pods fit
	// first; at most candidates=), with what each lacks;
	// CandidatesOmitted counts the others the scheduler recorded.
	Candidates        []candidateView `json:"candidates"`
	CandidatesOmitted int             `json:"candidatesOmitted,omitempty"`
	// Unblock says, from the data above, what would let the group
	// schedule.
	Unblock string `json:"unblock"`
}

type podGroupSpecView struct {
	// Found is false when no PodGroup object exists.
	Found bool `json:"found"`
	// Problem says why the scheduler cannot use the PodGroup.
	Problem   string              `json:"problem,omitempty"`
	Policy    string              `json:"policy,omitempty"`
	MinCount  int                 `json:"minCount,omitempty"`
	Levels    []topologyLevelView `json:"levels"`
	Scheduled int                 `json:"scheduled"`
	Condition *groupConditionView `json:"condition,omitempty"`
	// MemberLabel is the label by which its pods join the group.
	MemberLabel string `json:"memberLabel,omitempty"`
}

type topologyLevelView struct {
	Key  string `json:"key"`
	Mode string `json:"mode"`
}

type groupConditionView struct {
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime,omitzero"`
}

type podGroupMembersView struct {
	// Exist counts the pods that name the group and are not terminated;
	// Bound, those of them bound to a node; Deleting, those being deleted.
	Exist    int `json:"exist"`
	Bound    int `json:"bound"`
	Deleting int `json:"deleting"`
	// Missing is how many more pods a gang needs to reach minCount.
	Missing int `json:"missing"`
	// Queued counts the group's pods in the scheduling queue, per
	// sub-queue.
	Queued queueSummary `json:"queued"`
}

type podGroupPodView struct {
	Name string `json:"name"`
	// State is "bound", the sub-queue the pod waits in, "deleting", or
	// "notQueued" (being bound, or not seen by the queue yet).
	State                string    `json:"state"`
	Node                 string    `json:"node,omitempty"`
	Attempts             int       `json:"attempts,omitempty"`
	UnschedulablePlugins []string  `json:"unschedulablePlugins,omitempty"`
	GatingPlugin         string    `json:"gatingPlugin,omitempty"`
	BackoffExpiry        time.Time `json:"backoffExpiry,omitzero"`
}

type podGroupCycleView struct {
	Time       time.Time `json:"time"`
	AgeSeconds float64   `json:"ageSeconds"`
	Result     string    `json:"result"`
	Message    string    `json:"message,omitempty"`
	// Required is the number of pods that had to fit; Assigned, those sent
	// to binding; PodsFit, for a cycle that did not schedule the group,
	// those that fit in its last try (taken back).
	Required int    `json:"required"`
	Pods     int    `json:"pods"`
	Assigned int    `json:"assigned"`
	PodsFit  int    `json:"podsFit"`
	Chosen   string `json:"chosen,omitempty"`
	// PlacementsEvaluated and PlacementsLeftOut count the placements the
	// cycle evaluated and those the room check left out before any Filter
	// ran (0 and 0 for a group without topology constraint).
	PlacementsEvaluated int `json:"placementsEvaluated"`
	PlacementsLeftOut   int `json:"placementsLeftOut"`
	// Preemption, for a cycle that tried to preempt, is its result and
	// message (/debug/placements/{namespace}/{podGroup} has the rest);
	// absent otherwise.
	Preemption *podGroupPreemptionView `json:"preemption,omitempty"`

	age time.Duration
}

type podGroupPreemptionView struct {
	Result  string `json:"result"`
	Message string `json:"message,omitempty"`
}

type candidateView struct {
	// Placement is the candidate's name ("<any node>" for a group without
	// a topology constraint).
	Placement string `json:"placement"`
	// Evaluated is false for a placement the room check left out: PodsFit
	// is then the most pods its free CPU, memory and pod count can hold.
	Evaluated bool `json:"evaluated"`
	Feasible  bool `json:"feasible"`
	PodsFit   int  `json:"podsFit"`
	Required  int  `json:"required"`
	Short     int  `json:"short"`
	// FirstUnfit, Requests and Rejections describe the first pod that did
	// not fit: its name, what it requests, and the plugins that rejected
	// it on how many of the placement's nodes. For a placement the room
	// check left out, Requests are what it counted per pod: the smallest
	// CPU and memory requests among the group's pods.
	FirstUnfit string                `json:"firstUnfit,omitempty"`
	Requests   []resourceAmountView  `json:"requests,omitempty"`
	Rejections []pluginDiagnosisView `json:"rejections,omitempty"`
	// Victims are the pods preemption would evict to make the group fit
	// here: reserved for gang preemption, empty until then.
	Victims []string `json:"victims,omitempty"`
	// Summary is the candidate in one line.
	Summary string `json:"summary"`
}

type resourceAmountView struct {
	Name     string `json:"name"`
	Quantity string `json:"quantity"`
}

// anyNode names the one candidate of a group without topology constraint.
const anyNode = "<any node>"

func (a *api) getPodGroup(w http.ResponseWriter, r *http.Request) {
	if a.opts.PodGroups == nil {
		notImplemented(w, r, "pod groups are not available: the GangScheduling feature gate is disabled or not in this build")
		return
	}
	ns, name, err := parsePodGroupPath(r, "name")
	if err != nil {
		badRequest(w, r, err)
		return
	}
	gp, err := parsePodGroupParams(r.URL.RawQuery)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	if !a.authorizeNamespace(w, r, ns) {
		return
	}
	detail, err := fetch(a, r, func(ctx context.Context) (*PodGroupDetail, error) {
		return a.opts.PodGroups.PodGroup(ctx, ns, name)
	})
	if err != nil {
		a.sourceError(w, r, "the pod groups", err)
		return
	}
	page := &QueuePage{}
	if a.opts.Queue != nil {
		// The group's queued pods, enough of them to place every member
		// the source knows (up to the queue route's maximum), and the
		// counts of all.
		limit := gp.limit
		if detail != nil {
			limit = min(queueLimitMax, max(limit, len(detail.Members)))
		}
		qp := queueParams{namespace: ns, podGroup: name, limit: limit}
		if page, err = fetch(a, r, func(ctx context.Context) (*QueuePage, error) { return queuePage(ctx, a.opts.Queue, qp.query()) }); err != nil {
			a.sourceError(w, r, "the scheduling queue", err)
			return
		}
	}
	var last *PlacementDecision
	if a.opts.Placements != nil {
		snap, err := fetch(a, r, a.opts.Placements.PlacementSnapshot)
		if err != nil {
			a.sourceError(w, r, "the placement decisions", err)
			return
		}
		if snap != nil {
			for i := range snap.Decisions {
				if d := &snap.Decisions[i]; d.Namespace == ns && d.PodGroup == name {
					last = d // the group's page shows no victims
					break
				}
			}
		}
	}
	if detail == nil && page.Matched == 0 && last == nil {
		writeError(w, r, http.StatusNotFound, fmt.Sprintf(
			"no pod group %s/%s: no PodGroup object, no queued pod and no recorded cycle names it", ns, name))
		return
	}
	now := page.TakenAt
	if detail != nil && detail.TakenAt.After(now) {
		now = detail.TakenAt
	}
	doc := newPodGroupDoc(ns, name, detail, page, last, gp, now)
	doc.Leader = a.leader()
	a.render(w, r, doc, doc.writeText)
}

func newPodGroupDoc(ns, name string, detail *PodGroupDetail, page *QueuePage, last *PlacementDecision, gp podGroupParams, now time.Time) podGroupDoc {
	doc := podGroupDoc{
		APIVersion: APIVersion,
		Kind:       "PodGroupDiagnosis",
		TakenAt:    utc(now),
		Namespace:  ns,
		Name:       name,
		Spec:       podGroupSpecView{Levels: []topologyLevelView{}},
		Pods:       []podGroupPodView{},
		Candidates: []candidateView{},
	}
	if detail != nil {
		doc.Spec = podGroupSpecView{Found: detail.Found, Problem: detail.Problem, Policy: detail.Policy, MinCount: detail.MinCount,
			Levels: make([]topologyLevelView, len(detail.Levels)), Scheduled: detail.Scheduled, MemberLabel: detail.MemberLabel}
		for i, l := range detail.Levels {
			doc.Spec.Levels[i] = topologyLevelView{Key: l.Key, Mode: l.Mode}
		}
		if c := detail.Condition; c != nil {
			doc.Spec.Condition = &groupConditionView{Status: c.Status, Reason: c.Reason, Message: c.Message, LastTransitionTime: utc(c.LastTransitionTime)}
		}
	}
	for _, g := range page.Groups {
		if g.Namespace == ns && g.Name == name {
			doc.Members.Queued = newQueueSummary(g.Counts)
		}
	}
	pods := groupPods(detail, page)
	if detail != nil {
		for _, m := range detail.Members {
			doc.Members.Exist++
			if m.Node != "" {
				doc.Members.Bound++
			}
			if m.Deleting {
				doc.Members.Deleting++
			}
		}
		if detail.Policy == PolicyGang {
			doc.Members.Missing = max(0, detail.MinCount-doc.Members.Exist)
		}
	}
	if last != nil {
		doc.LastCycle = &podGroupCycleView{Time: utc(last.Time), AgeSeconds: seconds(now.Sub(last.Time)), Result: last.Result,
			Message: last.Message, Required: last.Required, Pods: last.Pods, PodsFit: last.PodsFit, Chosen: last.Chosen, age: now.Sub(last.Time),
			PlacementsEvaluated: len(last.Evaluations), PlacementsLeftOut: last.RoomLeftOutCount}
		for _, pa := range last.Assignments {
			if pa.Node != "" {
				doc.LastCycle.Assigned++
			}
		}
		if p := last.Preemption; p != nil {
			doc.LastCycle.Preemption = &podGroupPreemptionView{Result: p.Result, Message: p.Message}
		}
		doc.Candidates, doc.CandidatesOmitted = candidates(last, gp.candidates)
	}
	// Unblock reads every pod; the document keeps limit= of them.
	doc.Pods = pods
	doc.Unblock = unblock(&doc)
	if len(pods) > gp.limit {
		doc.Pods, doc.PodsOmitted = pods[:gp.limit], len(pods)-gp.limit
	}
	return doc
}

// groupPods lists the group's pods: the members the PodGroup source knows,
// in its order, then queued pods it does not know yet.
func groupPods(detail *PodGroupDetail, page *QueuePage) []podGroupPodView {
	queued := make(map[string]*QueuedPod, len(page.Pods))
	for i := range page.Pods {
		queued[page.Pods[i].Name] = &page.Pods[i]
	}
	var pods []podGroupPodView
	seen := map[string]bool{}
	add := func(v podGroupPodView) {
		seen[v.Name] = true
		pods = append(pods, v)
	}
	fromQueue := func(v *podGroupPodView, q *QueuedPod) {
		v.State = string(q.Queue)
		v.Attempts = q.Attempts
		v.UnschedulablePlugins = sortedCopy(q.UnschedulablePlugins)
		v.GatingPlugin = q.GatingPlugin
		v.BackoffExpiry = utc(q.BackoffExpiry)
	}
	if detail != nil {
		for _, m := range detail.Members {
			v := podGroupPodView{Name: m.Name, State: "notQueued", Node: m.Node}
			switch q := queued[m.Name]; {
			case m.Node != "":
				v.State = "bound"
			case q != nil:
				fromQueue(&v, q)
			case m.Deleting:
				v.State = "deleting"
			}
			add(v)
		}
	}
	for i := range page.Pods {
		if q := &page.Pods[i]; !seen[q.Name] {
			v := podGroupPodView{Name: q.Name}
			fromQueue(&v, q)
			add(v)
		}
	}
	if pods == nil {
		pods = []podGroupPodView{}
	}
	return pods
}

// candidates turns the last cycle's evaluations and the placements the room
// check left out into candidates, most pods fit first, at most n; it
// returns how many were left out. A group without topology constraint has
// one candidate, the whole cluster.
// untried reports whether a cycle that did not schedule its group ended
// before any member was tried: no placement, no evaluation, no pod fit or
// recorded as the first unfit, and every member failed with the cycle's
// own message.
func untried(d *PlacementDecision) bool {
	if d.Result == ResultScheduled || len(d.Placements) > 0 || len(d.Evaluations) > 0 || d.RoomLeftOutCount > 0 ||
		d.PodsFit > 0 || d.FirstUnfit != nil || len(d.Assignments) == 0 {
		return false
	}
	for _, a := range d.Assignments {
		if a.Node != "" || a.Failure == "" || !strings.HasPrefix(d.Message, a.Failure) {
			return false
		}
	}
	return true
}

func candidates(d *PlacementDecision, n int) ([]candidateView, int) {
	required := d.Required
	if required == 0 {
		// A basic group: as many of its pods as possible.
		required = d.Pods
	}
	var out []candidateView
	if untried(d) {
		// The cycle ended before any member was tried (a coscheduling
		// group's minResources not free, say): no node was judged, and
		// the cycle's message says what blocks the group.
		return nil, 0
	}
	if len(d.Placements) == 0 && len(d.Evaluations) == 0 && d.RoomLeftOutCount == 0 {
		c := candidateView{Placement: anyNode, Evaluated: true, Required: required, PodsFit: d.PodsFit}
		if d.Result == ResultScheduled {
			// Every pod assigned fit.
			c.PodsFit = 0
			for _, pa := range d.Assignments {
				if pa.Node != "" {
					c.PodsFit++
				}
			}
		}
		if u := d.FirstUnfit; u != nil {
			c.FirstUnfit = u.Pod
			for _, ra := range u.Requests {
				c.Requests = append(c.Requests, resourceAmountView{Name: ra.Name, Quantity: ra.Quantity})
			}
			for _, p := range u.Rejections {
				c.Rejections = append(c.Rejections, newPluginDiagnosisView(p))
			}
		}
		c.Feasible = d.Result == ResultScheduled
		c.Short = max(0, required-c.PodsFit)
		c.Summary = candidateSummary(&c)
		return []candidateView{c}, 0
	}
	for _, e := range d.Evaluations {
		c := candidateView{Placement: e.Placement, Evaluated: true, Feasible: e.Feasible, PodsFit: e.PodsFit, Required: required,
			Short: max(0, required-e.PodsFit)}
		if u := e.FirstUnfit; u != nil {
			c.FirstUnfit = u.Pod
			for _, ra := range u.Requests {
				c.Requests = append(c.Requests, resourceAmountView{Name: ra.Name, Quantity: ra.Quantity})
			}
			for _, p := range u.Rejections {
				c.Rejections = append(c.Rejections, newPluginDiagnosisView(p))
			}
		}
		c.Summary = candidateSummary(&c)
		out = append(out, c)
	}
	for _, room := range d.RoomLeftOut {
		c := candidateView{Placement: room.Placement, PodsFit: room.Pods, Required: required, Short: max(0, required-room.Pods)}
		// What the room check counted per pod (the smallest requests).
		for _, ra := range d.RoomPerPod {
			c.Requests = append(c.Requests, resourceAmountView{Name: ra.Name, Quantity: ra.Quantity})
		}
		c.Summary = candidateSummary(&c)
		out = append(out, c)
	}
	// Most pods fit first; evaluated before left out; then as recorded.
	slices.SortStableFunc(out, func(a, b candidateView) int {
		if a.PodsFit != b.PodsFit {
			return b.PodsFit - a.PodsFit
		}
		if a.Evaluated != b.Evaluated {
			if a.Evaluated {
				return -1
			}
			return 1
		}
		return 0
	})
	omitted := d.RoomLeftOutCount - len(d.RoomLeftOut)
	if len(out) > n {
		omitted += len(out) - n
		out = out[:n]
	}
	return out, omitted
}

func newPluginDiagnosisView(p PluginDiagnosis) pluginDiagnosisView {
	v := pluginDiagnosisView{Plugin: p.Plugin, Nodes: p.Nodes, Reasons: make([]reasonCountView, len(p.Reasons))}
	for i, rc := range p.Reasons {
		v.Reasons[i] = reasonCountView{Reason: rc.Reason, Count: rc.Count}
	}
	return v
}

// candidateSummary is a candidate in one line, for example
// "rack=r3: 28 of 32 fit; short 4 × (cpu 8, nvidia.com/gpu 1); NodeResourcesFit rejected 12 nodes (Insufficient cpu: 12)".
func candidateSummary(c *candidateView) string {
	var b strings.Builder
	if c.Evaluated {
		fmt.Fprintf(&b, "%s: %d of %d fit", c.Placement, c.PodsFit, c.Required)
	} else {
		fmt.Fprintf(&b, "%s: room for %d of %d by CPU, memory and pod count (not evaluated)", c.Placement, c.PodsFit, c.Required)
	}
	if c.Short > 0 {
		fmt.Fprintf(&b, "; short %d", c.Short)
		if len(c.Requests) > 0 {
			fmt.Fprintf(&b, " × (%s)", joinRequests(c.Requests))
		}
	}
	if len(c.Rejections) > 0 {
		b.WriteString("; ")
		b.WriteString(joinRejections(c.Rejections))
	}
	return b.String()
}

// joinRequests formats requests as "cpu 8, memory 16Gi".
func joinRequests(rs []resourceAmountView) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Name + " " + r.Quantity
	}
	return strings.Join(parts, ", ")
}

// joinRejections formats rejections as "NodeResourcesFit rejected 12 nodes
// (Insufficient cpu: 12)".
func joinRejections(rs []pluginDiagnosisView) string {
	parts := make([]string, len(rs))
	for i, p := range rs {
		reasons := make([]string, len(p.Reasons))
		for j, rc := range p.Reasons {
			reasons[j] = fmt.Sprintf("%s: %d", rc.Reason, rc.Count)
		}
		plugin := p.Plugin
		if plugin == "" {
			plugin = "an extender or the scheduler"
		}
		parts[i] = fmt.Sprintf("%s rejected %s", plugin, count(p.Nodes, "node", "nodes"))
		if len(reasons) > 0 {
			parts[i] += " (" + strings.Join(reasons, "; ") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// unblock derives, from the document, what would let the group schedule.
// The rules go from what blocks everything else (no PodGroup) to what only
// matters once the rest is fine (room in a placement).
func unblock(doc *podGroupDoc) string {
	spec, members := &doc.Spec, &doc.Members
	key := doc.Namespace + "/" + doc.Name
	switch {
	case !spec.Found:
		label := spec.MemberLabel
		if label == "" {
			label = "scheduling.kspatch.io/pod-group"
		}
		return fmt.Sprintf("create PodGroup %s, or remove the label %s from its pods", key, label)
	case spec.Problem != "":
		return "fix the PodGroup (delete and re-create it): " + spec.Problem
	case spec.Policy == PolicyGang && members.Missing > 0:
		return fmt.Sprintf("waiting for %s to be created (%d of minCount %d exist)", count(members.Missing, "more member", "more members"), members.Exist, spec.MinCount)
	case members.Exist > 0 && members.Bound == members.Exist:
		return "nothing: every member is bound"
	}
	gated := map[string]int{}
	for _, p := range doc.Pods {
		if p.State == string(QueueGated) && p.GatingPlugin != "" && p.GatingPlugin != "GangScheduling" {
			gated[p.GatingPlugin]++
		}
	}
	if len(gated) > 0 {
		var parts []string
		for _, plugin := range slices.Sorted(maps.Keys(gated)) {
			parts = append(parts, fmt.Sprintf("%s by %s", count(gated[plugin], "member is gated", "members are gated"), plugin))
		}
		return strings.Join(parts, "; ") + ": the group is tried once they are released"
	}
	lc := doc.LastCycle
	if lc == nil {
		if members.Queued.InFlight > 0 || members.Queued.Active > 0 {
			return "being scheduled: no cycle recorded yet"
		}
		return "waiting for its first pod-group cycle (none recorded)"
	}
	if lc.Result == ResultScheduled {
		for _, p := range doc.Pods {
			if p.State != "bound" && p.State != "notQueued" && p.State != "deleting" {
				// A member went back to the queue after the cycle (its
				// binding failed, or it came later): its own entry says
				// why it waits.
				return fmt.Sprintf("the last cycle scheduled %d of %d pods; %s queued since (%s): see /debug/queue/pods/%s/%s",
					lc.Assigned, lc.Pods, count(members.Queued.Total, "member is", "members are"), p.State, doc.Namespace, p.Name)
			}
		}
		return "nothing: the last cycle scheduled the group"
	}
	if len(doc.Candidates) == 0 {
		if lc.Message != "" {
			return "see the last cycle's message: " + lc.Message
		}
		return "see the last cycle"
	}
	best := &doc.Candidates[0]
	if best.Feasible {
		return fmt.Sprintf("%s fits but the last cycle did not schedule the group: see its message", best.Placement)
	}
	var where string
	switch {
	case best.Placement == anyNode:
		where = ""
	case len(spec.Levels) > 0:
		where = " in one " + spec.Levels[0].Key
	default:
		where = " in one placement"
	}
	var out string
	if len(best.Requests) > 0 {
		out = fmt.Sprintf("free %d × (%s)%s", best.Short, joinRequests(best.Requests), where)
	} else {
		out = fmt.Sprintf("free room for %s%s", count(best.Short, "more pod", "more pods"), where)
	}
	if best.Placement != anyNode {
		out += fmt.Sprintf(" (best: %s, %d of %d fit)", best.Placement, best.PodsFit, best.Required)
	} else {
		out += fmt.Sprintf(" (%d of %d fit)", best.PodsFit, best.Required)
	}
	if spec.Policy == PolicyGang && best.PodsFit > 0 && best.PodsFit+members.Bound < spec.MinCount {
		out += fmt.Sprintf(", or lower minCount to %d", best.PodsFit+members.Bound)
	}
	return out
}

func (doc podGroupDoc) writeText(w io.Writer) error {
	t := newTable(w)
	row(t, "Pod group:", doc.Namespace+"/"+doc.Name)
	s := doc.Spec
	switch {
	case !s.Found:
		row(t, "PodGroup:", "not found")
	case s.Problem != "":
		row(t, "PodGroup:", "unusable: "+s.Problem)
	case s.Policy == PolicyGang:
		row(t, "Policy:", fmt.Sprintf("gang, minCount %d", s.MinCount))
	default:
		row(t, "Policy:", orNone(s.Policy))
	}
	levels := make([]string, len(s.Levels))
	for i, l := range s.Levels {
		levels[i] = fmt.Sprintf("%s (%s)", l.Key, l.Mode)
	}
	row(t, "Topology:", joinOrNone(levels))
	if c := s.Condition; c != nil {
		cond := "PodGroupScheduled=" + c.Status
		if c.Reason != "" {
			cond += " (" + c.Reason + ")"
		}
		if c.Message != "" {
			cond += ": " + c.Message
		}
		row(t, "Condition:", cond)
	} else {
		row(t, "Condition:", none)
	}
	m := doc.Members
	q := m.Queued
	row(t, "Members:", fmt.Sprintf("%d exist (%d missing), %d bound, %d deleting, %d queued (active %d, backoff %d, unschedulable %d, gated %d, in flight %d)",
		m.Exist, m.Missing, m.Bound, m.Deleting, q.Total, q.Active, q.Backoff, q.Unschedulable, q.Gated, q.InFlight))
	if lc := doc.LastCycle; lc != nil {
		outcome := fmt.Sprintf("%d of %d pods assigned", lc.Assigned, lc.Pods)
		switch {
		case lc.Result == ResultScheduled:
		case lc.PlacementsEvaluated == 0 && lc.PlacementsLeftOut > 0:
			// No pod was tried: the candidates say how much room there was.
			outcome = fmt.Sprintf("no pod tried: all %s lacked the room", count(lc.PlacementsLeftOut, "placement", "placements"))
		default:
			outcome = fmt.Sprintf("%d of %d pods fit (none kept)", lc.PodsFit, lc.Pods)
		}
		row(t, "Last cycle:", fmt.Sprintf("%s, %s ago: %s, %d needed, chosen %s", lc.Result, age(lc.age), outcome, lc.Required, orNone(lc.Chosen)))
		row(t, "  Message:", orNone(lc.Message))
		if p := lc.Preemption; p != nil {
			preemption := p.Result
			if p.Message != "" {
				preemption += ": " + p.Message
			}
			row(t, "  Preemption:", preemption)
		}
	} else {
		row(t, "Last cycle:", none+" recorded")
	}
	row(t, "Unblock:", doc.Unblock)
	if err := t.Flush(); err != nil {
		return err
	}
	if len(doc.Candidates) > 0 {
		_, _ = fmt.Fprintf(w, "\nCandidates (best %d", len(doc.Candidates))
		if doc.CandidatesOmitted > 0 {
			_, _ = fmt.Fprintf(w, "; %d more", doc.CandidatesOmitted)
		}
		_, _ = io.WriteString(w, "):\n")
		for _, c := range doc.Candidates {
			_, _ = fmt.Fprintf(w, "  %s\n", c.Summary)
		}
	}
	_, _ = fmt.Fprintf(w, "\nPods (%d", len(doc.Pods)+doc.PodsOmitted)
	if doc.PodsOmitted > 0 {
		_, _ = fmt.Fprintf(w, "; showing %d, raise limit=", len(doc.Pods))
	}
	_, _ = io.WriteString(w, "):\n")
	if len(doc.Pods) == 0 {
		return nil
	}
	t = newTable(w)
	row(t, "  NAME", "STATE", "NODE", "ATTEMPTS", "BACKOFF", "REJECTED BY", "GATED BY")
	for _, p := range doc.Pods {
		row(t, "  "+p.Name, p.State, orNone(p.Node), strconv.Itoa(p.Attempts), backoff(doc.TakenAt, p.BackoffExpiry),
			joinOrNone(p.UnschedulablePlugins), orNone(p.GatingPlugin))
	}
	return t.Flush()
}
