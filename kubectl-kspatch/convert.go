package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// upstreamGroup is the API group of upstream's PodGroup and Workload.
const upstreamGroup = "scheduling.k8s.io"

// upstreamGroupKinds are the kinds of scheduling.k8s.io, in any of its
// versions, that describe pod groups.
var upstreamGroupKinds = []string{"PodGroup", "Workload", "CompositePodGroup"}

// input is one object of the input: the doc-th (counted from 1) of
// source ("" when there is one input).
type input struct {
	source string
	doc    int
	obj    map[string]interface{}
}

// conversion converts the objects of one input, into out, and what it
// says of them into losses and errs. What one object's conversion needs
// of the others (the selectors that use the group labels, the members'
// priorities, the names of the groups) it reads in a pass of its own.
type conversion struct {
	toUpstream, removeLabels bool
	out                      []map[string]interface{}
	losses, errs             []note
	// selectors are the input's label selectors that use a group label.
	selectors []selectorUse
	// groups are the PodGroups of the output, in the order written.
	groups []writtenGroup
	// members are the pods and templates that join a group, by the
	// group's namespace/name.
	members map[string][]member
}

func newConversion(toUpstream, removeLabels bool) *conversion {
	return &conversion{toUpstream: toUpstream, removeLabels: removeLabels, members: map[string][]member{}}
}

// run converts the inputs, in order.
func (c *conversion) run(inputs []input) {
	for _, in := range inputs {
		eachObject(describe(in.source, in.doc, nil, in.obj), in.obj, c.scanSelectors)
	}
	for _, in := range inputs {
		if out := c.node(describe(in.source, in.doc, nil, in.obj), in.obj); out != nil {
			c.out = append(c.out, out)
		}
	}
	c.checkGroupNames()
	c.carryPriorities()
}

// object converts one object; nil leaves it out of the output.
func (c *conversion) object(ref objectRef, obj map[string]interface{}) map[string]interface{} {
	if ref.apiVersion == "" || ref.kind == "" {
		c.errs = append(c.errs, note{ref, fieldNote{"", "not a Kubernetes object: apiVersion and kind are required"}})
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.apiVersion)
	if err != nil {
		c.errs = append(c.errs, note{ref, fieldNote{"apiVersion", err.Error()}})
		return nil
	}
	out, losses, err := c.convert(ref, gv, obj)
	for _, l := range losses {
		c.losses = append(c.losses, note{ref, l})
	}
	if err != nil {
		n := note{ref, fieldNote{"", err.Error()}}
		var fe *fieldError
		if errors.As(err, &fe) {
			n.fieldNote = fe.fieldNote
		}
		c.errs = append(c.errs, n)
		return nil
	}
	if out != nil {
		c.recordGroup(ref, gv, obj, out)
	}
	return out
}

// convert dispatches on the object's API: pod groups of the three APIs,
// and every other object as a possible carrier of member pods.
func (c *conversion) convert(ref objectRef, gv schema.GroupVersion, obj map[string]interface{}) (map[string]interface{}, []fieldNote, error) {
	kind := ref.kind
	switch {
	case (gv.Group == kspatchGroup || gv.Group == coschedulingGroup) && kind == "PodGroup":
		if gv.Version != "v1alpha1" {
			return nil, nil, fmt.Errorf("%s: convert reads %s/v1alpha1 PodGroups only", gv, gv.Group)
		}
		if !c.toUpstream {
			// Already kspatch's, or a coscheduling group, which kspatch
			// schedules as it is.
			return obj, nil, nil
		}
		read := readKspatchGroup
		if gv.Group == coschedulingGroup {
			read = readCoschedulingGroup
		}
		return fromGroup(obj, read, true)
	case gv.Group == coschedulingOldGroup && kind == "PodGroup":
		return nil, nil, fmt.Errorf("%s is the API group of older scheduler-plugins releases: convert reads %s (move to it first)", gv.Group, coschedulingAPIVersion)
	case gv.Group == upstreamGroup && slices.Contains(upstreamGroupKinds, kind):
		if c.toUpstream {
			return obj, nil, nil
		}
		if kind != "PodGroup" || gv.Version != "v1beta1" {
			return nil, []fieldNote{{"", fmt.Sprintf("left out of the output: kspatch has no counterpart of %s %s (convert reads %s/v1beta1 PodGroups)", gv, kind, upstreamGroup)}}, nil
		}
		return fromGroup(obj, readUpstreamGroup, false)
	}
	r := &memberRewrite{c: c, ref: ref, root: obj, custom: !builtinGroups[gv.Group]}
	if err := r.run(); err != nil {
		return nil, r.losses, err
	}
	return obj, r.losses, nil
}

// fromGroup reads a pod group with read and writes it in the target API.
func fromGroup(obj map[string]interface{}, read func(map[string]interface{}) (*group, []fieldNote, error), toUpstream bool) (map[string]interface{}, []fieldNote, error) {
	g, losses, err := read(obj)
	if err != nil {
		return nil, losses, err
	}
	var typed interface{} = g.kspatch()
	if toUpstream {
		typed = g.upstream()
	}
	out, err := toMap(typed)
	if err != nil {
		return nil, losses, err
	}
	delete(out, "status") // v1beta1's empty status: the scheduler writes it
	return out, losses, nil
}

// toMap turns a typed object into the map convert writes.
func toMap(v interface{}) (map[string]interface{}, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]interface{}
	return out, kjson.UnmarshalCaseSensitivePreserveInts(data, &out)
}
