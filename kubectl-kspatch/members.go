package main

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// podAt is a pod inside an input object: the object itself (a Pod, path
// ""), or a pod template anywhere in it (path "spec.template" for a
// Deployment, "spec.jobTemplate.spec.template" for a CronJob,
// "spec.pytorchReplicaSpecs.Worker.template" for a Kubeflow PyTorchJob).
type podAt struct {
	obj  map[string]interface{}
	path string
	// partial: a pod template without containers, such as a kustomize
	// patch of one (see partialPod).
	partial bool
}

// findPods returns the pods and pod templates in v, found by their shape:
// a map whose spec has containers. It looks into every field but
// metadata and status, and not into a pod it found. So any object that
// carries pod templates, built-in or custom, is covered. A pod template
// without containers (partialPod) is returned as partial.
func findPods(v interface{}, path string, out []podAt) []podAt {
	switch x := v.(type) {
	case map[string]interface{}:
		if spec, ok := x["spec"].(map[string]interface{}); ok {
			if _, ok := spec["containers"]; ok {
				return append(out, podAt{x, path, false})
			}
		}
		if partialPod(x, path) {
			return append(out, podAt{x, path, true})
		}
		for _, k := range specKeys(x) {
			out = findPods(x[k], at(path, k), out)
		}
	case []interface{}:
		for i, e := range x {
			out = findPods(e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
	return out
}

// claim is one way a pod names its group.
type claim struct {
	field, name string
}

const (
	kspatchLabelField      = "metadata.labels[" + kspatchLabel + "]"
	coschedulingLabelField = "metadata.labels[" + coschedulingLabel + "]"
	oldLabelField          = "metadata.labels[" + coschedulingOldLabel + "]"
	schedulingGroupField   = "spec.schedulingGroup.podGroupName"
)

// membership is how one pod names its group: the label values and the
// podGroupName of spec.schedulingGroup ("" when absent).
type membership struct {
	labels                            map[string]interface{}
	kspatch, coscheduling, old, field string
	// hasField: spec.schedulingGroup is an object; nullField: it is
	// there, and null (unset).
	hasField, nullField bool
}

func readMembership(pod map[string]interface{}) (membership, error) {
	var m membership
	var err error
	if m.labels, err = stringMap(pod, "metadata", "labels"); err != nil {
		return m, err
	}
	m.kspatch, _ = m.labels[kspatchLabel].(string)
	m.coscheduling, _ = m.labels[coschedulingLabel].(string)
	m.old, _ = m.labels[coschedulingOldLabel].(string)
	sg, ok := nested(pod, "spec", "schedulingGroup")
	if !ok {
		return m, nil
	}
	if sg == nil {
		m.nullField = true
		return m, nil
	}
	sgMap, isMap := sg.(map[string]interface{})
	if !isMap {
		return m, fieldErr("spec.schedulingGroup", "not an object")
	}
	m.hasField = true
	if v, ok := sgMap["podGroupName"]; ok && v != nil {
		if m.field, ok = v.(string); !ok {
			return m, fieldErr(schedulingGroupField, "not a string")
		}
	}
	return m, nil
}

// upstreamClaims are the pod's claims in the order upstream's conversion
// weighs them: spec.schedulingGroup, the kspatch label, the coscheduling
// label.
func (m membership) upstreamClaims() []claim {
	return []claim{{schedulingGroupField, m.field}, {kspatchLabelField, m.kspatch}, {coschedulingLabelField, m.coscheduling}}
}

// kspatchClaims are the pod's claims in the order kspatch's conversion
// weighs them: the kspatch label, spec.schedulingGroup, the coscheduling
// label.
func (m membership) kspatchClaims() []claim {
	return []claim{{kspatchLabelField, m.kspatch}, {schedulingGroupField, m.field}, {coschedulingLabelField, m.coscheduling}}
}

// winner returns the claim that decides the pod's group: the first
// non-empty one in claims; each later one that names another group is a
// loss.
func winner(claims []claim) (*claim, []fieldNote) {
	var w *claim
	var losses []fieldNote
	for i := range claims {
		c := &claims[i]
		switch {
		case c.name == "":
		case w == nil:
			w = c
		case c.name != w.name:
			losses = append(losses, fieldNote{c.field, fmt.Sprintf("the pod names a second group, %s, which is not carried: it joins %s (%s)", c.name, w.name, w.field)})
		}
	}
	return w, losses
}

// checkOldLabel refuses a pod that names a group with the label of
// scheduler-plugins' older releases, as convert refuses their PodGroups:
// neither kspatch nor upstream reads it. Beside a label that names the
// same group it is harmless.
func checkOldLabel(m membership, w *claim) error {
	if m.old == "" || (w != nil && w.name == m.old) {
		return nil
	}
	return fieldErr(oldLabelField, fmt.Sprintf("%s: the label of older scheduler-plugins releases (API group %s), which convert does not read, nor do kspatch and upstream: label the pod %s: %s instead (and move its PodGroup to %s) first",
		m.old, coschedulingOldGroup, coschedulingLabel, m.old, coschedulingAPIVersion))
}

// memberRewrite rewrites the pods of one object (root, which ref names)
// for the conversion c.
type memberRewrite struct {
	c      *conversion
	ref    objectRef
	root   map[string]interface{}
	custom bool // root is a custom resource
	losses []fieldNote
}

// run makes each pod and pod template of the object join its group the
// target API's way: spec.schedulingGroup.podGroupName for upstream, the
// scheduling.kspatch.io/pod-group label for kspatch.
func (r *memberRewrite) run() error {
	for _, p := range findPods(r.root, "", nil) {
		m, err := readMembership(p.obj)
		switch {
		case err != nil:
		case p.partial:
			err = r.partial(p, m)
		case r.c.toUpstream:
			err = r.upstream(p, m)
		default:
			err = r.kspatch(p, m)
		}
		if err != nil {
			return prefixed(p.path, err)
		}
	}
	return nil
}

func (r *memberRewrite) lose(path string, n ...fieldNote) {
	for _, l := range n {
		r.losses = append(r.losses, fieldNote{at(path, l.field), l.what})
	}
}

// upstream: the pod's group is spec.schedulingGroup's, else the kspatch
// label's, else the coscheduling label's. The labels stay (harmless to
// upstream's scheduler, and what kspatch needs on a rollback) unless
// removeLabels is set, and then still where a selector uses them.
func (r *memberRewrite) upstream(p podAt, m membership) error {
	w, losses := winner(m.upstreamClaims())
	r.lose(p.path, losses...)
	if err := checkOldLabel(m, w); err != nil {
		return err
	}
	if w == nil {
		return nil
	}
	if errs := validation.IsDNS1123Subdomain(w.name); len(errs) > 0 {
		return fieldErr(w.field, fmt.Sprintf("%q is not a PodGroup name: %s", w.name, strings.Join(errs, "; ")))
	}
	r.c.addMember(r.ref, p, w.name)
	if m.field != w.name {
		sg, _ := nested(p.obj, "spec", "schedulingGroup")
		sgMap, _ := sg.(map[string]interface{})
		if sgMap == nil {
			sgMap = map[string]interface{}{}
			p.obj["spec"].(map[string]interface{})["schedulingGroup"] = sgMap
		}
		sgMap["podGroupName"] = w.name
		if r.custom && p.path != "" {
			r.lose(p.path, customTemplateLoss)
		}
	}
	if !r.c.removeLabels {
		return nil
	}
	for _, key := range groupLabels {
		v, ok := m.labels[key].(string)
		if !ok {
			continue
		}
		if uses := r.c.selectorsOn(r.ref, key, v); len(uses) > 0 {
			r.lose(p.path, fieldNote{"metadata.labels[" + key + "]", "kept, not removed: " + describeUses(r.ref, p.path, uses)})
			continue
		}
		delete(m.labels, key)
	}
	dropEmptyLabels(p.obj)
	return nil
}

// kspatch: the pod's group is the kspatch label's, else
// spec.schedulingGroup's; a pod that names only a coscheduling group is
// left as it is (kspatch schedules coscheduling groups). spec.schedulingGroup
// goes (a v1.33 API server does not know it), and so does a coscheduling
// label that names another group beside the kspatch one: under kspatch a
// pod joins one group.
func (r *memberRewrite) kspatch(p podAt, m membership) error {
	w, losses := winner(m.kspatchClaims())
	r.lose(p.path, losses...)
	if err := checkOldLabel(m, w); err != nil {
		return err
	}
	if m.nullField {
		delete(p.obj["spec"].(map[string]interface{}), "schedulingGroup")
	}
	if w == nil || w.field == coschedulingLabelField {
		return nil
	}
	if errs := validation.IsValidLabelValue(w.name); len(errs) > 0 {
		return fieldErr(w.field, fmt.Sprintf("%q cannot be the value of the label %s: %s", w.name, kspatchLabel, strings.Join(errs, "; ")))
	}
	r.c.addMember(r.ref, p, w.name)
	if m.kspatch != w.name {
		if m.labels == nil {
			m.labels = map[string]interface{}{}
			setLabels(p.obj, m.labels)
		}
		m.labels[kspatchLabel] = w.name
	}
	if m.hasField {
		sg, _ := nested(p.obj, "spec", "schedulingGroup")
		for k := range sg.(map[string]interface{}) {
			if k != "podGroupName" {
				r.lose(p.path, fieldNote{"spec.schedulingGroup." + k, "not carried: kspatch pods join a group by the label " + kspatchLabel + " only"})
			}
		}
		delete(p.obj["spec"].(map[string]interface{}), "schedulingGroup")
	}
	if m.coscheduling == "" {
		return nil
	}
	return r.dropCoschedulingLabel(p, m, w.name)
}

// dropCoschedulingLabel removes, under --to kspatch, the coscheduling
// label of a pod that joins the kspatch group name. A label that names
// the same group stays where a selector uses it (it is the same group to
// kspatch); one that names another group cannot stay, and cannot go while
// the template's own selector needs it.
func (r *memberRewrite) dropCoschedulingLabel(p podAt, m membership, name string) error {
	uses := r.c.selectorsOn(r.ref, coschedulingLabel, m.coscheduling)
	switch {
	case m.coscheduling == name && len(uses) > 0:
		return nil
	case m.coscheduling == name:
		r.lose(p.path, fieldNote{coschedulingLabelField, fmt.Sprintf("removed: under kspatch a pod joins one group, and this one joins the kspatch PodGroup %s", name)})
	case len(uses) > 0:
		sibling := siblingSelector(p.path)
		for _, u := range uses {
			if u.ref.same(r.ref) && sibling != "" && u.path == sibling {
				return fieldErr(coschedulingLabelField, sibling+" selects on it, so it cannot be removed, and with it the pod would name two groups under kspatch")
			}
		}
		r.lose(p.path, fieldNote{coschedulingLabelField, "removed, so that the pod joins one group; and " + describeUses(r.ref, p.path, uses) + ": it selects this pod no more"})
	}
	delete(m.labels, coschedulingLabel)
	return nil
}

// prefixed puts a pod's path in front of the field of a fieldError.
func prefixed(path string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		return fieldErr(at(path, fe.field), fe.what)
	}
	return err
}
