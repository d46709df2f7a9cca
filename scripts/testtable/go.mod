module kspatch.dev/testtable

go 1.24
