// Command generate writes the dashboards' JSON files (go generate in
// dashboards/).
package main

import (
	"fmt"
	"os"

	"kspatch.dev/dashboards"
)

func main() {
	for _, d := range dashboards.All() {
		b, err := d.JSON()
		if err == nil {
			err = os.WriteFile(d.File, b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "generate:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", d.File)
	}
}
