package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// A numeric reference for the continuous subsampled pairs, independent of
// the engine's embedding (its own densities, distribution functions from
// math.Erfc and math.Exp, bisection for the loss levels, Gauss-Legendre
// quadrature): delta_r(eps) = sum over events x of P_A(x)
// delta_{r-1}(eps - L(x)), with delta_0(e) = max(0, 1 - e^e), computed for
// r = 1, 2.

// refPiece is a group of events of a reference pair: an atom (masses pa,
// pb at loss l) or the interval [t1, t2] of a standardised variable with
// densities dA, dB (log-densities lA, lB) and a monotone loss lA - lB.
type refPiece struct {
	atom      bool
	pa, pb, l float64
	t1, t2    float64
	lA, lB    func(t float64) float64
	mA, mB    func(t1, t2 float64) float64 // masses of [t1, t2]
	flip      bool                         // mirrored: A and B exchanged
}

func (p *refPiece) loss(t float64) float64 {
	if p.flip {
		return p.lB(t) - p.lA(t)
	}
	return p.lA(t) - p.lB(t)
}

func (p *refPiece) massA(t1, t2 float64) float64 {
	if p.flip {
		return p.mB(t1, t2)
	}
	return p.mA(t1, t2)
}

func (p *refPiece) massB(t1, t2 float64) float64 {
	if p.flip {
		return p.mA(t1, t2)
	}
	return p.mB(t1, t2)
}

func (p *refPiece) densA(t float64) float64 {
	if p.flip {
		return math.Exp(p.lB(t))
	}
	return math.Exp(p.lA(t))
}

// refPair is a pair given by its pieces.
type refPair []*refPiece

// swap returns the pair (B, A).
func (rp refPair) swap() refPair {
	out := make(refPair, len(rp))
	for i, p := range rp {
		c := *p
		if c.atom {
			c.pa, c.pb, c.l = p.pb, p.pa, -p.l
		} else {
			c.flip = !p.flip
		}
		out[i] = &c
	}
	return out
}

// delta1 returns sum over events of max(0, P_A - e^e P_B) for any real e.
func (rp refPair) delta1(e float64) float64 {
	s := 0.0
	ee := math.Exp(e)
	for _, p := range rp {
		if p.atom {
			s += math.Max(0, p.pa-ee*p.pb)
			continue
		}
		l1, l2 := p.loss(p.t1), p.loss(p.t2)
		inc := l2 > l1
		lo, hi := math.Min(l1, l2), math.Max(l1, l2)
		if e >= hi {
			continue
		}
		var a, b float64
		if e <= lo {
			a, b = p.massA(p.t1, p.t2), p.massB(p.t1, p.t2)
		} else {
			x, y := p.t1, p.t2 // loss(x) vs e changes sign in [x, y]
			for i := 0; i < 200 && y-x > 1e-15*math.Max(1, math.Abs(x)); i++ {
				m := (x + y) / 2
				if (p.loss(m) > e) == inc {
					y = m
				} else {
					x = m
				}
			}
			ts := (x + y) / 2
			if inc {
				a, b = p.massA(ts, p.t2), p.massB(ts, p.t2)
			} else {
				a, b = p.massA(p.t1, ts), p.massB(p.t1, ts)
			}
		}
		s += math.Max(0, a-ee*b)
	}
	return s
}

// delta2 returns delta of the 2-fold composition at e: sum over events x of
// P_A(x) delta1(e - L(x)). The integral over each continuous piece is split
// where e - L(t) crosses an atom's loss or the end of a piece's loss range
// (delta1 has a kink there, or a second derivative that grows without
// bound next to the infimum of the Gaussian remove pair's loss) and done by
// adaptive Gauss-Legendre, panels of width <= h to start with.
func (rp refPair) delta2(e, h float64) float64 {
	var levels []float64
	for _, p := range rp {
		if p.atom {
			levels = append(levels, p.l)
		} else {
			levels = append(levels, p.loss(p.t1), p.loss(p.t2))
		}
	}
	s := 0.0
	for _, p := range rp {
		if p.atom {
			s += p.pa * rp.delta1(e-p.l)
			continue
		}
		cuts := []float64{p.t1, p.t2}
		l1, l2 := p.loss(p.t1), p.loss(p.t2)
		inc := l2 > l1
		for _, l := range levels {
			target := e - l
			if (target-l1)*(target-l2) < 0 {
				x, y := p.t1, p.t2
				for i := 0; i < 200; i++ {
					m := (x + y) / 2
					if (p.loss(m) > target) == inc {
						y = m
					} else {
						x = m
					}
				}
				cuts = append(cuts, (x+y)/2)
			}
		}
		sortFloats(cuts)
		f := func(t float64) float64 { return p.densA(t) * rp.delta1(e-p.loss(t)) }
		type panel struct{ a, b, v float64 }
		var panels []panel
		total := 0.0
		for c := 0; c+1 < len(cuts); c++ {
			a, b := cuts[c], cuts[c+1]
			k := int(math.Ceil((b - a) / h))
			w := (b - a) / float64(k)
			for j := 0; j < k; j++ {
				x0 := a + float64(j)*w
				v := gl8(f, x0, x0+w)
				panels = append(panels, panel{x0, x0 + w, v})
				total += math.Abs(v)
			}
		}
		// absolute tolerance 1e-12 of the piece's integral, shared by width
		tol := 1e-12*total + 1e-300
		for _, pn := range panels {
			s += adaptiveGL(f, pn.a, pn.b, pn.v, tol*(pn.b-pn.a)/(p.t2-p.t1), 0)
		}
	}
	return s
}

func gl8(f func(float64) float64, a, b float64) float64 {
	s := 0.0
	for g := 0; g < 8; g++ {
		s += gl8w[g] * f(a+(b-a)/2*(1+gl8x[g]))
	}
	return s * (b - a) / 2
}

// adaptiveGL refines [a, b] until the two halves agree with the whole to
// the absolute tolerance tol (halved with each split) or to 1e-12 relative
// (above the rounding noise of the integrand), at most 16 levels.
func adaptiveGL(f func(float64) float64, a, b, whole, tol float64, depth int) float64 {
	m := (a + b) / 2
	l, r := gl8(f, a, m), gl8(f, m, b)
	d := math.Abs(l + r - whole)
	if depth >= 16 || d <= tol || d <= 1e-12*(math.Abs(l)+math.Abs(r)) {
		return l + r
	}
	return adaptiveGL(f, a, m, l, tol/2, depth+1) + adaptiveGL(f, m, b, r, tol/2, depth+1)
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// Reference densities and masses, in the standardised variable.
func refLogMixture(w, sh []float64, logf func(float64) float64) func(float64) float64 {
	return func(t float64) float64 {
		m := math.Inf(-1)
		v := make([]float64, len(w))
		for i := range w {
			v[i] = math.Log(w[i]) + logf(t-sh[i])
			m = math.Max(m, v[i])
		}
		s := 0.0
		for i := range v {
			s += math.Exp(v[i] - m)
		}
		return m + math.Log(s)
	}
}

func refMassMixture(w, sh []float64, mass func(t1, t2 float64) float64) func(t1, t2 float64) float64 {
	return func(t1, t2 float64) float64 {
		s := 0.0
		for i := range w {
			s += w[i] * mass(t1-sh[i], t2-sh[i])
		}
		return s
	}
}

func refGaussLog(t float64) float64 { return -t*t/2 - 0.5*math.Log(2*math.Pi) }
func refGaussMass(t1, t2 float64) float64 {
	q := func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }
	switch {
	case t1 >= 0:
		return q(t1) - q(t2)
	case t2 <= 0:
		return q(-t2) - q(-t1)
	default:
		return 1 - q(t2) - q(-t1)
	}
}
func refLapLog(t float64) float64 { return -math.Abs(t) - math.Ln2 }
func refLapMass(t1, t2 float64) float64 {
	cdf := func(x float64) float64 {
		if x <= 0 {
			return math.Exp(x) / 2
		}
		return 1 - math.Exp(-x)/2
	}
	sf := func(x float64) float64 {
		if x >= 0 {
			return math.Exp(-x) / 2
		}
		return 1 - math.Exp(x)/2
	}
	if t1 >= 0 {
		return sf(t1) - sf(t2)
	}
	return cdf(t2) - cdf(t1)
}

// refPairOf builds the reference pair of a recipe (see subsampled.go).
func refPairOf(noise Noise, rc recipe) refPair {
	q, a := rc.rate, rc.shift
	logf, mass := refGaussLog, refGaussMass
	T := 45 + 2*a
	if noise == NoiseLaplace {
		logf, mass = refLapLog, refLapMass
		T = 800 + 2*a
	}
	wA, sA := []float64{1 - q, q}, []float64{0, a}
	wB, sB := []float64{1}, []float64{0}
	if q == 1 {
		wA, sA = []float64{1}, []float64{a}
	}
	if rc.shape == shapeAntipodal {
		wA, sA = []float64{1 - q, q}, []float64{0, -a}
		wB, sB = []float64{1 - q, q}, []float64{0, a}
	}
	mk := func(t1, t2 float64, flip bool) *refPiece {
		return &refPiece{t1: t1, t2: t2, flip: flip,
			lA: refLogMixture(wA, sA, logf), lB: refLogMixture(wB, sB, logf),
			mA: refMassMixture(wA, sA, mass), mB: refMassMixture(wB, sB, mass)}
	}
	if noise == NoiseGauss {
		if rc.shape != shapeSymmetric {
			return refPair{mk(-T, T, false)}
		}
		t0 := a / 2
		z := 1 - mk(t0, T, false).massA(t0, T) - mk(t0, T, false).massB(t0, T)
		return refPair{mk(t0, T, false), mk(t0, T, true), {atom: true, pa: z, pb: z}}
	}
	// Laplace remove pair: atoms t <= 0 and t >= a, monotone between.
	pc := mk(0, a, false)
	left := &refPiece{atom: true, pa: pc.mA(-T, 0), pb: pc.mB(-T, 0), l: pc.loss(-1)}
	right := &refPiece{atom: true, pa: pc.mA(a, T), pb: pc.mB(a, T), l: pc.loss(a + 1)}
	if rc.shape != shapeSymmetric {
		return refPair{left, pc, right}
	}
	t0 := a / 2
	pos := mk(t0, a, false)
	neg := mk(t0, a, true)
	mright := &refPiece{atom: true, pa: right.pb, pb: right.pa, l: -right.l}
	z := 1 - pos.massA(t0, a) - pos.massB(t0, a) - right.pa - right.pb
	return refPair{pos, neg, right, mright, {atom: true, pa: z, pb: z}}
}

// TestSubsampledContinuousReference checks the engine's bounds for every
// continuous pair (Gaussian and Laplace, all samplings and relations) at
// random parameters against the numeric reference, r = 1 and 2:
// delta_low <= reference <= delta_up.
func TestSubsampledContinuousReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 15))
	cases := 16
	if testing.Short() {
		cases = 6
	}
	for c := 0; c < cases; c++ {
		noise := [...]Noise{NoiseGauss, NoiseLaplace}[c%2]
		s := Sampling((c / 2) % 2)
		rel := Relation((c / 4) % 2)
		scale := math.Exp(rng.Float64()*3 - 0.7) // 0.5 .. 10
		sens := 1.0
		if rng.IntN(2) == 0 {
			sens = math.Exp(rng.Float64()*2 - 1)
		}
		q := math.Exp(-rng.Float64() * 7)
		if rng.IntN(6) == 0 {
			q = 1
		}
		if noise == NoiseLaplace {
			scale = math.Exp(rng.Float64()*3 - 1)
		}
		var m Mechanism
		var err error
		if noise == NoiseGauss {
			m, err = SubsampledGauss(scale, sens, q, s, rel)
		} else {
			m, err = SubsampledLaplace(scale, sens, q, s, rel)
		}
		if err != nil {
			t.Fatal(err)
		}
		rc := pairRecipe(noise, s, rel, q, sens/scale)
		ref := refPairOf(noise, rc)
		t.Logf("case %d: %v", c, m)
		res, err := ComposeMany(context.Background(), m, []int{1, 2}, Options{Buckets: 20000})
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.01, 0.1, 0.5, 1.5} {
			// max over both directions, as the engine reports
			sw := ref.swap()
			want := []float64{math.Max(ref.delta1(eps), sw.delta1(eps)), math.Max(ref.delta2(eps, 0.5), sw.delta2(eps, 0.5))}
			for r := 1; r <= 2; r++ {
				d := res[r-1].Delta(eps)
				w := want[r-1]
				if d.Upper < w*(1-1e-9)-1e-15 || d.Lower > w*(1+1e-9)+1e-15 {
					t.Errorf("%v r=%d eps=%v: [%.12g, %.12g] does not contain the reference %.12g", m, r, eps, d.Lower, d.Upper, w)
				}
			}
		}
	}
}

// TestSymmetrisedEqualsRemoveDirection checks the construction of S: for
// eps >= 0 its delta equals delta(A||B) of the remove pair R it is built
// from (one step), for Gaussian and Laplace, and the remove pair's B||A
// direction is no larger (the base pair is symmetric).
func TestSymmetrisedEqualsRemoveDirection(t *testing.T) {
	for _, noise := range []Noise{NoiseGauss, NoiseLaplace} {
		for _, g := range []float64{0.001, 0.05, 0.4, 0.9} {
			for _, a := range []float64{0.05, 0.7, 3} {
				sym := refPairOf(noise, recipe{shapeSymmetric, g, a})
				rem := refPairOf(noise, recipe{shapeRemove, g, a})
				for _, eps := range []float64{0, 0.01, 0.2, 1, 3} {
					ds, dr := sym.delta1(eps), rem.delta1(eps)
					if math.Abs(ds-dr) > 1e-12+1e-9*dr {
						t.Errorf("%v g=%v a=%v eps=%v: S %.15g != R %.15g", noise, g, a, eps, ds, dr)
					}
					// B||A of R: delta1 of the swapped pair at eps equals
					// e^eps delta1(-eps) + 1 - e^eps (the identity of
					// H_alpha(Q||P) and H_1/alpha(P||Q)).
					dba := math.Exp(eps)*rem.delta1(-eps) + 1 - math.Exp(eps)
					if dba > dr*(1+1e-9)+1e-12 {
						t.Errorf("%v g=%v a=%v eps=%v: B||A %.15g > A||B %.15g", noise, g, a, eps, dba, dr)
					}
				}
			}
		}
	}
}

// hockeyMix1D returns H_alpha(P||Q) for P = (1-q) N(0,1) + q N(a,1) and Q =
// (1-q) N(0,1) + q N(b,1). p - alpha q is phi(t) times a sum of three
// exponentials in t, so it changes sign at most twice (Descartes' rule for
// exponential sums); the sign changes are found on a grid and refined by
// bisection, and the positive intervals are integrated with distribution
// functions.
func hockeyMix1D(q, a, b, alpha float64) float64 {
	// ln of the positive and of the negative terms of g(t) = p/phi - alpha q/phi
	type term struct{ c, e float64 } // c e^(e t - e^2/2), c > 0 or < 0
	terms := []term{{(1 - q) * (1 - alpha), 0}, {q, a}, {-alpha * q, b}}
	sign := func(t float64) int {
		lp, ln := math.Inf(-1), math.Inf(-1)
		add := func(x *float64, v float64) {
			if *x == math.Inf(-1) {
				*x = v
			} else {
				m := math.Max(*x, v)
				*x = m + math.Log(math.Exp(*x-m)+math.Exp(v-m))
			}
		}
		for _, tm := range terms {
			if tm.c == 0 {
				continue
			}
			v := math.Log(math.Abs(tm.c)) + tm.e*t - tm.e*tm.e/2
			if tm.c > 0 {
				add(&lp, v)
			} else {
				add(&ln, v)
			}
		}
		switch {
		case lp > ln:
			return 1
		case lp < ln:
			return -1
		}
		return 0
	}
	const T = 60.0
	var cuts []float64
	prev := sign(-T)
	const steps = 480
	for k := 1; k <= steps; k++ {
		t := -T + float64(k)*2*T/steps
		s := sign(t)
		if s != prev && s != 0 && prev != 0 {
			x, y := t-2*T/steps, t
			for i := 0; i < 100; i++ {
				m := (x + y) / 2
				if sign(m) == prev {
					x = m
				} else {
					y = m
				}
			}
			cuts = append(cuts, (x+y)/2)
		}
		if s != 0 {
			prev = s
		}
	}
	edges := append([]float64{math.Inf(-1)}, cuts...)
	edges = append(edges, math.Inf(1))
	h := 0.0
	for i := 0; i+1 < len(edges); i++ {
		t1, t2 := edges[i], edges[i+1]
		mid := (math.Max(t1, -T) + math.Min(t2, T)) / 2
		if sign(mid) <= 0 {
			continue
		}
		pm := (1-q)*refGaussMass(t1, t2) + q*refGaussMass(t1-a, t2-a)
		qm := (1-q)*refGaussMass(t1, t2) + q*refGaussMass(t1-b, t2-b)
		h += pm - alpha*qm
	}
	return math.Max(h, 0)
}

// TestReplaceOneAntipodal checks, in one dimension, the claim behind the
// Poisson replace-one pair P(q, m) (dp_accounting's REPLACE_ONE): for every
// pair of contributions a, b in [-m, m] of the replaced record and its
// replacement, and every alpha >= 0 (so also the other order and every
// composition), H_alpha((1-q) N(0) + q N(a) || (1-q) N(0) + q N(b)) <=
// H_alpha(P(q, m)).
func TestReplaceOneAntipodal(t *testing.T) {
	t.Parallel()
	for _, q := range []float64{0.01, 0.1, 0.5, 0.9} {
		for _, m := range []float64{0.3, 1, 3} {
			var alphas []float64
			for k := -12; k <= 12; k++ {
				alphas = append(alphas, math.Exp(float64(k)*0.4))
			}
			bound := make([]float64, len(alphas))
			for i, al := range alphas {
				bound[i] = hockeyMix1D(q, -m, m, al)
			}
			for i := 0; i <= 8; i++ {
				for j := 0; j <= 8; j++ {
					a, b := -m+2*m*float64(i)/8, -m+2*m*float64(j)/8
					for k, al := range alphas {
						h := hockeyMix1D(q, a, b, al)
						if h > bound[k]+1e-12 {
							t.Errorf("q=%v m=%v a=%v b=%v alpha=%.4g: H %.15g > antipodal %.15g", q, m, a, b, al, h, bound[k])
						}
					}
				}
			}
		}
	}
}
