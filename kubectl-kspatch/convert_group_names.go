package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// writtenGroup is a PodGroup of the output, of any of the three APIs.
type writtenGroup struct {
	ref objectRef
	// from is the API of the input object it was written from.
	from schema.GroupVersion
	// in is the input object, out the group written.
	in, out map[string]interface{}
}

// key is the group's namespace/name, the key its members name it by.
func (g writtenGroup) key() string {
	return g.ref.namespace + "/" + g.ref.name
}

// recordGroup records out if it is a PodGroup of one of the three APIs;
// ref names the input object in it comes from, whose API is from.
func (c *conversion) recordGroup(ref objectRef, from schema.GroupVersion, in, out map[string]interface{}) {
	if out["kind"] != "PodGroup" {
		return
	}
	apiVersion, _ := out["apiVersion"].(string)
	gv, _ := schema.ParseGroupVersion(apiVersion)
	if gv.Group != upstreamGroup && gv.Group != kspatchGroup && gv.Group != coschedulingGroup {
		return
	}
	c.groups = append(c.groups, writtenGroup{ref: ref, from: from, in: in, out: out})
}

// checkGroupNames reports two PodGroups of the output that would be one
// object (or, for kspatch and coscheduling groups, a name the kspatch
// scheduler refuses): the same namespace and name, or the same name where
// one of them has no namespace. kubectl applies an object without a
// namespace to its -n or its context's namespace, usually default: one
// with a namespace fixes where both go.
func (c *conversion) checkGroupNames() {
	byKey := map[string]objectRef{}
	byName := map[string][]objectRef{}
	for _, g := range c.groups {
		key := g.key()
		if first, ok := byKey[key]; ok {
			c.errs = append(c.errs, note{g.ref, fieldNote{"", fmt.Sprintf("converts to a PodGroup %s that %s converts to as well: one namespace cannot hold both; rename or drop one", key, first)}})
			continue
		}
		if other, ok := unnamespacedTwin(g.ref, byName[g.ref.name]); ok {
			c.errs = append(c.errs, note{g.ref, fieldNote{"", twinMessage(g.ref, other)}})
			continue
		}
		byKey[key] = g.ref
		byName[g.ref.name] = append(byName[g.ref.name], g.ref)
	}
}

// unnamespacedTwin returns a group of refs (of ref's name) that would be
// ref's group once applied: one of the two has no namespace.
func unnamespacedTwin(ref objectRef, refs []objectRef) (objectRef, bool) {
	for _, o := range refs {
		if (ref.namespace == "") != (o.namespace == "") {
			return o, true
		}
	}
	return objectRef{}, false
}

func twinMessage(ref, other objectRef) string {
	const applied = "applied to %s (kubectl's -n, or its context's namespace), both are the PodGroup %s/%s: give %s its namespace, or rename one"
	if ref.namespace == "" {
		return fmt.Sprintf("has no namespace, and %s converts to a PodGroup of the same name: "+applied,
			other, other.namespace, other.namespace, ref.name, "this one")
	}
	return fmt.Sprintf("converts to a PodGroup of the same name as %s, which has no namespace: "+applied,
		other, ref.namespace, ref.namespace, ref.name, "that one")
}
