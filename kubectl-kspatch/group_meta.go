package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// lastApplied is kubectl apply's annotation: it describes the object it
// sits on, not the converted one.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// decodeGroup decodes a pod group object (its status left out: convert
// never carries a status) strictly into one of the API types: each field
// the type does not know is a loss. A value of the wrong type is an error.
func decodeGroup(obj map[string]interface{}, into interface{}) ([]fieldNote, error) {
	spec := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		if k != "status" {
			spec[k] = v
		}
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	strict, err := kjson.UnmarshalStrict(data, into, kjson.DisallowUnknownFields)
	if err != nil {
		return nil, typeError(data, into, err)
	}
	var losses []fieldNote
	for _, e := range strict {
		field := e.Error()
		if fe, ok := e.(kjson.FieldError); ok {
			field = fe.FieldPath()
		}
		losses = append(losses, fieldNote{field, "unknown field: not carried (the object's API has no such field)"})
	}
	return losses, nil
}

// typeError names the field of a value of the wrong type, which the
// strict decoder's error does not: encoding/json's does.
func typeError(data []byte, into interface{}, err error) error {
	fresh := reflect.New(reflect.TypeOf(into).Elem()).Interface()
	var te *json.UnmarshalTypeError
	if errors.As(json.Unmarshal(data, fresh), &te) && te.Field != "" {
		return fieldErr(te.Field, fmt.Sprintf("got %s, want %s", te.Value, te.Type))
	}
	return err
}

// carryMeta returns the metadata a converted group keeps: name,
// generateName, namespace, labels, annotations (less kubectl's
// last-applied one and those named in consumed, which the conversion has
// read) and owner references. What the API server sets (uid,
// resourceVersion, generation, timestamps, managedFields) is left out, as
// for a new object; finalizers are left out too, since the controller that
// would remove them knows only the old object: a loss.
func carryMeta(m metav1.ObjectMeta, consumed ...string) (metav1.ObjectMeta, []fieldNote) {
	out := metav1.ObjectMeta{
		Name:            m.Name,
		GenerateName:    m.GenerateName,
		Namespace:       m.Namespace,
		Labels:          m.Labels,
		OwnerReferences: m.OwnerReferences,
	}
	for k, v := range m.Annotations {
		if k == lastApplied || slices.Contains(consumed, k) {
			continue
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[k] = v
	}
	var losses []fieldNote
	if len(m.Finalizers) > 0 {
		losses = append(losses, fieldNote{"metadata.finalizers", fmt.Sprintf("%s not carried: the controller that removes them watches the old object", strings.Join(m.Finalizers, ", "))})
	}
	return out, losses
}
