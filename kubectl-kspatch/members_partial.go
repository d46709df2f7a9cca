package main

import (
	"fmt"
	"strings"
)

// Pod templates without containers: a partial object, such as a kustomize
// strategic-merge patch or an overlay that sets a template's group label
// and leaves the containers to the base. findPods cannot tell one by its
// containers; convert reports each that names a group, since the complete
// object it makes on apply is not converted.

// partialPod reports whether m, at path in its object, is a pod template
// without containers: under a template key (template, workerTemplate, not
// a CronJob's jobTemplate), with at most metadata and a spec that holds
// no further template, or a Pod without containers (path ""); and naming
// a group.
func partialPod(m map[string]interface{}, path string) bool {
	key := path[strings.LastIndex(path, ".")+1:]
	isTemplate := key == "template" || (strings.HasSuffix(key, "Template") && key != "jobTemplate")
	if path == "" {
		isTemplate = m["kind"] == "Pod" && m["apiVersion"] == "v1"
	} else {
		for k := range m {
			if k != "metadata" && k != "spec" {
				return false
			}
		}
	}
	if !isTemplate {
		return false
	}
	spec, hasSpec := m["spec"]
	specMap, isMap := spec.(map[string]interface{})
	if hasSpec && !isMap {
		return false
	}
	if _, ok := specMap["template"]; ok {
		return false
	}
	if _, ok := specMap["jobTemplate"]; ok {
		return false
	}
	if _, ok := specMap["schedulingGroup"]; ok {
		return true
	}
	labels, _ := nested(m, "metadata", "labels")
	labelMap, _ := labels.(map[string]interface{})
	for _, l := range groupLabels {
		if _, ok := labelMap[l]; ok {
			return true
		}
	}
	return false
}

// partial reports a pod template without containers that the target API
// would have its pods join a group otherwise: it is not converted.
func (r *memberRewrite) partial(p podAt, m membership) error {
	var w *claim
	var todo string
	if r.c.toUpstream {
		w, _ = winner(m.upstreamClaims())
		if err := checkOldLabel(m, w); err != nil || w == nil || w.name == m.field {
			return err
		}
		todo = fmt.Sprintf("set spec.schedulingGroup.podGroupName: %s in it yourself", w.name)
	} else {
		w, _ = winner(m.kspatchClaims())
		if err := checkOldLabel(m, w); err != nil || w == nil || !m.hasField && !m.nullField {
			return err
		}
		todo = fmt.Sprintf("set the label %s: %s and remove spec.schedulingGroup in it yourself", kspatchLabel, w.name)
	}
	what := "a pod template"
	if p.path == "" {
		what = "a Pod"
	}
	r.lose(p.path, fieldNote{w.field, fmt.Sprintf("not converted: %s without containers (a partial object, such as a kustomize patch?) that names the group %s; convert the complete object it makes, or %s", what, w.name, todo)})
	return nil
}
