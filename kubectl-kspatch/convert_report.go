package main

import (
	"fmt"
	"strings"
)

// objectRef names an input object in convert's messages: its kind, API
// version, namespace and name, and where it is in the input (the Nth
// object, counted from 1, and its index in a List).
type objectRef struct {
	doc, item                         int // item is -1 outside a List
	apiVersion, kind, namespace, name string
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
	fmt.Fprintf(&b, " (document %d", r.doc)
	if r.item >= 0 {
		fmt.Fprintf(&b, ", item %d", r.item)
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
