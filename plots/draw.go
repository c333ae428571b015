package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/internal/atomicfile"
	"github.com/pbuckets/pbuckets/internal/outward"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Image geometry: the plot area is plotWidth x plotHeight; the legend is
// drawn below it, in columns, so that it never hides data.
const (
	plotWidth  = 6.5 * vg.Inch
	plotHeight = 4.3 * vg.Inch
	pngDPI     = 150
	titleSize  = 13
	labelSize  = 12
	tickSize   = 10.5
	legendSize = 10
)

// Paper colours: upper bounds red, lower bounds blue; comparison methods
// (upper bounds only) have their own colours.
var (
	colorUpper   = color.RGBA{R: 200, G: 25, B: 25, A: 255}
	colorLower   = color.RGBA{R: 20, G: 70, B: 200, A: 255}
	colorTarget  = color.NRGBA{R: 60, G: 170, B: 60, A: 70}
	colorPoint   = color.RGBA{R: 220, G: 0, B: 0, A: 255}
	methodColors = map[string]color.Color{
		manifest.MethodKOV:      color.RGBA{R: 0, G: 140, B: 70, A: 255},
		manifest.MethodAdvanced: color.RGBA{R: 230, G: 140, B: 0, A: 255},
		manifest.MethodRDP:      color.RGBA{R: 140, G: 50, B: 170, A: 255},
		manifest.MethodCDP:      color.RGBA{R: 0, G: 160, B: 200, A: 255},
		manifest.MethodExact:    color.Black,
	}
	methodNames = map[string]string{
		manifest.MethodBuckets:  "buckets",
		manifest.MethodKOV:      "KOV",
		manifest.MethodAdvanced: "advanced composition",
		manifest.MethodRDP:      "RDP / moments accountant",
		manifest.MethodCDP:      "CDP",
		manifest.MethodExact:    "exact",
	}
	// dashes distinguish mechanisms (series) within a figure.
	dashes = [][]vg.Length{nil, {6, 3}, {1.5, 2.5}, {9, 3, 2, 3}, {14, 4}, {4, 2, 1, 2, 1, 2}}
)

// Draw draws figure f of manifest m from res and writes its files into dir:
// <id>.png, <id>.svg and <id>.pdf, or <id>.md and <id>.csv for tables. It returns the
// files written and notes about data that could not be shown (empty
// series, missing results).
func Draw(m *manifest.Manifest, f manifest.Figure, res *Results, dir string) (files, notes []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	d := &drawer{m: m, f: f, res: res}
	if f.Kind == manifest.FigureTable {
		files, err = d.table(dir)
		return files, d.notes, err
	}
	p := d.newPlot()
	switch f.Kind {
	case manifest.FigureDeltaEEps:
		d.deltaEEps(p)
	case manifest.FigureEEpsR:
		d.eepsR(p)
	case manifest.FigureDeltaR:
		d.deltaR(p)
	case manifest.FigureRenyi:
		d.renyi(p)
	case manifest.FigureTradeoff:
		d.tradeoff(p)
	case manifest.FigureHeatmap:
		if err := d.heatmap(p); err != nil {
			return nil, d.notes, err
		}
	default:
		return nil, nil, fmt.Errorf("figure %q: unknown kind %q", f.ID, f.Kind)
	}
	p.Add(d.items...)
	// Adding plotters widens the axes to their data: restore the limits.
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = d.lim[0], d.lim[1], d.lim[2], d.lim[3]
	files, err = d.save(p, filepath.Join(dir, f.ID))
	return files, d.notes, err
}

type drawer struct {
	m      *manifest.Manifest
	f      manifest.Figure
	res    *Results
	notes  []string
	legend []legendEntry
	// items are drawn in order, after the privacy target.
	items []plot.Plotter
	// lim are the axis limits chosen by finishAxes.
	lim [4]float64
	// data range of what was drawn (for automatic axes).
	xmin, xmax, ymin, ymax float64
	empty                  bool
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

func (d *drawer) note(format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf("figure %q: ", d.f.ID)+fmt.Sprintf(format, args...))
}

func (d *drawer) newPlot() *plot.Plot {
	p := plot.New()
	title := d.f.Title
	if title == "" {
		title = d.m.Title
	}
	if d.f.Note != "" {
		title += "\n" + d.f.Note
	}
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.Title.Padding = 6
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = tickSize
		a.Label.Padding = 4
	}
	d.xmin, d.ymin = math.Inf(1), math.Inf(1)
	d.xmax, d.ymax = math.Inf(-1), math.Inf(-1)
	d.empty = true
	return p
}

// keep reports whether a row belongs to the figure (mechanism and method
// filters).
func (d *drawer) keep(r Row) bool {
	if len(d.f.Mechanisms) > 0 && !slices.Contains(d.f.Mechanisms, r.ID) {
		return false
	}
	if len(d.f.Methods) > 0 && !slices.Contains(d.f.Methods, r.Method) {
		return false
	}
	if len(d.f.Series) > 0 && !slices.Contains(d.f.Series, r.ID+":"+r.Method) {
		return false
	}
	return true
}

// seriesKey identifies one series: a mechanism instance and a method.
type seriesKey struct{ label, id, method string }

// group collects the kept rows by series, in legend order: mechanisms in
// the figure's order (mechanisms, then series; else the results' order),
// then methods in the figure's (else the query's) order.
func (d *drawer) group(rows []Row, sel func(Row) bool) ([]seriesKey, map[seriesKey][]Row) {
	by := map[seriesKey][]Row{}
	var keys []seriesKey
	for _, r := range rows {
		if !d.keep(r) || !sel(r) {
			continue
		}
		k := seriesKey{r.Mechanism, r.ID, r.Method}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], r)
	}
	order := d.f.Mechanisms
	for _, sr := range d.f.Series {
		if id, _, _ := strings.Cut(sr, ":"); !slices.Contains(order, id) {
			order = append(append([]string(nil), order...), id)
		}
	}
	mechOrder := func(k seriesKey) int {
		for i, id := range order {
			if id == k.id {
				return i
			}
		}
		return 0
	}
	methods := d.f.Methods
	if len(methods) == 0 {
		methods = d.m.Query.Methods
	}
	methodOrder := func(k seriesKey) int {
		for i, x := range methods {
			if x == k.method {
				return i
			}
		}
		return len(methods)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if mechOrder(a) != mechOrder(b) {
			return mechOrder(a) < mechOrder(b)
		}
		if a.label != b.label {
			return false // keep the results' (instance) order
		}
		return methodOrder(a) < methodOrder(b)
	})
	return keys, by
}

// name returns the legend name of a series: the mechanism (its label when
// the figure gives one), followed by the method when the mechanism appears
// with several methods; only the method when the figure shows a single
// mechanism with several methods.
func (d *drawer) name(k seriesKey, keys []seriesKey) string {
	mech := k.label
	if s, ok := d.f.Labels[k.id]; ok {
		mech = s + strings.TrimPrefix(k.label, k.id)
	}
	meth := methodNames[k.method]
	if meth == "" {
		meth = k.method
	}
	nMech, _ := counts(keys)
	ownMethods := 0
	for _, o := range keys {
		if o.label == k.label {
			ownMethods++
		}
	}
	switch {
	case ownMethods == 1:
		return mech
	case nMech == 1:
		return meth
	}
	return mech + ", " + meth
}

// comparisonColors are used for comparison methods when several
// mechanisms share one method in a figure (red and blue stay reserved for
// the bucket bounds).
var comparisonColors = []color.Color{
	color.RGBA{R: 0, G: 140, B: 70, A: 255},
	color.RGBA{R: 230, G: 140, B: 0, A: 255},
	color.RGBA{R: 140, G: 50, B: 170, A: 255},
	color.RGBA{R: 0, G: 160, B: 200, A: 255},
	color.RGBA{R: 120, G: 80, B: 30, A: 255},
	color.Black,
}

// upperColor returns the colour of a series' upper bound: red for buckets,
// the method's colour for a comparison method, or one colour per mechanism
// when several mechanisms show the same comparison method.
func upperColor(k seriesKey, keys []seriesKey) color.Color {
	c, ok := methodColors[k.method]
	if !ok {
		return colorUpper
	}
	var labels []string
	for _, o := range keys {
		if o.method == k.method && !slices.Contains(labels, o.label) {
			labels = append(labels, o.label)
		}
	}
	if len(labels) < 2 {
		return c
	}
	for i, l := range labels {
		if l == k.label {
			return comparisonColors[i%len(comparisonColors)]
		}
	}
	return c
}

// counts returns the numbers of distinct mechanisms and methods of keys.
func counts(keys []seriesKey) (int, int) {
	mechs, meths := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		mechs[k.label], meths[k.method] = true, true
	}
	return len(mechs), len(meths)
}

// mechIndex numbers the distinct mechanisms of keys (for dash patterns).
func mechIndex(keys []seriesKey) map[string]int {
	idx := map[string]int{}
	for _, k := range keys {
		if _, ok := idx[k.label]; !ok {
			idx[k.label] = len(idx)
		}
	}
	return idx
}

// addLine adds a polyline of the finite points (positive where the axis is
// logarithmic) and records its legend entry. It returns false when nothing
// could be drawn.
func (d *drawer) addLine(p *plot.Plot, xys plotter.XYs, logX, logY bool, c color.Color, dash []vg.Length, width vg.Length, name string) bool {
	pts := drawable(xys, logX, logY)
	if len(pts) == 0 {
		return false
	}
	thumb := d.addPoints(pts, c, dash, width)
	if name != "" {
		d.legend = append(d.legend, legendEntry{name, thumb})
	}
	return true
}

// drawable returns the points of xys that can be drawn, sorted by x:
// finite, and positive where the axis is logarithmic.
func drawable(xys plotter.XYs, logX, logY bool) plotter.XYs {
	var pts plotter.XYs
	for _, pt := range xys {
		if math.IsNaN(pt.X) || math.IsNaN(pt.Y) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) {
			continue
		}
		if logX && pt.X <= 0 || logY && pt.Y <= 0 {
			continue
		}
		pts = append(pts, pt)
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	return pts
}

// addPoints draws pts (drawable, not empty) as a line, a single point as
// a dot too, widens the data range and returns the legend thumbnail.
func (d *drawer) addPoints(pts plotter.XYs, c color.Color, dash []vg.Length, width vg.Length) plot.Thumbnailer {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil
	}
	l.Color, l.Dashes, l.Width = c, dash, width
	d.items = append(d.items, l)
	var thumb plot.Thumbnailer = l
	if len(pts) == 1 {
		s, err := plotter.NewScatter(pts)
		if err == nil {
			s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: width + 0.9, Shape: draw.CircleGlyph{}}
			d.items = append(d.items, s)
			thumb = s
		}
	}
	for _, pt := range pts {
		if r := d.f.XRange; r[0] < r[1] && (pt.X < r[0] || pt.X > r[1]) {
			continue // outside the requested x range: not part of the y range
		}
		d.xmin, d.xmax = math.Min(d.xmin, pt.X), math.Max(d.xmax, pt.X)
		d.ymin, d.ymax = math.Min(d.ymin, pt.Y), math.Max(d.ymax, pt.Y)
	}
	d.empty = false
	return thumb
}

// boundLines draws the upper and lower bounds of the series of a figure:
// buckets upper red and lower blue, comparison methods in their colours,
// one dash pattern per mechanism (see boundPair for how an upper and a
// lower bound that coincide are drawn).
func (d *drawer) boundLines(p *plot.Plot, keys []seriesKey, xy func(k seriesKey, upper bool) plotter.XYs, logX, logY bool, suffix func(seriesKey) string) {
	idx := mechIndex(keys)
	for _, k := range keys {
		dash := dashes[idx[k.label]%len(dashes)]
		name := d.name(k, keys)
		if suffix != nil {
			name += suffix(k)
		}
		d.seriesBounds(k, xy, logX, logY, upperColor(k, keys), colorLower, dash, 1.6, name)
	}
}

// seriesBounds draws the bounds of series k that the figure shows (its
// bounds key), with a note when one that should be shown cannot be.
func (d *drawer) seriesBounds(k seriesKey, xy func(k seriesKey, upper bool) plotter.XYs, logX, logY bool, cu, cl color.Color, dash []vg.Length, width vg.Length, name string) {
	var up, lo plotter.XYs
	if d.f.Bounds != "lower" {
		up = xy(k, true)
	}
	if d.f.Bounds != "upper" && k.method != manifest.MethodExact {
		lo = xy(k, false)
	}
	upperLabel, lowerLabel := name, name
	if d.f.Bounds == "both" {
		lowerLabel += " (lower)"
		if k.method == manifest.MethodBuckets {
			upperLabel += " (upper)"
		}
	}
	entries := len(d.legend)
	upOK, loOK := d.boundPair(bound{up, cu, upperLabel}, bound{lo, cl, lowerLabel}, logX, logY, dash, width, name)
	if style, ok := markerStyle(k.method, cu); ok {
		// the method's marker on its curves and in its legend entries
		d.addMarkers(k.method, drawable(up, logX, logY), cu)
		d.addMarkers(k.method, drawable(lo, logX, logY), cl)
		for i := entries; i < len(d.legend); i++ {
			st := style
			if d.legend[i].name == lowerLabel && lowerLabel != upperLabel {
				st.Color = cl
			}
			d.legend[i].thumb = markedThumb{d.legend[i].thumb, st}
		}
	}
	if d.f.Bounds != "lower" && !upOK {
		d.note("%s: no finite upper bound to draw", name)
	}
	if d.f.Bounds == "lower" && !loOK {
		d.note("%s: no lower bound (method %s)", name, k.method)
	}
}

// deltaEEps: delta (log10) over e^eps at r.
func (d *drawer) deltaEEps(p *plot.Plot) {
	p.X.Label.Text = "e^ε"
	p.Y.Label.Text = "δ"
	keys, by := d.group(d.res.Delta, func(r Row) bool { return r.R == d.f.R })
	d.boundLines(p, keys, func(k seriesKey, upper bool) plotter.XYs {
		var xys plotter.XYs
		for _, r := range by[k] {
			v := r.Lower
			if upper {
				v = r.Upper
			}
			xys = append(xys, plotter.XY{X: math.Exp(r.At), Y: v})
		}
		return xys
	}, false, true, nil)
	d.points(p)
	d.finishAxes(p, false, true)
	if d.f.Target {
		d.target(p, 2, 1e-4)
	}
}

// eepsR: e^eps over r (log2) at delta (one dash pattern per delta when
// several are given).
func (d *drawer) eepsR(p *plot.Plot) {
	p.X.Label.Text = "number of compositions r"
	if len(d.f.PerRound) > 0 {
		p.X.Label.Text = "number of rounds r"
	}
	p.Y.Label.Text = fmt.Sprintf("e^ε at δ = %s", sciNumber(d.f.Delta))
	xy := func(by map[seriesKey][]Row) func(seriesKey, bool) plotter.XYs {
		return func(k seriesKey, upper bool) plotter.XYs {
			var xys plotter.XYs
			for _, r := range by[k] {
				v := r.Lower
				if upper {
					v = r.Upper
				}
				xys = append(xys, plotter.XY{X: d.rounds(k.id, r.R), Y: math.Exp(v)})
			}
			return xys
		}
	}
	if len(d.f.Deltas) > 1 {
		p.Y.Label.Text = "e^ε"
		for i, delta := range d.f.Deltas {
			keys, by := d.group(d.res.Eps, func(r Row) bool { return near(r.At, delta) })
			d.boundLinesWithDash(p, keys, i, xy(by), ", δ = "+sciNumber(delta), false)
		}
	} else {
		keys, by := d.group(d.res.Eps, func(r Row) bool { return near(r.At, d.f.Delta) })
		d.boundLines(p, keys, xy(by), true, false, nil)
	}
	// e^eps spanning orders of magnitude gets a log10 axis.
	d.finishAxes(p, true, d.ymax > 20*d.ymin && d.f.YRange[0] == 0)
	if d.f.Target {
		d.target(p, 2, math.NaN())
	}
}

// deltaR: delta (log10) over r (log2), one series per e^eps.
func (d *drawer) deltaR(p *plot.Plot) {
	p.X.Label.Text = "number of compositions r"
	if len(d.f.PerRound) > 0 {
		p.X.Label.Text = "number of rounds r"
	}
	p.Y.Label.Text = "δ"
	for i, e := range d.f.EEps {
		keys, by := d.group(d.res.Delta, func(r Row) bool { return near(math.Exp(r.At), e) })
		d.boundLinesWithDash(p, keys, i, func(k seriesKey, upper bool) plotter.XYs {
			var xys plotter.XYs
			for _, r := range by[k] {
				v := r.Lower
				if upper {
					v = r.Upper
				}
				xys = append(xys, plotter.XY{X: d.rounds(k.id, r.R), Y: v})
			}
			return xys
		}, ", e^ε = "+strconv.FormatFloat(e, 'g', 4, 64), true)
	}
	d.points(p)
	d.finishAxes(p, true, true)
	if d.f.Target {
		d.target(p, math.NaN(), 1e-4)
	}
}

// boundLinesWithDash is boundLines with the dash pattern chosen by the
// e^eps index (delta-r figures) and mechanisms told apart by name.
func (d *drawer) boundLinesWithDash(p *plot.Plot, keys []seriesKey, dashIdx int, xy func(seriesKey, bool) plotter.XYs, suffix string, logY bool) {
	nMech, _ := counts(keys)
	for _, k := range keys {
		dash := dashes[dashIdx%len(dashes)]
		name := d.name(k, keys) + suffix
		cu := upperColor(k, keys)
		if nMech > 1 {
			// Several mechanisms: a colour each (upper), lighter for lower.
			cu = palette[mechIndex(keys)[k.label]%len(palette)]
		}
		cl := color.Color(colorLower)
		if nMech > 1 {
			cl = lighten(cu)
		}
		d.seriesBounds(k, xy, true, logY, cu, cl, dash, 1.6, name)
	}
}

var palette = []color.Color{
	color.RGBA{R: 200, G: 25, B: 25, A: 255},
	color.RGBA{R: 20, G: 70, B: 200, A: 255},
	color.RGBA{R: 0, G: 140, B: 70, A: 255},
	color.RGBA{R: 230, G: 140, B: 0, A: 255},
	color.RGBA{R: 140, G: 50, B: 170, A: 255},
	color.Black,
}

func lighten(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	f := func(v uint32) uint8 { return uint8((v>>8)/2 + 127) }
	return color.RGBA{R: f(r), G: f(g), B: f(b), A: 255}
}

// rounds maps a number of compositions to the r axis (divided by the
// mechanism's observations per round).
func (d *drawer) rounds(id string, r int) float64 {
	if n, ok := d.f.PerRound[id]; ok && n > 1 {
		return float64(r) / float64(n)
	}
	return float64(r)
}

// renyi: D_alpha over alpha at r: the bucket bracket, the estimate and the
// analytic value.
func (d *drawer) renyi(p *plot.Plot) {
	p.X.Label.Text = "Rényi order α"
	p.Y.Label.Text = fmt.Sprintf("D_α after r = %d (nats)", d.f.R)
	keys, by := d.group(d.res.Renyi, func(r Row) bool { return r.R == d.f.R })
	idx := mechIndex(keys)
	for _, k := range keys {
		dash := dashes[idx[k.label]%len(dashes)]
		name := d.name(k, keys)
		get := func(v func(Row) float64) plotter.XYs {
			var xys plotter.XYs
			for _, r := range by[k] {
				xys = append(xys, plotter.XY{X: r.At, Y: v(r)})
			}
			return xys
		}
		up := bound{get(func(r Row) float64 { return r.Upper }), colorUpper, name + ": buckets upper bound"}
		lo := bound{get(func(r Row) float64 { return r.Lower }), colorLower, name + ": buckets lower bound"}
		if upOK, _ := d.boundPair(up, lo, true, true, dash, 1.6, name+": buckets"); !upOK {
			d.note("%s: the buckets upper bound on D_alpha is infinite at every order (corner mass with unbounded ratio); not drawn", name)
		}
		d.addLine(p, get(func(r Row) float64 { return r.Estimate }), true, true, color.RGBA{R: 0, G: 140, B: 70, A: 255}, []vg.Length{1.5, 2.5}, 1.6, name+": buckets estimate (5.7)")
		if !d.addLine(p, get(func(r Row) float64 { return r.Analytic }), true, true, color.Black, []vg.Length{6, 3}, 1.2, name+": analytic (moments accountant)") {
			d.note("%s: no analytic Renyi curve", name)
		}
	}
	if d.res.Renyi == nil {
		d.note("no renyi.parquet (the manifest needs query.alpha)")
	}
	d.finishAxes(p, true, true)
}

// tradeoff: the largest true-positive rate over the false-positive rate at
// r (ROC on log-log axes): the buckets' upper and lower bounds, and the
// line TPR = FPR of a test that guesses.
func (d *drawer) tradeoff(p *plot.Plot) {
	p.X.Label.Text = "false-positive rate"
	p.Y.Label.Text = fmt.Sprintf("largest true-positive rate after r = %d", d.f.R)
	keys, by := d.group(d.res.Tradeoff, func(r Row) bool { return r.R == d.f.R })
	idx := mechIndex(keys)
	var fprs plotter.XYs
	for _, k := range keys {
		dash := dashes[idx[k.label]%len(dashes)]
		name := d.name(k, keys)
		get := func(v func(Row) float64) plotter.XYs {
			var xys plotter.XYs
			for _, r := range by[k] {
				xys = append(xys, plotter.XY{X: r.At, Y: v(r)})
			}
			return xys
		}
		up := bound{get(func(r Row) float64 { return r.Upper }), colorUpper, name + ": buckets upper bound"}
		lo := bound{get(func(r Row) float64 { return r.Lower }), colorLower, name + ": buckets lower bound"}
		d.boundPair(up, lo, true, true, dash, 1.6, name+": buckets")
		for _, r := range by[k] {
			fprs = append(fprs, plotter.XY{X: r.At, Y: r.At})
		}
	}
	sort.Slice(fprs, func(i, j int) bool { return fprs[i].X < fprs[j].X })
	d.addLine(p, fprs, true, true, color.Gray{Y: 120}, []vg.Length{2, 2}, 1, "TPR = FPR (guessing)")
	if d.res.Tradeoff == nil {
		d.note("no tradeoff.parquet (the manifest needs query.fpr)")
	}
	d.finishAxes(p, true, true)
	// false-positive rates in decades (finishAxes' log x axis is in
	// powers of 2, for r)
	if r := d.f.XRange; !(r[0] < r[1]) && !d.empty && d.xmin > 0 {
		lo := math.Pow(10, math.Floor(math.Log10(d.xmin)))
		hi := math.Min(1, math.Pow(10, math.Ceil(math.Log10(d.xmax))))
		if hi <= lo {
			hi = 10 * lo
		}
		p.X.Tick.Marker = log10Ticks{}
		p.X.Min, p.X.Max = lo, hi
		d.lim[0], d.lim[1] = lo, hi
	}
}

// points marks single points: given values, or e^eps_upper(delta) of a
// task of the results.
func (d *drawer) points(p *plot.Plot) {
	for _, pt := range d.f.Points {
		x, y := pt.EEps, pt.Delta
		if d.f.Kind == manifest.FigureDeltaR {
			continue
		}
		if pt.FromResults() {
			x = math.NaN()
			for _, r := range d.res.Eps {
				if r.ID == pt.Mechanism && r.Method == pt.Method && r.R == pt.R && near(r.At, pt.Delta) {
					x = math.Exp(r.Upper)
					break
				}
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				d.note("point %q: no finite eps(delta=%g) for %s/%s at r=%d", pt.Label, pt.Delta, pt.Mechanism, pt.Method, pt.R)
				continue
			}
		}
		s, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
		if err != nil {
			continue
		}
		s.GlyphStyle = draw.GlyphStyle{Color: colorPoint, Radius: 4, Shape: draw.CircleGlyph{}}
		d.items = append(d.items, s)
		label := pt.Label
		if label == "" {
			label = fmt.Sprintf("(%.4g, %.3g)", x, y)
		}
		ex := strconv.FormatFloat(x, 'g', 4, 64) // a given point
		if pt.FromResults() {
			// e^eps_upper of a result: rounded up (outward.Decimal),
			// one ulp up first for math.Exp's rounding
			ex = outward.Decimal(math.Nextafter(x, math.Inf(1)), 4, true)
		}
		d.legend = append(d.legend, legendEntry{fmt.Sprintf("%s: e^ε = %s at δ = %s", label, ex, sciNumber(y)), s})
		d.xmin, d.xmax = math.Min(d.xmin, x), math.Max(d.xmax, x)
		d.ymin, d.ymax = math.Min(d.ymin, y), math.Max(d.ymax, y)
		d.empty = false
	}
}

// finishAxes sets scales, tickers and limits (the figure's ranges win).
func (d *drawer) finishAxes(p *plot.Plot, logX, logY bool) {
	if d.empty {
		d.note("no results to draw (tasks skipped or failed? see runs.parquet)")
		d.xmin, d.xmax, d.ymin, d.ymax = 1, 2, 1e-6, 1
		lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 1.5, Y: 1e-3}}, Labels: []string{"no results: see runs.parquet"}})
		if err == nil {
			lbl.TextStyle[0].XAlign = draw.XCenter
			lbl.TextStyle[0].Font.Size = 14
			d.items = append(d.items, lbl)
		}
		if !logY {
			d.ymin, d.ymax = 0, 1
			if lbl != nil {
				lbl.XYs[0].Y = 0.5
			}
		}
		if logX {
			d.xmin, d.xmax = 1, 1024
			if lbl != nil {
				lbl.XYs[0].X = 32
			}
		}
	}
	if !d.empty && (math.IsInf(d.ymin, 0) || math.IsInf(d.ymax, 0)) {
		d.note("no data within x_range %v", d.f.XRange)
		d.xmin, d.xmax, d.ymin, d.ymax = 1, 2, 1e-6, 1
	}
	xmin, xmax, ymin, ymax := d.xmin, d.xmax, d.ymin, d.ymax
	if logY {
		lo := math.Floor(math.Log10(ymin))
		hi := math.Ceil(math.Log10(ymax))
		if hi == lo {
			hi++
		}
		ymin, ymax = math.Pow(10, math.Max(lo, -20)), math.Pow(10, hi)
		if ymax > 1 && d.ymax <= 1 {
			ymax = 1
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = log10Ticks{}
	} else {
		pad := 0.03 * (ymax - ymin)
		if pad == 0 {
			pad = 0.05 * math.Max(1, math.Abs(ymax))
		}
		ymin, ymax = ymin-pad, ymax+pad
		p.Y.Tick.Marker = linearTicks{}
	}
	if logX {
		xmin = math.Pow(2, math.Floor(math.Log2(xmin)))
		xmax = math.Pow(2, math.Ceil(math.Log2(xmax)))
		if xmin == xmax {
			xmax *= 2
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = log2Ticks{}
	} else {
		if xmin == xmax {
			xmin, xmax = xmin-0.5, xmax+0.5
		}
		p.X.Tick.Marker = linearTicks{}
	}
	if r := d.f.XRange; r[0] < r[1] {
		if logX && r[0] <= 0 {
			d.note("x_range %v ignored: the x axis is logarithmic", r)
		} else {
			xmin, xmax = r[0], r[1]
		}
	}
	if r := d.f.YRange; r[0] < r[1] {
		if logY && r[0] <= 0 {
			d.note("y_range %v ignored: the y axis is logarithmic", r)
		} else {
			ymin, ymax = r[0], r[1]
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	d.lim = [4]float64{xmin, xmax, ymin, ymax}
	d.items = append([]plot.Plotter{plotter.NewGrid()}, d.items...)
}

// target shades the privacy target: e^eps <= eMax (NaN: any) and delta <=
// dMax (NaN: any), within the axes. It must run after finishAxes and is
// drawn below the lines.
func (d *drawer) target(p *plot.Plot, eMax, dMax float64) {
	var x0, x1, y0, y1 float64
	switch d.f.Kind {
	case manifest.FigureDeltaEEps:
		x0, x1, y0, y1 = p.X.Min, math.Min(eMax, p.X.Max), p.Y.Min, math.Min(dMax, p.Y.Max)
	case manifest.FigureEEpsR:
		x0, x1, y0, y1 = p.X.Min, p.X.Max, p.Y.Min, math.Min(eMax, p.Y.Max)
	case manifest.FigureDeltaR:
		x0, x1, y0, y1 = p.X.Min, p.X.Max, p.Y.Min, math.Min(dMax, p.Y.Max)
	}
	if !(x1 > x0 && y1 > y0) {
		d.note("privacy target lies outside the axes")
		return
	}
	poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	if err != nil {
		return
	}
	poly.Color = colorTarget
	poly.LineStyle.Width = 0
	// Drawn below everything else.
	d.items = append([]plot.Plotter{poly}, d.items...)
	d.legend = append(d.legend, legendEntry{"privacy target (e^ε ≤ 2, δ ≤ 1e-4)", poly})
}

// sciNumber formats x for labels: 1e-05 becomes 1e-5. (The plot fonts
// lack the superscript digits 0 and 9 and the superscript minus.)
func sciNumber(x float64) string {
	e := math.Round(math.Log10(x))
	if x < 1 && math.Abs(x/math.Pow(10, e)-1) < 1e-9 {
		return fmt.Sprintf("1e%d", int(e))
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// save writes the plot with its legend below to base.png, .svg and .pdf.
func (d *drawer) save(p *plot.Plot, base string) ([]string, error) {
	cols := 1
	switch n := len(d.legend); {
	case n > 10:
		cols = 3
	case n > 3:
		cols = 2
	}
	if cols == 3 && d.maxLegendWidth() > plotWidth/3-30 {
		cols = 2
	}
	if cols == 2 && d.maxLegendWidth() > plotWidth/2-30 {
		cols = 1
	}
	rows := (len(d.legend) + cols - 1) / cols
	probe := plot.NewLegend()
	probe.TextStyle.Font.Size = legendSize
	lineH := probe.TextStyle.Height("Xg") + 2.5 // entry height + Padding
	legendH := vg.Length(rows)*lineH + 10
	if len(d.legend) == 0 {
		legendH = 0
	}
	w, h := plotWidth, plotHeight+legendH
	var files []string
	for _, ext := range []string{"png", "svg", "pdf"} {
		var c vg.CanvasWriterTo
		switch ext {
		case "png":
			c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))}
		case "svg":
			c = vgsvg.New(w, h)
		default:
			c = vgpdf.New(w, h)
		}
		dc := draw.New(c)
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		top := dc
		top.Min.Y += legendH
		top.Max.X -= rightMargin(p)
		p.Draw(top)
		colW := (dc.Max.X - dc.Min.X) / vg.Length(cols)
		for i := 0; i < cols; i++ {
			l := plot.NewLegend()
			l.Top, l.Left = true, true
			l.XOffs = 10
			l.YOffs = -4
			l.TextStyle.Font.Size = legendSize
			l.ThumbnailWidth = 28
			l.Padding = 2.5
			for j := i * rows; j < (i+1)*rows && j < len(d.legend); j++ {
				if d.legend[j].thumb == nil {
					l.Add(d.legend[j].name)
				} else {
					l.Add(d.legend[j].name, d.legend[j].thumb)
				}
			}
			sub := dc
			sub.Max.Y = dc.Min.Y + legendH
			sub.Min.X = dc.Min.X + colW*vg.Length(i)
			sub.Max.X = sub.Min.X + colW
			l.Draw(sub)
		}
		path := base + "." + ext
		if err := writeAtomic(path, c); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// rightMargin is the room the plot leaves at its right edge for the half
// of the last x tick label that extends beyond the axis (gonum/plot
// centres it on the axis end and would clip it: the "60" of Figure 11).
func rightMargin(p *plot.Plot) vg.Length {
	var last plot.Tick
	found := false
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.Label != "" && t.Value <= p.X.Max && (!found || t.Value > last.Value) {
			last, found = t, true
		}
	}
	if !found {
		return 2
	}
	return p.X.Tick.Label.Width(last.Label)/2 + 2
}

func (d *drawer) maxLegendWidth() vg.Length {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = legendSize
	var w vg.Length
	for _, e := range d.legend {
		w = max(w, l.TextStyle.Width(e.name))
	}
	return w + 28 + 20
}

// writeAtomic writes c (a canvas, or bytes.NewReader of a file's bytes)
// to path atomically, with the permissions of os.Create.
func writeAtomic(path string, c io.WriterTo) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}
