package adminapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestPodGroupNameParams: a pod group name, in a path or in ?podGroup=, is
// checked as the name of a group pods can join: at most 63 characters (the
// label value scheduling.kspatch.io/pod-group=<name>), and a longer one is
// refused with that bound and why, whatever its length; a pod name keeps
// the DNS subdomain's 253.
func TestPodGroupNameParams(t *testing.T) {
	h := NewRouter(podGroupOptions())
	const groupRule = "must be a pod group name: at most 63 characters, since pods join the group with the label " +
		"scheduling.kspatch.io/pod-group=<name> and a label value is at most 63 characters"
	g63, g64, long := strings.Repeat("g", 63), strings.Repeat("g", 64), strings.Repeat("a", 5000)
	clipped := `"` + strings.Repeat("a", 32) + `..."`
	for _, tc := range []struct {
		name, target string
		code         int    // 0: anything but 400
		want         string // in the body when code is 400
	}{
		{"group route, 64", "/debug/queue/podgroups/ml/" + g64, http.StatusBadRequest, `invalid name "` + g64 + `": ` + groupRule},
		{"group route, 5000", "/debug/queue/podgroups/ml/" + long, http.StatusBadRequest, `invalid name ` + clipped + `: ` + groupRule},
		{"group route, 63", "/debug/queue/podgroups/ml/" + g63, 0, ""},
		{"placements route, 64", "/debug/placements/ml/" + g64, http.StatusBadRequest, `invalid podGroup "` + g64 + `": ` + groupRule},
		{"placements route, 5000", "/debug/placements/ml/" + long, http.StatusBadRequest, `invalid podGroup ` + clipped + `: ` + groupRule},
		{"placements route, 63", "/debug/placements/ml/" + g63, 0, ""},
		{"queue filter, 64", "/debug/queue?podGroup=" + g64, http.StatusBadRequest, `invalid podGroup "` + g64 + `": ` + groupRule},
		{"queue filter, 300", "/debug/queue?podGroup=" + long[:300], http.StatusBadRequest, `invalid podGroup ` + clipped + `: ` + groupRule},
		{"queue filter, not a name", "/debug/queue?podGroup=Train", http.StatusBadRequest, `invalid podGroup "Train": ` + groupRule},
		{"queue filter, 63", "/debug/queue?podGroup=" + g63, 0, ""},
		// A pod's name is not a label value.
		{"pod route, 64", "/debug/queue/pods/ml/" + g64, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := get(h, tc.target, "")
			body := rec.Body.String()
			switch {
			case tc.code == 0 && rec.Code == http.StatusBadRequest:
				t.Errorf("GET %.80s: 400 %.300q, want it accepted", tc.target, body)
			case tc.code != 0 && (rec.Code != tc.code || !strings.Contains(body, tc.want)):
				t.Errorf("GET %.80s: %d %.400q, want %d containing %q", tc.target, rec.Code, body, tc.code, tc.want)
			case tc.code != 0 && (strings.Contains(body, "253") || len(body) > 512):
				t.Errorf("GET %.80s: the error cites 253 or is %d bytes long: %.400q", tc.target, len(body), body)
			}
		})
	}
}
