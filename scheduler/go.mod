module kspatch.dev/scheduler

go 1.24.0

godebug default=go1.24

require (
	github.com/go-logr/logr v1.4.3
	github.com/google/go-cmp v0.7.0
	github.com/prometheus/client_golang v1.22.0
	github.com/spf13/cobra v1.8.1
	github.com/spf13/pflag v1.0.5
	k8s.io/api v0.33.13
	k8s.io/apiextensions-apiserver v0.33.13
	k8s.io/apiserver v0.33.13
	k8s.io/component-base v0.33.13
	k8s.io/klog/v2 v2.130.1
	k8s.io/kubernetes v1.33.13
	sigs.k8s.io/yaml v1.4.0
)
