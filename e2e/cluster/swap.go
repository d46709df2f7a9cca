package cluster

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SwapScheduler replaces the one scheduler (Schedulers[0]) by another binary
// the way a kubelet replaces a static pod whose image changed: the running
// process gets SIGTERM and is waited for, then binary starts with the same
// manifest flags. vanilla says binary is upstream's kube-scheduler: it gets
// no --admin-* flags and its readiness is read on the secure port; a patched
// binary gets an admin API on a free port (Admin and Schedulers[0].Admin).
// It returns how the old process ended, once the new one answers /healthz
// (it may still wait for the lease). Only with one scheduler, whose manifest
// flags do not depend on the binary (the drop-in manifest changes nothing
// but the image).
func (c *Cluster) SwapScheduler(ctx context.Context, binary string, vanilla bool) (Exit, error) {
	if len(c.Schedulers) != 1 {
		return Exit{}, fmt.Errorf("SwapScheduler runs with one scheduler, not %d", len(c.Schedulers))
	}
	r := &c.Schedulers[0]
	c.mu.Lock()
	args := slices.Clone(c.args[r.Component])
	c.mu.Unlock()
	if len(args) == 0 {
		return Exit{}, fmt.Errorf("%s was never started", r.Component)
	}
	exit, err := c.Signal(r.Component, syscall.SIGTERM)
	if err != nil {
		return exit, err
	}
	// A fresh admin port: the one chosen at Start may have been taken
	// while a vanilla scheduler, which does not listen on it, ran.
	port, err := freePort()
	if err != nil {
		return exit, err
	}
	flags := swapFlags(args[1:], strconv.Itoa(port), vanilla)
	if err := c.startBinary(r.Component, binary, flags...); err != nil {
		return exit, err
	}
	health := r.Secure + "/healthz"
	if vanilla {
		r.Admin, c.Admin = "", ""
	} else {
		r.Admin = "http://127.0.0.1:" + strconv.Itoa(port)
		c.Admin = r.Admin
		health = r.Admin + "/healthz"
	}
	return exit, c.waitHTTP(ctx, r.Component, health, 60*time.Second)
}

// swapFlags is args without the --admin-* flags, plus the admin API's for a
// patched binary.
func swapFlags(args []string, adminPort string, vanilla bool) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--admin-") {
			out = append(out, a)
		}
	}
	if vanilla {
		return out
	}
	// Before --feature-gates and the extra flags, where Start puts them.
	i := slices.IndexFunc(out, func(a string) bool { return strings.HasPrefix(a, "--feature-gates=") })
	if i < 0 {
		i = len(out)
	}
	return slices.Insert(out, i, "--admin-address=127.0.0.1", "--admin-port="+adminPort)
}
