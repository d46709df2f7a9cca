package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var sideColors = map[string]color.RGBA{
	"vanilla":          {R: 0x80, G: 0x80, B: 0x80, A: 0xff},
	"patched-gate-off": {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"patched-gate-on":  {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	// The burst's KEP-6132-only side (bench/config.go).
	"patched-no-slice-cache": {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// plots writes burst-throughput.png and burst-hint-calls.png into dir.
func (s *summary) plots(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	charts := []struct {
		file, title, yLabel string
		value               func(result) float64
		logY                bool
	}{
		{"burst-throughput.png", "DRA claim-template burst: scheduling throughput", "pods/s", func(r result) float64 { return r.Throughput }, false},
		{"burst-hint-calls.png", "DRA claim-template burst: DynamicResources QueueingHintFn calls", "calls (log scale)", func(r result) float64 { return r.HintCalls }, true},
	}
	for _, c := range charts {
		p := plot.New()
		p.Title.Text = c.title
		p.X.Label.Text = "pods in the burst"
		p.Y.Label.Text = c.yLabel
		if c.logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		p.Legend.Top = true
		p.Legend.Left = true
		for _, sd := range s.sides {
			var pts plotter.XYs
			for _, n := range s.sizes {
				if r, ok := s.get(sd.Name, n); ok {
					v := c.value(r)
					if c.logY && v < 1 {
						v = 1
					}
					pts = append(pts, plotter.XY{X: float64(n), Y: v})
				}
			}
			if len(pts) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			line.Color, points.Color = sideColors[sd.Name], sideColors[sd.Name]
			line.Width = vg.Points(1.5)
			p.Add(line, points)
			p.Legend.Add(sd.Name, line, points)
		}
		p.Add(plotter.NewGrid())
		path := filepath.Join(dir, c.file)
		if err := p.Save(7*vg.Inch, 4*vg.Inch, path); err != nil {
			return fmt.Errorf("saving %s: %w", path, err)
		}
		fmt.Printf("wrote %s\n", path)
	}
	return nil
}
