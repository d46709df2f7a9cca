package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// upstreamGroup is the API group of upstream's PodGroup and Workload.
const upstreamGroup = "scheduling.k8s.io"

// upstreamGroupKinds are the kinds of scheduling.k8s.io, in any of its
// versions, that describe pod groups.
var upstreamGroupKinds = []string{"PodGroup", "Workload", "CompositePodGroup"}

// conversion converts the objects of one input: each one in turn, into
// out, and what it says of them into losses and errs.
type conversion struct {
	toUpstream, removeLabels bool
	out                      []map[string]interface{}
	losses, errs             []note
	// groups maps each PodGroup of the output (namespace/name) to the
	// object it came from: two of them are an error.
	groups map[string]objectRef
}

func newConversion(toUpstream, removeLabels bool) *conversion {
	return &conversion{toUpstream: toUpstream, removeLabels: removeLabels, groups: map[string]objectRef{}}
}

// add converts the doc-th object of the input (counted from 1). A List
// (kind List, or any kind ending in List with items) is converted item by
// item into a v1 List.
func (c *conversion) add(doc int, obj map[string]interface{}) {
	ref := refOf(doc, -1, obj)
	items, isList, err := listItems(obj)
	if err != nil {
		c.errs = append(c.errs, note{ref, fieldNote{"items", err.Error()}})
		return
	}
	if !isList {
		if out := c.object(ref, obj); out != nil {
			c.out = append(c.out, out)
		}
		return
	}
	converted := []interface{}{}
	for i, it := range items {
		item, ok := it.(map[string]interface{})
		if !ok {
			c.errs = append(c.errs, note{ref, fieldNote{fmt.Sprintf("items[%d]", i), "not an object"}})
			continue
		}
		// A typed list (PodList, PodGroupList) may leave its items' kind
		// and apiVersion out.
		if kind, _ := obj["kind"].(string); kind != "List" {
			if _, ok := item["kind"]; !ok {
				item["kind"] = strings.TrimSuffix(kind, "List")
			}
			if _, ok := item["apiVersion"]; !ok {
				item["apiVersion"] = obj["apiVersion"]
			}
		}
		if out := c.object(refOf(doc, i, item), item); out != nil {
			converted = append(converted, out)
		}
	}
	c.out = append(c.out, map[string]interface{}{"apiVersion": "v1", "kind": "List", "items": converted})
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
	out, losses, err := c.convert(gv, ref.kind, obj)
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
		c.checkUnique(ref, out)
	}
	return out
}

// convert dispatches on the object's API: pod groups of the three APIs,
// and every other object as a possible carrier of member pods.
func (c *conversion) convert(gv schema.GroupVersion, kind string, obj map[string]interface{}) (map[string]interface{}, []fieldNote, error) {
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
	_, losses, err := rewriteMembers(obj, c.toUpstream, c.removeLabels)
	if err != nil {
		return nil, losses, err
	}
	return obj, losses, nil
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

// checkUnique records a PodGroup of the output, and reports a second one
// of the same namespace and name: both would be the same object (or, for
// kspatch and coscheduling groups, a name the kspatch scheduler refuses).
func (c *conversion) checkUnique(ref objectRef, out map[string]interface{}) {
	if out["kind"] != "PodGroup" {
		return
	}
	apiVersion, _ := out["apiVersion"].(string)
	gv, _ := schema.ParseGroupVersion(apiVersion)
	if gv.Group != upstreamGroup && gv.Group != kspatchGroup && gv.Group != coschedulingGroup {
		return
	}
	key := ref.namespace + "/" + ref.name
	if first, ok := c.groups[key]; ok {
		c.errs = append(c.errs, note{ref, fieldNote{"", fmt.Sprintf("converts to a PodGroup %s that %s converts to as well: one namespace cannot hold both; rename or drop one", key, first)}})
		return
	}
	c.groups[key] = ref
}

// refOf names the object for messages.
func refOf(doc, item int, obj map[string]interface{}) objectRef {
	r := objectRef{doc: doc, item: item}
	r.apiVersion, _ = obj["apiVersion"].(string)
	r.kind, _ = obj["kind"].(string)
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		r.namespace, _ = meta["namespace"].(string)
		r.name, _ = meta["name"].(string)
	}
	return r
}

// listItems returns the items of a List (kind List, or a typed list such
// as PodList), and whether obj is one.
func listItems(obj map[string]interface{}) ([]interface{}, bool, error) {
	kind, _ := obj["kind"].(string)
	v, hasItems := obj["items"]
	if !strings.HasSuffix(kind, "List") || !hasItems {
		return nil, false, nil
	}
	if v == nil {
		return nil, true, nil
	}
	items, ok := v.([]interface{})
	if !ok {
		return nil, true, errors.New("not a list")
	}
	return items, true, nil
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
