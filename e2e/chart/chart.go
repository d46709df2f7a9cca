// Package chart draws small PNG line charts of Prometheus range-query
// results, one panel per dashboard panel, so a reviewer can see what the
// dashboards show after an end-to-end run without a Grafana.
package chart

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Point is one sample.
type Point struct {
	T float64 // Unix seconds
	V float64
}

// Series is one line.
type Series struct {
	Name   string
	Points []Point
}

// Panel is one chart.
type Panel struct {
	Title  string
	Unit   string
	Series []Series
}

const (
	panelW, panelH = 420, 230
	columns        = 2
	margin         = 8
	lineH          = 14
	legendLines    = 3
)

var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

var (
	white = color.RGBA{0xff, 0xff, 0xff, 0xff}
	black = color.RGBA{0x20, 0x20, 0x20, 0xff}
	grey  = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}
)

// Render draws the panels in a grid, two per row, titled, with the largest
// value on the y axis and a legend of the first series.
func Render(w io.Writer, title string, panels []Panel) error {
	rows := (len(panels) + columns - 1) / columns
	img := image.NewRGBA(image.Rect(0, 0, columns*panelW, lineH+margin+rows*panelH))
	draw.Draw(img, img.Bounds(), &image.Uniform{white}, image.Point{}, draw.Src)
	text(img, margin, lineH, title, black)
	for i, p := range panels {
		x0, y0 := (i%columns)*panelW, lineH+margin+(i/columns)*panelH
		drawPanel(img, image.Rect(x0, y0, x0+panelW, y0+panelH), p)
	}
	return png.Encode(w, img)
}

func drawPanel(img *image.RGBA, r image.Rectangle, p Panel) {
	r = r.Inset(margin)
	rectOutline(img, r, grey)
	text(img, r.Min.X+4, r.Min.Y+lineH, p.Title, black)

	minT, maxT, maxV := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range p.Series {
		for _, pt := range s.Points {
			if math.IsNaN(pt.V) || math.IsInf(pt.V, 0) {
				continue
			}
			minT, maxT, maxV = math.Min(minT, pt.T), math.Max(maxT, pt.T), math.Max(maxV, pt.V)
		}
	}
	plot := image.Rect(r.Min.X+4, r.Min.Y+lineH+6, r.Max.X-4, r.Max.Y-legendLines*lineH-6)
	line(img, plot.Min.X, plot.Max.Y, plot.Max.X, plot.Max.Y, grey)
	line(img, plot.Min.X, plot.Min.Y, plot.Min.X, plot.Max.Y, grey)
	text(img, plot.Min.X+3, plot.Min.Y+lineH-2, "max "+format(maxV, p.Unit), black)
	if maxT > minT {
		span := "last " + (time.Duration(maxT-minT) * time.Second).String()
		text(img, plot.Max.X-7*len(span)-3, plot.Min.Y+lineH-2, span, black)
	}
	if maxV == 0 {
		maxV = 1
	}
	if maxT <= minT {
		maxT = minT + 1
	}
	for i, s := range p.Series {
		c := palette[i%len(palette)]
		var prev *image.Point
		for _, pt := range s.Points {
			if math.IsNaN(pt.V) || math.IsInf(pt.V, 0) {
				prev = nil
				continue
			}
			x := plot.Min.X + int(float64(plot.Dx())*(pt.T-minT)/(maxT-minT))
			y := plot.Max.Y - int(float64(plot.Dy())*pt.V/maxV)
			if prev != nil {
				line(img, prev.X, prev.Y, x, y, c)
			} else {
				img.Set(x, y, c)
			}
			prev = &image.Point{X: x, Y: y}
		}
		if i < legendLines {
			name := s.Name
			if i == legendLines-1 && len(p.Series) > legendLines {
				name = fmt.Sprintf("%s (+%d more)", name, len(p.Series)-legendLines)
			}
			text(img, r.Min.X+4, plot.Max.Y+4+(i+1)*lineH-2, "- "+name, c)
		}
	}
}

// format writes a value in the panel's Grafana unit.
func format(v float64, unit string) string {
	switch unit {
	case "s":
		if v < 1 {
			return strconv.FormatFloat(v*1000, 'g', 3, 64) + " ms"
		}
		return strconv.FormatFloat(v, 'g', 3, 64) + " s"
	case "ops":
		return strconv.FormatFloat(v, 'g', 3, 64) + " /s"
	case "percentunit":
		return strconv.FormatFloat(v*100, 'g', 3, 64) + "%"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	// The 7x13 font has ASCII only.
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' {
			return '?'
		}
		return r
	}, s)
	const maxChars = panelW/7 - 4
	if len(s) > maxChars {
		s = s[:maxChars-3] + "..."
	}
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func rectOutline(img *image.RGBA, r image.Rectangle, c color.Color) {
	line(img, r.Min.X, r.Min.Y, r.Max.X-1, r.Min.Y, c)
	line(img, r.Min.X, r.Max.Y-1, r.Max.X-1, r.Max.Y-1, c)
	line(img, r.Min.X, r.Min.Y, r.Min.X, r.Max.Y-1, c)
	line(img, r.Max.X-1, r.Min.Y, r.Max.X-1, r.Max.Y-1, c)
}

// line draws with Bresenham's algorithm.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.Set(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}
