// Package adminapi is the kspatch scheduler's read-only admin HTTP API (a chi
// router serving /debug/queue, /debug/apicalls, /debug/placements and pprof).
// It reads the scheduler through the Source interfaces it declares and imports
// no scheduler internals, so it is tested on fakes.
//
// The scheduler adapts its queue, API call queue and placement recorder to
// QueueSource, APICallSource and PlacementSource, and either runs a Server on
// its own listener or mounts NewRouter's handler under a prefix of another
// mux. routes.go lists every route; docs/admin-api.md in the repository
// describes each one with example output.
//
// Every route answers an aligned text table by default and versioned JSON
// (apiVersion kspatch.dev/v1alpha1) to "Accept: application/json" or
// ?output=json. Requests are bounded in time, concurrency and response size,
// and a panic never reaches the client.
package adminapi
