package main

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// readKspatchGroup reads a scheduling.kspatch.io/v1alpha1 PodGroup for
// conversion to upstream's v1beta1: its Preferred topology levels and its
// schedule timeout are losses. A spec the CRD would refuse is an error.
func readKspatchGroup(obj map[string]interface{}) (*group, []fieldNote, error) {
	var pg kspatchPodGroup
	losses, err := decodeGroup(obj, &pg)
	if err != nil {
		return nil, nil, err
	}
	if err := validateKspatch(&pg); err != nil {
		return nil, nil, err
	}
	meta, metaLosses := carryMeta(pg.ObjectMeta)
	g := &group{meta: meta, disruption: pg.Spec.DisruptionMode}
	losses = append(losses, metaLosses...)
	if gang := pg.Spec.SchedulingPolicy.Gang; gang != nil {
		g.minCount = gang.MinCount
	}
	if c := pg.Spec.SchedulingConstraints; c != nil {
		for i, l := range c.Topology {
			if l.Mode == modePreferred {
				losses = append(losses, fieldNote{fmt.Sprintf("spec.schedulingConstraints.topology[%d]", i),
					fmt.Sprintf("the Preferred level %s is not carried: upstream's PodGroup has no preferred levels", l.Key)})
				continue
			}
			g.required = l.Key
		}
	}
	if t := pg.Spec.ScheduleTimeoutSeconds; t != nil {
		losses = append(losses, fieldNote{"spec.scheduleTimeoutSeconds",
			fmt.Sprintf("%d is not carried: upstream's PodGroup has no timeout (upstream's scheduler applies its own)", *t)})
	}
	return g, losses, nil
}

// validateKspatch checks what the CRD's schema checks, as far as convert
// relies on it: one policy, a minCount of at least 1, the topology levels'
// keys, modes and order, the timeout's range, the disruption mode, and a
// name short enough for the label its pods join it with.
func validateKspatch(pg *kspatchPodGroup) error {
	if err := validateGroupName(pg.Name); err != nil {
		return err
	}
	p := pg.Spec.SchedulingPolicy
	if (p.Gang == nil) == (p.Basic == nil) {
		return fieldErr("spec.schedulingPolicy", "exactly one of gang and basic must be set")
	}
	if p.Gang != nil && p.Gang.MinCount < 1 {
		return fieldErr("spec.schedulingPolicy.gang.minCount", fmt.Sprintf("%d; it must be at least 1", p.Gang.MinCount))
	}
	if c := pg.Spec.SchedulingConstraints; c != nil {
		if err := validateKspatchLevels(c.Topology, topologyField); err != nil {
			return err
		}
	}
	if t := pg.Spec.ScheduleTimeoutSeconds; t != nil && (*t < 1 || *t > kspatchMaxTimeout) {
		return fieldErr("spec.scheduleTimeoutSeconds", fmt.Sprintf("%d; it must be between 1 and %d", *t, kspatchMaxTimeout))
	}
	switch pg.Spec.DisruptionMode {
	case "", disruptionPod, disruptionWholeGroup:
	default:
		return fieldErr("spec.disruptionMode", fmt.Sprintf("%q; it must be %s or %s", pg.Spec.DisruptionMode, disruptionPod, disruptionWholeGroup))
	}
	return nil
}

// topologyField names the i-th topology level of a kspatch PodGroup.
func topologyField(i int) string {
	return fmt.Sprintf("spec.schedulingConstraints.topology[%d]", i)
}

// validateKspatchLevels checks topology levels as the CRD and the kspatch
// scheduler do: at most kspatchMaxLevels, node label keys, each key once,
// the well-known keys widest first, and at most one Required level, the
// first. field names the i-th level in messages.
func validateKspatchLevels(levels []kspatchLevel, field func(i int) string) error {
	if len(levels) > kspatchMaxLevels {
		return fieldErr(field(kspatchMaxLevels), fmt.Sprintf("%d topology levels; at most %d", len(levels), kspatchMaxLevels))
	}
	seen := map[string]bool{}
	for i, l := range levels {
		if err := validateLabelKey(field(i), l.Key); err != nil {
			return err
		}
		if seen[l.Key] {
			return fieldErr(field(i), fmt.Sprintf("the key %s is listed more than once; each level needs a key of its own", l.Key))
		}
		seen[l.Key] = true
		if err := checkWidths(levels[:i], l.Key, field(i)); err != nil {
			return err
		}
		switch l.Mode {
		case "", modeRequired:
			if i > 0 {
				return fieldErr(field(i), "only the first level may be Required (a level without a mode is Required)")
			}
		case modePreferred:
		default:
			return fieldErr(field(i), fmt.Sprintf("mode %q; it must be %s or %s", l.Mode, modeRequired, modePreferred))
		}
	}
	return nil
}

// validateGroupName checks a kspatch PodGroup's name: set, and a label
// value (pods join the group with a label), which also makes it a valid
// name for upstream's PodGroup.
func validateGroupName(name string) error {
	if name == "" {
		return fieldErr("metadata.name", "required: pods join a group by its name")
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fieldErr("metadata.name", strings.Join(errs, "; "))
	}
	if len(name) > validation.LabelValueMaxLength {
		return fieldErr("metadata.name", fmt.Sprintf("%d characters; a kspatch PodGroup's name is at most %d, the longest label value", len(name), validation.LabelValueMaxLength))
	}
	return nil
}

// validateLabelKey checks a topology level's key: a node label key.
func validateLabelKey(field, key string) error {
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return fieldErr(field, fmt.Sprintf("key %q is not a node label key: %s", key, strings.Join(errs, "; ")))
	}
	return nil
}

// wellKnownWidth ranks the well-known topology label keys from widest to
// narrowest, as the kspatch scheduler does: levels naming two of them
// must list them in this order. Other keys have no known width.
var wellKnownWidth = map[string]int{
	"topology.kubernetes.io/region": 0,
	"topology.kubernetes.io/zone":   1,
	"kubernetes.io/hostname":        2,
}

// checkWidths refuses key (at field) if it is a well-known key wider than
// one of the levels above it.
func checkWidths(above []kspatchLevel, key, field string) error {
	w, ok := wellKnownWidth[key]
	if !ok {
		return nil
	}
	for _, l := range above {
		if lw, ok := wellKnownWidth[l.Key]; ok && w < lw {
			return fieldErr(field, fmt.Sprintf("the key %s is wider than %s above it; list the levels from widest to narrowest (topology.kubernetes.io/region, topology.kubernetes.io/zone, kubernetes.io/hostname)", key, l.Key))
		}
	}
	return nil
}
