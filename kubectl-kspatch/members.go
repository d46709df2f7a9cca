package main

import (
	"fmt"
	"sort"
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
}

// findPods returns the pods and pod templates in v, found by their shape:
// a map whose spec has containers. It looks into every field but
// metadata and status, and not into a pod it found. So any object that
// carries pod templates, built-in or custom, is covered.
func findPods(v interface{}, path string, out []podAt) []podAt {
	switch x := v.(type) {
	case map[string]interface{}:
		if spec, ok := x["spec"].(map[string]interface{}); ok {
			if _, ok := spec["containers"]; ok {
				return append(out, podAt{x, path})
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			if k != "metadata" && k != "status" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
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
	schedulingGroupField   = "spec.schedulingGroup.podGroupName"
)

// membership is how one pod names its group: the label values and the
// podGroupName of spec.schedulingGroup ("" when absent).
type membership struct {
	labels                       map[string]interface{}
	kspatch, coscheduling, field string
	hasField                     bool
}

func readMembership(pod map[string]interface{}) (membership, error) {
	var m membership
	var err error
	if m.labels, err = stringMap(pod, "metadata", "labels"); err != nil {
		return m, err
	}
	m.kspatch, _ = m.labels[kspatchLabel].(string)
	m.coscheduling, _ = m.labels[coschedulingLabel].(string)
	sg, ok := nested(pod, "spec", "schedulingGroup")
	if !ok {
		return m, nil
	}
	sgMap, isMap := sg.(map[string]interface{})
	if !isMap {
		return m, fieldErr("spec.schedulingGroup", "not an object")
	}
	m.hasField = true
	if v, ok := sgMap["podGroupName"]; ok {
		if m.field, ok = v.(string); !ok {
			return m, fieldErr(schedulingGroupField, "not a string")
		}
	}
	return m, nil
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

// memberRewrite rewrites the pods of one object for one direction.
type memberRewrite struct {
	root         map[string]interface{}
	toUpstream   bool
	removeLabels bool
	losses       []fieldNote
	changed      bool
}

// rewriteMembers makes each pod and pod template of obj join its group
// the target API's way: spec.schedulingGroup.podGroupName for upstream,
// the scheduling.kspatch.io/pod-group label for kspatch. It reports
// whether obj changed, and the losses.
func rewriteMembers(obj map[string]interface{}, toUpstream, removeLabels bool) (bool, []fieldNote, error) {
	r := &memberRewrite{root: obj, toUpstream: toUpstream, removeLabels: removeLabels}
	for _, p := range findPods(obj, "", nil) {
		m, err := readMembership(p.obj)
		if err != nil {
			return false, nil, prefixed(p.path, err)
		}
		if toUpstream {
			err = r.upstream(p, m)
		} else {
			err = r.kspatch(p, m)
		}
		if err != nil {
			return false, nil, prefixed(p.path, err)
		}
	}
	return r.changed, r.losses, nil
}

func (r *memberRewrite) lose(path string, n []fieldNote) {
	for _, l := range n {
		r.losses = append(r.losses, fieldNote{at(path, l.field), l.what})
	}
}

// upstream: the pod's group is spec.schedulingGroup's, else the kspatch
// label's, else the coscheduling label's. The labels stay (harmless to
// upstream's scheduler, and what kspatch needs on a rollback) unless
// removeLabels is set.
func (r *memberRewrite) upstream(p podAt, m membership) error {
	w, losses := winner([]claim{{schedulingGroupField, m.field}, {kspatchLabelField, m.kspatch}, {coschedulingLabelField, m.coscheduling}})
	r.lose(p.path, losses)
	if w == nil {
		return nil
	}
	if errs := validation.IsDNS1123Subdomain(w.name); len(errs) > 0 {
		return fieldErr(w.field, fmt.Sprintf("%q is not a PodGroup name: %s", w.name, strings.Join(errs, "; ")))
	}
	if m.field != w.name {
		sg, _ := nested(p.obj, "spec", "schedulingGroup")
		sgMap, _ := sg.(map[string]interface{})
		if sgMap == nil {
			sgMap = map[string]interface{}{}
			p.obj["spec"].(map[string]interface{})["schedulingGroup"] = sgMap
		}
		sgMap["podGroupName"] = w.name
		r.changed = true
	}
	if !r.removeLabels {
		return nil
	}
	for _, key := range []string{kspatchLabel, coschedulingLabel} {
		if _, ok := m.labels[key]; !ok {
			continue
		}
		if p.path != "" && selectorUses(r.root, key) {
			r.lose(p.path, []fieldNote{{"metadata.labels[" + key + "]", "kept, not removed: spec.selector selects on it, and a template must match its selector"}})
			continue
		}
		delete(m.labels, key)
		r.changed = true
	}
	dropEmptyLabels(p.obj)
	return nil
}

// kspatch: the pod's group is the kspatch label's, else
// spec.schedulingGroup's; a pod that names only a coscheduling group is
// left as it is (kspatch schedules coscheduling groups). spec.schedulingGroup
// goes (a v1.33 API server does not know it), and so does a coscheduling
// label beside the kspatch one: under kspatch a pod joins one group.
func (r *memberRewrite) kspatch(p podAt, m membership) error {
	w, losses := winner([]claim{{kspatchLabelField, m.kspatch}, {schedulingGroupField, m.field}, {coschedulingLabelField, m.coscheduling}})
	r.lose(p.path, losses)
	if w == nil || w.field == coschedulingLabelField {
		return nil
	}
	if errs := validation.IsValidLabelValue(w.name); len(errs) > 0 {
		return fieldErr(w.field, fmt.Sprintf("%q cannot be the value of the label %s: %s", w.name, kspatchLabel, strings.Join(errs, "; ")))
	}
	if m.kspatch != w.name {
		if m.labels == nil {
			m.labels = map[string]interface{}{}
			setLabels(p.obj, m.labels)
		}
		m.labels[kspatchLabel] = w.name
		r.changed = true
	}
	if m.hasField {
		sg, _ := nested(p.obj, "spec", "schedulingGroup")
		for k := range sg.(map[string]interface{}) {
			if k != "podGroupName" {
				r.lose(p.path, []fieldNote{{"spec.schedulingGroup." + k, "not carried: kspatch pods join a group by the label " + kspatchLabel + " only"}})
			}
		}
		delete(p.obj["spec"].(map[string]interface{}), "schedulingGroup")
		r.changed = true
	}
	if m.coscheduling == "" {
		return nil
	}
	if p.path != "" && selectorUses(r.root, coschedulingLabel) {
		return fieldErr(coschedulingLabelField, "spec.selector selects on it, so it cannot be removed, and with it the pod would name two groups under kspatch")
	}
	if m.coscheduling == w.name {
		r.lose(p.path, []fieldNote{{coschedulingLabelField, fmt.Sprintf("removed: under kspatch a pod joins one group, and this one joins the kspatch PodGroup %s", w.name)}})
	}
	delete(m.labels, coschedulingLabel)
	r.changed = true
	return nil
}

// selectorUses reports whether obj's spec.selector (a LabelSelector, or
// a ReplicationController's map) selects on the label key.
func selectorUses(obj map[string]interface{}, key string) bool {
	v, _ := nested(obj, "spec", "selector")
	sel, _ := v.(map[string]interface{})
	if sel == nil {
		return false
	}
	if ml, ok := sel["matchLabels"].(map[string]interface{}); ok {
		if _, ok := ml[key]; ok {
			return true
		}
	}
	if exprs, ok := sel["matchExpressions"].([]interface{}); ok {
		for _, e := range exprs {
			if m, ok := e.(map[string]interface{}); ok && m["key"] == key {
				return true
			}
		}
	}
	_, ok := sel[key].(string)
	return ok
}

// prefixed puts a pod's path in front of the field of a fieldError.
func prefixed(path string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		return fieldErr(at(path, fe.field), fe.what)
	}
	return err
}
