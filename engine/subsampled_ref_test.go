package engine

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// refLine is one line of testdata/subsampled_ref.txt (gen_subsampled_ref.py,
// mpmath with 60 digits): a kind, float64 inputs, and the reference value.
type refLine struct {
	kind string
	in   []float64
	want float64
}

// readRef reads testdata/subsampled_ref.txt (see readRefFile).
func readRef(t *testing.T) []refLine { return readRefFile(t, "testdata/subsampled_ref.txt") }

// readRefFile reads a file of reference values computed with mpmath: one
// per line, a kind, its inputs and the value last.
func readRefFile(t *testing.T, path string) []refLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		var vals []float64
		for _, s := range fs[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%q: %v", sc.Text(), err)
			}
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			t.Fatalf("%s: %q has no value", path, sc.Text())
		}
		out = append(out, refLine{fs[0], vals[:len(vals)-1], vals[len(vals)-1]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDistributionAccuracy checks normQ, normMassShift and lapMassShift
// against 60-digit references, with the relative bounds that relErr of the
// Gauss, SGD, Laplace and subsampled pairs builds on (the masses of a
// mixture are sums of such terms).
func TestDistributionAccuracy(t *testing.T) {
	u := unitRoundoff
	worst := map[string]float64{}
	bound := map[string]float64{"normq": 8 * u, "normshift": 32 * u, "lapshift": 16 * u}
	for _, r := range readRef(t) {
		var got float64
		switch r.kind {
		case "normq":
			got = normQ(r.in[0])
		case "normshift":
			got = normMassShift(r.in[0], r.in[1], r.in[2])
		case "lapshift":
			got = lapMassShift(r.in[0], r.in[1], r.in[2])
		default:
			continue
		}
		rel := math.Abs(got-r.want) / r.want
		if !(rel <= bound[r.kind]) {
			t.Errorf("%s%v = %.17g, want %.17g (relative error %.3g u > %.3g u)", r.kind, r.in, got, r.want, rel/u, bound[r.kind]/u)
		}
		worst[r.kind] = math.Max(worst[r.kind], rel)
	}
	for k, v := range worst {
		t.Logf("%s: largest relative error %.2f u", k, v/u)
	}
}

// TestLossErrorBounds checks logMix and the privacy-loss functions of the
// subsampled pairs against 60-digit references: the error must be within
// the bound each returns (lossErr includes the effect of rounding the
// shift, which the reference, computed from the float64 shift, does not
// need: the check is conservative).
func TestLossErrorBounds(t *testing.T) {
	worst := map[string]float64{}
	for _, r := range readRef(t) {
		var got, e float64
		switch r.kind {
		case "logmix":
			got, e = logMix(r.in[0], r.in[1])
		case "gaussremove":
			mp := gaussRemove(r.in[0], r.in[1])
			got, e = mp.loss(r.in[2]), mp.lossErr(r.in[2])
		case "gaussantipodal":
			mp := gaussAntipodal(r.in[0], r.in[1])
			got, e = mp.loss(r.in[2]), mp.lossErr(r.in[2])
		case "lapremove":
			lr := newLapRemove(r.in[0], r.in[1])
			mp := lr.middle(0, lr.lm)
			got, e = mp.loss(r.in[2]), mp.lossErr(r.in[2])
		default:
			continue
		}
		d := math.Abs(got - r.want)
		if !(d <= e) {
			t.Errorf("%s%v = %.17g, want %.17g: error %.3g > bound %.3g", r.kind, r.in, got, r.want, d, e)
		}
		// The bounds must also stay small (a formula that loses accuracy,
		// e.g. log1p(q expm1(x)) for q near 1 and x << 0, shows up as a
		// bound far above the rounding of its inputs).
		scale := 1 + math.Abs(r.want)
		for _, v := range r.in {
			scale += math.Abs(v) * (1 + math.Abs(v))
		}
		if r.kind == "logmix" {
			scale = 1 + math.Abs(r.want) + math.Abs(r.in[1]) + math.Abs(math.Log(r.in[0]))
		}
		if e > 64*unitRoundoff*scale {
			t.Errorf("%s%v: error bound %.3g is above 64u times %.3g", r.kind, r.in, e, scale)
		}
		if e > 0 {
			worst[r.kind] = math.Max(worst[r.kind], d/e)
		}
	}
	for k, v := range worst {
		t.Logf("%s: largest error / bound = %.3f", k, v)
	}
}
