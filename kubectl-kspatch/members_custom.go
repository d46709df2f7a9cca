package main

// builtinGroups are the API groups of the built-in kinds that carry pods
// or pod templates (Pod, ReplicationController, PodTemplate; Deployment,
// StatefulSet, ReplicaSet, DaemonSet; Job, CronJob): their v1.37 schemas
// have spec.schedulingGroup. Any other kind is a custom resource.
var builtinGroups = map[string]bool{"": true, "apps": true, "batch": true}

// customTemplateLoss is what spec.schedulingGroup in a custom resource's
// pod template may not carry: the resource's schema and its operator are
// not Kubernetes', and know the field only if they were built for it.
var customTemplateLoss = fieldNote{"spec.schedulingGroup", "set, but in a custom resource's template: its pods get it only if the CRD's schema has the field here (else the API server prunes it, or refuses it under strict field validation) and the operator copies it into the pods it creates; otherwise they join no group upstream. Check that the operator's release supports it"}
