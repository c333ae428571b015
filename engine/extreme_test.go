package engine

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestExtremeParameters composes mechanisms at the edges of their legal
// parameters (nothing may fail late or return NaN): every
// constructor either refuses with ErrInvalid or gives a mechanism whose
// bounds are numbers in [0, 1] (eps bounds >= 0, possibly +Inf with a
// note) for every eps, including 0, 1e300 and +Inf.
func TestExtremeParameters(t *testing.T) {
	t.Parallel()
	type mk func() (Mechanism, error)
	cases := map[string]mk{
		"gauss tiny sigma":       func() (Mechanism, error) { return Gauss(1e-300, 1, 0) },
		"gauss huge sensitivity": func() (Mechanism, error) { return Gauss(1, 1e300, 0) },
		"gauss tiny sensitivity": func() (Mechanism, error) { return Gauss(1e300, 1e-300, 0) },
		"gauss truncated narrow": func() (Mechanism, error) { return Gauss(1e-3, 1, 0.5000001) },
		"laplace tiny scale":     func() (Mechanism, error) { return Laplace(1e-300, 1, 0) },
		"laplace huge scale":     func() (Mechanism, error) { return Laplace(1e300, 1, 0) },
		"laplace truncated":      func() (Mechanism, error) { return Laplace(1e-3, 1, 1) },
		"sgd tiny sigma":         func() (Mechanism, error) { return SGD(1e-300, 0.5) },
		"sgd huge sigma":         func() (Mechanism, error) { return SGD(1e300, 1) },
		"sgd tiny q":             func() (Mechanism, error) { return SGD(1, 1e-300) },
		"rr p near 1":            func() (Mechanism, error) { return RandomizedResponse(1 - 0x1p-53) },
		"rr p near 0":            func() (Mechanism, error) { return RandomizedResponse(5e-324) },
		"eps_delta huge eps":     func() (Mechanism, error) { return EpsDelta(1e300, 0.5) },
		"eps_delta max eps":      func() (Mechanism, error) { return EpsDelta(math.MaxFloat64, 0) },
		"eps_delta zero":         func() (Mechanism, error) { return EpsDelta(0, 0) },
		"histogram subnormal": func() (Mechanism, error) {
			return Histogram([]float64{1 - 5e-324, 5e-324}, []float64{5e-324, 1 - 5e-324})
		},
		"histogram distinguishes": func() (Mechanism, error) { return Histogram([]float64{1, 0}, []float64{0, 1}) },
	}
	opts := []Options{
		{Buckets: 8},
		{Buckets: 8, Factor: math.MaxFloat64},
		{Buckets: 40, Factor: 1 + 0x1p-52, SquaringThreshold: 1.0001, FreeInftyBudget: -1},
		{Buckets: 2000, Tilts: 5, TailBudget: 0.9},
	}
	for name, f := range cases {
		m, err := f()
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: error %v does not wrap ErrInvalid", name, err)
			}
			continue
		}
		for _, o := range opts {
			// No mass may be lost in the embedding: the leaf's A- and
			// B-masses (regular, corners, distinguishing; upper bounds)
			// add up to at least 1.
			if od, err := o.withDefaults(); err == nil {
				if p, err := newPlan([]Part{{m, 1}}, od); err == nil {
					leaf, _ := p.leaf(m)
					b := leaf.bounds()
					ra, rc := leaf.regularSums(b.ea, b.ec)
					ta := ra.upper() + leaf.hiA.upper() + leaf.loA.upper() + leaf.distA.upper()
					tc := rc.upper() + leaf.hiC.upper() + leaf.loC.upper() + leaf.distB.upper()
					if !(ta >= 1-1e-9 && tc >= 1-1e-9) {
						t.Errorf("%s %+v: leaf masses %v (A), %v (B): mass lost", name, o, ta, tc)
					}
				}
			}
			for _, r := range []int{1, 3, 1 << 40} {
				res, err := Compose(context.Background(), m, r, o)
				if err != nil {
					t.Errorf("%s r=%d %+v: %v", name, r, o, err)
					continue
				}
				for _, eps := range []float64{0, 1e-300, 1, 700, 1e4, 1e300, math.MaxFloat64, math.Inf(1)} {
					d := res.Delta(eps)
					if !(d.Upper >= 0 && d.Upper <= 1) || !(d.Lower >= 0 && d.Lower <= d.Upper) {
						t.Errorf("%s r=%d %+v eps=%v: bounds [%v, %v]", name, r, o, eps, d.Lower, d.Upper)
					}
				}
				for _, delta := range []float64{0, 1e-300, 1e-10, 0.5, 1} {
					e := res.Eps(delta)
					if !(e.Upper >= 0) || !(e.Lower >= 0 && e.Lower <= e.Upper) {
						t.Errorf("%s r=%d %+v delta=%v: eps bounds [%v, %v]", name, r, o, delta, e.Lower, e.Upper)
					}
					if math.IsInf(e.Upper, 1) && e.Note == "" {
						t.Errorf("%s r=%d %+v delta=%v: eps_up +Inf without a note", name, r, o, delta)
					}
				}
				if lo, hi := res.Renyi(2); math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
					t.Errorf("%s r=%d %+v: Renyi [%v, %v]", name, r, o, lo, hi)
				}
			}
		}
	}
}

// Soundness at every privacy loss: each test below checks the bounds
// against the log-space references of reference_test.go where a
// floating-point limit (overflow of e^eps, a loss range past e^709,
// underflow of masses, subnormal logarithms, r = 2^40, the convolution's
// balancing scale) once made them wrong, and states the wrong value seen.

// checkDelta checks delta_low <= exact <= delta_up at eps, in log space
// (exact below 1e-308 included), and that neither bound is NaN.
func checkDelta(t *testing.T, name string, res *Result, eps float64, ref refFn) {
	t.Helper()
	d := res.Delta(eps)
	if math.IsNaN(d.Upper) || math.IsNaN(d.Lower) {
		t.Errorf("%s eps=%v: bounds [%v, %v]", name, eps, d.Lower, d.Upper)
		return
	}
	lnExact, unc := ref(eps)
	tol := unc + 1e-12*(1+math.Abs(lnExact))
	if !math.IsInf(lnExact, -1) && math.Log(d.Upper) < lnExact-tol {
		t.Errorf("%s eps=%v: upper %.6g below exact %.6g (ln %.6g)", name, eps, d.Upper, math.Exp(lnExact), lnExact)
	}
	if d.Lower > 0 && math.Log(d.Lower) > lnExact+tol {
		t.Errorf("%s eps=%v: lower %.6g above exact %.6g (ln %.6g)", name, eps, d.Lower, math.Exp(lnExact), lnExact)
	}
}

// checkEps checks eps_low <= exact eps <= eps_up for delta, eps_exact from
// the reference.
func checkEps(t *testing.T, name string, res *Result, delta float64, ref refFn) {
	t.Helper()
	ex := refEps(ref, delta)
	up, lo := res.EpsUpper(delta), res.EpsLower(delta)
	if math.IsNaN(up) || up < ex*(1-1e-9)-1e-9 {
		t.Errorf("%s delta=%v: eps_up %.10g below exact eps %.10g", name, delta, up, ex)
	}
	if math.IsNaN(lo) || lo > ex*(1+1e-9)+1e-9 {
		t.Errorf("%s delta=%v: eps_low %.10g above exact eps %.10g", name, delta, lo, ex)
	}
}

// TestBoundsAtLargeEps: above eps = 709.78, e^eps and e^-lLo overflow;
// delta(eps) must not become NaN and the eps search must not return the end
// of the bucket range as if it were a bound (once seen: eps_up(0.01) =
// 1649 for an exact 22446, Gauss with all defaults; eps_low(0.01) = 3467.5
// for an exact 0.389, randomized response with factor 2).
func TestBoundsAtLargeEps(t *testing.T) {
	t.Parallel()
	sigma := 0.020799542897001366
	m, _ := Gauss(sigma, 1, 0)
	res, err := ComposeMany(context.Background(), m, []int{3, 19}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []int{3, 19} {
		mu := math.Sqrt(float64(r)) / sigma
		ref := refFn(func(eps float64) (float64, float64) { return refGauss(mu, eps) })
		for _, eps := range []float64{100, 700, 709.79, 2000, 5000, 3.0e4} {
			checkDelta(t, "gauss", res[i], eps, ref)
		}
		for _, delta := range []float64{1e-2, 1e-6} {
			checkEps(t, "gauss", res[i], delta, ref)
		}
	}
	rr, _ := RandomizedResponse(0.6)
	res, err = ComposeMany(context.Background(), rr, []int{1, 10}, Options{Buckets: 10000, Factor: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []int{1, 10} {
		ref := refFn(func(eps float64) (float64, float64) { return refRR(0.6, r, eps) })
		checkEps(t, "rr", res[i], 1e-2, ref)
		for _, eps := range []float64{0.1, 1000, 3000} {
			checkDelta(t, "rr", res[i], eps, ref)
		}
	}
}

// TestBoundsWideLossRange: when the final list's range n ln f passes 709
// (few buckets or an explicit factor), the chord of a straddling bucket
// must not divide by an overflowed e^-lHi expm1(u ln f) (once seen: Gauss
// delta_up(0) = 5.8e-7 for an exact 0.99935, eps_up(0.01) = 0 for an exact
// 38.24).
func TestBoundsWideLossRange(t *testing.T) {
	sigma, r := 35.86799698181659, 59792
	m, _ := Gauss(sigma, 1, 0)
	mu := math.Sqrt(float64(r)) / sigma
	ref := refFn(func(eps float64) (float64, float64) { return refGauss(mu, eps) })
	for _, opt := range []Options{{Buckets: 100}, {Buckets: 1000, Factor: 1.5}} {
		res, err := Compose(context.Background(), m, r, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 1, 16.420673179659012, 23.23800472937474, 100} {
			checkDelta(t, "gauss", res, eps, ref)
		}
		checkEps(t, "gauss", res, 0.01, ref)
	}
}

// TestEpsUpperInfiniteAboveCornerMass: a pair whose distinguishing (or
// corner) mass exceeds delta has eps_up(delta) = +Inf, also when the bucket
// range reaches past e^709 (the eps search's range end).
func TestEpsUpperInfiniteAboveCornerMass(t *testing.T) {
	for _, c := range []struct {
		eps0, d float64
		r       int
		opt     Options
	}{
		{800, 0.05, 1, Options{}},
		{800, 0.05, 3, Options{Buckets: 1000}},
		{1, 0.1, 1 << 30, Options{Buckets: 8, SquaringThreshold: 1.01}},
		{2, 1e-3, 50, Options{Buckets: 40, Factor: 3}},
	} {
		m, _ := EpsDelta(c.eps0, c.d)
		res, err := Compose(context.Background(), m, c.r, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		dist := -math.Expm1(float64(c.r) * math.Log1p(-c.d))
		for _, delta := range []float64{dist / 2, dist / 1e3} {
			if up := res.EpsUpper(delta); !math.IsInf(up, 1) {
				t.Errorf("eps_delta(%v, %v)^%d %+v: eps_up(%g) = %v, exact +Inf (distinguishing mass %g)", c.eps0, c.d, c.r, c.opt, delta, up, dist)
			}
		}
	}
	// Corner mass above delta: a Gauss pair whose loss leaves a narrow
	// explicit range.
	m, _ := Gauss(0.05, 1, 0)
	res, err := Compose(context.Background(), m, 2, Options{Buckets: 8, Factor: 1.01})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Corners().Mass(); !(c > 0.1) {
		t.Fatalf("corner mass %v: the case no longer tests corners", c)
	}
	if up := res.EpsUpper(1e-3); !math.IsInf(up, 1) {
		mu := math.Sqrt(2) / 0.05
		t.Errorf("gauss corners: eps_up(1e-3) = %v with corner mass %v (exact %v)", up, res.Corners().Mass(), refEps(func(e float64) (float64, float64) { return refGauss(mu, e) }, 1e-3))
	}
}

// TestLowerBoundsUnderUnderflow: Gauss tail masses whose B-mass underflows
// are not distinguishing events, and products below 2^-1022 carry an
// absolute allowance; otherwise underflow turns into lower bounds above
// the truth (once seen: delta_low = 1.04e-284 at every eps, exact 2.9e-289
// at eps 160 and far less beyond).
func TestLowerBoundsUnderUnderflow(t *testing.T) {
	sigma := 0.41466339569186217
	m, _ := Gauss(sigma, 1, 0)
	res, err := Compose(context.Background(), m, 3, Options{Buckets: 2000, Factor: 1.3916415327835865})
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(3) / sigma
	for _, eps := range []float64{100, 160.20486117738199, 201.97490467685623, 300, 1000, math.Inf(1)} {
		checkDelta(t, "gauss", res, eps, func(e float64) (float64, float64) { return refGauss(mu, e) })
	}
	// Randomized response whose r-fold masses underflow (q^40 = 1e-480):
	// the buckets' B-masses are 0 with no error bound.
	p := 1 - 1e-12
	rr, _ := RandomizedResponse(p)
	for _, opt := range []Options{{Buckets: 400}, {Buckets: 40, Factor: 1.5}} {
		res, err := Compose(context.Background(), rr, 40, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{700, 800, 1000, 1100} {
			checkDelta(t, "rr", res, eps, func(e float64) (float64, float64) { return refRR(p, 40, e) })
		}
	}
}

// TestHugeR: r = 2^40 (the documented maximum) must not give NaN corners
// (Inf - Inf and 0 * Inf in the error bounds), nor few buckets with
// aggressive squaring overflow e^lambda and make every delta NaN.
func TestHugeR(t *testing.T) {
	if testing.Short() {
		t.Skip("r = 2^40 with 20,000 buckets takes a few seconds")
	}
	m, _ := Gauss(1000, 1, 0)
	res, err := Compose(context.Background(), m, 1<<40, Options{Buckets: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Corners(); math.IsNaN(c.Mass()) || math.IsNaN(c.DistinguishingA) {
		t.Errorf("r=2^40: corners %+v", c)
	}
	mu := math.Sqrt(1<<40) / 1000
	ref := refFn(func(eps float64) (float64, float64) { return refGauss(mu, eps) })
	for _, eps := range []float64{1, 1e5, 5.5e5, 1e6} {
		checkDelta(t, "gauss r=2^40", res, eps, ref)
	}
	checkEps(t, "gauss r=2^40", res, 1e-6, ref)

	g1, _ := Gauss(1, 1, 0)
	for _, r := range []int{1 << 20, 1 << 30} {
		res, err := Compose(context.Background(), g1, r, Options{Buckets: 8, SquaringThreshold: 1.01, FreeInftyBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		mu := math.Sqrt(float64(r))
		ref := refFn(func(eps float64) (float64, float64) { return refGauss(mu, eps) })
		for _, eps := range []float64{1, 1e3, mu * mu / 2, 1e12} {
			checkDelta(t, "gauss 8 buckets", res, eps, ref)
		}
		// delta_up counts the corners in full: eps_up(delta) for delta
		// below the corner mass can only be +Inf
		if c := res.Corners().Mass(); c > 1e-300 {
			if up := res.EpsUpper(1e-300); !math.IsInf(up, 1) {
				t.Errorf("gauss 8 buckets r=%d: eps_up(1e-300) = %v with corner mass %v", r, up, c)
			}
		}
	}
}

// TestSubnormalMassLoss: Go's math.Log on amd64 returns about -709.09 for
// every subnormal argument (golang/go issue 56600), so without ln (float.go)
// an event with a subnormal mass gets a privacy loss up to 35 too small and
// lands in a bucket below its true loss (delta_up(705) = 0.48 for an exact
// 0.5 here).
func TestSubnormalMassLoss(t *testing.T) {
	if v := ln(5e-324); math.Abs(v+744.4400719213812) > 1e-12 {
		t.Fatalf("ln(5e-324) = %v", v)
	}
	a := []float64{0.5, 0.5}
	b := []float64{1 - 5e-320, 5e-320}
	m, err := Histogram(a, b)
	if err != nil {
		t.Fatal(err)
	}
	h := m.(*histMech)
	for _, opt := range []Options{{Buckets: 2000}, {Buckets: 400, Factor: 1.01}} {
		for _, r := range []int{1, 2} {
			res, err := Compose(context.Background(), m, r, opt)
			if err != nil {
				t.Fatal(err)
			}
			var as, bs [][]float64
			for i := 0; i < r; i++ {
				as, bs = append(as, h.a), append(bs, h.b)
			}
			for _, eps := range []float64{1, 100, 700, 705, 720, 734, 1000} {
				checkDelta(t, "subnormal histogram", res, eps, func(e float64) (float64, float64) { return refEnumerate(as, bs, e) })
			}
		}
	}
}

// TestConvolutionBalanceScale: the FFT convolution balances the B-sequence
// against the A-sequence by a power of two s (pow2Balance); unscaling by
// 1/s^2 must not overflow when the B-norms are 2^-512 of the A-norms or
// less (losses around 360), or the convolution's results are lost and both
// bounds become trivial (delta_low 0 for an exact delta of nearly 1).
func TestConvolutionBalanceScale(t *testing.T) {
	const k = 120
	a, b := make([]float64, k), make([]float64, k)
	for i := 0; i < k-1; i++ {
		a[i] = 1 + float64(i%7)
		b[i] = a[i] * math.Exp(-362-float64(i)*0.4) // losses 362..409: B-norm about 2^-520 of A
	}
	a[k-1], b[k-1] = 1e-300, 1 // where B's mass is
	norm := func(p []float64) {
		s := 0.0
		for _, v := range p {
			s += v
		}
		for i := range p {
			p[i] /= s
		}
	}
	norm(a)
	norm(b)
	m, err := Histogram(a, b)
	if err != nil {
		t.Fatal(err)
	}
	h := m.(*histMech)
	for _, tilts := range []int{1, 3} {
		res, err := Compose(context.Background(), m, 2, Options{Buckets: 20000, Tilts: tilts})
		if err != nil {
			t.Fatal(err)
		}
		as, bs := [][]float64{h.a, h.a}, [][]float64{h.b, h.b}
		for _, eps := range []float64{600, 700, 720, 730, 740, 760} {
			ref := func(e float64) (float64, float64) { return refEnumerate(as, bs, e) }
			checkDelta(t, "balance", res, eps, ref)
			if ex, _ := ref(eps); ex > math.Log(0.9) && res.Delta(eps).Lower < 0.5 {
				t.Errorf("tilts=%d eps=%v: delta_low %v for an exact %v", tilts, eps, res.Delta(eps).Lower, math.Exp(ex))
			}
		}
	}
}
