package chart

import (
	"bytes"
	"image/png"
	"math"
	"testing"
)

func TestRender(t *testing.T) {
	ramp := Series{Name: "ramp"}
	for i := range 60 {
		ramp.Points = append(ramp.Points, Point{T: float64(1000 + 5*i), V: float64(i)})
	}
	gap := Series{Name: "with NaN", Points: []Point{{1000, 1}, {1100, math.NaN()}, {1200, 2}}}
	panels := []Panel{
		{Title: "ramp", Unit: "ops", Series: []Series{ramp, gap}},
		{Title: "empty", Unit: "s"},
		{Title: "third", Unit: "percentunit", Series: []Series{gap}},
	}
	var buf bytes.Buffer
	if err := Render(&buf, "test", panels); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 2*panelW || b.Dy() != lineH+margin+2*panelH {
		t.Fatalf("image is %v, want 2 columns and 2 rows of panels", b)
	}
	// The ramp's last point is drawn at the top right of the first panel's
	// plot, in the first colour.
	found := false
	for x := panelW - 2*margin - 10; x < panelW; x++ {
		for y := 0; y < panelH; y++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == palette[0].R && uint8(g>>8) == palette[0].G && uint8(b>>8) == palette[0].B {
				found = true
			}
		}
	}
	if !found {
		t.Error("the ramp's line is not drawn at the right edge of its panel")
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{0.0123, "s", "12.3 ms"},
		{2.5, "s", "2.5 s"},
		{0.5, "percentunit", "50%"},
		{120, "ops", "120 /s"},
		{7, "short", "7"},
	} {
		if got := format(tc.v, tc.unit); got != tc.want {
			t.Errorf("format(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
