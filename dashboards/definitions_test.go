package dashboards

import (
	"encoding/json"
	"testing"
)

// TestLayout: in every generated dashboard the panels and row headers fit
// the 24-column grid without overlapping, and each row header lies across
// the width directly above its panels.
func TestLayout(t *testing.T) {
	type gridPos struct{ H, W, X, Y int }
	for _, d := range All() {
		t.Run(d.UID, func(t *testing.T) {
			raw, err := d.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Panels []struct {
					ID      int
					Type    string
					Title   string
					GridPos gridPos
				}
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			want := len(d.Panels)
			for _, r := range d.Rows {
				want += 1 + len(r.Panels)
			}
			if len(m.Panels) != want {
				t.Fatalf("%d panels and row headers, want %d", len(m.Panels), want)
			}
			for i, p := range m.Panels {
				g := p.GridPos
				if g.W < 1 || g.H < 1 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
					t.Errorf("panel %q: gridPos %+v is off the 24-column grid", p.Title, g)
				}
				for _, q := range m.Panels[:i] {
					o := q.GridPos
					if g.X < o.X+o.W && o.X < g.X+g.W && g.Y < o.Y+o.H && o.Y < g.Y+g.H {
						t.Errorf("panels %q %+v and %q %+v overlap", p.Title, g, q.Title, o)
					}
				}
				if p.Type != "row" {
					continue
				}
				if g.W != 24 || g.H != 1 {
					t.Errorf("row %q: gridPos %+v, want the full width, one high", p.Title, g)
				}
				if i+1 == len(m.Panels) || m.Panels[i+1].GridPos.Y != g.Y+1 {
					t.Errorf("row %q is not directly above a panel", p.Title)
				}
			}
		})
	}
}
