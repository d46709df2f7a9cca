package adminapi

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// placementList is the JSON document of /debug/placements and
// /debug/placements/{namespace}/{podGroup} (kind PlacementDecisionList).
type placementList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	TakenAt    time.Time `json:"takenAt"`
	// Recorded counts every decision the recorder holds; Matched those of
	// the requested pod group (all when none is); Remaining those left out
	// by limit=.
	Recorded  int                     `json:"recorded"`
	Matched   int                     `json:"matched"`
	Remaining int                     `json:"remaining"`
	Items     []placementDecisionView `json:"items"`
	// HiddenNamespaces counts the namespaces of recorded decisions (or of
	// their victims) the caller may not read: those decisions are not in
	// Recorded, Matched or Items.
	HiddenNamespaces int `json:"hiddenNamespaces,omitempty"`
}

type placementDecisionView struct {
	Namespace       string    `json:"namespace"`
	PodGroup        string    `json:"podGroup"`
	Time            time.Time `json:"time"`
	AgeSeconds      float64   `json:"ageSeconds"`
	DurationSeconds float64   `json:"durationSeconds"`
	Result          string    `json:"result"`
	Message         string    `json:"message,omitempty"`
	// HeldAt, when no placement was chosen, is the widest topology level
	// tried and why no domain of it fits (multi-level topology).
	HeldAt string `json:"heldAt,omitempty"`
	Pods   int    `json:"pods"`
	// Levels are the topology levels the search went through, narrowest
	// first; absent for a group without a Preferred level.
	Levels     []placementLevelView     `json:"levels,omitempty"`
	Placements []generatedPlacementView `json:"placements"`
	// PlacementsOmitted counts the generated placements the scheduler did
	// not keep (it keeps a bounded number per decision).
	PlacementsOmitted int                 `json:"placementsOmitted,omitempty"`
	Evaluations       []placementEvalView `json:"evaluations"`
	Chosen            string              `json:"chosen,omitempty"`
	Assignments       []podAssignmentView `json:"assignments"`
	// Required is the number of pods that had to fit.
	Required int `json:"required"`
	// RoomLeftOut are placements left out before any Filter ran, for lack
	// of room (as many as the scheduler keeps); RoomLeftOutCount counts
	// them all.
	RoomLeftOut      []placementRoomView `json:"roomLeftOut,omitempty"`
	RoomLeftOutCount int                 `json:"roomLeftOutCount,omitempty"`
	// RoomPerPod is what the room check counted per pod.
	RoomPerPod []resourceAmountView `json:"roomPerPod,omitempty"`
	// PodsFit and FirstUnfit: for a cycle whose pods did not all fit, how
	// many did in its last try, and the first that did not.
	PodsFit    int           `json:"podsFit,omitempty"`
	FirstUnfit *unfitPodView `json:"firstUnfit,omitempty"`
	// Preemption, for a gang that did not fit and tried to preempt, is
	// what that found; absent otherwise.
	Preemption *preemptionView `json:"preemption,omitempty"`

	age, duration time.Duration // for the text output
}

type preemptionView struct {
	// Priority is the group's; only pods of lower priority may be victims.
	Priority   int32                     `json:"priority"`
	Result     string                    `json:"result"`
	Message    string                    `json:"message,omitempty"`
	Candidates []preemptionCandidateView `json:"candidates"`
	Chosen     string                    `json:"chosen,omitempty"`
	// Victims are the chosen victims the scheduler kept; VictimsOmitted
	// counts the others, VictimCount all of them.
	Victims        []victimView `json:"victims"`
	VictimsOmitted int          `json:"victimsOmitted,omitempty"`
	VictimCount    int          `json:"victimCount"`
}

type preemptionCandidateView struct {
	Placement        string `json:"placement"`
	Level            string `json:"level,omitempty"`
	PotentialVictims int    `json:"potentialVictims"`
	Fits             bool   `json:"fits"`
	// VictimCount is the victims left after the reprieve; HighestPriority
	// the highest priority among them, absent when there are none.
	VictimCount     int          `json:"victimCount"`
	HighestPriority *int32       `json:"highestPriority,omitempty"`
	PDBViolations   int          `json:"pdbViolations"`
	Victims         []victimView `json:"victims"`
	Reason          string       `json:"reason,omitempty"`
}

type victimView struct {
	Pod      string `json:"pod"`
	Node     string `json:"node"`
	Priority int32  `json:"priority"`
	PodGroup string `json:"podGroup,omitempty"`
}

type placementRoomView struct {
	Placement string `json:"placement"`
	Pods      int    `json:"pods"`
}

type unfitPodView struct {
	Pod        string                `json:"pod"`
	Requests   []resourceAmountView  `json:"requests"`
	Rejections []pluginDiagnosisView `json:"rejections"`
}

type placementLevelView struct {
	Key         string `json:"key"`
	Mode        string `json:"mode,omitempty"`
	Placements  int    `json:"placements"`
	Evaluated   int    `json:"evaluated"`
	RoomLeftOut int    `json:"roomLeftOut"`
	Feasible    int    `json:"feasible"`
	Result      string `json:"result"`
	Reason      string `json:"reason,omitempty"`
}

type generatedPlacementView struct {
	Name  string `json:"name"`
	Nodes int    `json:"nodes"`
	Level string `json:"level,omitempty"`
}

type domainPodsView struct {
	Domain string `json:"domain"`
	Pods   int    `json:"pods"`
}

type placementEvalView struct {
	Placement string `json:"placement"`
	Level     string `json:"level,omitempty"`
	// Domains are the narrowest level's domains the placement's pods use,
	// and how many go to each.
	Domains         []domainPodsView  `json:"domains,omitempty"`
	Feasible        bool              `json:"feasible"`
	Reason          string            `json:"reason,omitempty"`
	PodsFit         int               `json:"podsFit"`
	DurationSeconds float64           `json:"durationSeconds"`
	Scores          []pluginScoreView `json:"scores"`
	TotalScore      int64             `json:"totalScore"`
	// FirstUnfit is the first pod that did not fit in the placement.
	FirstUnfit *unfitPodView `json:"firstUnfit,omitempty"`

	duration time.Duration // for the text output
}

type pluginScoreView struct {
	Plugin string `json:"plugin"`
	Score  int64  `json:"score"`
}

type podAssignmentView struct {
	Pod     string `json:"pod"`
	Node    string `json:"node,omitempty"`
	Failure string `json:"failure,omitempty"`
}

// listPlacements serves /debug/placements: every group's decisions.
func (a *api) listPlacements(w http.ResponseWriter, r *http.Request) {
	a.placements(w, r, false)
}

// listGroupPlacements serves /debug/placements/{namespace}/{podGroup}.
func (a *api) listGroupPlacements(w http.ResponseWriter, r *http.Request) {
	a.placements(w, r, true)
}

// placements lists the recorded decisions, of the group the path names when
// perGroup is set.
func (a *api) placements(w http.ResponseWriter, r *http.Request, perGroup bool) {
	if a.opts.Placements == nil {
		notImplemented(w, r, "placement decisions are not available: the GangScheduling / TopologyAwareWorkloadScheduling feature gates are disabled or not in this build")
		return
	}
	var ns, group string
	if perGroup {
		var err error
		if ns, group, err = parsePodGroupPath(r, "podGroup"); err != nil {
			badRequest(w, r, err)
			return
		}
	}
	limit, err := parsePlacementParams(r.URL.RawQuery)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	if perGroup && !a.authorizeNamespace(w, r, ns) {
		return
	}
	x, err := a.accessFor(r)
	if err != nil {
		a.authorizationError(w, r, err)
		return
	}
	snap, err := fetch(a, r, a.opts.Placements.PlacementSnapshot)
	if err != nil {
		a.sourceError(w, r, "the placement decisions", err)
		return
	}
	if snap == nil {
		snap = &PlacementSnapshot{}
	}
	doc := placementList{
		APIVersion: APIVersion,
		Kind:       "PlacementDecisionList",
		TakenAt:    utc(snap.TakenAt),
		Recorded:   len(snap.Decisions),
		Items:      []placementDecisionView{},
	}
	x.prefetch(decisionNamespaces(snap.Decisions, ns, perGroup))
	for i := range snap.Decisions {
		d := &snap.Decisions[i]
		// A restricted caller counts only what it may read: on a group's
		// route, that namespace's decisions (asking about no other).
		if !x.all && ((perGroup && d.Namespace != ns) || (!perGroup && !x.may(d.Namespace))) {
			doc.Recorded--
			continue
		}
		if group != "" && (d.Namespace != ns || d.PodGroup != group) {
			continue
		}
		doc.Matched++
		if len(doc.Items) < limit {
			doc.Items = append(doc.Items, newPlacementDecisionView(readableDecision(d, x), snap.TakenAt))
		}
	}
	if x.err != nil {
		a.authorizationError(w, r, x.err)
		return
	}
	doc.HiddenNamespaces = x.hiddenNamespaces()
	doc.Remaining = doc.Matched - len(doc.Items)
	if group != "" && doc.Matched == 0 {
		writeError(w, r, http.StatusNotFound, fmt.Sprintf(
			"no placement decisions recorded for pod group %s/%s (the recorder keeps only recent pod-group cycles)", ns, group))
		return
	}
	text := doc.writeTable
	if group != "" {
		text = doc.writeDetails
	}
	a.render(w, r, doc, text)
}

func newPlacementDecisionView(d *PlacementDecision, now time.Time) placementDecisionView {
	v := placementDecisionView{
		Namespace:         d.Namespace,
		PodGroup:          d.PodGroup,
		Time:              utc(d.Time),
		AgeSeconds:        seconds(now.Sub(d.Time)),
		DurationSeconds:   seconds(d.Duration),
		Result:            d.Result,
		Message:           d.Message,
		HeldAt:            d.HeldAt,
		Pods:              d.Pods,
		Placements:        make([]generatedPlacementView, len(d.Placements)),
		PlacementsOmitted: d.PlacementsOmitted,
		Evaluations:       make([]placementEvalView, len(d.Evaluations)),
		Chosen:            d.Chosen,
		Assignments:       make([]podAssignmentView, len(d.Assignments)),
		Required:          d.Required,
		RoomLeftOutCount:  d.RoomLeftOutCount,
		age:               now.Sub(d.Time),
		duration:          d.Duration,
	}
	for _, room := range d.RoomLeftOut {
		v.RoomLeftOut = append(v.RoomLeftOut, placementRoomView{Placement: room.Placement, Pods: room.Pods})
	}
	for _, ra := range d.RoomPerPod {
		v.RoomPerPod = append(v.RoomPerPod, resourceAmountView{Name: ra.Name, Quantity: ra.Quantity})
	}
	v.PodsFit, v.FirstUnfit = d.PodsFit, newUnfitPodView(d.FirstUnfit)
	for _, l := range d.Levels {
		v.Levels = append(v.Levels, placementLevelView{Key: l.Key, Mode: l.Mode, Placements: l.Placements, Evaluated: l.Evaluated,
			RoomLeftOut: l.RoomLeftOut, Feasible: l.Feasible, Result: l.Result, Reason: l.Reason})
	}
	for i, p := range d.Placements {
		v.Placements[i] = generatedPlacementView{Name: p.Name, Nodes: p.Nodes, Level: p.Level}
	}
	for i, e := range d.Evaluations {
		ev := placementEvalView{
			Placement:       e.Placement,
			Level:           e.Level,
			Feasible:        e.Feasible,
			Reason:          e.Reason,
			PodsFit:         e.PodsFit,
			DurationSeconds: seconds(e.Duration),
			Scores:          make([]pluginScoreView, len(e.Scores)),
			TotalScore:      e.TotalScore,
			duration:        e.Duration,
		}
		for j, s := range e.Scores {
			ev.Scores[j] = pluginScoreView{Plugin: s.Plugin, Score: s.Score}
		}
		for _, dp := range e.Domains {
			ev.Domains = append(ev.Domains, domainPodsView{Domain: dp.Domain, Pods: dp.Pods})
		}
		ev.FirstUnfit = newUnfitPodView(e.FirstUnfit)
		v.Evaluations[i] = ev
	}
	for i, pa := range d.Assignments {
		v.Assignments[i] = podAssignmentView{Pod: pa.Pod, Node: pa.Node, Failure: pa.Failure}
	}
	v.Preemption = newPreemptionView(d.Preemption)
	return v
}

// newPreemptionView is nil for nil.
func newPreemptionView(p *Preemption) *preemptionView {
	if p == nil {
		return nil
	}
	v := &preemptionView{Priority: p.Priority, Result: p.Result, Message: p.Message,
		Candidates: make([]preemptionCandidateView, len(p.Candidates)), Chosen: p.Chosen,
		Victims: newVictimViews(p.Victims), VictimsOmitted: p.VictimsOmitted, VictimCount: p.VictimCount}
	for i, c := range p.Candidates {
		cv := preemptionCandidateView{Placement: c.Placement, Level: c.Level, PotentialVictims: c.PotentialVictims, Fits: c.Fits,
			VictimCount: c.VictimCount, PDBViolations: c.PDBViolations, Victims: newVictimViews(c.Victims), Reason: c.Reason}
		if c.VictimCount > 0 {
			highest := c.HighestPriority
			cv.HighestPriority = &highest
		}
		v.Candidates[i] = cv
	}
	return v
}

// newVictimViews is never nil.
func newVictimViews(vs []Victim) []victimView {
	out := make([]victimView, len(vs))
	for i, vi := range vs {
		out[i] = victimView{Pod: vi.Pod, Node: vi.Node, Priority: vi.Priority, PodGroup: vi.PodGroup}
	}
	return out
}

// newUnfitPodView is nil for nil.
func newUnfitPodView(u *UnfitPod) *unfitPodView {
	if u == nil {
		return nil
	}
	v := &unfitPodView{Pod: u.Pod, Requests: []resourceAmountView{}, Rejections: []pluginDiagnosisView{}}
	for _, ra := range u.Requests {
		v.Requests = append(v.Requests, resourceAmountView{Name: ra.Name, Quantity: ra.Quantity})
	}
	for _, p := range u.Rejections {
		v.Rejections = append(v.Rejections, newPluginDiagnosisView(p))
	}
	return v
}

// chosenScore returns the total score of the chosen placement, or "<none>".
func (v *placementDecisionView) chosenScore() string {
	for _, e := range v.Evaluations {
		if e.Placement == v.Chosen && v.Chosen != "" {
			return strconv.FormatInt(e.TotalScore, 10)
		}
	}
	return none
}

func (v *placementDecisionView) assigned() int {
	n := 0
	for _, a := range v.Assignments {
		if a.Node != "" {
			n++
		}
	}
	return n
}

func (v *placementDecisionView) feasible() int {
	n := 0
	for _, e := range v.Evaluations {
		if e.Feasible {
			n++
		}
	}
	return n
}

func (doc placementList) footer(w io.Writer) error {
	var err error
	if doc.Remaining > 0 {
		_, err = fmt.Fprintf(w, "\n%s matched (%d recorded); showing the %d newest, %d more: raise limit=\n",
			count(doc.Matched, "decision", "decisions"), doc.Recorded, len(doc.Items), doc.Remaining)
	} else {
		_, err = fmt.Fprintf(w, "\n%s matched (%d recorded).\n", count(doc.Matched, "decision", "decisions"), doc.Recorded)
	}
	return err
}

// writeTable writes one line per decision (the list of all groups).
func (doc placementList) writeTable(w io.Writer) error {
	if err := doc.writeRows(w); err != nil {
		return err
	}
	if note := hiddenNote(doc.HiddenNamespaces); note != "" {
		_, err := fmt.Fprintf(w, "%s\n", note)
		return err
	}
	return nil
}

// writeRows writes the table of writeTable.
func (doc placementList) writeRows(w io.Writer) error {
	if len(doc.Items) == 0 {
		_, err := io.WriteString(w, "No placement decisions recorded.\n")
		return err
	}
	// The PREEMPTION column only when a listed cycle tried to preempt, so
	// that lists without one stay as they were.
	preemption := false
	for i := range doc.Items {
		preemption = preemption || doc.Items[i].Preemption != nil
	}
	t := newTable(w)
	header := []string{"NAMESPACE", "POD GROUP", "AGE", "RESULT", "DURATION", "PODS", "ASSIGNED", "PLACEMENTS", "FEASIBLE", "CHOSEN", "SCORE"}
	if preemption {
		header = append(header, "PREEMPTION")
	}
	row(t, header...)
	for i := range doc.Items {
		v := &doc.Items[i]
		cells := []string{v.Namespace, v.PodGroup, age(v.age), v.Result,
			shortDuration(v.duration), strconv.Itoa(v.Pods), strconv.Itoa(v.assigned()),
			strconv.Itoa(len(v.Placements) + v.PlacementsOmitted), fmt.Sprintf("%d/%d", v.feasible(), len(v.Evaluations)),
			orNone(v.Chosen), v.chosenScore()}
		if preemption {
			cells = append(cells, v.Preemption.summary())
		}
		row(t, cells...)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	return doc.footer(w)
}

// writeDetails writes every decision in full (one pod group's history).
func (doc placementList) writeDetails(w io.Writer) error {
	for i := range doc.Items {
		v := &doc.Items[i]
		if i > 0 {
			_, _ = io.WriteString(w, "\n---\n\n")
		}
		t := newTable(w)
		row(t, "Pod group:", v.Namespace+"/"+v.PodGroup)
		row(t, "Time:", fmt.Sprintf("%s (%s ago)", timestamp(v.Time), age(v.age)))
		row(t, "Result:", v.Result)
		row(t, "Message:", orNone(v.Message))
		row(t, "Duration:", shortDuration(v.duration))
		row(t, "Pods:", fmt.Sprintf("%d (%d needed)", v.Pods, v.Required))
		row(t, "Chosen placement:", orNone(v.Chosen))
		if v.HeldAt != "" {
			row(t, "Held at:", v.HeldAt)
		}
		if err := t.Flush(); err != nil {
			return err
		}

		if len(v.Levels) > 0 {
			_, _ = fmt.Fprintf(w, "\nTopology levels (%d, narrowest first):\n", len(v.Levels))
			t = newTable(w)
			row(t, "  LEVEL", "MODE", "PLACEMENTS", "EVALUATED", "ROOM LEFT OUT", "FEASIBLE", "RESULT", "REASON")
			for _, l := range v.Levels {
				row(t, "  "+l.Key, orNone(l.Mode), strconv.Itoa(l.Placements), strconv.Itoa(l.Evaluated),
					strconv.Itoa(l.RoomLeftOut), strconv.Itoa(l.Feasible), l.Result, orNone(l.Reason))
			}
			if err := t.Flush(); err != nil {
				return err
			}
		}

		// The level columns only for a group with levels, so that other
		// groups' tables stay as they were.
		levels := v.hasLevels()
		_, _ = fmt.Fprintf(w, "\nPlacements generated (%d):\n", len(v.Placements)+v.PlacementsOmitted)
		if len(v.Placements) > 0 {
			t = newTable(w)
			if levels {
				row(t, "  NAME", "LEVEL", "NODES")
			} else {
				row(t, "  NAME", "NODES")
			}
			for _, p := range v.Placements {
				if levels {
					row(t, "  "+p.Name, orNone(p.Level), strconv.Itoa(p.Nodes))
				} else {
					row(t, "  "+p.Name, strconv.Itoa(p.Nodes))
				}
			}
			if err := t.Flush(); err != nil {
				return err
			}
		}
		if v.PlacementsOmitted > 0 {
			_, _ = fmt.Fprintf(w, "  ... and %d more, not kept by the scheduler\n", v.PlacementsOmitted)
		}

		_, _ = fmt.Fprintf(w, "\nPlacements evaluated (%d):\n", len(v.Evaluations))
		if len(v.Evaluations) > 0 {
			t = newTable(w)
			if levels {
				row(t, "  PLACEMENT", "LEVEL", "FEASIBLE", "PODS FIT", "DURATION", "SCORES", "TOTAL", "REASON")
			} else {
				row(t, "  PLACEMENT", "FEASIBLE", "PODS FIT", "DURATION", "SCORES", "TOTAL", "REASON")
			}
			for _, e := range v.Evaluations {
				total := none
				if e.Feasible {
					total = strconv.FormatInt(e.TotalScore, 10)
				}
				chosen := ""
				if e.Placement == v.Chosen {
					chosen = " *"
				}
				if levels {
					row(t, "  "+e.Placement+chosen, orNone(e.Level), yesNo(e.Feasible), fmt.Sprintf("%d/%d", e.PodsFit, v.Pods),
						shortDuration(e.duration), orNone(joinScores(e.Scores)), total, orNone(e.Reason))
					continue
				}
				row(t, "  "+e.Placement+chosen, yesNo(e.Feasible), fmt.Sprintf("%d/%d", e.PodsFit, v.Pods),
					shortDuration(e.duration),
					orNone(joinScores(e.Scores)), total, orNone(e.Reason))
			}
			if err := t.Flush(); err != nil {
				return err
			}
		}
		if err := v.writeDomains(w); err != nil {
			return err
		}

		if v.RoomLeftOutCount > 0 {
			rooms := make([]string, len(v.RoomLeftOut))
			for i, room := range v.RoomLeftOut {
				rooms[i] = fmt.Sprintf("%s (room for %d)", room.Placement, room.Pods)
			}
			_, _ = fmt.Fprintf(w, "\nLeft out by the room check (%d): %s", v.RoomLeftOutCount, strings.Join(rooms, ", "))
			if more := v.RoomLeftOutCount - len(v.RoomLeftOut); more > 0 {
				_, _ = fmt.Fprintf(w, " and %d more", more)
			}
			_, _ = io.WriteString(w, "\n")
		}

		if err := v.Preemption.writeText(w); err != nil {
			return err
		}

		_, _ = fmt.Fprintf(w, "\nAssignments (%d):\n", len(v.Assignments))
		if len(v.Assignments) > 0 {
			t = newTable(w)
			row(t, "  POD", "NODE", "FAILURE")
			for _, pa := range v.Assignments {
				row(t, "  "+pa.Pod, orNone(pa.Node), orNone(pa.Failure))
			}
			if err := t.Flush(); err != nil {
				return err
			}
		}
	}
	return doc.footer(w)
}

// hasLevels reports whether the decision is of a group with topology
// levels: it has level records, or a placement or evaluation names its
// level or domains.
func (v *placementDecisionView) hasLevels() bool {
	if len(v.Levels) > 0 {
		return true
	}
	for _, p := range v.Placements {
		if p.Level != "" {
			return true
		}
	}
	for _, e := range v.Evaluations {
		if e.Level != "" || len(e.Domains) > 0 {
			return true
		}
	}
	return false
}

// writeDomains writes, for the evaluated placements wider than the
// group's narrowest level, the narrowest level's domains their pods use,
// one line each: a partial fit such as a gang spilled over two racks of a
// block. It writes nothing when no evaluation has domains.
func (v *placementDecisionView) writeDomains(w io.Writer) error {
	n := 0
	for _, e := range v.Evaluations {
		if len(e.Domains) > 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	_, _ = fmt.Fprintf(w, "\nPods per domain of the narrowest level (%s):\n", count(n, "placement", "placements"))
	t := newTable(w)
	row(t, "  PLACEMENT", "DOMAIN", "PODS")
	for _, e := range v.Evaluations {
		name := e.Placement
		if name == v.Chosen {
			name += " *"
		}
		for i, d := range e.Domains {
			if i > 0 {
				name = ""
			}
			row(t, "  "+name, d.Domain, strconv.Itoa(d.Pods))
		}
	}
	return t.Flush()
}

// joinScores formats scores as "Plugin=score,...".
func joinScores(scores []pluginScoreView) string {
	parts := make([]string, len(scores))
	for i, s := range scores {
		parts[i] = s.Plugin + "=" + strconv.FormatInt(s.Score, 10)
	}
	return strings.Join(parts, ",")
}

// summary is the preemption in a table cell: its result, and how many
// victims it chose; "<none>" for a cycle that did not try to preempt.
func (p *preemptionView) summary() string {
	if p == nil {
		return none
	}
	if p.VictimCount > 0 {
		return fmt.Sprintf("%s (%s)", p.Result, count(p.VictimCount, "victim", "victims"))
	}
	return p.Result
}

// String formats a victim as namespace/name@node.
func (v victimView) String() string { return v.Pod + "@" + v.Node }

// writeText writes a cycle's preemption: what it found, every placement it
// tried with the victims named there, and the victims it chose. It writes
// nothing for a cycle that did not try to preempt.
func (p *preemptionView) writeText(w io.Writer) error {
	if p == nil {
		return nil
	}
	_, _ = io.WriteString(w, "\nPreemption:\n")
	t := newTable(w)
	row(t, "  Priority:", fmt.Sprintf("%d (only pods of lower priority may be victims)", p.Priority))
	row(t, "  Result:", p.Result)
	row(t, "  Message:", orNone(p.Message))
	row(t, "  Chosen placement:", orNone(p.Chosen))
	row(t, "  Victims:", strconv.Itoa(p.VictimCount))
	if err := t.Flush(); err != nil {
		return err
	}

	// The level column only for a group with levels, as in the placement
	// tables.
	levels := false
	for _, c := range p.Candidates {
		levels = levels || c.Level != ""
	}
	_, _ = fmt.Fprintf(w, "\nPreemption candidates (%d):\n", len(p.Candidates))
	if len(p.Candidates) > 0 {
		t = newTable(w)
		header := []string{"  PLACEMENT", "POTENTIAL VICTIMS", "FITS", "VICTIMS", "HIGHEST PRIORITY", "PDB VIOLATIONS", "REASON"}
		if levels {
			header = slices.Insert(header, 1, "LEVEL")
		}
		row(t, header...)
		for _, c := range p.Candidates {
			highest := none
			if c.HighestPriority != nil {
				highest = strconv.Itoa(int(*c.HighestPriority))
			}
			cells := []string{"  " + p.mark(c.Placement), strconv.Itoa(c.PotentialVictims), yesNo(c.Fits), strconv.Itoa(c.VictimCount),
				highest, strconv.Itoa(c.PDBViolations), orNone(c.Reason)}
			if levels {
				cells = slices.Insert(cells, 1, orNone(c.Level))
			}
			row(t, cells...)
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}

	// The victims named per candidate, one line each.
	named := 0
	for _, c := range p.Candidates {
		if len(c.Victims) > 0 {
			named++
		}
	}
	if named > 0 {
		_, _ = fmt.Fprintf(w, "\nVictims per candidate (%s):\n", count(named, "placement", "placements"))
		t = newTable(w)
		row(t, "  PLACEMENT", "VICTIM", "PRIORITY", "POD GROUP")
		for _, c := range p.Candidates {
			name := p.mark(c.Placement)
			for i, vi := range c.Victims {
				if i > 0 {
					name = ""
				}
				row(t, "  "+name, vi.String(), strconv.Itoa(int(vi.Priority)), orNone(vi.PodGroup))
			}
			if more := c.VictimCount - len(c.Victims); len(c.Victims) > 0 && more > 0 {
				row(t, "  ", fmt.Sprintf("... and %d more", more))
			}
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}

	if p.VictimCount == 0 && len(p.Victims) == 0 {
		return nil
	}
	_, _ = fmt.Fprintf(w, "\nVictims chosen (%d", p.VictimCount)
	if p.Chosen != "" {
		_, _ = fmt.Fprintf(w, ", in %s", p.Chosen)
	}
	_, _ = io.WriteString(w, "):\n")
	if len(p.Victims) > 0 {
		t = newTable(w)
		row(t, "  VICTIM", "PRIORITY", "POD GROUP")
		for _, vi := range p.Victims {
			row(t, "  "+vi.String(), strconv.Itoa(int(vi.Priority)), orNone(vi.PodGroup))
		}
		if err := t.Flush(); err != nil {
			return err
		}
	}
	if p.VictimsOmitted > 0 {
		_, _ = fmt.Fprintf(w, "  ... and %d more, not kept by the scheduler\n", p.VictimsOmitted)
	}
	return nil
}

// mark appends " *" to the chosen placement's name.
func (p *preemptionView) mark(placement string) string {
	if placement == p.Chosen && p.Chosen != "" {
		return placement + " *"
	}
	return placement
}

// decisionNamespaces lists the namespaces a placements answer asks about:
// the decisions' (only ns on a group's route) and their victims'.
func decisionNamespaces(decisions []PlacementDecision, ns string, perGroup bool) []string {
	var out []string
	for i := range decisions {
		d := &decisions[i]
		if perGroup && d.Namespace != ns {
			continue
		}
		out = append(out, d.Namespace)
		if p := d.Preemption; p != nil {
			for _, v := range p.Victims {
				vns, _, _ := strings.Cut(v.Pod, "/")
				out = append(out, vns)
			}
			for _, c := range p.Candidates {
				for _, v := range c.Victims {
					vns, _, _ := strings.Cut(v.Pod, "/")
					out = append(out, vns)
				}
			}
		}
	}
	return out
}
