package plots

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/internal/outward"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"gonum.org/v1/plot"
	colormap "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// grid is a GridXYZ over cell indices (the swept values are tick labels,
// so uneven and logarithmic grids get equal cells).
type grid struct {
	z    [][]float64 // z[col][row]
	cols int
	rows int
}

func (g grid) Dims() (int, int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z[c][r] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) minMax() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, col := range g.z {
		for _, v := range col {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi
}

// heatmap draws one bound over two swept parameters of a mechanism at r.
func (d *drawer) heatmap(p *plot.Plot) error {
	f := d.f
	id, xParam, _ := strings.Cut(f.X, ".")
	_, yParam, _ := strings.Cut(f.Y, ".")
	method := manifest.MethodBuckets
	if len(f.Methods) == 1 {
		method = f.Methods[0]
	}
	rows := d.res.Eps
	useDelta := strings.HasPrefix(f.Value, "delta")
	if useDelta {
		rows = d.res.Delta
	}
	type cell struct{ x, y float64 }
	vals := map[cell]float64{}
	xset, yset := map[float64]bool{}, map[float64]bool{}
	for _, r := range rows {
		if r.ID != id || r.Method != method || r.R != f.R {
			continue
		}
		if useDelta && !near(math.Exp(r.At), f.EEps[0]) || !useDelta && !near(r.At, f.Delta) {
			continue
		}
		x, okx := r.Params[xParam]
		y, oky := r.Params[yParam]
		if !okx || !oky {
			continue
		}
		v := r.Upper
		switch f.Value {
		case "eps_lower", "delta_lower":
			v = r.Lower
		case "e_eps_upper":
			v = math.Exp(r.Upper)
		}
		vals[cell{x, y}] = v
		xset[x], yset[y] = true, true
	}
	xs, ys := slices.Sorted(maps.Keys(xset)), slices.Sorted(maps.Keys(yset))
	g := grid{cols: len(xs), rows: len(ys)}
	for _, x := range xs {
		col := make([]float64, len(ys))
		for j, y := range ys {
			v, ok := vals[cell{x, y}]
			if !ok {
				v = math.NaN()
			}
			col[j] = v
		}
		g.z = append(g.z, col)
	}
	p.X.Label.Text = xParam
	p.Y.Label.Text = yParam
	value := f.Value
	at := fmt.Sprintf("delta = %g", f.Delta)
	if useDelta {
		at = fmt.Sprintf("e^eps = %g", f.EEps[0])
	}
	if p.Title.Text != "" {
		p.Title.Text += "\n"
	}
	p.Title.Text += fmt.Sprintf("%s of %s (%s) at %s, r = %d", value, id, method, at, f.R)
	if len(xs) == 0 || len(ys) == 0 {
		d.note("no results for the heatmap (mechanism %q, method %s, r = %d)", id, method, f.R)
		d.empty = true
		d.finishAxes(p, false, false)
		return nil
	}
	lo, hi := g.minMax()
	if !(hi >= lo) {
		lo, hi = 0, 1
	}
	if hi == lo {
		hi = lo + 1
	}
	// Values spanning orders of magnitude are coloured by their logarithm
	// (the cell labels keep the values).
	colour := g
	scale := "linear"
	if lo > 0 && hi/lo > 100 {
		scale = "log"
		colour = grid{cols: g.cols, rows: g.rows}
		for _, col := range g.z {
			lc := make([]float64, len(col))
			for j, v := range col {
				lc[j] = math.Log10(v)
				if v <= 0 {
					lc[j] = math.Inf(-1)
				}
			}
			colour.z = append(colour.z, lc)
		}
		lo, hi = math.Log10(lo), math.Log10(hi)
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(lo)
	cm.SetMax(hi)
	hm := plotter.NewHeatMap(colour, cm.Palette(255))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.RGBA{R: 220, G: 220, B: 220, A: 255}
	hm.Overflow = color.RGBA{R: 90, G: 0, B: 0, A: 255}
	hm.Underflow = color.RGBA{R: 0, G: 0, B: 90, A: 255}
	d.items = append(d.items, hm)
	var pts plotter.XYs
	var labels []string
	for c := range xs {
		for r := range ys {
			pts = append(pts, plotter.XY{X: float64(c), Y: float64(r)})
			labels = append(labels, formatCell(g.z[c][r], !strings.HasSuffix(f.Value, "_lower")))
		}
	}
	if len(xs)*len(ys) <= 400 {
		lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err == nil {
			size := 9.0
			if len(xs) > 10 {
				size = 7
			}
			for i := range lbl.TextStyle {
				lbl.TextStyle[i].XAlign = draw.XCenter
				lbl.TextStyle[i].YAlign = draw.YCenter
				lbl.TextStyle[i].Font.Size = vg.Length(size)
				c, r := int(pts[i].X), int(pts[i].Y)
				lbl.TextStyle[i].Color = labelColor(cellColor(hm, cm, colour.z[c][r]))
			}
			d.items = append(d.items, lbl)
		}
	}
	p.X.Tick.Marker = indexTicks(xs)
	p.Y.Tick.Marker = indexTicks(ys)
	d.lim = [4]float64{-0.5, float64(len(xs)) - 0.5, -0.5, float64(len(ys)) - 0.5}
	vlo, vhi := lo, hi
	if scale == "log" {
		vlo, vhi = math.Pow(10, lo), math.Pow(10, hi)
	}
	d.legend = append(d.legend, legendEntry{fmt.Sprintf("colour (%s scale): %s from %.4g (blue) to %.4g (red); grey: no result; dark red: infinite", scale, value, vlo, vhi), nil})
	return nil
}

func indexTicks(vals []float64) plot.ConstantTicks {
	var t plot.ConstantTicks
	step := 1
	for len(vals)/step > 12 {
		step++
	}
	for i, v := range vals {
		label := ""
		if i%step == 0 {
			label = strconv.FormatFloat(v, 'g', 4, 64)
		}
		t = append(t, plot.Tick{Value: float64(i), Label: label})
	}
	return t
}

// formatCell prints a heat map's bound with three significant digits,
// rounded outwards (outward.Decimal: up for an upper bound, down for a
// lower one; e^eps_upper is stepped one ulp up first for math.Exp's
// rounding, which a value at a decimal border could otherwise hide).
func formatCell(v float64, upper bool) string {
	switch {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 1):
		return "inf"
	}
	if upper {
		v = math.Nextafter(v, math.Inf(1))
	}
	return outward.Decimal(v, 3, upper)
}

// cellColor returns the colour the heat map gives value v (as plotter.HeatMap
// does: NaN, underflow and overflow colours outside [Min, Max]).
func cellColor(hm *plotter.HeatMap, cm colormap.ColorMap, v float64) color.Color {
	switch {
	case math.IsNaN(v):
		return hm.NaN
	case v < hm.Min:
		return hm.Underflow
	case v > hm.Max:
		return hm.Overflow
	}
	c, err := cm.At(v)
	if err != nil {
		return hm.NaN
	}
	return c
}

// labelColor returns black or white, whichever contrasts more with the
// background bg (by its relative luminance, WCAG's formula).
func labelColor(bg color.Color) color.Color {
	if bg == nil {
		return color.Black
	}
	r, g, b, _ := bg.RGBA()
	lin := func(v uint32) float64 {
		c := float64(v) / 0xffff
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	lum := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	// contrast with white (1.05 / (lum + 0.05)) against black ((lum + 0.05) / 0.05)
	if 1.05/(lum+0.05) > (lum+0.05)/0.05 {
		return color.White
	}
	return color.Black
}
