package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// ddConvolve convolves x and y in double-double arithmetic (every product
// and sum error-free up to 2^-104 relative): z[k] = sum x[i] y[k-i].
func ddConvolve(x, y []float64) []float64 {
	hi := make([]float64, len(x)+len(y)-1)
	lo := make([]float64, len(hi))
	for i, a := range x {
		if a == 0 {
			continue
		}
		for j, b := range y {
			p := a * b
			pe := math.FMA(a, b, -p)
			s := hi[i+j] + p
			bb := s - hi[i+j]
			e := (hi[i+j] - (s - bb)) + (p - bb)
			hi[i+j] = s
			lo[i+j] += e + pe
		}
	}
	for k := range hi {
		hi[k] += lo[k]
	}
	return hi
}

// TestLaplaceSumClosedForm checks the closed-form sum of two Laplace counts
// against their direct convolution in double-double, entry by entry within
// the stated relative errors (plus those of the count masses the direct
// convolution starts from), on both sides, for integer and non-integer
// means, means below 1 and scales below 1.
func TestLaplaceSumClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 20))
	cases := []struct{ mu, scale float64 }{{0, 1}, {0.5, 0.7}, {3, 2}, {20, 3}, {7.5, 0.7}, {300, 20}}
	for i := 0; i < 10; i++ {
		cases = append(cases, struct{ mu, scale float64 }{5 + 400*rng.Float64(), 0.5 + 40*rng.Float64()})
	}
	for _, c := range cases {
		xa := newCountDist(NoiseLaplace, c.mu, c.scale, convTail)
		xb := newCountDist(NoiseLaplace, c.mu+2, c.scale, convTail)
		ya := newCountDist(NoiseLaplace, c.mu/2, c.scale/2, convTail)
		yb := newCountDist(NoiseLaplace, c.mu/2+1, c.scale/2, convTail)
		s := laplaceSumCounts(xa, xb, ya, yb, c.mu, c.mu+2, c.scale, c.mu/2, c.mu/2+1, c.scale/2)
		if s == nil {
			t.Fatalf("%+v: closed form refused", c)
		}
		full := func(d countDist) []float64 {
			p := make([]float64, d.hi()+1)
			for k := d.lo; k <= d.hi(); k++ {
				p[k] = d.at(k)
			}
			return p
		}
		for side, zd := range [][]float64{ddConvolve(full(xa), full(ya)), ddConvolve(full(xb), full(yb))} {
			v, e := s.a, s.ea
			rd := xa.rel + ya.rel
			if side == 1 {
				v, e, rd = s.b, s.eb, xb.rel+yb.rel
			}
			for k := range v {
				cnt := s.lo + k
				if cnt >= len(zd) || zd[cnt] < 1e-30 {
					continue
				}
				if d := math.Abs(v[k] - zd[cnt]); d > e[k]+(rd+1e-15)*zd[cnt] {
					t.Fatalf("%+v side %d: P(sum = %d) = %v +- %v, direct %v (off by %.3g relative)", c, side, cnt, v[k], e[k], zd[cnt], d/zd[cnt])
				}
				if s.rel[k] > 1e-12 {
					t.Errorf("%+v side %d: P(sum = %d) known to %.3g only", c, side, cnt, s.rel[k])
				}
			}
		}
	}
}

// TestLaplaceSumMatchesFFT: at a paper-like scale the closed form's
// enclosures intersect the tilted FFT's (countsum.go) at every entry, and
// are narrower.
func TestLaplaceSumMatchesFFT(t *testing.T) {
	t.Parallel()
	mu, scale := 20000.0, 1200.0
	xa := newCountDist(NoiseLaplace, mu, scale, convTail)
	xb := newCountDist(NoiseLaplace, mu+2, scale, convTail)
	ya := newCountDist(NoiseLaplace, mu/2, scale/2, convTail)
	yb := newCountDist(NoiseLaplace, mu/2+1, scale/2, convTail)
	f, err := sumCounts(context.Background(), xa, xb, ya, yb)
	if err != nil {
		t.Fatal(err)
	}
	s := laplaceSumCounts(xa, xb, ya, yb, mu, mu+2, scale, mu/2, mu/2+1, scale/2)
	if s == nil || s.lo != f.lo || len(s.a) != len(f.a) {
		t.Fatal("closed form refused or on another range")
	}
	for k := range s.a {
		if s.lbA[k] > f.ubA[k] || s.ubA[k] < f.lbA[k] || s.lbB[k] > f.ubB[k] || s.ubB[k] < f.lbB[k] {
			t.Fatalf("sum %d: closed form A [%v, %v] B [%v, %v], FFT A [%v, %v] B [%v, %v]", s.lo+k,
				s.lbA[k], s.ubA[k], s.lbB[k], s.ubB[k], f.lbA[k], f.ubA[k], f.lbB[k], f.ubB[k])
		}
	}
}

// TestConversationLaplaceResolved: the Laplace conversation pair of Figure
// 20 has its masses known to 1e-12 relative (the FFT sum resolved them to
// sumTarget = 3e-9 only, which at r = 2^19 left the claim undecided).
func TestConversationLaplaceResolved(t *testing.T) {
	t.Parallel()
	m, err := VuvuzelaConversation(NoiseLaplace, 112500, 6900)
	if err != nil {
		t.Fatal(err)
	}
	cm := m.(*countMech)
	if err := cm.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cm.rel > 1e-12 {
		t.Errorf("relative error of the masses %.3g, want <= 1e-12", cm.rel)
	}
	if cm.unknownA[1] > 1e-45 || cm.unknownB[1] > 1e-45 {
		t.Errorf("unresolved mass A %.3g, B %.3g", cm.unknownA[1], cm.unknownB[1])
	}
}

// TestFigure20Decided: LP(112.5k, 6.9k) at r = 524,288 meets e^eps <= 2 at
// delta 1e-4 (Figure 20's claim): delta_up(ln 2) < 1e-4. With the FFT sum's
// 3e-9 relative error per mass the bracket was [7.1e-5, 1.32e-4].
func TestFigure20Decided(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("r = 2^19 composition (about 6 s)")
	}
	m, err := VuvuzelaConversation(NoiseLaplace, 112500, 6900)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 524288, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Delta(math.Ln2)
	t.Logf("delta(ln 2) in [%.5g, %.5g]", d.Lower, d.Upper)
	// measured [9.5341e-5, 9.5358e-5] (count pairs summed per bucket
	// with compensation; [9.4809e-5, 9.5375e-5] before)
	if !(d.Upper < 9.55e-5) || !(d.Lower > 9.52e-5) {
		t.Errorf("delta(ln 2) in [%.5g, %.5g], want it within [9.52e-5, 9.55e-5] (below 1e-4: the claim holds)", d.Lower, d.Upper)
	}
}

// TestFarTailLaplaceConversationLower: Figure 19a's LP-low (150k, 7.3k) at
// r = 65,536 has lower bounds alive in the far tail (they were 0 from
// e^eps 1.6 on), within 10x of the upper bounds down to about 1e-19, and
// never above them.
func TestFarTailLaplaceConversationLower(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("r = 2^16 composition (about 5 s)")
	}
	m, err := VuvuzelaConversation(NoiseLaplace, 150000, 7300)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 65536, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ eeps, within float64 }{{1.3, 1.01}, {1.6, 1.5}, {1.7, 3}, {1.8, 3}, {1.9, 10}, {2, 1e3}} {
		d := res.Delta(math.Log(c.eeps))
		t.Logf("e^eps %v: [%.4g, %.4g]", c.eeps, d.Lower, d.Upper)
		if !(d.Lower > 0) || d.Lower > d.Upper || d.Upper > c.within*d.Lower {
			t.Errorf("e^eps %v: [%.4g, %.4g], want a lower bound within %vx of the upper", c.eeps, d.Lower, d.Upper, c.within)
		}
	}
}
