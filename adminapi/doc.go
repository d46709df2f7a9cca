// Package adminapi is the kspatch scheduler's read-only admin HTTP API (a chi
// router serving /debug/queue, /debug/apicalls, /debug/placements and pprof).
// It reads the scheduler through the Source interfaces it declares and imports
// no scheduler internals, so it is tested on fakes.
package adminapi
