package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// fullCount returns the PMF of a count on 0..hi (0 below lo).
func fullCount(d countDist) []float64 {
	p := make([]float64, d.hi()+1)
	for k := d.lo; k <= d.hi(); k++ {
		p[k] = d.at(k)
	}
	return p
}

// TestGaussCountSumsEncloseDirect checks every entry of the accurate Gauss
// count sums (gaussSumCounts: the Poisson-summation closed form, the
// direct sums where the clamp at 0 matters, the FFT elsewhere) against the
// direct convolution of the counts in double-double, on both sides, and
// that they resolve the pair to gaussSumTarget: small scales (direct sums
// only), scales where the closed form applies with the clamp negligible or
// not (mu/scale from 2.5), non-integer means.
func TestGaussCountSumsEncloseDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	type tc struct{ mu, scale float64 }
	cases := []tc{{4, 1}, {30, 9}, {100, 25}, {70, 28}, {400, 40}, {1000, 30}}
	for range 6 {
		sc := 20 + 60*rng.Float64()
		cases = append(cases, tc{sc * (2.5 + 10*rng.Float64()), sc})
	}
	for _, c := range cases {
		mu, scale := c.mu, c.scale
		xa := newCountDist(NoiseGauss, mu, scale, dialTail)
		xb := newCountDist(NoiseGauss, mu+2, scale, dialTail)
		ya := newCountDist(NoiseGauss, mu/2, scale/2, dialTail)
		yb := newCountDist(NoiseGauss, mu/2+1, scale/2, dialTail)
		s, target, err := gaussSumCounts(context.Background(), xa, xb, ya, yb, mu, mu+2, scale, mu/2, mu/2+1, scale/2)
		if err != nil {
			t.Fatal(err)
		}
		if target > gaussSumTarget {
			t.Errorf("mu=%v scale=%v: target %v, want at most %v", mu, scale, target, gaussSumTarget)
		}
		// The reference: the counts to tails of 1e-300 (the sums' own are
		// cut at convTail), convolved in double-double.
		ref := func(m, sc float64) countDist { return newCountDist(NoiseGauss, m, sc, 1e-300) }
		rxa, rxb, rya, ryb := ref(mu, scale), ref(mu+2, scale), ref(mu/2, scale/2), ref(mu/2+1, scale/2)
		za := ddConvolve(fullCount(rxa), fullCount(rya))
		zb := ddConvolve(fullCount(rxb), fullCount(ryb))
		// The reference's own error: the count masses' (both factors) and
		// the tails beyond 1e-300.
		refRel := 2*math.Max(rxa.rel, rya.rel) + 1e-15
		unresolved := 0.0
		for k := range s.a {
			c := s.lo + k
			if c >= len(za) {
				continue
			}
			for _, side := range []struct {
				name      string
				ref, v, e float64
				lb, ub    float64
			}{{"A", za[c], s.a[k], s.ea[k], s.lbA[k], s.ubA[k]}, {"B", zb[c], s.b[k], s.eb[k], s.lbB[k], s.ubB[k]}} {
				slack := refRel*side.ref + 1e-295
				if math.Abs(side.ref-side.v) > side.e+slack || side.ref < side.lb-slack || side.ref > side.ub+slack {
					t.Fatalf("mu=%v scale=%v: %s(%d) = %.17g outside %.17g +- %.3g [%.17g, %.17g] (rel %.3g)",
						mu, scale, side.name, c, side.ref, side.v, side.e, side.lb, side.ub, s.rel[k])
				}
			}
			if s.rel[k] > target {
				unresolved += math.Max(za[c], zb[c])
			}
		}
		if unresolved > 1e-40 {
			t.Errorf("mu=%v scale=%v: unresolved mass %.3g", mu, scale, unresolved)
		}
	}
}

// TestGaussSumClosedForm checks the closed form D(k) (gaussSumD: the
// density of the unclamped sum, by Poisson summation) against the direct
// convolution of unclamped counts far from 0, where the clamp does not
// matter, to within its stated error plus the reference's.
func TestGaussSumClosedForm(t *testing.T) {
	for _, c := range []struct{ m1, s1, m2, s2 float64 }{
		{1000, 20, 500, 10}, {1000.3, 25, 499.7, 12.5}, {3000, 60, 1500, 30}, {2000, 40, 1000, 25},
	} {
		x := newCountDist(NoiseGauss, c.m1, c.s1, 1e-300)
		y := newCountDist(NoiseGauss, c.m2, c.s2, 1e-300)
		z := ddConvolve(fullCount(x), fullCount(y))
		refRel := 2*math.Max(x.rel, y.rel) + 1e-15
		checked, worst := 0, 0.0
		for k := x.lo + y.lo + 2; k < len(z); k++ {
			if z[k] < 1e-290 {
				continue
			}
			lnD, e := gaussSumD(k, c.m1, c.s1, c.m2, c.s2)
			got := math.Log(z[k])
			if d := math.Abs(got - lnD); d > e+refRel+1e-15 {
				t.Fatalf("%+v: k=%d ln z %.17g, ln D %.17g +- %.3g", c, k, got, lnD, e)
			} else {
				worst = math.Max(worst, d)
			}
			checked++
		}
		if checked < 100 {
			t.Errorf("%+v: only %d entries checked", c, checked)
		}
		t.Logf("%+v: %d entries, largest |ln z - ln D| %.3g", c, checked, worst)
	}
}

// TestGaussSumDHighPrecision checks ln D(k) (gaussSumD) against 50-digit
// quadratures of int_0^2 tri(v) phi_S(k-v) dv (mpmath at 80 digits, two
// subdivisions agreeing to 1e-30; in the bulk and out
// to 15 standard deviations): within the stated error bound, which stays
// below 1e-12. Without the bound (0) the check fails.
func TestGaussSumDHighPrecision(t *testing.T) {
	for _, c := range []struct {
		m1, s1, m2, s2 float64
		k              int
		lnD            float64
	}{
		{1000, 20, 500, 10, 1501, -4.026409229639930759258181},
		{1000, 20, 500, 10, 1400, -14.22401084408792634135854},
		{1000, 20, 500, 10, 1700, -43.61422934226304624080957},
		{1000, 20, 500, 10, 1200, -94.59730654960124598373004},
		{1000, 20, 500, 10, 1850, -125.7869818046117519769275},
		{150000, 10300, 75000, 5150, 225001, -10.27040948370790203094748},
		{150000, 10300, 75000, 5150, 180000, -17.90577567639289755269083},
		{150000, 10300, 75000, 5150, 300000, -31.47825185878837794567463},
		{150000, 10300, 75000, 5150, 100000, -69.18359633020529552388586},
		{150000, 10300, 75000, 5150, 400000, -125.7370885769725170293175},
		{15000.5, 2500, 7500.25, 1250, 22502, -8.85455633438473623858987},
		{15000.5, 2500, 7500.25, 1250, 5000, -28.4584761081677958785037},
		{15000.5, 2500, 7500.25, 1250, 45000, -41.24951583529231022377746},
		{15000.5, 2500, 7500.25, 1250, 60000, -98.84615460656432938295062},
	} {
		got, e := gaussSumD(c.k, c.m1, c.s1, c.m2, c.s2)
		// the reference as a float64: half an ulp
		slack := math.Abs(c.lnD) * unitRoundoff
		if d := math.Abs(got - c.lnD); d > e+slack {
			t.Errorf("%+v: ln D %.17g, off by %.3g > bound %.3g", c, got, d, e)
		}
		if e > 1e-12 {
			t.Errorf("%+v: error bound %.3g above 1e-12", c, e)
		}
	}
}

// TestConversationGaussEnumerated composes small integer-rounded Gauss
// conversation pairs r = 1..6 times and checks both directions of delta
// against exact enumeration of the r-fold product (multisets of events)
// from reference masses computed apart from the engine's sums: the counts
// by differences of normal distribution functions (directCount), their
// sums by double-double convolution, widened by 1e-12 relative. At eps
// out to where delta is about 1e-300: the bounds are on the right side of
// the exact values, and within 10x of them (delta_low non-zero) where they
// are at least 1e-20. (Below, delta_up reaches 90x at r = 2, eps = 45: the
// buckets' far tail, not the masses; with the FFT sums it was 1e-3 flat.)
func TestConversationGaussEnumerated(t *testing.T) {
	t.Parallel()
	eps := []float64{0, 0.2, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 45, 70, 100, 150, 250, 400, 690}
	for _, c := range []struct {
		mu, scale float64
		r         []int
		drop      float64 // reference events below it (both masses) go to the rest
	}{
		{4, 1, []int{1, 2, 3}, 1e-310},
		{4, 1, []int{4, 5, 6}, 1e-30},
		{6, 1.5, []int{1, 2}, 1e-310},
		{6, 1.5, []int{3, 4}, 1e-25},
	} {
		m, err := VuvuzelaConversation(NoiseGauss, c.mu, c.scale)
		if err != nil {
			t.Fatal(err)
		}
		K := int(c.mu + 40*c.scale)
		za := ddConvolve(directCount(NoiseGauss, c.mu, c.scale, K), directCount(NoiseGauss, c.mu/2, c.scale/2, K))
		zb := ddConvolve(directCount(NoiseGauss, c.mu+2, c.scale, K), directCount(NoiseGauss, c.mu/2+1, c.scale/2, K))
		const w = 1e-12
		var aLo, aHi, bLo, bHi []float64
		rest := 0.0
		for k := range za {
			if za[k] == 0 || zb[k] == 0 {
				rest += math.Max(za[k], zb[k])
				continue
			}
			if za[k] < c.drop && zb[k] < c.drop {
				rest += math.Max(za[k], zb[k]) * (1 + w)
				continue
			}
			aLo, aHi = append(aLo, za[k]*(1-w)), append(aHi, za[k]*(1+w))
			bLo, bHi = append(bLo, zb[k]*(1-w)), append(bHi, zb[k]*(1+w))
		}
		res, err := ComposeMany(context.Background(), m, c.r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for ri, r := range c.r {
			abLo, abHi, baLo, baHi := multisetDelta(aLo, aHi, bLo, bHi, rest, rest, r, eps)
			for i, e := range eps {
				d := res[ri].Delta(e)
				for _, s := range []struct {
					dir            string
					lo, up, ex, eh float64
				}{{"A||B", d.LowerAB, d.UpperAB, abLo[i], abHi[i]}, {"B||A", d.LowerBA, d.UpperBA, baLo[i], baHi[i]}} {
					if s.up < s.ex || s.lo > s.eh {
						t.Errorf("mu=%v scale=%v r=%d eps=%v %s: [%.4g, %.4g] misses the exact [%.4g, %.4g]", c.mu, c.scale, r, e, s.dir, s.lo, s.up, s.ex, s.eh)
					}
					if s.ex >= 1e-20 && s.up > 10*s.eh {
						t.Errorf("mu=%v scale=%v r=%d eps=%v %s: delta_up %.4g above 10x the exact %.4g", c.mu, c.scale, r, e, s.dir, s.up, s.eh)
					}
					if s.ex >= 1e-20 && !(s.lo*10 >= s.ex) {
						t.Errorf("mu=%v scale=%v r=%d eps=%v %s: delta_low %.4g below a tenth of the exact %.4g", c.mu, c.scale, r, e, s.dir, s.lo, s.ex)
					}
					if testing.Verbose() && r == c.r[len(c.r)-1] {
						t.Logf("mu=%v scale=%v r=%d eps=%v %s: [%.4g, %.4g] exact [%.4g, %.4g]", c.mu, c.scale, r, e, s.dir, s.lo, s.up, s.ex, s.eh)
					}
				}
			}
		}
	}
}
