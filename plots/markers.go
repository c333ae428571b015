package plots

import (
	"image/color"
	"slices"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// methodMarkers give every method but buckets a marker shape of its own,
// drawn at a few points of its curves, so that methods whose curves
// coincide (RDP and CDP of randomized response in Figures 11 and 13) stay
// told apart: the line drawn last hides the other, the markers of both
// show. markerOrder staggers the points that carry them, so that markers
// of coinciding curves do not cover each other either.
var (
	methodMarkers = map[string]draw.GlyphDrawer{
		manifest.MethodExact:    draw.PlusGlyph{},
		manifest.MethodKOV:      draw.BoxGlyph{},
		manifest.MethodAdvanced: draw.CrossGlyph{},
		manifest.MethodRDP:      draw.CircleGlyph{},
		manifest.MethodCDP:      draw.TriangleGlyph{},
	}
	markerOrder = []string{manifest.MethodExact, manifest.MethodKOV, manifest.MethodAdvanced, manifest.MethodRDP, manifest.MethodCDP}
)

// markersPerCurve is about how many markers a curve gets.
const markersPerCurve = 8

// markerRadius is the size of a method marker.
const markerRadius = vg.Length(3.2)

// markerStyle returns the marker of method in colour c; ok is false for a
// method without a marker (buckets).
func markerStyle(method string, c color.Color) (draw.GlyphStyle, bool) {
	g, ok := methodMarkers[method]
	return draw.GlyphStyle{Color: c, Radius: markerRadius, Shape: g}, ok
}

// markedPoints returns the points of pts (drawable, sorted by x) that
// carry the markers of method: every step-th, starting at an offset of
// the method's own.
func markedPoints(method string, pts plotter.XYs) plotter.XYs {
	step := max(1, len(pts)/markersPerCurve)
	if len(pts) >= 6 {
		step = max(step, 2) // every other point at least: room to stagger
	}
	offset := 0
	if i := slices.Index(markerOrder, method); i >= 0 {
		offset = (i * max(1, step/len(markerOrder))) % step
	}
	var out plotter.XYs
	for i := offset; i < len(pts); i += step {
		out = append(out, pts[i])
	}
	return out
}

// addMarkers draws the markers of method on the curve pts in colour c.
func (d *drawer) addMarkers(method string, pts plotter.XYs, c color.Color) {
	style, ok := markerStyle(method, c)
	if !ok || len(pts) == 0 {
		return
	}
	s, err := plotter.NewScatter(markedPoints(method, pts))
	if err != nil {
		return
	}
	s.GlyphStyle = style
	d.items = append(d.items, s)
}

// markedThumb is a legend thumbnail with the method's marker on it.
type markedThumb struct {
	line  plot.Thumbnailer
	glyph draw.GlyphStyle
}

// Thumbnail implements plot.Thumbnailer.
func (m markedThumb) Thumbnail(c *draw.Canvas) {
	if m.line != nil {
		m.line.Thumbnail(c)
	}
	c.DrawGlyph(m.glyph, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2})
}
