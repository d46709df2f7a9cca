package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Label selectors of the input that use a group label. Removing the label
// from a pod (--remove-labels, or a coscheduling label under --to
// kspatch) changes what each of them selects: a workload's own selector
// (spec.selector beside spec.template; spec.jobTemplate.spec.selector in
// a CronJob) must keep matching its template, and a PodDisruptionBudget,
// a Service, a NetworkPolicy or a pod's affinity selects the gang's pods
// by it.

// groupLabels are the labels a pod names its group with, in any of the
// APIs convert knows.
var groupLabels = []string{kspatchLabel, coschedulingLabel, coschedulingOldLabel}

// selectorUse is one group label in one selector of the input.
type selectorUse struct {
	ref  objectRef // the object the selector is in
	path string    // where in it: spec.selector
	key  string
	// value is the value the selector requires; "" for an expression,
	// which depends on the label whatever its value.
	value string
}

// scanSelectors records the selectors of obj that use a group label.
func (c *conversion) scanSelectors(ref objectRef, obj map[string]interface{}) {
	c.selectors = findSelectors(ref, obj, "", c.selectors)
}

// findSelectors walks v (at path in the object ref names) as findPods
// does, for LabelSelectors (matchLabels, matchExpressions: spec.selector,
// a PodDisruptionBudget's, podSelector, labelSelector) and the plain maps
// of a Service's or a ReplicationController's spec.selector.
func findSelectors(ref objectRef, v interface{}, path string, out []selectorUse) []selectorUse {
	switch x := v.(type) {
	case map[string]interface{}:
		out = append(out, selectorLabels(ref, x, path)...)
		for _, k := range specKeys(x) {
			out = findSelectors(ref, x[k], at(path, k), out)
		}
	case []interface{}:
		for i, e := range x {
			out = findSelectors(ref, e, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
	return out
}

// selectorLabels returns the group labels the selector m (at path) uses,
// if it is one.
func selectorLabels(ref objectRef, m map[string]interface{}, path string) []selectorUse {
	var out []selectorUse
	add := func(key, value string) {
		for _, l := range groupLabels {
			if key == l {
				out = append(out, selectorUse{ref, path, key, value})
			}
		}
	}
	if ml, ok := m["matchLabels"].(map[string]interface{}); ok {
		for _, k := range sortedKeys(ml) {
			v, _ := ml[k].(string)
			add(k, v)
		}
	}
	if exprs, ok := m["matchExpressions"].([]interface{}); ok {
		for _, e := range exprs {
			if expr, ok := e.(map[string]interface{}); ok {
				k, _ := expr["key"].(string)
				add(k, "")
			}
		}
	}
	if path == "selector" || strings.HasSuffix(path, ".selector") {
		for _, k := range sortedKeys(m) {
			if v, ok := m[k].(string); ok {
				add(k, v)
			}
		}
	}
	return out
}

func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// selectorsOn returns the selectors of the input that select on the label
// key=value of a pod of the object ref names: its own, and those of
// objects of its namespace (an object without a namespace may be applied
// to any).
func (c *conversion) selectorsOn(ref objectRef, key, value string) []selectorUse {
	var out []selectorUse
	for _, s := range c.selectors {
		if s.key != key || (s.value != "" && s.value != value) {
			continue
		}
		if !s.ref.same(ref) && s.ref.namespace != "" && ref.namespace != "" && s.ref.namespace != ref.namespace {
			continue
		}
		if !slices.ContainsFunc(out, func(o selectorUse) bool { return o.ref.same(s.ref) && o.path == s.path }) {
			out = append(out, s)
		}
	}
	return out
}

// siblingSelector is the path of the selector a pod template at path must
// match: spec.selector for spec.template, spec.jobTemplate.spec.selector
// for spec.jobTemplate.spec.template; "" for a pod.
func siblingSelector(path string) string {
	if path == "template" {
		return "selector"
	}
	if parent, ok := strings.CutSuffix(path, ".template"); ok {
		return parent + ".selector"
	}
	return ""
}

// describeUses says which selectors use a label of a pod at path of the
// object ref names.
func describeUses(ref objectRef, path string, uses []selectorUse) string {
	parts := make([]string, len(uses))
	for i, u := range uses {
		switch {
		case !u.ref.same(ref):
			parts[i] = fmt.Sprintf("%s selects on it (%s)", u.ref, u.path)
		case u.path == siblingSelector(path):
			parts[i] = u.path + " selects on it, and a template must match its selector"
		default:
			parts[i] = u.path + " selects on it"
		}
	}
	return strings.Join(parts, "; ")
}
