package main

import (
	"fmt"
	"strconv"
	"strings"
)

// objectRef names an input object in convert's messages: its kind, API
// version, namespace and name, and where it is in the input (the file,
// when several are read; the Nth object of it, counted from 1; and its
// index in a List, one per level of nested Lists).
type objectRef struct {
	source                            string // "" for a single input
	doc                               int
	items                             []int // empty outside a List
	apiVersion, kind, namespace, name string
}

// describe names obj, found at doc (and items) of source.
func describe(source string, doc int, items []int, obj map[string]interface{}) objectRef {
	r := objectRef{source: source, doc: doc, items: items}
	r.apiVersion, _ = obj["apiVersion"].(string)
	r.kind, _ = obj["kind"].(string)
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		r.namespace, _ = meta["namespace"].(string)
		r.name, _ = meta["name"].(string)
	}
	return r
}

// item names the i-th item, obj, of the List r names.
func (r objectRef) item(i int, obj map[string]interface{}) objectRef {
	items := append(append([]int(nil), r.items...), i)
	return describe(r.source, r.doc, items, obj)
}

// same reports whether r and o name the same object of the input.
func (r objectRef) same(o objectRef) bool {
	return r.source == o.source && r.doc == o.doc && fmt.Sprint(r.items) == fmt.Sprint(o.items)
}

func (r objectRef) String() string {
	var b strings.Builder
	if r.kind == "" {
		b.WriteString("object")
	}
	b.WriteString(r.kind)
	if r.apiVersion != "" {
		b.WriteString(" " + r.apiVersion)
	}
	switch {
	case r.name == "":
		b.WriteString(" (no name)")
	case r.namespace != "":
		b.WriteString(" " + r.namespace + "/" + r.name)
	default:
		b.WriteString(" " + r.name)
	}
	b.WriteString(" (")
	if r.source != "" {
		b.WriteString(r.source + ", ")
	}
	fmt.Fprintf(&b, "document %d", r.doc)
	if len(r.items) > 0 {
		parts := make([]string, len(r.items))
		for i, n := range r.items {
			parts[i] = strconv.Itoa(n)
		}
		b.WriteString(", item " + strings.Join(parts, "."))
	}
	b.WriteString(")")
	return b.String()
}

// fieldNote is something said of one field of an object: what of it is
// not carried (a loss), or why the object cannot be converted (an error).
type fieldNote struct {
	field, what string
}

// note is a fieldNote of a given object, as convert prints it on stderr:
//
//	loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/train (document 1): spec.scheduleTimeoutSeconds: ...
type note struct {
	ref objectRef
	fieldNote
}

func (n note) line(prefix string) string {
	if n.field == "" {
		return fmt.Sprintf("%s: %s: %s", prefix, n.ref, n.what)
	}
	return fmt.Sprintf("%s: %s: %s: %s", prefix, n.ref, n.field, n.what)
}

// at joins the path of a pod inside an object (empty for a Pod) and a
// field of the pod.
func at(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// fieldError is an error about one field: why an object is refused.
type fieldError struct {
	fieldNote
}

func (e *fieldError) Error() string {
	return e.field + ": " + e.what
}

func fieldErr(field, what string) error {
	return &fieldError{fieldNote{field, what}}
}
