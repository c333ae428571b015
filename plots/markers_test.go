package plots

import (
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// coincidingResults has RDP and CDP delta bounds that are equal at every
// e^eps from 1 to 60 (as for randomized response in Figure 11).
func coincidingResults() *Results {
	res := &Results{}
	for e := 1.0; e <= 60; e++ {
		up := 0.5 * math.Exp(-math.Log(e)*3)
		for _, meth := range []string{manifest.MethodRDP, manifest.MethodCDP} {
			res.Delta = append(res.Delta, Row{Mechanism: "gauss", ID: "gauss", Method: meth, R: 4, At: math.Log(e), Upper: up, Lower: math.NaN()})
		}
	}
	return res
}

func coincidingFigure(t *testing.T) (*manifest.Manifest, manifest.Figure) {
	t.Helper()
	text := strings.Replace(testfig.Manifest(`name = "c"`, "[4]", "[1e-5]"), `methods = ["buckets", "kov"]`, `methods = ["rdp", "cdp"]`, 1) + `[[figure]]
id = "de"
kind = "delta-eeps"
r = 4
mechanisms = ["gauss"]
`
	m, err := manifest.Load(testfig.WriteFile(t, t.TempDir(), "c.toml", text))
	if err != nil {
		t.Fatal(err)
	}
	return m, m.Figures[0]
}

// Methods whose curves coincide stay told apart: each gets its own
// marker, on points of its own, in the figure and in its legend entry
// (before, CDP's line hid RDP's).
func TestCoincidingMethodsKeepTheirMarkers(t *testing.T) {
	m, f := coincidingFigure(t)
	d := &drawer{m: m, f: f, res: coincidingResults()}
	d.deltaEEps(d.newPlot())
	marked := map[reflect.Type]plotter.XYs{}
	for _, it := range d.items {
		if s, ok := it.(*plotter.Scatter); ok {
			marked[reflect.TypeOf(s.GlyphStyle.Shape)] = append(marked[reflect.TypeOf(s.GlyphStyle.Shape)], s.XYs...)
		}
	}
	circles, triangles := marked[reflect.TypeOf(draw.CircleGlyph{})], marked[reflect.TypeOf(draw.TriangleGlyph{})]
	if len(circles) < 5 || len(triangles) < 5 {
		t.Fatalf("RDP markers %d, CDP markers %d; want several each", len(circles), len(triangles))
	}
	for _, c := range circles {
		for _, tr := range triangles {
			if c == tr {
				t.Errorf("RDP and CDP markers at the same point %v", c)
			}
		}
	}
	shapes := map[string]reflect.Type{}
	for _, e := range d.legend {
		mt, ok := e.thumb.(markedThumb)
		if !ok {
			t.Errorf("legend entry %q has no marker", e.name)
			continue
		}
		shapes[e.name] = reflect.TypeOf(mt.glyph.Shape)
	}
	if len(shapes) != 2 || shapes["RDP / moments accountant"] == shapes["CDP"] {
		t.Errorf("legend markers %v", shapes)
	}
}

// The last x tick label ("60") and the curves that end there are not cut
// at the image's right edge: its last column of pixels is white.
func TestRightEdgeNotClipped(t *testing.T) {
	m, f := coincidingFigure(t)
	dir := t.TempDir()
	if _, _, err := Draw(m, f, coincidingResults(), dir); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(filepath.Join(dir, "de.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	img, err := png.Decode(file)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		if r, g, bl, _ := img.At(b.Max.X-1, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
			t.Fatalf("pixel (%d, %d) at the right edge is not white: something is clipped", b.Max.X-1, y)
		}
	}
}

// Heat-map cell labels contrast with their cell: white on dark cells,
// black on light ones (before, all black).
func TestLabelColor(t *testing.T) {
	dir := t.TempDir()
	m, err := manifest.Load(testfig.WriteFile(t, dir, "p.toml", testManifest))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Figures {
		if f.ID != "hm" {
			continue
		}
		d := &drawer{m: m, f: f, res: fakeResults()}
		if err := d.heatmap(d.newPlot()); err != nil {
			t.Fatal(err)
		}
		white, black := 0, 0
		for _, it := range d.items {
			if l, ok := it.(*plotter.Labels); ok {
				for _, st := range l.TextStyle {
					if st.Color == nil {
						black++ // the default: black
					} else if r, _, _, _ := st.Color.RGBA(); r > 0x8000 {
						white++
					} else {
						black++
					}
				}
			}
		}
		// the lowest and highest values are on the dark ends of the map
		if white == 0 || white+black != 4 {
			t.Errorf("cell labels: %d white, %d black; want the dark cells' white", white, black)
		}
	}
	cm := map[string]struct {
		bg   [3]uint8
		want string
	}{
		"dark red (SmoothBlueRed's top)":     {[3]uint8{180, 4, 38}, "white"},
		"dark blue (SmoothBlueRed's bottom)": {[3]uint8{59, 76, 192}, "white"},
		"light grey (its middle)":            {[3]uint8{221, 221, 221}, "black"},
		"light red":                          {[3]uint8{246, 183, 156}, "black"},
	}
	for name, c := range cm {
		got := "black"
		if r, _, _, _ := labelColor(color.RGBA{c.bg[0], c.bg[1], c.bg[2], 255}).RGBA(); r > 0x8000 {
			got = "white"
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}
