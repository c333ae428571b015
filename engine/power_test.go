package engine

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// TestPowerGaussClosedForm checks the power path's bounds on the Gauss
// pair against the closed form of delta (the last two cases in two stages,
// powerStagesFor).
func TestPowerGaussClosedForm(t *testing.T) {
	cases := []struct {
		sigma float64
		r     int
	}{{200 * math.Sqrt2, 512}, {2, 100}, {10, 1000}, {1, 7}, {200 * math.Sqrt2, 1 << 20}, {50, 1 << 16}}
	for _, c := range cases {
		m, err := Gauss(c.sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: 1 << 14, power: powerOn})
		if err != nil {
			t.Fatal(err)
		}
		if res.g == nil || res.g.compositions != c.r || res.g.squarings != 0 || res.l != nil {
			t.Fatalf("sigma=%v r=%d: not composed by the power path", c.sigma, c.r)
		}
		if staged := ruleStages(m, c.r, 2*res.g.n, Options{Buckets: 1 << 14, power: powerOn}); staged != (c.r >= 1<<16) {
			t.Errorf("sigma=%v r=%d: two stages %v", c.sigma, c.r, staged)
		}
		mu := math.Sqrt(float64(c.r)) / c.sigma
		for _, eps := range []float64{0, 0.001, 0.01, 0.1, 0.3, 0.7, 1, 2, 4} {
			ex := exactGauss(mu, eps)
			d := res.Delta(eps)
			t.Logf("sigma=%v r=%d eps=%v: [%.10g, %.10g] exact %.10g", c.sigma, c.r, eps, d.Lower, d.Upper, ex)
			if d.Upper < ex*(1-1e-13) || d.Lower > ex*(1+1e-13) {
				t.Errorf("sigma=%v r=%d eps=%v: [%.10g, %.10g] does not contain exact %.10g", c.sigma, c.r, eps, d.Lower, d.Upper, ex)
			}
		}
	}
}

// TestPowerFloorRange checks the power path with a question's floor
// (Options.DeltaFloor: the range of powerTailBudget): on the Gauss pair
// the bracket at the eps of the floor's delta contains the closed form and
// is no wider than without the floor; on DP-SGD rows the relative eps
// bracket at the floor's delta is no wider than without it (the range
// narrows, so does the grid's spacing).
func TestPowerFloorRange(t *testing.T) {
	ctx := context.Background()
	g, err := Gauss(200*math.Sqrt2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(512) / (200 * math.Sqrt2)
	for _, floor := range []float64{1e-3, 1e-6} {
		eps := gaussEpsAt(mu, floor)
		ex := exactGauss(mu, eps)
		var w [2]float64
		for i, o := range []Options{{Buckets: 1 << 14, power: powerOn}, {Buckets: 1 << 14, power: powerOn, DeltaFloor: floor}} {
			res, err := Compose(ctx, g, 512, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.g == nil || res.g.squarings != 0 {
				t.Fatalf("Gauss floor %v: not composed by the power path", o.DeltaFloor)
			}
			d := res.Delta(eps)
			if d.Upper < ex*(1-1e-13) || d.Lower > ex*(1+1e-13) {
				t.Errorf("Gauss floor %v: [%.10g, %.10g] does not contain exact %.10g", o.DeltaFloor, d.Lower, d.Upper, ex)
			}
			w[i] = (d.Upper - d.Lower) / ex
		}
		t.Logf("Gauss r 512 at delta %v: relative width %.3g without the floor, %.3g with it", floor, w[0], w[1])
		if !(w[1] <= w[0]) {
			t.Errorf("Gauss r 512 at delta %v: the floor widened the bracket from %.3g to %.3g", floor, w[0], w[1])
		}
	}
	for _, c := range []struct {
		sigma, q float64
		r        int
		delta    float64
	}{{1.1, 0.01, 10000, 1e-5}, {4, 0.01, 65536, 1e-5}, {1, 0.001, 250000, 1e-6}} {
		m, err := SGD(c.sigma, c.q)
		if err != nil {
			t.Fatal(err)
		}
		var w [2]float64
		for i, floor := range []float64{0, c.delta} {
			res, err := Compose(ctx, m, c.r, Options{Buckets: 1 << 16, power: powerOn, DeltaFloor: floor})
			if err != nil {
				t.Fatal(err)
			}
			if res.g == nil || res.g.squarings != 0 {
				t.Fatalf("SGD(%v, %v) r %d: not composed by the power path", c.sigma, c.q, c.r)
			}
			e := res.Eps(c.delta)
			w[i] = (e.Upper - e.Lower) / e.Upper
		}
		t.Logf("SGD(%v, %v) r %d at delta %v: relative width %.3g without the floor, %.3g with it", c.sigma, c.q, c.r, c.delta, w[0], w[1])
		if !(w[1] <= w[0]) {
			t.Errorf("SGD(%v, %v) r %d at delta %v: the floor widened the bracket from %.3g to %.3g", c.sigma, c.q, c.r, c.delta, w[0], w[1])
		}
	}
}

// bigPower returns the linear r-fold convolution power of v (v[i] at index
// i) to 200 bits, by repeated squaring.
func bigPower(v []float64, r int) []*big.Float {
	conv := func(x, y []*big.Float) []*big.Float {
		out := make([]*big.Float, len(x)+len(y)-1)
		for i := range out {
			out[i] = new(big.Float).SetPrec(200)
		}
		t := new(big.Float).SetPrec(200)
		for i, xi := range x {
			if xi.Sign() == 0 {
				continue
			}
			for j, yj := range y {
				out[i+j].Add(out[i+j], t.Mul(xi, yj))
			}
		}
		return out
	}
	base := make([]*big.Float, len(v))
	for i, x := range v {
		base[i] = new(big.Float).SetPrec(200).SetFloat64(x)
	}
	var acc []*big.Float
	for ; r > 0; r >>= 1 {
		if r&1 == 1 {
			if acc == nil {
				acc = base
			} else {
				acc = conv(acc, base)
			}
		}
		if r > 1 {
			base = conv(base, base)
		}
	}
	return acc
}

// TestPowerComposeBruteForce checks the whole error model of the power
// path's list (powerCompose) against the exact r-fold power (200-bit
// floats) of small random grid leaves, with output ranges that cut the
// composed mass (aliasing and corners matter): every entry within its
// pointwise bound (relA value + min over tilts of the envelopes), the
// tilted total errors tl1A, tl1C, and the mass beyond the range within the
// corners, for both pairs.
func TestPowerComposeBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	trials := 60
	if testing.Short() {
		trials = 15
	}
	worst := 0.0
	for trial := 0; trial < trials; trial++ {
		nl := 4 + 2*rng.IntN(6)
		lam := math.Exp(-4 * rng.Float64())
		leaf := newList(nl, lam, nil)
		leaf.grid = true
		leaf.names = []nameCount{{"leaf", 1}}
		// a few atoms near 0, masses over many orders of magnitude
		for o := 0; o < 2*nl; o++ {
			if rng.IntN(3) == 0 {
				continue
			}
			leaf.a[o] = math.Exp(-30 * rng.Float64() * rng.Float64())
			leaf.c[o] = leaf.a[o] * rng.Float64()
		}
		leaf.relA, leaf.relC = 4*unitRoundoff, 4*unitRoundoff
		leaf.lo, leaf.hi = 0, 2*nl-1
		leaf.trim()
		if leaf.lo > leaf.hi {
			continue
		}
		r := 1 + rng.IntN(40)
		n := nextPow2(nl*(1+rng.IntN(r+2))) / 2 * 2
		n = max(n, nl)
		if n&(n-1) != 0 {
			n = nextPow2(n)
		}
		if trial%2 == 1 && n >= 4 && 3*n/4 >= nl {
			// a transform of 3*2^j points (the power path's other lengths)
			n = 3 * n / 4
		}
		sd := math.Sqrt(float64(r) * leaf.lossVariance())
		if !(sd > 0) {
			sd = lam
		}
		// tilt sets with and without the tilt 0 (without it, the
		// untilted total error comes from Hoelder between the others)
		tau := [][]float64{{0}, {0, 3.5 / sd}, {0, 3.5 / sd, -(3.5/sd + 1)}, {3.5 / sd, -(3.5/sd + 1)}}[rng.IntN(4)]
		tau = append([]float64(nil), tau...)
		for m := range tau {
			tau[m] = math.Max(-200/(float64(n)*lam), math.Min(200/(float64(n)*lam), tau[m]))
		}
		p := &plan{}
		z, err := p.powerCompose(context.Background(), fft.NewPlan(2*n), leaf, r, tau, sd, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := z.bounds()
		desc := fmt.Sprintf("trial %d: nl=%d lambda=%.3g r=%d n=%d tau=%v", trial, nl, lam, r, n, tau)
		for side := 0; side < 2; side++ {
			v, vals, eb, tl1 := leaf.a, z.a, b.ea, z.tl1A
			if side == 1 {
				v, vals, eb, tl1 = leaf.c, z.c, b.ec, z.tl1C
			}
			// index i of the exact power is grid index i + r*(lo - nl + 1)
			ex := bigPower(v[leaf.lo:leaf.hi+1], r)
			g0 := r * (leaf.lo - nl + 1)
			tilted := make([]float64, len(tau))
			var untilted float64   // the untilted total error
			var outA, outB float64 // exact mass beyond the range: A and B (e^-L)
			for i, x := range ex {
				e, _ := x.Float64()
				g := g0 + i
				o := g + n - 1
				if o < 0 || o >= 2*n {
					outA += e
					outB += e * math.Exp(-float64(g)*lam)
					continue
				}
				d := math.Abs(vals[o] - e)
				if d > eb[o] {
					t.Fatalf("%s side %d: offset %d value %.17g exact %.17g: error %.3g above its bound %.3g", desc, side, o, vals[o], e, d, eb[o])
				}
				if eb[o] > 0 {
					worst = math.Max(worst, d/eb[o])
				}
				untilted += d
				for m, tm := range tau {
					tilted[m] += d * math.Exp(tm*z.loss(o))
				}
			}
			for o := 0; o < 2*n; o++ { // offsets the exact power does not reach
				if g := o - n + 1; g < g0 || g >= g0+len(ex) {
					untilted += vals[o]
					for m, tm := range tau {
						tilted[m] += vals[o] * math.Exp(tm*z.loss(o))
					}
				}
			}
			l1 := z.l1A
			if side == 1 {
				l1 = z.l1C
			}
			if untilted > l1*(1+1e-12) {
				t.Fatalf("%s side %d: untilted total error %.3g above l1 %.3g", desc, side, untilted, l1)
			}
			for m := range tau {
				if tilted[m] > tl1[m]*(1+1e-12) {
					t.Fatalf("%s side %d: tilted total error %.3g above tl1 %.3g (tilt %v)", desc, side, tilted[m], tl1[m], tau[m])
				}
			}
			if side == 0 {
				if outA > (z.hiA.upper()+z.loA.upper())*(1+1e-12) {
					t.Fatalf("%s: A-mass beyond the range %.3g above the corners %.3g", desc, outA, z.hiA.upper()+z.loA.upper())
				}
				if outB > (z.hiC.upper()+z.loC.upper())*(1+1e-12) {
					t.Fatalf("%s: B-mass beyond the range %.3g above the corners %.3g", desc, outB, z.hiC.upper()+z.loC.upper())
				}
			}
		}
	}
	t.Logf("largest error / bound: %.3g", worst)
}

// TestPowerResultRoundTrip checks that a result of the power path survives
// the binary encoding (result caches) with the same bounds.
func TestPowerResultRoundTrip(t *testing.T) {
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 1000, Options{Buckets: 1 << 14, power: powerOn})
	if err != nil {
		t.Fatal(err)
	}
	if res.l != nil || res.g == nil || res.g.squarings != 0 {
		t.Fatal("not composed by the power path")
	}
	back := roundTrip(t, res)
	for _, eps := range []float64{0, 0.5, 1, 2, 4} {
		d, e := res.Delta(eps), back.Delta(eps)
		if d.Upper != e.Upper || d.Lower != e.Lower {
			t.Errorf("eps=%v: [%g, %g] became [%g, %g]", eps, d.Lower, d.Upper, e.Lower, e.Upper)
		}
	}
	a, b := res.Eps(1e-5), back.Eps(1e-5)
	if a.Upper != b.Upper || a.Lower != b.Lower {
		t.Errorf("eps(1e-5): [%g, %g] became [%g, %g]", a.Lower, a.Upper, b.Lower, b.Upper)
	}
}
