// Package e2e holds kspatch's end-to-end suite: a local control plane (etcd,
// kube-apiserver, kwok fake nodes and the patched scheduler, all on loopback)
// and the scenarios run against it by `make test` and `make run`.
package e2e
