module kspatch.dev/scheduler

go 1.24.0

godebug default=go1.24

require (
	k8s.io/component-base v0.33.13
	k8s.io/kubernetes v1.33.13
)
