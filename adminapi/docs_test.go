package adminapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsExamples checks that the examples in docs/admin-api.md are the
// current golden output. After `go test -update`, paste the changed golden
// files into the document.
func TestDocsExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "admin-api.md"))
	if os.IsNotExist(err) {
		t.Skip("docs/admin-api.md is not beside this module")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"apicalls", "apicalls_limited", "apicalls_limited.json", "error_bad_limit", "error_bad_limit.json",
		"placements", "placements_group", "placements_group_limit.json", "queue", "queue_filtered", "queue_page",
		"queue_page.json", "queue_pod", "queue_pod.json", "queue_pod_active", "queue_pod_backoff",
		"podgroup_rack_short", "podgroup_rack_short.json", "podgroup_waiting_for_members",
		"placements_levels", "queue_pod_held", "placements_preemption",
	} {
		golden, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(golden)) {
			t.Errorf("docs/admin-api.md does not show the current testdata/%s.golden", name)
		}
	}
}
