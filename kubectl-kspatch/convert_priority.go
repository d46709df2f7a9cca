package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A gang's priority. Under kspatch it is its pods' (each pod's
// priorityClassName). Upstream's v1beta1 PodGroup has a priority of its
// own, spec.priorityClassName, which counts for every member (and is the
// global default class, or zero, when unset). So --to upstream writes the
// class the group's members in the input name, when they all name the
// same one, and says so when they disagree; --to kspatch loses a group's
// class unless its members in the input all carry it.

// member is a pod or pod template of the input that joins a group.
type member struct {
	ref   objectRef
	path  string
	class string // its spec.priorityClassName, "" for none
}

// addMember records the pod p of the object ref names as a member of the
// group name in ref's namespace.
func (c *conversion) addMember(ref objectRef, p podAt, name string) {
	class, _ := nested(p.obj, "spec", "priorityClassName")
	s, _ := class.(string)
	key := ref.namespace + "/" + name
	c.members[key] = append(c.members[key], member{ref, p.path, s})
}

// classes returns the classes the members of key name, each with the
// members that name it, by class.
func (c *conversion) classes(key string) map[string][]member {
	out := map[string][]member{}
	for _, m := range c.members[key] {
		out[m.class] = append(out[m.class], m)
	}
	return out
}

// carryPriorities writes, or reports, the priority of each converted
// group.
func (c *conversion) carryPriorities() {
	for _, g := range c.groups {
		switch {
		case c.toUpstream && g.from.Group != upstreamGroup:
			c.priorityToUpstream(g)
		case !c.toUpstream && g.from.Group == upstreamGroup:
			c.priorityToKspatch(g)
		}
	}
}

func (c *conversion) priorityToUpstream(g writtenGroup) {
	classes := c.classes(g.key())
	switch {
	case len(classes) == 0:
	case len(classes) == 1:
		for class := range classes {
			if class != "" {
				g.out["spec"].(map[string]interface{})["priorityClassName"] = class
			}
		}
	default:
		c.losses = append(c.losses, note{g.ref, fieldNote{"spec.priorityClassName", fmt.Sprintf("not set: the group's members name different priority classes (%s), and upstream gives every member the PodGroup's priority (the global default class, or zero, without one): set the class the gang should run at yourself",
			classList(classes))}})
	}
}

// priorityToKspatch drops the loss line of the v1beta1 group's
// priorityClassName when every member in the input names that class: the
// pods carry it under kspatch.
func (c *conversion) priorityToKspatch(g writtenGroup) {
	v, _ := nested(g.in, "spec", "priorityClassName")
	class, _ := v.(string)
	classes := c.classes(g.key())
	if _, all := classes[class]; class == "" || !all || len(classes) != 1 {
		return
	}
	c.losses = slices.DeleteFunc(c.losses, func(n note) bool {
		return n.ref.same(g.ref) && n.field == "spec.priorityClassName"
	})
}

// classList says which members name which class.
func classList(classes map[string][]member) string {
	names := make([]string, 0, len(classes))
	for class := range classes {
		names = append(names, class)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, class := range names {
		who := make([]string, len(classes[class]))
		for j, m := range classes[class] {
			who[j] = m.ref.String()
			if m.path != "" {
				who[j] += " " + m.path
			}
		}
		label := class
		if label == "" {
			label = "none"
		}
		parts[i] = label + ": " + strings.Join(who, ", ")
	}
	return strings.Join(parts, "; ")
}
