package main

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// readCoschedulingGroup reads a scheduling.x-k8s.io/v1alpha1 PodGroup for
// conversion to upstream's v1beta1. minMember is the gang's minCount, and
// kspatch's annotations give its Required level and disruption mode, as
// the kspatch scheduler reads them. minResources, the schedule timeout and
// the Preferred levels are losses. A group the kspatch scheduler would
// call malformed is an error.
func readCoschedulingGroup(obj map[string]interface{}) (*group, []fieldNote, error) {
	if err := checkQuantities(obj); err != nil {
		return nil, nil, err
	}
	var pg coschedulingPodGroup
	losses, err := decodeGroup(obj, &pg)
	if err != nil {
		return nil, nil, err
	}
	if err := validateGroupName(pg.Name); err != nil {
		return nil, nil, err
	}
	if pg.Spec.MinMember < 1 {
		return nil, nil, fieldErr("spec.minMember", fmt.Sprintf("%d; it must be at least 1", pg.Spec.MinMember))
	}
	if t := pg.Spec.ScheduleTimeoutSeconds; t != nil && *t < 1 {
		return nil, nil, fieldErr("spec.scheduleTimeoutSeconds", fmt.Sprintf("%d; it must be at least 1", *t))
	}
	if t := pg.Spec.ScheduleTimeoutSeconds; t != nil && *t > kspatchMaxTimeout {
		return nil, nil, fieldErr("spec.scheduleTimeoutSeconds", fmt.Sprintf("%d; it must be at most %d (the kspatch scheduler, like the CRD, refuses a longer one)", *t, kspatchMaxTimeout))
	}
	extras, err := readExtras(pg.Annotations)
	if err != nil {
		return nil, nil, err
	}
	meta, metaLosses := carryMeta(pg.ObjectMeta, annotationTopologyRequired, annotationTopologyPreferred, annotationDisruptionMode)
	losses = append(losses, metaLosses...)
	g := &group{meta: meta, minCount: pg.Spec.MinMember, required: extras.required, disruption: extras.disruption}
	for _, key := range extras.preferred {
		losses = append(losses, fieldNote{"metadata.annotations[" + annotationTopologyPreferred + "]",
			fmt.Sprintf("the Preferred level %s is not carried: upstream's PodGroup has no preferred levels", key)})
	}
	if len(pg.Spec.MinResources) > 0 {
		if err := validateMinResources(pg.Spec.MinResources); err != nil {
			return nil, nil, err
		}
		losses = append(losses, fieldNote{"spec.minResources",
			resourceString(pg.Spec.MinResources) + " is not carried: upstream's PodGroup has no minimum resources"})
	}
	if t := pg.Spec.ScheduleTimeoutSeconds; t != nil {
		losses = append(losses, fieldNote{"spec.scheduleTimeoutSeconds",
			fmt.Sprintf("%d is not carried: upstream's PodGroup has no timeout (upstream's scheduler applies its own)", *t)})
	}
	return g, losses, nil
}

// extras are kspatch's extras on a coscheduling PodGroup, from its
// annotations.
type extras struct {
	required   string
	preferred  []string
	disruption string
}

// readExtras reads the annotations as the kspatch scheduler does: the
// Required key and the comma-separated Preferred keys trimmed of spaces,
// and the disruption mode Pod or PodGroup; together they must make valid
// kspatch topology levels.
func readExtras(annotations map[string]string) (extras, error) {
	var e extras
	var levels []kspatchLevel
	if v, ok := annotations[annotationTopologyRequired]; ok {
		e.required = strings.TrimSpace(v)
		if e.required == "" || strings.Contains(e.required, ",") {
			return e, fieldErr("metadata.annotations["+annotationTopologyRequired+"]", fmt.Sprintf("%q; it must name one node label key", v))
		}
		levels = append(levels, kspatchLevel{Key: e.required, Mode: modeRequired})
	}
	if v, ok := annotations[annotationTopologyPreferred]; ok {
		for _, key := range strings.Split(v, ",") {
			key = strings.TrimSpace(key)
			if key == "" {
				return e, fieldErr("metadata.annotations["+annotationTopologyPreferred+"]", fmt.Sprintf("%q; it must list node label keys, comma-separated, without empty entries", v))
			}
			e.preferred = append(e.preferred, key)
			levels = append(levels, kspatchLevel{Key: key, Mode: modePreferred})
		}
	}
	hasRequired := e.required != ""
	if err := validateKspatchLevels(levels, func(i int) string {
		if i == 0 && hasRequired {
			return "metadata.annotations[" + annotationTopologyRequired + "]"
		}
		return "metadata.annotations[" + annotationTopologyPreferred + "]"
	}); err != nil {
		return e, err
	}
	if v, ok := annotations[annotationDisruptionMode]; ok {
		if v != disruptionPod && v != disruptionWholeGroup {
			return e, fieldErr("metadata.annotations["+annotationDisruptionMode+"]", fmt.Sprintf("%q; it must be %s or %s", v, disruptionPod, disruptionWholeGroup))
		}
		e.disruption = v
	}
	return e, nil
}

// checkQuantities checks spec.minResources' quantities before decoding,
// so that an error names the resource.
func checkQuantities(obj map[string]interface{}) error {
	v, _ := nested(obj, "spec", "minResources")
	list, _ := v.(map[string]interface{})
	for name, q := range list {
		s, ok := q.(string)
		if !ok {
			continue // a number is a quantity; other types fail decoding
		}
		if _, err := resource.ParseQuantity(s); err != nil {
			return fieldErr("spec.minResources."+name, fmt.Sprintf("%q is not a quantity: %v", s, err))
		}
	}
	return nil
}

func validateMinResources(list corev1.ResourceList) error {
	for name, q := range list {
		if q.Sign() < 0 {
			return fieldErr("spec.minResources."+string(name), fmt.Sprintf("%s; a quantity must not be negative", q.String()))
		}
	}
	return nil
}

// resourceString lists resources as name=quantity, by name.
func resourceString(list corev1.ResourceList) string {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		q := list[corev1.ResourceName(name)]
		parts[i] = name + "=" + q.String()
	}
	return strings.Join(parts, ", ")
}
