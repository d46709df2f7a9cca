package main

import (
	"fmt"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// readUpstreamGroup reads a scheduling.k8s.io/v1beta1 PodGroup for
// conversion to kspatch's PodGroup: the one topology entry becomes the
// Required level; what kspatch's PodGroup has no field for (priority,
// preemption policy, shared ResourceClaims, the Workload and parent group
// it belongs to, topology entries beyond the first) is a loss. A spec
// v1beta1 refuses is an error.
func readUpstreamGroup(obj map[string]interface{}) (*group, []fieldNote, error) {
	var pg schedulingv1beta1.PodGroup
	losses, err := decodeGroup(obj, &pg)
	if err != nil {
		return nil, nil, err
	}
	if err := validateGroupName(pg.Name); err != nil {
		return nil, nil, err
	}
	s := pg.Spec
	p := s.SchedulingPolicy
	if (p.Gang == nil) == (p.Basic == nil) {
		return nil, nil, fieldErr("spec.schedulingPolicy", "exactly one of gang and basic must be set")
	}
	meta, metaLosses := carryMeta(pg.ObjectMeta)
	losses = append(losses, metaLosses...)
	g := &group{meta: meta}
	if p.Gang != nil {
		if p.Gang.MinCount < 1 {
			return nil, nil, fieldErr("spec.schedulingPolicy.gang.minCount", fmt.Sprintf("%d; it must be at least 1", p.Gang.MinCount))
		}
		g.minCount = p.Gang.MinCount
	}
	if c := s.SchedulingConstraints; c != nil {
		for i, t := range c.Topology {
			field := fmt.Sprintf("spec.schedulingConstraints.topology[%d]", i)
			if err := validateLabelKey(field, t.Key); err != nil {
				return nil, nil, err
			}
			if i == 0 {
				g.required = t.Key
				continue
			}
			losses = append(losses, fieldNote{field, fmt.Sprintf("%s is not carried: kspatch's PodGroup takes one Required level, and every upstream entry is required (v1beta1 allows one)", t.Key)})
		}
	}
	if d := s.DisruptionMode; d != nil {
		switch {
		case d.Single != nil && d.All == nil:
			g.disruption = disruptionPod
		case d.All != nil && d.Single == nil:
			g.disruption = disruptionWholeGroup
		default:
			return nil, nil, fieldErr("spec.disruptionMode", "exactly one of single and all must be set")
		}
	}
	return g, append(losses, upstreamOnly(&s)...), nil
}

// upstreamOnly lists the v1beta1 PodGroup's fields kspatch's PodGroup has
// no counterpart for.
func upstreamOnly(s *schedulingv1beta1.PodGroupSpec) []fieldNote {
	var losses []fieldNote
	if s.PriorityClassName != "" {
		losses = append(losses, fieldNote{"spec.priorityClassName", s.PriorityClassName + " is not carried: kspatch's PodGroup has no priority; its pods' own priorityClassName counts"})
	}
	if s.Priority != nil {
		losses = append(losses, fieldNote{"spec.priority", fmt.Sprintf("%d is not carried: kspatch's PodGroup has no priority; its pods' own priority counts", *s.Priority)})
	}
	if s.PreemptionPolicy != nil {
		losses = append(losses, fieldNote{"spec.preemptionPolicy", string(*s.PreemptionPolicy) + " is not carried: kspatch's PodGroup has no preemption policy; its pods' own counts"})
	}
	for i, c := range s.ResourceClaims {
		losses = append(losses, fieldNote{fmt.Sprintf("spec.resourceClaims[%d]", i), c.Name + " is not carried: kspatch's PodGroup shares no ResourceClaims; each pod's own claims count"})
	}
	if r := s.WorkloadRef; r != nil {
		losses = append(losses, fieldNote{"spec.workloadRef", fmt.Sprintf("%s/%s is not carried: kspatch has no Workload API", r.WorkloadName, r.TemplateName)})
	}
	if p := s.ParentCompositePodGroupName; p != nil {
		losses = append(losses, fieldNote{"spec.parentCompositePodGroupName", *p + " is not carried: kspatch's PodGroup has no parent group"})
	}
	return losses
}
