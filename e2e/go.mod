module kspatch.dev/e2e

go 1.24.0
