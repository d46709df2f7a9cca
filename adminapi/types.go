package adminapi

import (
	"context"
	"time"
)

// This file declares what the admin API reads: the source interfaces the
// scheduler implements and the snapshot types they return. The types carry
// names, counts, times and reasons only — never pod specs, environment,
// annotations or secrets — so nothing else can leak through the API.
//
// Contract for every source method: it returns a snapshot that the source
// copied for this call (under its own lock, if it has one) and does not touch
// again. The router never modifies snapshot data, so a source may also hand
// out a cached immutable snapshot. Methods should return promptly; the router
// stops waiting when ctx is done (see Options.RequestTimeout).

// APIVersion is the apiVersion of every JSON document the admin API writes.
const APIVersion = "kspatch.dev/v1alpha1"

// QueueName names a scheduling sub-queue, as the queue= filter and the JSON
// field "queue" spell it.
type QueueName string

// The sub-queues a pending pod can be in.
const (
	// QueueActive holds pods ready to be popped for a scheduling cycle.
	QueueActive QueueName = "active"
	// QueueBackoff holds pods that failed and wait for their backoff to expire.
	QueueBackoff QueueName = "backoff"
	// QueueUnschedulable holds pods that failed and wait for a cluster event
	// that may make them schedulable (or for the periodic flush).
	QueueUnschedulable QueueName = "unschedulable"
	// QueueGated holds pods that a PreEnqueue plugin (for example
	// SchedulingGates) keeps out of the active queue.
	QueueGated QueueName = "gated"
	// QueueInFlight holds pods popped and being scheduled right now.
	QueueInFlight QueueName = "inFlight"
)

// Queues lists every QueueName in display order.
func Queues() []QueueName {
	return []QueueName{QueueActive, QueueBackoff, QueueUnschedulable, QueueGated, QueueInFlight}
}

// QueueSource reads the scheduling queue.
type QueueSource interface {
	// QueueSnapshot returns every pod the queue holds, in all sub-queues.
	QueueSnapshot(ctx context.Context) (*QueueSnapshot, error)
	// QueuedPod returns one pod by namespace and name, or nil (and no error)
	// when that pod is not in the queue.
	QueuedPod(ctx context.Context, namespace, name string) (*QueuedPodDetail, error)
}

// QueueSnapshot is a copy of the whole scheduling queue.
type QueueSnapshot struct {
	// TakenAt is when the snapshot was taken. Ages and backoff times are
	// computed against it, not against the time the response is written.
	TakenAt time.Time
	// SchedulingCycle is the queue's scheduling cycle counter (incremented on
	// every Pop).
	SchedulingCycle int64
	// Pods are the queued pods, in any order. The router pages them in
	// (namespace, name, uid) order without sorting the whole list.
	Pods []QueuedPod
}

// QueuedPod is one pending pod and where it waits.
type QueuedPod struct {
	// Namespace and Name identify the pod; UID tells a re-created pod apart.
	Namespace, Name, UID string
	// Queue is the sub-queue the pod is in.
	Queue QueueName
	// Priority is the pod's resolved priority (spec.priority).
	Priority int32
	// Attempts counts the scheduling attempts so far.
	Attempts int
	// InitialAttemptTimestamp is the time of the first scheduling attempt;
	// zero if the pod was never attempted.
	InitialAttemptTimestamp time.Time
	// Timestamp is when the pod was last added to the queue (the queue's
	// enqueue timestamp); the pod's age in the queue is measured from it.
	Timestamp time.Time
	// BackoffExpiry is when the pod's current backoff ends; zero if it has none.
	BackoffExpiry time.Time
	// UnschedulablePlugins are the plugins that rejected the pod in its last
	// attempt (Filter, PreFilter, Reserve or Permit rejections).
	UnschedulablePlugins []string
	// PendingPlugins are the plugins that returned Pending in the last attempt
	// (the pod waits for something outside the scheduler, e.g. a DRA driver).
	PendingPlugins []string
	// GatingPlugin is the PreEnqueue plugin that gates the pod; empty if none.
	GatingPlugin string
	// PodGroup is the name of the pod group (in the pod's namespace) the pod
	// belongs to; empty if none.
	PodGroup string
}

// QueuedPodDetail is one queued pod with the reasons it waits.
type QueuedPodDetail struct {
	// TakenAt is when the detail was copied; ages are computed against it.
	TakenAt time.Time
	// QueuedPod is the pod's queue entry.
	QueuedPod
	// NominatedNodeName is the node the pod was nominated to by preemption;
	// empty if none.
	NominatedNodeName string
	// LastFailure is the diagnosis of the pod's last failed scheduling
	// attempt; nil if none was recorded.
	LastFailure *Diagnosis
}

// Diagnosis explains why a scheduling attempt failed.
type Diagnosis struct {
	// Time is when the attempt failed; zero if unknown.
	Time time.Time
	// Message is the overall failure message, as written to the pod's
	// PodScheduled condition (e.g. "0/6 nodes are available: ...").
	Message string
	// NumAllNodes is the number of nodes the attempt considered.
	NumAllNodes int
	// PreFilterMessage is the message of a PreFilter rejection; empty if none.
	PreFilterMessage string
	// PostFilterMessage is the message of the PostFilter (preemption) phase;
	// empty if none.
	PostFilterMessage string
	// Plugins are the per-plugin rejections, at most 16 (the plugins that
	// rejected the most nodes).
	Plugins []PluginDiagnosis
	// OmittedPlugins is how many more plugins rejected nodes than Plugins
	// lists.
	OmittedPlugins int
	// PodGroup is set when the attempt failed because of the pod's group
	// (gang scheduling), not because of the pod itself: its unschedulable
	// plugins are then the group's, and NumAllNodes and Plugins are empty.
	PodGroup *PodGroupDiagnosis
}

// PodGroupDiagnosis says how a pod-group member's attempt failed with its
// group.
type PodGroupDiagnosis struct {
	// Fit is true when this pod fit, on Node, and was taken back because
	// too few of its group's pods fit.
	Fit  bool
	Node string
}

// PluginDiagnosis is how one plugin rejected a pod in one attempt.
type PluginDiagnosis struct {
	// Plugin is the plugin's name.
	Plugin string
	// Nodes is the number of nodes this plugin rejected.
	Nodes int
	// Reasons are the distinct rejection reasons with the number of nodes
	// that gave each (in a pod's last failure at most 8, the most frequent).
	Reasons []ReasonCount
	// OmittedReasons is how many more distinct reasons the plugin gave than
	// Reasons lists.
	OmittedReasons int
}

// ReasonCount is a rejection reason and how many nodes gave it.
type ReasonCount struct {
	// Reason is the status reason, e.g. "Insufficient cpu".
	Reason string
	// Count is the number of nodes that gave the reason.
	Count int
}

// APICallSource reads the asynchronous API call queue (KEP-5229). A scheduler
// without the SchedulerAsyncAPICalls feature passes no APICallSource.
type APICallSource interface {
	// APICallSnapshot returns every pending and in-flight API call.
	APICallSnapshot(ctx context.Context) (*APICallSnapshot, error)
}

// APICallSnapshot is a copy of the API call queue.
type APICallSnapshot struct {
	// TakenAt is when the snapshot was taken; ages are computed against it.
	TakenAt time.Time
	// Calls are the pending and in-flight calls, in any order.
	Calls []APICall
}

// APICall is one queued or executing API call.
type APICall struct {
	// Type is the call type as the API queue names it, e.g. "pod_binding".
	Type string
	// Object is the object the call acts on.
	Object ObjectRef
	// EnqueuedAt is when the call (or the first call merged into it) was
	// enqueued.
	EnqueuedAt time.Time
	// Merges counts the calls that were merged into this one.
	Merges int
	// InFlightSince is when the call started executing; zero while pending.
	InFlightSince time.Time
}

// ObjectRef identifies an API object.
type ObjectRef struct {
	// Namespace, Name and UID of the object.
	Namespace, Name, UID string
}

// PlacementSource reads the recorder of recent pod-group scheduling cycles
// and their placement decisions. A scheduler without the GangScheduling
// feature passes no PlacementSource.
type PlacementSource interface {
	// PlacementSnapshot returns the recorded decisions, newest first.
	PlacementSnapshot(ctx context.Context) (*PlacementSnapshot, error)
}

// PlacementSnapshot is a copy of the placement decision recorder.
type PlacementSnapshot struct {
	// TakenAt is when the snapshot was taken; ages are computed against it.
	TakenAt time.Time
	// Decisions are the recorded pod-group cycles, newest first.
	Decisions []PlacementDecision
}

// Common values of PlacementDecision.Result.
const (
	// ResultScheduled: the group's pods were assigned to nodes.
	ResultScheduled = "Scheduled"
	// ResultUnschedulable: no placement fit the group (or too few of its pods).
	ResultUnschedulable = "Unschedulable"
	// ResultError: the cycle failed with an internal error.
	ResultError = "Error"
)

// PlacementDecision is one pod-group scheduling cycle as recorded. Groups
// without scheduling constraints (no topology-aware placement) have no
// Placements or Evaluations, only the pod assignments.
type PlacementDecision struct {
	// Namespace and PodGroup identify the pod group.
	Namespace, PodGroup string
	// Time is when the cycle started.
	Time time.Time
	// Duration is how long the cycle took.
	Duration time.Duration
	// Result is the cycle's outcome, e.g. ResultScheduled.
	Result string
	// Message explains the result; empty if there is nothing to add.
	Message string
	// Pods is the number of the group's pods the cycle tried to place.
	Pods int
	// Placements are the candidate placements the generator plugins produced,
	// as many as the scheduler keeps; PlacementsOmitted counts the others.
	Placements        []GeneratedPlacement
	PlacementsOmitted int
	// Evaluations are the placements the cycle evaluated, in evaluation order.
	Evaluations []PlacementEvaluation
	// Chosen is the name of the placement the cycle chose; empty if none.
	Chosen string
	// Assignments are the per-pod outcomes: a node, or why the pod failed.
	Assignments []PodAssignment
	// Required is the number of pods that had to fit in this cycle (a
	// gang's minCount less its members already bound; 0 for a basic
	// group).
	Required int
	// RoomLeftOut are placements left out before any Filter ran because
	// their nodes cannot hold Required pods by CPU, memory or pod count,
	// as many as the scheduler keeps (most room first); RoomLeftOutCount
	// counts them all.
	RoomLeftOut      []PlacementRoom
	RoomLeftOutCount int
	// RoomPerPod is what the room check counted per pod: the smallest CPU
	// and memory requests among the group's pods; empty when it left
	// nothing out.
	RoomPerPod []ResourceAmount
	// PodsFit, for a cycle whose pods did not all fit, is how many did in
	// its last try (in the best placement, for a group with placements);
	// FirstUnfit is the first pod that did not, nil if none was recorded.
	PodsFit    int
	FirstUnfit *UnfitPod
	// Levels are the topology levels the placement search went through,
	// narrowest first, and those it did not need to try; empty for a group
	// without a Preferred level (multi-level topology).
	Levels []PlacementLevel
	// HeldAt, for a cycle where no placement was chosen, is the widest
	// level tried and why no domain of it fits: where the group waits.
	// Empty when a placement was chosen, or the group has no levels.
	HeldAt string
	// Preemption, for a gang that did not fit and tried to preempt
	// (workload-aware preemption), is what that found; nil otherwise.
	Preemption *Preemption
}

// Results of a pod group's preemption (Preemption.Result).
const (
	// PreemptionPreempting: victims were chosen in a placement and are
	// being deleted; the group's members are nominated to the nodes they
	// fit on.
	PreemptionPreempting = "Preempting"
	// PreemptionNotHelpful: no placement fits the group even without every
	// pod it may preempt; nothing was evicted.
	PreemptionNotHelpful = "NotHelpful"
	// PreemptionWaiting: the victims of an earlier preemption are still
	// terminating on the nodes the members are nominated to; nothing more
	// was evicted.
	PreemptionWaiting = "Waiting"
	// PreemptionNotAllowed: a member's preemptionPolicy is Never.
	PreemptionNotAllowed = "NotAllowed"
	// PreemptionError: the preemption could not be computed.
	PreemptionError = "Error"
)

// Preemption is what a pod group's preemption found: the placements it
// tried with the pods the group may preempt removed, and the victims it
// chose in one of them, all or none.
type Preemption struct {
	// Priority is the group's priority (the lowest of its members'); only
	// pods of lower priority may be victims.
	Priority int32
	// Result is one of the Preemption* results; Message says it in a line.
	Result  string
	Message string
	// Candidates are the placements tried (the whole cluster for a group
	// without topology constraints), in the order tried.
	Candidates []PreemptionCandidate
	// Chosen is the placement whose victims were chosen; empty if none.
	Chosen string
	// Victims are the chosen victims, as many as the scheduler keeps;
	// VictimsOmitted counts the others; VictimCount is all of them.
	Victims        []Victim
	VictimsOmitted int
	VictimCount    int
}

// PreemptionCandidate is one placement tried for preemption.
type PreemptionCandidate struct {
	// Placement is the placement's name, as in GeneratedPlacement.
	Placement string
	// Level is as in GeneratedPlacement; empty for a group without a
	// Preferred level.
	Level string
	// PotentialVictims is how many pods the group may preempt there.
	PotentialVictims int
	// Fits reports whether the group fits once the victims are gone.
	Fits bool
	// VictimCount is how many pods are left as victims after the reprieve
	// (the pods the group fits without are spared); HighestPriority is the
	// highest priority among them (meaningless when VictimCount is 0);
	// PDBViolations is how many of them a PodDisruptionBudget would
	// rather keep.
	VictimCount     int
	HighestPriority int32
	PDBViolations   int
	// Victims names the first victims, as many as the scheduler keeps
	// per candidate.
	Victims []Victim
	// Reason says why the placement cannot be used, or why it lost; empty
	// for the chosen one.
	Reason string
}

// Victim is one pod a preemption chose to delete.
type Victim struct {
	// Pod is the pod as namespace/name: victims may be in any namespace.
	Pod string
	// Node is the node the pod runs on.
	Node string
	// Priority is the pod's priority.
	Priority int32
	// PodGroup names the victim's pod group (in the victim's namespace)
	// when it is a member of one: preempted with all of its group's pods
	// (disruptionMode PodGroup) or on its own (disruptionMode Pod); empty
	// for a pod without a group.
	PodGroup string
}

// Results of a topology level in a placement search
// (PlacementLevel.Result).
const (
	// LevelChosen: the chosen placement is one domain of this level.
	LevelChosen = "Chosen"
	// LevelNoFit: no candidate of the level fits the group.
	LevelNoFit = "NoFit"
	// LevelNotTried: a narrower level fit, so the search did not get here.
	LevelNotTried = "NotTried"
)

// LevelCluster is the key of the whole-cluster level, the widest of a group
// whose levels are all Preferred.
const LevelCluster = "cluster"

// PlacementLevel is what a placement search found at one topology level.
type PlacementLevel struct {
	// Key is the level's node label key, or LevelCluster.
	Key string
	// Mode is LevelRequired or LevelPreferred; empty for LevelCluster.
	Mode string
	// Placements counts the candidates generated at the level; Evaluated
	// those tried with Filter; RoomLeftOut those the room check left out
	// first; Feasible those where enough of the group's pods fit.
	Placements, Evaluated, RoomLeftOut, Feasible int
	// Result is LevelChosen, LevelNoFit or LevelNotTried.
	Result string
	// Reason says why no candidate of the level was chosen, e.g. "no
	// topology.kubernetes.io/rack domain fits 6 pods: the best, ..., fits
	// 4"; empty for the chosen level.
	Reason string
}

// DomainPods is how many of a group's pods a placement puts in one domain
// of a narrower topology level.
type DomainPods struct {
	// Domain names the domain, as the scheduler names placements.
	Domain string
	// Pods is the number of the group's pods that go there.
	Pods int
}

// PlacementRoom is a placement the room check left out: its nodes hold at
// most Pods of the group's pods.
type PlacementRoom struct {
	Placement string
	Pods      int
}

// GeneratedPlacement is a candidate placement: a named set of nodes.
type GeneratedPlacement struct {
	// Name is the placement's name, chosen by its generator (e.g. "rack=r1").
	Name string
	// Nodes is the number of nodes in the placement.
	Nodes int
	// Level is the topology level the placement is one domain of (a label
	// key or LevelCluster); empty for a group without a Preferred level.
	Level string
}

// PlacementEvaluation is the result of simulating the group in one placement.
type PlacementEvaluation struct {
	// Placement is the evaluated placement's name.
	Placement string
	// Level is as in GeneratedPlacement.
	Level string
	// Domains, for a placement wider than the group's narrowest level,
	// are the domains of the narrowest level its pods use and how many go
	// to each, most first (a partial fit, e.g. a gang spilled over two
	// racks of a block); empty otherwise.
	Domains []DomainPods
	// Feasible reports whether enough of the group's pods fit.
	Feasible bool
	// Reason says why the placement is not feasible; empty if it is.
	Reason string
	// PodsFit is the number of the group's pods that fit in the placement.
	PodsFit int
	// Duration is how long the evaluation took.
	Duration time.Duration
	// Scores are the placement score plugins' (normalized) scores; empty for
	// infeasible placements.
	Scores []PluginScore
	// TotalScore is the weighted sum of Scores.
	TotalScore int64
	// FirstUnfit is the first of the group's pods that did not fit in the
	// placement; nil if every pod tried fit.
	FirstUnfit *UnfitPod
}

// UnfitPod is a pod that did not fit in a placement: what it requests and
// what rejected it there.
type UnfitPod struct {
	// Pod is the pod's name (in the group's namespace).
	Pod string
	// Requests are its resource requests by resource name (e.g. cpu 8).
	Requests []ResourceAmount
	// Rejections are the plugins that rejected it, most nodes first.
	Rejections []PluginDiagnosis
}

// ResourceAmount is a quantity of a resource.
type ResourceAmount struct {
	// Name is the resource name, e.g. "cpu" or "nvidia.com/gpu".
	Name string
	// Quantity is the amount in Kubernetes quantity notation, e.g. "500m".
	Quantity string
}

// PodGroupSource reads the scheduler's pod groups (GangScheduling). A
// scheduler without the GangScheduling feature passes no PodGroupSource.
type PodGroupSource interface {
	// PodGroup returns what the scheduler knows of one pod group: the
	// PodGroup object, if any, and the pods that name it. It returns nil,
	// and no error, when there is neither.
	PodGroup(ctx context.Context, namespace, name string) (*PodGroupDetail, error)
}

// Policies of a pod group (PodGroupDetail.Policy).
const (
	PolicyGang  = "gang"
	PolicyBasic = "basic"
)

// PodGroupDetail is one pod group as the scheduler sees it.
type PodGroupDetail struct {
	// TakenAt is when the detail was copied.
	TakenAt time.Time
	// Namespace and Name identify the group.
	Namespace, Name string
	// Found is false when no PodGroup object exists (its pods name a
	// missing group).
	Found bool
	// Problem says why the scheduler cannot use the PodGroup (malformed,
	// not listed yet); empty when it can, or when there is none.
	Problem string
	// Policy is PolicyGang or PolicyBasic; MinCount is the gang's
	// minCount (0 for a basic group).
	Policy   string
	MinCount int
	// Levels are the group's topology constraints, widest first.
	Levels []TopologyLevel
	// Scheduled is the PodGroup's status.scheduled.
	Scheduled int
	// Condition is the PodGroupScheduled condition; nil if none.
	Condition *GroupCondition
	// Members are the pods that name the group and are not terminated, in
	// the order the scheduler tries them.
	Members []PodGroupMember
	// MemberLabel is the label by which the group's pods join it
	// (scheduling.kspatch.io/pod-group, or scheduling.x-k8s.io/pod-group
	// for a coscheduling PodGroup); empty means the first.
	MemberLabel string
}

// Modes of a topology level (TopologyLevel.Mode, PlacementLevel.Mode).
const (
	// LevelRequired: all the group's pods within one domain of the level.
	LevelRequired = "required"
	// LevelPreferred: one domain of the level if possible (multi-level
	// topology).
	LevelPreferred = "preferred"
)

// TopologyLevel is one topology constraint of a pod group.
type TopologyLevel struct {
	// Key is the node label key, e.g. topology.kubernetes.io/rack.
	Key string
	// Mode is LevelRequired or LevelPreferred.
	Mode string
}

// GroupCondition is a pod group's PodGroupScheduled condition.
type GroupCondition struct {
	// Status is "True", "False" or "Unknown".
	Status string
	// Reason and Message are as the scheduler wrote them.
	Reason, Message string
	// LastTransitionTime is when Status last changed.
	LastTransitionTime time.Time
}

// PodGroupMember is one pod of a pod group.
type PodGroupMember struct {
	// Name and UID identify the pod (in the group's namespace).
	Name, UID string
	// Node is the node the pod is bound to; empty if it is not bound.
	Node string
	// Deleting is true when the pod is being deleted.
	Deleting bool
}

// PluginScore is one plugin's score.
type PluginScore struct {
	// Plugin is the plugin's name.
	Plugin string
	// Score is the plugin's score.
	Score int64
}

// PodAssignment is the outcome of a pod-group cycle for one pod.
type PodAssignment struct {
	// Pod is the pod's name (in the group's namespace).
	Pod string
	// Node is the node the pod was assigned to; empty if it failed.
	Node string
	// Failure says why the pod was not assigned; empty if it was.
	Failure string
}

// RequestObserver is told about every request the router answers, e.g. to
// feed request metrics. The route is the chi route pattern (such as
// "/debug/queue/pods/{namespace}/{name}"), never the raw path, so it has few
// distinct values; requests whose path matches no route report "unmatched",
// and a refused method (405) is reported under the route its path matches.
type RequestObserver interface {
	ObserveRequest(route string, code int, d time.Duration)
}

// RequestObserverFunc adapts a function to a RequestObserver.
type RequestObserverFunc func(route string, code int, d time.Duration)

// ObserveRequest calls f.
func (f RequestObserverFunc) ObserveRequest(route string, code int, d time.Duration) {
	f(route, code, d)
}
