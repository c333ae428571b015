package plots

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// coincideTolerance is the largest relative gap between an upper and a
// lower bound, (upper - lower)/upper at every x where both are drawn, at
// which boundPair gives the pair one legend entry. On the figures' log
// axes (several decades over 4.3 inches) 2% is less than a line's width.
const coincideTolerance = 0.02

// underWidth is how much wider than the upper bound a lower bound is
// drawn (beneath it), so that where the two coincide the lower one shows
// on both sides of the upper one.
const underWidth = 1.75

// bound is one line of a bracket: its points, colour and legend label.
type bound struct {
	xys   plotter.XYs
	color color.Color
	label string
}

// boundPair draws the upper and the lower bound of one series (either may
// have no points: not shown). When both are drawn, the lower bound goes
// first and underWidth times as wide, the upper one on top, so that neither hides
// the other where they coincide. When they agree within
// coincideTolerance at every x where both are drawn (and within the
// figure's x range), the legend gets one entry for both, "name (upper =
// lower within X%)", with X the largest gap measured (rounded up), and a
// thumbnail of both lines; otherwise one entry each. It reports which
// bounds were drawn.
func (d *drawer) boundPair(up, lo bound, logX, logY bool, dash []vg.Length, width vg.Length, name string) (upOK, loOK bool) {
	ups, los := drawable(up.xys, logX, logY), drawable(lo.xys, logX, logY)
	upOK, loOK = len(ups) > 0, len(los) > 0
	if !upOK || !loOK {
		if upOK {
			d.legend = append(d.legend, legendEntry{up.label, d.addPoints(ups, up.color, dash, width)})
		}
		if loOK {
			d.legend = append(d.legend, legendEntry{lo.label, d.addPoints(los, lo.color, dash, width)})
		}
		return upOK, loOK
	}
	loThumb := d.addPoints(los, lo.color, dash, underWidth*width)
	upThumb := d.addPoints(ups, up.color, dash, width)
	if gap, ok := largestGap(ups, los, d.f.XRange); ok && gap <= coincideTolerance {
		d.legend = append(d.legend, legendEntry{name + " (upper = lower " + describeGap(gap) + ")", stackedThumb{loThumb, upThumb}})
		return true, true
	}
	d.legend = append(d.legend, legendEntry{up.label, upThumb}, legendEntry{lo.label, loThumb})
	return true, true
}

// largestGap returns the largest relative gap |upper - lower| / max(|upper|,
// |lower|) over the x values where both lines have a point (within xRange
// when it is set); ok is false when there is no such x. Both are sorted by
// x (drawable).
func largestGap(ups, los plotter.XYs, xRange [2]float64) (gap float64, ok bool) {
	lower := make(map[float64]float64, len(los))
	for _, pt := range los {
		lower[pt.X] = pt.Y
	}
	for _, pt := range ups {
		if xRange[0] < xRange[1] && (pt.X < xRange[0] || pt.X > xRange[1]) {
			continue
		}
		l, both := lower[pt.X]
		if !both {
			continue
		}
		ok = true
		if m := math.Max(math.Abs(pt.Y), math.Abs(l)); m > 0 {
			gap = math.Max(gap, math.Abs(pt.Y-l)/m)
		}
	}
	return gap, ok
}

// describeGap says how close an upper and a lower bound are: "exactly" for
// no gap, else "within X%" with X the gap in percent, two significant
// digits rounded up (not understating it beyond the rounding error of the
// gap's own computation, which the factor 1 - 1e-12 absorbs: a gap of
// 0.012 is "within 1.2%", not 1.3%).
func describeGap(gap float64) string {
	if gap == 0 {
		return "exactly"
	}
	pct := 100 * gap
	scale := math.Pow(10, math.Floor(math.Log10(pct))-1)
	up := math.Ceil(pct/scale*(1-1e-12)) * scale
	x := strconv.FormatFloat(up, 'g', 2, 64)
	x = strings.Replace(strings.Replace(x, "e-0", "e-", 1), "e+0", "e+", 1) // 5.6e-06 as 5.6e-6
	return "within " + x + "%"
}

// stackedThumb draws several legend thumbnails on top of each other (a
// lower bound drawn beneath an upper one).
type stackedThumb []plot.Thumbnailer

// Thumbnail implements plot.Thumbnailer.
func (s stackedThumb) Thumbnail(c *draw.Canvas) {
	for _, t := range s {
		if t != nil {
			t.Thumbnail(c)
		}
	}
}
