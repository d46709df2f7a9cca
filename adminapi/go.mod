module kspatch.dev/adminapi

go 1.24.0
