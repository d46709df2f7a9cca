module kspatch.dev/adminapi

go 1.24.0

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/google/pprof v0.0.0-20241029153458-d1b30febd7db
)

require github.com/ianlancetaylor/demangle v0.0.0-20240312041847-bd984b5ce465 // indirect
