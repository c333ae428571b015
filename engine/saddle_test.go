package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
)

// sgdLossMoments returns the first two derivatives of the cumulant
// generating function at tau (tilted mean and variance) of the privacy loss
// L(x) = ln(1 - q + q e^((2x-1)/(2 sigma^2))) of one DP-SGD step under
// A = (1-q) N(0, sigma^2) + q N(1, sigma^2), restricted to losses of at
// most maxL (a list's range: the mass beyond it is in the corner, outside
// the tilted sequences), by the trapezoidal rule on x (independent of the
// buckets: the test's reference for saddleTilt).
func sgdLossMoments(sigma, q, tau, maxL float64) (d1, d2 float64) {
	s2 := sigma * sigma
	lo, hi := -40*sigma, 1+40*sigma+tau*4*s2
	const k = 100000
	h := (hi - lo) / k
	// log of the integrand's weight, shifted by its maximum
	logw := make([]float64, k+1)
	ls := make([]float64, k+1)
	mx := math.Inf(-1)
	for i := range logw {
		x := lo + float64(i)*h
		L := math.Log1p(q * math.Expm1((2*x-1)/(2*s2)))
		if L > maxL {
			logw[i], ls[i] = math.Inf(-1), 0
			continue
		}
		la := logAddExp(math.Log1p(-q)-x*x/(2*s2), math.Log(q)-(x-1)*(x-1)/(2*s2))
		logw[i], ls[i] = la+tau*L, L
		mx = math.Max(mx, logw[i])
	}
	var s0, s1, sq float64
	for i := range logw {
		w := math.Exp(logw[i] - mx)
		if i == 0 || i == k {
			w /= 2
		}
		s0 += w
		s1 += w * ls[i]
		sq += w * ls[i] * ls[i]
	}
	m := s1 / s0
	return m, sq/s0 - m*m
}

// TestSaddleTilt checks the final tilt for heavy right tails: for
// Gaussian losses saddleTilt keeps 3.5 over the standard deviation (within
// the buckets' rounding); for DP-SGD it is the tilt at which the tilted
// mean of the r-fold loss reaches its mean plus 3.5 standard deviations,
// against the moments of the loss computed by quadrature.
func TestSaddleTilt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		sigma float64
		q     float64 // 0: Gauss
		r     int
	}{
		{"gauss 2", 2, 0, 1000},
		{"gauss 282", 282.842712474619, 0, 512},
		{"sgd 1.1/0.01 r=100", 1.1, 0.01, 100},
		{"sgd 1/0.001 r=10000", 1, 0.001, 10000},
		{"sgd 2/0.01 r=100", 2, 0.01, 100},
		{"sgd 0.8/0.05 r=1000", 0.8, 0.05, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m Mechanism
			var err error
			if tc.q == 0 {
				m, err = Gauss(tc.sigma, 1, 0)
			} else {
				m, err = SGD(tc.sigma, tc.q)
			}
			if err != nil {
				t.Fatal(err)
			}
			o, err := Options{Buckets: 40000}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			p, err := newPlan([]Part{{m, tc.r}}, o)
			if err != nil {
				t.Fatal(err)
			}
			tMax := 3.5 / p.finalSD
			T := p.saddle
			if tc.q == 0 {
				if T < 0.99*tMax || T > tMax {
					t.Errorf("Gauss: saddle tilt %v, want 3.5/sd = %v", T, tMax)
				}
				return
			}
			if !(T > 0 && T < tMax) {
				t.Fatalf("saddle tilt %v outside (0, %v)", T, tMax)
			}
			// T* from the quadrature's moments, by bisection on the
			// r-fold K'(tau) = r K_1'(tau)
			r, maxL := float64(tc.r), float64(p.n+1)*p.lambda
			mu, v := sgdLossMoments(tc.sigma, tc.q, 0, maxL)
			target := r*mu + 3.5*math.Sqrt(r*v)
			lo, hi := 0.0, tMax
			for i := 0; i < 40; i++ {
				mid := (lo + hi) / 2
				if d, _ := sgdLossMoments(tc.sigma, tc.q, mid, maxL); r*d > target {
					hi = mid
				} else {
					lo = mid
				}
			}
			// the buckets round each loss by up to a bucket width
			if math.Abs(T-hi) > 0.02*hi {
				t.Errorf("saddle tilt %v, quadrature %v (3.5/sd %v)", T, hi, tMax)
			}
		})
	}
}

// TestSmallDeltaSGD guards the tightness at small delta of subsampled
// Gaussians at few observations: with the final tilts from
// the standard deviation alone (3.5/sd, capped at 60/range) the tilted
// FFT errors of the right tail were relative to moments that the tail
// far beyond 3.5 standard deviations makes astronomically large, and the
// eps brackets at delta 1e-10 were [1.48, +Inf] (sigma 1.1, q 0.01, r =
// 100) at 100,000 buckets; the saddle-point tilt makes them as narrow as
// at delta 1e-5.
func TestSmallDeltaSGD(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sigma, q float64
		r        int
		delta    float64
		width    float64 // (up - low) / low at most
	}{
		{1.1, 0.01, 100, 1e-10, 1e-4},
		{1.1, 0.01, 100, 1e-12, 1e-4},
		{1, 0.001, 1000, 1e-10, 2e-3},
		{1, 0.001, 10000, 1e-8, 1e-2},
		{2, 0.01, 100, 1e-10, 1e-4},
		{1.5, 0.002, 100, 1e-20, 1e-2},
	}
	for _, tc := range tests {
		m, err := SGD(tc.sigma, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compose(context.Background(), m, tc.r, Options{Buckets: 20000})
		if err != nil {
			t.Fatal(err)
		}
		e := res.Eps(tc.delta)
		if w := (e.Upper - e.Lower) / e.Lower; !(w <= tc.width) {
			t.Errorf("sgd sigma %v q %v r %d: eps at delta %v in [%v, %v], relative width %.3g > %.3g", tc.sigma, tc.q, tc.r, tc.delta, e.Lower, e.Upper, w, tc.width)
		}
	}
}

// TestSmallDeltaSGDChain guards the small-delta brackets of a result far
// below the end of its ComposeMany chain: without its group's saddle-point
// tilt on the chain's levels (chaintilts.go; formerly the saddle targets)
// DP-SGD sigma 1.1, q 0.01, r = 1,000 in a chain to
// 100,000 gave [2.596, 2.6617] at delta 1e-10 (alone [2.62565, 2.62569]).
func TestSmallDeltaSGDChain(t *testing.T) {
	t.Parallel()
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	rs := []int{1000, 100000}
	many, err := ComposeMany(context.Background(), m, rs, Options{Buckets: 20000})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Compose(context.Background(), m, rs[0], Options{Buckets: 20000})
	if err != nil {
		t.Fatal(err)
	}
	for _, delta := range []float64{1e-10, 1e-12} {
		e, a := many[0].Eps(delta), alone.Eps(delta)
		if w := (e.Upper - e.Lower) / e.Lower; !(w <= 1e-3) {
			t.Errorf("r = 1,000 of a chain to 100,000: eps at delta %v in [%v, %v] (alone [%v, %v]), relative width %.3g > 1e-3", delta, e.Lower, e.Upper, a.Lower, a.Upper, w)
		}
	}
}

// TestChainTiltGroups checks which results of a chain add tilts to which
// levels (chaintilts.go): groups of counts within a factor 2 of the aims
// total/4^k, the levels up to each group's top adding its tilt (the
// saddle-point tilt for DP-SGD's heavy right tail), at most maxChainTilts
// groups per level, the nearest first.
func TestChainTiltGroups(t *testing.T) {
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Options{Buckets: 4000}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlan([]Part{{m, 100000}}, o)
	if err != nil {
		t.Fatal(err)
	}
	// 100,000/4^k: 25,000, 6,250, 1,562.5, ..., 1.5 (k = 8)
	p.setTargets(m, []int{100000, 60000, 30000, 10, 1000, 10, 5000, 1})
	var tops []int
	for _, g := range p.chainTilts {
		tops = append(tops, g.top)
		own := 3.5 / g.sd
		if !(g.saddle > 0 && g.saddle <= own) {
			t.Errorf("group to %d: saddle tilt %v, want in (0, %v]", g.top, g.saddle, own)
		}
		if g.top <= 3125 && !(g.saddle < 0.9*own) {
			t.Errorf("group to %d: saddle tilt %v, want below 0.9 * %v: DP-SGD's right tail is heavy", g.top, g.saddle, own)
		}
	}
	// 60,000 > 100,000/2: the final tilts serve it; 30,000 and 5,000 fall
	// into the groups of 25,000 and 6,250, 1,000 into 1,562.5's, 10 into
	// 6.1's and 1 into 1.5's
	if want := []int{50000, 12500, 3125, 12, 3}; !slices.Equal(tops, want) {
		t.Fatalf("group tops %v, want %v", tops, want)
	}
	rangeL := 1e-3 // no cap binds
	base := []float64{0, 1e-3, -1e-3}
	for _, tc := range []struct {
		count int
		want  int // groups whose tilts the level adds
	}{{13, 3}, {3125, 3}, {3126, 2}, {50000, 1}, {50001, 0}} {
		got := p.addChainTilts(base, tc.count, rangeL)
		if len(got) != len(base)+2*tc.want {
			t.Errorf("count %d: tilts %v, want %d groups' tilts added", tc.count, got, tc.want)
		}
	}
	// five groups reach the first level: the four nearest add theirs (the
	// saddle-point tilts of the two smallest coincide: three are apart)
	if got := p.addChainTilts(base, 2, rangeL); len(got) > len(base)+2*maxChainTilts || len(got) < len(base)+6 {
		t.Errorf("count 2: tilts %v, want 3 or 4 groups' tilts added", got)
	} else if top := p.addChainTilts(base, 13, rangeL); slices.Contains(got, top[len(top)-1]) {
		t.Errorf("count 2: tilts %v include the farthest group's %v", got, top[len(top)-1])
	}
	if got := p.addChainTilts(base, 2, rangeL); len(base) != 3 || &got[0] == &base[0] {
		t.Errorf("addChainTilts modified its argument or shares its array")
	}
}

// BenchmarkPlanSaddle measures newPlan with the final saddle-point tilt
// (saddle.go) for the DP-SGD rows of BenchmarkLists at the default buckets.
func BenchmarkPlanSaddle(b *testing.B) {
	for _, c := range []struct {
		sigma, q float64
		r        int
	}{{1.1, 0.01, 10000}, {4, 0.01, 65536}, {1, 0.001, 250000}} {
		m, err := SGD(c.sigma, c.q)
		if err != nil {
			b.Fatal(err)
		}
		o, err := Options{}.withDefaults()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("sgd%g_%g_r%d", c.sigma, c.q, c.r), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := newPlan([]Part{{m, c.r}}, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestChainCounts checks which numbers of compositions shape a chain.
func TestChainCounts(t *testing.T) {
	for _, c := range []struct{ rs, want []int }{
		// groups of 1,024/4^k = 256, 64, 16, 4, 1: counts within 2x
		{[]int{1024, 64, 4}, []int{4, 64, 1024}},
		{[]int{16, 1024, 17, 3, 4, 20}, []int{3, 16, 1024}},
		{[]int{513, 1024}, []int{1024}},
		{[]int{512, 300, 1024}, []int{300, 1024}},
		{[]int{7}, []int{7}},
		{nil, nil},
	} {
		if got := ChainCounts(c.rs); !slices.Equal(got, c.want) {
			t.Errorf("ChainCounts(%v) = %v, want %v", c.rs, got, c.want)
		}
	}
}

// TestChainCountsDecideBits checks ChainCounts' promise: calls with the
// same shaping counts give bitwise the same results for the r they share
// (however many other r they compute), and a call without the small r of
// the chain does not (which is why caches key states by ChainCounts).
func TestChainCountsDecideBits(t *testing.T) {
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Buckets: 2000}
	ctx := context.Background()
	bits := func(rs []int, r int) []float64 {
		res, err := ComposeMany(ctx, m, rs, opt)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(rs, r)
		var out []float64
		for _, eps := range []float64{0.5, 1, 2, 3} {
			d := res[i].Delta(eps)
			out = append(out, d.Upper, d.Lower)
		}
		return out
	}
	a := bits([]int{4, 64, 1024}, 64)
	// 700 > 1,024/2 and 50 in 64's group: the same ChainCounts
	if b := bits([]int{1024, 700, 4, 50, 64}, 64); !slices.Equal(a, b) {
		t.Errorf("same shaping counts, other bits: %v vs %v", a, b)
	}
	if c := bits([]int{64, 1024}, 64); slices.Equal(a, c) {
		t.Logf("without r = 4 the bits of r = 64 happen to agree (%v)", c)
	}
}

// saddleByBisection is saddleOf evaluating every midpoint of its 40
// halvings (the reference of TestSaddleOfBitwise).
func saddleByBisection(cgfs map[string]cgf, names []nameCount, tMax float64) float64 {
	if !(tMax > 0) || math.IsInf(tMax, 0) || len(names) == 0 {
		return 0
	}
	k := func(tau float64) (k1 float64, ok bool) {
		for _, nc := range names {
			c, found := cgfs[nc.name]
			if !found {
				return 0, false
			}
			d1, _, ok := c.derivs(tau)
			if !ok {
				return 0, false
			}
			k1 += float64(nc.count) * d1
		}
		return k1, true
	}
	mu, ok := k(0)
	if !ok {
		return 0
	}
	var v float64
	for _, nc := range names {
		_, d2, _ := cgfs[nc.name].derivs(0)
		v += float64(nc.count) * d2
	}
	if !(v > 0) {
		return 0
	}
	target := mu + 3.5*math.Sqrt(v)
	if d, ok := k(tMax); !ok || !(d > target) {
		return tMax
	}
	lo, hi := 0.0, tMax
	for i := 0; i < 40; i++ {
		mid := (lo + hi) / 2
		if d, ok := k(mid); ok && d > target {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TestSaddleOfBitwise checks that saddleOf (Newton's bracket, then the
// halvings evaluated only inside it) returns bitwise the tilt of the
// bisection evaluating every midpoint, on the grouped leaves' copies of
// DP-SGD, Gauss and Laplace pairs (one and two mechanisms), counts 1 to
// 10^6 and upper ends from a tenth to ten times 3.5/sd.
func TestSaddleOfBitwise(t *testing.T) {
	mk := []func() (Mechanism, error){
		func() (Mechanism, error) { return SGD(4, 0.01) },
		func() (Mechanism, error) { return SGD(1.1, 0.01) },
		func() (Mechanism, error) { return SGD(1, 0.001) },
		func() (Mechanism, error) { return SGD(0.6, 0.001) },
		func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) },
		func() (Mechanism, error) { return Gauss(2, 1, 0) },
		func() (Mechanism, error) { return Laplace(2, 1, 0) },
	}
	cgfs := map[string]cgf{}
	var names []string
	for _, f := range mk {
		m, err := f()
		if err != nil {
			t.Fatal(err)
		}
		// the grouped leaf as newPowerPlan builds it
		n := powerPlanBuckets / 2
		lb := newLeafBuilder(n, m.lossRange(1e-12)/float64(n), nil)
		lb.inexact = true
		if err := m.embed(lb); err != nil {
			t.Fatal(err)
		}
		cgfs[m.String()] = newCGF(lb.rel(m))
		names = append(names, m.String())
	}
	cases, rooted, found, maxEvals := 0, 0, 0, 0
	for i, name := range names {
		for _, r := range []int{1, 10, 1000, 65536, 1000000} {
			for _, ncs := range [][]nameCount{{{name, r}}, {{name, r}, {names[(i+1)%len(names)], 3}}} {
				var v float64
				for _, nc := range ncs {
					_, d2, _ := cgfs[nc.name].derivs(0)
					v += float64(nc.count) * d2
				}
				for _, f := range []float64{0.1, 0.5, 1, 2, 10} {
					tMax := f * 3.5 / math.Sqrt(v)
					got, want := saddleOf(cgfs, ncs, tMax), saddleByBisection(cgfs, ncs, tMax)
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("%v tMax %g: %v, the bisection %v", ncs, tMax, got, want)
					}
					cases++
					// the bracket (where the root is inside (0, tMax))
					evals := 0
					k := func(tau float64) (k1, k2 float64, ok bool) {
						evals++
						for _, nc := range ncs {
							d1, d2, _ := cgfs[nc.name].derivs(tau)
							k1 += float64(nc.count) * d1
							k2 += float64(nc.count) * d2
						}
						return k1, k2, true
					}
					mu, _, _ := k(0)
					target := mu + 3.5*math.Sqrt(v)
					if d, _, _ := k(tMax); d > target {
						rooted++
						evals = 0
						if a, b := saddleBracket(k, target, tMax, math.Abs(mu)+math.Sqrt(v)); a > 0 && b < tMax {
							found++
							maxEvals = max(maxEvals, evals)
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases, %d with the root inside, %d bracketed (at most %d evaluations)", cases, rooted, found, maxEvals)
	if found < rooted*9/10 {
		t.Errorf("bracket found on %d of %d cases with the root inside", found, rooted)
	}
}
