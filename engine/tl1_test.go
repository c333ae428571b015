package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// tl1Eps are the eps of the brute-force checks of the tilted total-error
// bounds: small, moderate and large (losses of hundreds of nats).
var tl1Eps = []float64{0, 1e-3, 0.01, 0.1, 0.3, 0.7, 1, 2, 5, 10, 20, 50, 100, 300, 600, 700, 800}

// TestTL1BruteForce checks the delta bounds built from the tilted total
// errors alone (errTilted: no pointwise, no untilted l1 bound for the
// buckets they cover) against exact enumeration: random small pairs through
// leaves, compositions, squarings and re-tilts, for the grid list, the
// swapped grid list and the grouped list, both directions, eps up to 800.
func TestTL1BruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 2026))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	informative := map[string]int{}
	note := func(kind string, d DeltaBound) {
		if d.UpperAB < 1 && d.UpperAB > 0 || d.UpperBA < 1 && d.UpperBA > 0 {
			informative[kind+" upper"]++
		}
		if d.LowerAB > 0 || d.LowerBA > 0 {
			informative[kind+" lower"]++
		}
	}
	for trial := 0; trial < trials; trial++ {
		// grid list
		g, pa, pb, desc := gridCase(rng, trial)
		tab := g.gridTable(g.bounds())
		for _, eps := range tl1Eps {
			ab, ba := exactDir(pa, pb, eps)
			d := g.gridDeltaWith(eps, tab, errTilted)
			if msg := checkPair(ab, ba, d); msg != "" {
				t.Fatalf("grid %s eps=%v: %s", desc, eps, msg)
			}
			note("grid", d)
		}
		// swapped grid list (directions exchanged)
		s, as, bs, sdesc := swapCase(rng, trial)
		stab := s.gridTable(s.bounds())
		for _, eps := range tl1Eps {
			d := s.gridDeltaWith(eps, stab, errTilted)
			sw := DeltaBound{UpperAB: d.UpperBA, LowerAB: d.LowerBA, UpperBA: d.UpperAB, LowerBA: d.LowerAB}
			if msg := checkDirs(as, bs, eps, sw); msg != "" {
				t.Fatalf("swapped %s: %s", sdesc, msg)
			}
			note("swap", d)
		}
		// grouped list
		l, qa, qb, gdesc := groupedCase(rng, trial)
		b := l.bounds()
		gt := l.deltaTable(b)
		for _, eps := range tl1Eps {
			ab, ba := exactDir(qa, qb, eps)
			d := l.deltaWith(eps, b, true, gt, errTilted)
			if msg := checkPair(ab, ba, d); msg != "" {
				t.Fatalf("grouped %s eps=%v: %s", gdesc, eps, msg)
			}
			note("grouped", d)
		}
	}
	t.Logf("non-trivial bounds: %v", informative)
	for _, k := range []string{"grid upper", "grid lower", "swap upper", "swap lower", "grouped upper", "grouped lower"} {
		if informative[k] < trials {
			t.Errorf("only %d non-trivial %s bounds in %d trials", informative[k], k, trials)
		}
	}
}

// checkPair returns a message when d's bounds do not enclose the exact
// deltas ab and ba (relative tolerance 1e-12).
func checkPair(ab, ba float64, d DeltaBound) string {
	tol := func(x float64) float64 { return x*1e-12 + 1e-300 }
	if d.UpperAB < ab-tol(ab) || d.UpperBA < ba-tol(ba) {
		return fmt.Sprintf("upper (%.17g, %.17g) < exact (%.17g, %.17g)", d.UpperAB, d.UpperBA, ab, ba)
	}
	if d.LowerAB > ab+tol(ab) || d.LowerBA > ba+tol(ba) {
		return fmt.Sprintf("lower (%.17g, %.17g) > exact (%.17g, %.17g)", d.LowerAB, d.LowerBA, ab, ba)
	}
	return ""
}

// groupedCase composes 2-4 random histograms (masses down to 1e-300 in
// some) into a grouped list with random squarings and re-tilts and returns
// it with the product PMFs.
func groupedCase(rng *rand.Rand, trial int) (*list, []float64, []float64, string) {
	k := 2 + rng.IntN(3)
	var as, bs [][]float64
	var mechs []Mechanism
	for i := 0; i < k; i++ {
		n := 2 + rng.IntN(4)
		tiny := rng.IntN(3) == 0
		a, b := randomPMFWith(rng, n, tiny), randomPMFWith(rng, n, tiny)
		m, err := Histogram(a, b)
		if err != nil {
			panic(err)
		}
		as, bs = append(as, a), append(bs, b)
		mechs = append(mechs, m)
	}
	buckets := 4 * (2 + rng.IntN(40))
	factor := 1 + math.Exp(-6*rng.Float64())
	o, err := Options{Buckets: buckets, Factor: factor, Tilts: 1 + rng.IntN(5)}.withDefaults()
	if err != nil {
		panic(err)
	}
	parts := make([]Part, k)
	for i := range parts {
		parts[i] = Part{mechs[i], 1}
	}
	p, err := newPlan(parts, o)
	if err != nil {
		panic(err)
	}
	leaves := make([]*list, k)
	for i := range leaves {
		leaves[i], _ = p.leaf(mechs[i])
	}
	acc := composeRandomly(rng, p.cp, leaves)
	if rng.IntN(2) == 0 {
		acc = acc.square()
	}
	pa, pb := product(as, bs)
	desc := fmt.Sprintf("trial %d: k=%d buckets=%d f=%v tilts=%d squarings=%d", trial, k, buckets, factor, o.Tilts, acc.squarings)
	return acc, pa, pb, desc
}

// tl1Actual returns sum_o |ref[o] - v[o]| e^(tau L(o)) over the regular
// offsets of l, rounded up generously (the check's own rounding).
func tl1Actual(l *list, ref []dd, v []float64, tau float64) float64 {
	s := 0.0
	for o := range ref {
		d := math.Abs(ref[o].hi - v[o] + ref[o].lo)
		if d == 0 {
			continue
		}
		s += d * math.Exp(tau*l.loss(o))
	}
	return s
}

// checkTL1 fails when the actual tilted errors of l against the reference
// exceed its tilted bounds (tolerance 1e-9 relative for the check's own
// rounding) and returns the largest ratio actual/bound.
func checkTL1(t *testing.T, name string, l *list, ra, rc []dd) float64 {
	t.Helper()
	if !l.hasTL1() {
		t.Fatalf("%s: no tilted total-error bounds", name)
	}
	worst := 0.0
	sa, sc := l.tl1Sum()
	for m, tau := range l.tau {
		ea, ec := tl1Actual(l, ra, l.a, tau), tl1Actual(l, rc, l.c, tau)
		if ea > sa[m]*(1+1e-9) || ec > sc[m]*(1+1e-9) {
			t.Fatalf("%s (n=%d, tilt %d = %g of %v): tilted errors %.4g, %.4g exceed the bounds %.4g, %.4g",
				name, l.n, m, tau, l.tau, ea, ec, sa[m], sc[m])
		}
		if sa[m] > 0 {
			worst = math.Max(worst, ea/sa[m])
		}
		if sc[m] > 0 {
			worst = math.Max(worst, ec/sc[m])
		}
	}
	checkZeroedApart(t, name, l, ra, rc)
	return worst
}

// checkZeroedApart checks the split of list.tl1ZA: for every tilt and
// every suffix (prefix) of the offsets, the actual errors summed over it
// are at most e^(-tau L) tl1A (L its first (last) loss, tau >= 0 (<= 0))
// plus zA, the untilted sum of the zeroed values, as delta uses them.
func checkZeroedApart(t *testing.T, name string, l *list, ra, rc []dd) {
	t.Helper()
	for _, side := range []struct {
		ref  []dd
		v    []float64
		e    []float64
		zero float64
	}{{ra, l.a, l.tl1A, l.zA}, {rc, l.c, l.tl1C, l.zC}} {
		n2 := len(side.ref)
		d := make([]float64, n2)
		for o := range d {
			d[o] = math.Abs(side.ref[o].hi - side.v[o] + side.ref[o].lo)
		}
		suf := make([]float64, n2+1)
		for o := n2 - 1; o >= 0; o-- {
			suf[o] = suf[o+1] + d[o]
		}
		pre := 0.0
		for o := 0; o < n2; o++ {
			pre += d[o]
			for dir, s := range []float64{suf[o], pre} {
				b := l.tailTL1(math.Inf(1), side.e, side.zero, o, 1-2*dir)
				if s > b*(1+1e-9) {
					t.Fatalf("%s: errors %.4g beyond offset %d (dir %d) exceed the bound %.4g (zeroed apart %.4g)", name, s, o, 1-2*dir, b, side.zero)
				}
			}
		}
	}
}

// ddConv returns the regular part of the convolution of the references
// (offsets o = j + k - (n-1) in [0, 2n)) in double-double.
func ddConv(xa, ya []dd, n int) []dd {
	out := make([]dd, 2*n)
	for j := range xa {
		if xa[j].hi == 0 && xa[j].lo == 0 {
			continue
		}
		for k := range ya {
			o := j + k - (n - 1)
			if o < 0 || o >= 2*n {
				continue
			}
			// (a_hi + a_lo)(b_hi + b_lo) to double-double accuracy
			out[o] = out[o].addProd(xa[j].hi, ya[k].hi).addProd(xa[j].hi, ya[k].lo).addProd(xa[j].lo, ya[k].hi)
		}
	}
	return out
}

func ddOf(v []float64) []dd {
	out := make([]dd, len(v))
	for i, x := range v {
		out[i] = dd{x, 0}
	}
	return out
}

// TestTL1Reference checks the tilted total-error bounds against the actual
// errors, computed against double-double references, through a chain of
// two compositions with a squaring and a re-tilt between them: lists with
// tails down to 1e-250 (so the FFT's rounding dominates the tails) of up to
// 2,048 buckets, composed with themselves and with others, exact inputs
// (their bounds are the leaves' pointwise ones, tl1Pointwise).
func TestTL1Reference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(43, 44))
	worst := 0.0
	trials := 16
	if testing.Short() {
		trials = 6
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 << (7 + rng.IntN(4))
		lambda := math.Exp(-1 - 4*rng.Float64())
		x0 := randomL1List(rng, n, lambda, []float64{0})
		sd := math.Sqrt(2 * x0.variance)
		tau := chooseTilts(sd, 2+rng.IntN(4), float64(n+1)*lambda)
		x := randomL1List(rng, n, lambda, tau)
		y := x
		if trial%2 == 1 {
			y = randomL1List(rng, n, lambda, tau)
		}
		grid := trial%4 >= 2
		x.grid, y.grid = grid, grid
		cp := newComposer(n)
		// inputs known only within a relative error (leaves): the true
		// values differ from the stored ones by up to rel
		xa, xc, ya, yc := ddOf(x.a), ddOf(x.c), ddOf(y.a), ddOf(y.c)
		if trial%3 == 2 {
			rel := math.Exp(-12 - 10*rng.Float64())
			perturb := func(l *list, va, vc []dd) {
				l.relA, l.relC = rel, rel
				for o := range va {
					va[o] = dd{}.addProd(l.a[o], 1+rel*(2*rng.Float64()-1))
					vc[o] = dd{}.addProd(l.c[o], 1+rel*(2*rng.Float64()-1))
				}
			}
			perturb(x, xa, xc)
			if y != x {
				perturb(y, ya, yc)
			} else {
				ya, yc = xa, xc
			}
		}
		z := cp.compose(x, y, nil)
		ra, rc := ddConv(xa, ya, n), ddConv(xc, yc, n)
		worst = math.Max(worst, checkTL1(t, fmt.Sprintf("trial %d compose", trial), z, ra, rc))
		if grid {
			// the grid's spread squaring (upper pair, a) against the
			// reference spread with the same constants; its merge (c) is
			// checked by the brute-force test
			s := z.square()
			sa := make([]dd, 2*n)
			tt := math.Exp(-z.lambda)
			cUp := 1 / (1 + tt)
			cDn := tt * cUp
			for o := range ra {
				m := z.index(o)
				dn, up := halfIndex(m)
				if dn == up {
					sa[dn+n-1] = sa[dn+n-1].add(ra[o].hi).add(ra[o].lo)
					continue
				}
				sa[up+n-1] = sa[up+n-1].addProd(cUp, ra[o].hi).addProd(cUp, ra[o].lo)
				sa[dn+n-1] = sa[dn+n-1].addProd(cDn, ra[o].hi).addProd(cDn, ra[o].lo)
			}
			ts, _ := s.tl1Sum()
			for m, tau := range s.tau {
				ea := tl1Actual(s, sa, s.a, tau)
				if ea > ts[m]*(1+1e-9) {
					t.Fatalf("trial %d spread square tilt %g: %.4g > %.4g", trial, tau, ea, ts[m])
				}
			}
			continue
		}
		// squaring: new i collects old 2i-1 and 2i
		s := z.square()
		sqA, sqC := make([]dd, 2*n), make([]dd, 2*n)
		for i := -n/2 + 1; i <= n/2; i++ {
			o, o1, o2 := i+n-1, 2*i-1+n-1, 2*i+n-1
			sqA[o] = ra[o1].add(ra[o2].hi).add(ra[o2].lo)
			sqC[o] = rc[o1].add(rc[o2].hi).add(rc[o2].lo)
		}
		worst = math.Max(worst, checkTL1(t, fmt.Sprintf("trial %d square", trial), s, sqA, sqC))
		// re-tilt to the tilts of the doubled loss (between and beyond the
		// old ones) and compose with itself
		tau2 := chooseTilts(sd*math.Sqrt2*(0.5+rng.Float64()), 2+rng.IntN(4), float64(n+1)*s.lambda)
		s2 := s.retilt(tau2)
		worst = math.Max(worst, checkTL1(t, fmt.Sprintf("trial %d retilt", trial), s2, sqA, sqC))
		z2 := cp.compose(s2, s2, nil)
		r2a, r2c := ddConv(sqA, sqA, n), ddConv(sqC, sqC, n)
		worst = math.Max(worst, checkTL1(t, fmt.Sprintf("trial %d compose 2", trial), z2, r2a, r2c))
	}
	t.Logf("largest tilted error / bound: %.3g", worst)
	if worst < 1e-3 {
		t.Errorf("the largest actual/bound ratio is %.3g: the check does not see the errors", worst)
	}
}

// TestTL1TightInputs gives lists exactly known errors (a point error at a
// random offset, the bound equal to it: tight inputs) and checks that the
// bounds after a squaring (grouped sums, grid spread), a re-tilt and a
// composition still cover the propagated error, at tilts large enough that
// a bucket's move matters (|tau lambda| up to 2). (The grid merge is
// checked end to end by TestTL1BruteForce.)
func TestTL1TightInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 55))
	for trial := 0; trial < 400; trial++ {
		l := randomBigTiltList(rng, 8)
		n, lambda, tau, K := l.n, l.lambda, l.tau, len(l.tau)
		for o := 0; o < 2*n; o++ {
			if rng.IntN(2) == 0 {
				l.a[o] = rng.Float64() / float64(2*n)
				l.c[o] = rng.Float64() / float64(2*n)
			}
		}
		l.lo, l.hi = 0, 2*n-1
		l.trim()
		l.grid = rng.IntN(2) == 0
		l.relA, l.relC, l.l1A, l.l1C = 0, 0, 0, 0
		// the truth: a point error at offset e of size d (either sign)
		e := rng.IntN(2 * n)
		d := (2*rng.Float64() - 1) * 1e-6
		trueA := append([]float64(nil), l.a...)
		trueC := append([]float64(nil), l.c...)
		trueA[e] = math.Max(0, trueA[e]+d)
		trueC[e] = math.Max(0, trueC[e]+d)
		dA, dC := math.Abs(trueA[e]-l.a[e]), math.Abs(trueC[e]-l.c[e])
		l.tl1A, l.tl1C = make([]float64, K), make([]float64, K)
		for m, t := range tau {
			w := math.Exp(t * l.loss(e))
			l.tl1A[m], l.tl1C[m] = dA*w*(1+1e-15), dC*w*(1+1e-15)
		}
		l.envA, l.envC = make([]float64, K), make([]float64, K)
		for m, t := range tau {
			w := math.Exp(-t * l.loss(e))
			l.envA[m], l.envC[m] = dA/w*(1+1e-15), dC/w*(1+1e-15)
		}
		l.l1A, l.l1C = dA*(1+1e-15), dC*(1+1e-15)
		wide := trial%4 == 3
		if wide {
			// pointwise envelopes far above the errors (still bounds): a
			// composition zeroes most of its outputs as noise, so the
			// zeroed part (list.zA) carries most of the true mass
			for m := range l.envA {
				l.envA[m], l.envC[m] = 1, 1
			}
		}
		desc := fmt.Sprintf("trial %d (n %d, lambda %g, tau %v, grid %v, error at %d, wide %v)", trial, n, lambda, tau, l.grid, e, wide)
		check := func(name string, z *list, ta, tc []float64) {
			sa, sc := z.tl1Sum()
			for m, t0 := range z.tau {
				var ea, ec float64
				for o := range ta {
					w := math.Exp(t0 * z.loss(o))
					ea += math.Abs(ta[o]-z.a[o]) * w
					ec += math.Abs(tc[o]-z.c[o]) * w
				}
				if ea > sa[m]*(1+1e-9) || ec > sc[m]*(1+1e-9) {
					t.Fatalf("%s: %s tilt %g: errors %.6g, %.6g > bounds %.6g, %.6g", desc, name, t0, ea, ec, sa[m], sc[m])
				}
			}
		}
		// square: the truth squared the same way (grouped: sums; grid:
		// the spread of the true upper pair with the same constants)
		if !l.grid {
			s := l.square()
			ta, tc := make([]float64, 2*n), make([]float64, 2*n)
			for i := -n/2 + 1; i <= n/2; i++ {
				o, o1, o2 := i+n-1, 2*i-1+n-1, 2*i+n-1
				ta[o], tc[o] = trueA[o1]+trueA[o2], trueC[o1]+trueC[o2]
			}
			check("square", s, ta, tc)
		} else {
			s := l.square()
			ta := make([]float64, 2*n)
			tt := math.Exp(-l.lambda)
			cUp := 1 / (1 + tt)
			cDn := tt * cUp
			for o := range trueA {
				dn, up := halfIndex(l.index(o))
				if dn == up {
					ta[dn+n-1] += trueA[o]
					continue
				}
				ta[up+n-1] += cUp * trueA[o]
				ta[dn+n-1] += cDn * trueA[o]
			}
			check("spread", s, ta, s.c)
		}
		// re-tilt and compose with an exact partner
		tau2 := bigTilts(rng, 1+rng.IntN(4), n, lambda)
		r := l.retilt(tau2)
		check("retilt", r, trueA, trueC)
		y := newList(n, lambda, tau2)
		y.grid = l.grid
		for o := 0; o < 2*n; o++ {
			if rng.IntN(3) == 0 {
				y.a[o] = rng.Float64() / float64(2*n)
				y.c[o] = rng.Float64() / float64(2*n)
			}
		}
		y.lo, y.hi = 0, 2*n-1
		y.trim()
		y.relA, y.relC, y.l1A, y.l1C = 0, 0, 0, 0
		cp := newComposer(n)
		z := cp.compose(r, y, nil)
		ta, tc := make([]float64, 2*n), make([]float64, 2*n)
		for j := 0; j < 2*n; j++ {
			for k := 0; k < 2*n; k++ {
				o := j + k - (n - 1)
				if o >= 0 && o < 2*n {
					ta[o] += trueA[j] * y.a[k]
					tc[o] += trueC[j] * y.c[k]
				}
			}
		}
		check("compose", z, ta, tc)
		checkZeroedApart(t, desc+" compose", z, ddOf(ta), ddOf(tc))
		// with itself: both operands carry the error
		zz := cp.compose(r, r, nil)
		sa, sc := make([]float64, 2*n), make([]float64, 2*n)
		for j := 0; j < 2*n; j++ {
			for k := 0; k < 2*n; k++ {
				o := j + k - (n - 1)
				if o >= 0 && o < 2*n {
					sa[o] += trueA[j] * trueA[k]
					sc[o] += trueC[j] * trueC[k]
				}
			}
		}
		check("self-compose", zz, sa, sc)
		if z.grid {
			// delta from the tilted bounds alone against the true values'
			// sums (upper pair a, lower pair c, windows 0)
			tab := z.gridTable(z.bounds())
			for _, eps := range []float64{0, 0.1, 1, 3, rng.Float64() * float64(n) * lambda} {
				var ab, abc float64
				for o := range ta {
					f := math.Max(0, -math.Expm1(eps-z.loss(o)))
					ab += ta[o] * f
					abc += tc[o] * f
				}
				d := z.gridDeltaWith(eps, tab, errTilted)
				if d.UpperAB < ab*(1-1e-12) || d.LowerAB > abc*(1+1e-12)+1e-300 {
					t.Fatalf("%s: compose: eps %v: [%.17g, %.17g] against %.17g (upper pair), %.17g (lower)", desc, eps, d.LowerAB, d.UpperAB, ab, abc)
				}
			}
		}
	}
}

// TestTL1DeltaTight checks delta from the tilted bounds alone (errTilted)
// on lists with known errors and tight tilted bounds: computed values a,
// true values a + d at a few offsets (d up to 30% of the entry, either
// sign), E_m = sum |d| e^(tau_m L) exactly. The true pair has its atoms
// exactly on the grid points (grid lists: B-masses a e^-L; grouped lists:
// u = 0 and c = a e^-L, the same perturbation in proportion), so its exact
// delta is a sum over the true values. The eps sit where the bound is
// tightest (L - eps = ln(1 + 1/s) for an error at L, see lnGStar) and at
// random places.
func TestTL1DeltaTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 99))
	for trial := 0; trial < 3000; trial++ {
		n := 4 * (2 + rng.IntN(8))
		lambda := math.Exp(-3 + 3*rng.Float64())
		K := 1 + rng.IntN(4)
		tau := make([]float64, K)
		for m := range tau {
			tau[m] = (2*rng.Float64() - 1) * 3
		}
		grid := trial%2 == 0
		l := newList(n, lambda, tau)
		l.grid = grid
		if grid && rng.IntN(2) == 0 {
			// windows: each check puts the true atoms at the worst end
			l.wUp, l.wLo = 0.3*lambda*rng.Float64(), 0.3*lambda*rng.Float64()
		}
		trueA := make([]float64, 2*n)
		for o := 0; o < 2*n; o++ {
			if rng.IntN(2) == 0 {
				l.a[o] = rng.Float64() / float64(2*n)
			}
			trueA[o] = l.a[o]
		}
		var errs []int
		for k := 0; k < 1+rng.IntN(3); k++ {
			e := rng.IntN(2 * n)
			if l.a[e] == 0 {
				l.a[e] = rng.Float64() / float64(2*n)
				trueA[e] = l.a[e]
			}
			trueA[e] = l.a[e] * (1 + 0.3*(2*rng.Float64()-1))
			errs = append(errs, e)
		}
		// masses of both sides at most 1 (true and computed)
		var sA, sB float64
		for o := range l.a {
			v := math.Max(l.a[o], trueA[o])
			sA += v
			sB += v * math.Exp(-l.loss(o)+l.wUp+l.wLo)
		}
		sc := 0.9 / math.Max(sA, sB)
		for o := range l.a {
			l.a[o] *= sc
			trueA[o] *= sc
		}
		trueC := make([]float64, 2*n)
		for o := range l.a {
			if grid {
				l.c[o] = l.a[o] // lower pair = upper pair
				trueC[o] = trueA[o]
			} else {
				l.c[o] = l.a[o] * math.Exp(-l.loss(o))
				trueC[o] = trueA[o] * math.Exp(-l.loss(o))
			}
		}
		l.lo, l.hi = 0, 2*n-1
		l.trim()
		rel := 0.0
		for o := range l.a {
			if l.a[o] > 0 {
				rel = math.Max(rel, math.Abs(trueA[o]-l.a[o])/l.a[o])
			}
		}
		l.relA, l.relC = rel*1.001, rel*1.001
		l.l1A, l.l1C = math.Inf(1), math.Inf(1)
		// entries zeroed as noise (list.tl1ZA): computed 0, true values
		// kept, their values apart in zA, zC and tl1ZA, tl1ZC
		// (either side or both; 1: a, 2: c, 3: both)
		zeroed := map[int]int{}
		if trial%3 == 0 {
			for k := 0; k < 1+rng.IntN(2); k++ {
				o := rng.IntN(2 * n)
				zeroed[o] = 1 + rng.IntN(3)
				errs = append(errs, o)
			}
		}
		l.tl1A, l.tl1C = make([]float64, K), make([]float64, K)
		l.tl1ZA, l.tl1ZC = make([]float64, K), make([]float64, K)
		for o, sides := range zeroed {
			if sides&1 != 0 {
				l.zA += l.a[o] * (1 + 1e-13)
			}
			if sides&2 != 0 {
				l.zC += l.c[o] * (1 + 1e-13)
			}
		}
		for m, tm := range tau {
			for o := range l.a {
				// errors before zeroing |true - v|, the values v of the
				// zeroed entries apart
				w := math.Exp(tm * l.loss(o))
				l.tl1A[m] += math.Abs(trueA[o]-l.a[o]) * w
				l.tl1C[m] += math.Abs(trueC[o]-l.c[o]) * w
				if zeroed[o]&1 != 0 {
					l.tl1ZA[m] += l.a[o] * w * (1 + 1e-13)
				}
				if zeroed[o]&2 != 0 {
					l.tl1ZC[m] += l.c[o] * w * (1 + 1e-13)
				}
			}
			l.tl1A[m] *= 1 + 1e-13
			l.tl1C[m] *= 1 + 1e-13
		}
		for o, sides := range zeroed {
			if sides&1 != 0 {
				l.a[o] = 0
			}
			if sides&2 != 0 {
				l.c[o] = 0
			}
		}
		l.trim()
		l.compositions = 1
		var epss []float64
		for _, e := range errs {
			for _, tm := range tau {
				for _, s := range []float64{tm, -(1 + tm)} {
					if s > 0 {
						x := math.Log1p(1 / s)
						epss = append(epss, l.loss(e)-x, -l.loss(e)-x)
					}
				}
			}
		}
		for k := 0; k < 4; k++ {
			epss = append(epss, rng.Float64()*float64(n)*lambda)
		}
		b := l.bounds()
		var gt *gridTable
		var dt *deltaTable
		if grid {
			gt = l.gridTable(b)
		} else {
			dt = l.deltaTable(b)
		}
		for _, eps := range epss {
			if !(eps >= 0) {
				continue
			}
			var ab, ba, abLo, baLo float64
			for o := range trueA {
				L := l.loss(o)
				if grid {
					// upper pair at L + wUp (A||B) or L - wUp (B||A), lower
					// pair at L - wLo (A||B) or L + wLo (B||A): the ends of
					// the windows where each delta is largest, resp. least
					lu, lb := L+l.wUp, L-l.wUp
					ab += trueA[o] * math.Max(0, -math.Expm1(eps-lu))
					ba += trueA[o] * math.Exp(-lb) * math.Max(0, -math.Expm1(eps+lb))
					ll, lm := L-l.wLo, L+l.wLo
					abLo += trueC[o] * math.Max(0, -math.Expm1(eps-ll))
					baLo += trueC[o] * math.Exp(-lm) * math.Max(0, -math.Expm1(eps+lm))
				} else {
					ab += math.Max(0, trueA[o]-math.Exp(eps)*trueC[o])
					ba += math.Max(0, trueC[o]-math.Exp(eps)*trueA[o])
				}
			}
			var d DeltaBound
			if grid {
				d = l.gridDeltaWith(eps, gt, errTilted)
			} else {
				d = l.deltaWith(eps, b, true, dt, errTilted)
			}
			msg := checkPair(ab, ba, d)
			if grid {
				msg = checkPair(ab, ba, DeltaBound{UpperAB: d.UpperAB, UpperBA: d.UpperBA})
				if m2 := checkPair(abLo, baLo, DeltaBound{UpperAB: 1, UpperBA: 1, LowerAB: d.LowerAB, LowerBA: d.LowerBA}); m2 != "" {
					msg = m2
				}
			}
			if msg != "" {
				t.Fatalf("trial %d (grid %v, n %d, lambda %g, tau %v, windows %g %g, errors at %v): eps %v: %s", trial, grid, n, lambda, tau, l.wUp, l.wLo, errs, eps, msg)
			}
		}
	}
}

// TestFFTTL1WorstCase checks fftTL1 against the error vectors that make
// its Cauchy-Schwarz step an equality: e_m[o] proportional to
// inv_m[o] w_k[o] on the entries that took tilt m, with 2-norm fft_m.
func TestFFTTL1WorstCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 88))
	for trial := 0; trial < 200; trial++ {
		n := 4 * (2 + rng.IntN(50))
		lambda := math.Exp(-4 + 3*rng.Float64())
		K := 1 + rng.IntN(5)
		tau := make([]float64, K)
		for m := range tau {
			tau[m] = (2*rng.Float64() - 1) * 20 / (float64(n+1) * lambda)
		}
		tw := newTiltWeights(n, lambda, tau)
		w0 := rng.IntN(n)
		w1 := w0 + rng.IntN(2*n-w0)
		ch := make([]uint8, 2*n)
		for o := range ch {
			ch[o] = uint8(rng.IntN(K))
		}
		if trial%2 == 0 {
			// runs (the usual structure: fftTL1Runs)
			m := rng.IntN(K)
			for o := range ch {
				if rng.IntN(max(4, n/4)) == 0 {
					m = rng.IntN(K)
				}
				ch[o] = uint8(m)
			}
		}
		outs := make([]tiltOut, K)
		for m := range outs {
			outs[m].fftA = math.Exp(-40 * rng.Float64())
			outs[m].fftC = outs[m].fftA * rng.Float64()
		}
		acc := make([]float64, K*K)
		fa := fftTL1(ch, outs, tw, tau, n, lambda, w0, w1, true, acc)
		fc := fftTL1(ch, outs, tw, tau, n, lambda, w0, w1, false, acc)
		if trial%2 == 0 {
			if _, ok := fftTL1Runs(ch, outs, tau, n, lambda, w0, w1, true, acc); !ok {
				t.Fatalf("trial %d: runs not taken", trial)
			}
		}
		for k := 0; k < K; k++ {
			var worstA, worstC float64
			for m := 0; m < K; m++ {
				// e_m[o] = fft_m v[o] / |v|_2 with v[o] = e^((tau_k - tau_m) L(o))
				var s2 float64
				for o := w0; o <= w1; o++ {
					if int(ch[o]) == m {
						v := math.Exp((tau[k] - tau[m]) * float64(o-n+1) * lambda)
						s2 += v * v
					}
				}
				worstA += outs[m].fftA * math.Sqrt(s2)
				worstC += outs[m].fftC * math.Sqrt(s2)
			}
			if worstA > fa[k]*(1+1e-12) || worstC > fc[k]*(1+1e-12) {
				t.Fatalf("trial %d tilt %d: worst case (%.6g, %.6g) > bound (%.6g, %.6g)", trial, k, worstA, worstC, fa[k], fc[k])
			}
			if worstA < fa[k]*(1-1e-6) {
				t.Fatalf("trial %d tilt %d: bound %.6g not attained (%.6g): the check is not the worst case", trial, k, fa[k], worstA)
			}
		}
	}
}

// TestTL1MergeTight checks the grid merge's tilted amplification (ampT in
// mergeSquare) against the lower pair the merges define: for each recorded
// merge of amounts x of atom o1 and y of atom o2 (fractions phi = x/c[o1],
// y/c[o2]) the true merged atom is min(phi1 T1 k1, phi2 T2 k2) of the true
// atoms T, and a kept even atom is phi T. Inputs carry known errors at a
// few offsets with tight tilted bounds, dense and sparse (far merges), at
// tilts where a bucket's move matters (|tau lambda| up to 2).
func TestTL1MergeTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1313))
	for trial := 0; trial < 2000; trial++ {
		l := randomBigTiltList(rng, 12)
		n, lambda, tau, K := l.n, l.lambda, l.tau, len(l.tau)
		l.grid = true
		sparse := rng.IntN(2) == 0
		for o := 0; o < 2*n; o++ {
			if (!sparse && rng.IntN(4) != 0) || (sparse && rng.IntN(6) == 0) {
				l.a[o] = rng.Float64() / float64(2*n)
				l.c[o] = l.a[o] * (0.5 + rng.Float64())
			}
		}
		l.lo, l.hi = 0, 2*n-1
		l.trim()
		if l.lo > l.hi {
			continue
		}
		trueC := append([]float64(nil), l.c...)
		var errs []int
		for k := 0; k < 1+rng.IntN(3); k++ {
			e := l.lo + rng.IntN(l.hi-l.lo+1)
			if l.c[e] == 0 {
				continue
			}
			trueC[e] = l.c[e] * (1 + 0.3*(2*rng.Float64()-1))
			errs = append(errs, e)
		}
		l.relA, l.relC = 0, 0
		l.envA, l.envC = make([]float64, K), make([]float64, K)
		l.tl1A, l.tl1C = make([]float64, K), make([]float64, K)
		for m, tm := range tau {
			for o := range l.c {
				l.tl1C[m] += math.Abs(trueC[o]-l.c[o]) * math.Exp(tm*l.loss(o))
			}
			l.tl1C[m] *= 1 + 1e-13
			// pointwise envelopes covering the errors (not used here)
			for _, e := range errs {
				l.envC[m] = math.Max(l.envC[m], math.Abs(trueC[e]-l.c[e])*math.Exp(tm*l.loss(e))*(1+1e-13))
			}
		}
		l.l1A, l.l1C = 0, 0
		for _, e := range errs {
			l.l1C += math.Abs(trueC[e]-l.c[e]) * (1 + 1e-13)
		}
		var rec mergeLog
		s := l.gridSquareRec(&rec)
		tc := make([]float64, 2*n)
		for _, p := range rec.parts {
			if p.o2 < 0 {
				tc[p.ok] += p.x / l.c[p.o1] * trueC[p.o1]
				continue
			}
			f1, f2 := p.x/l.c[p.o1], p.y/l.c[p.o2]
			tc[p.ok] += math.Min(f1*trueC[p.o1]*p.k1, f2*trueC[p.o2]*p.k2)
		}
		_, sc := s.tl1Sum()
		for m, tm := range s.tau {
			ec := 0.0
			for o := range tc {
				ec += math.Abs(tc[o]-s.c[o]) * math.Exp(tm*s.loss(o))
			}
			if ec > sc[m]*(1+1e-9) {
				t.Fatalf("trial %d (n %d, lambda %g, tau %v, sparse %v, errors at %v): merge tilt %g: errors %.6g > bound %.6g",
					trial, n, lambda, tau, sparse, errs, tm, ec, sc[m])
			}
		}
	}
}

// bigTilts returns K random tilts with |tau lambda| up to 2 (a bucket's
// move matters) and |tau| (n+1) lambda at most 300 (weights in float64).
// randomBigTiltList returns an empty list of n = 4 (2 + k) buckets (k below
// kMax), width e^-3..1 and 1 to 4 tilts from bigTilts (the setup of the
// tight tests).
func randomBigTiltList(rng *rand.Rand, kMax int) *list {
	n := 4 * (2 + rng.IntN(kMax))
	lambda := math.Exp(-3 + 3*rng.Float64())
	K := 1 + rng.IntN(4)
	return newList(n, lambda, bigTilts(rng, K, n, lambda))
}

func bigTilts(rng *rand.Rand, K, n int, lambda float64) []float64 {
	tau := make([]float64, K)
	for m := range tau {
		tau[m] = (2*rng.Float64() - 1) * 2 / lambda
		if float64(n+1)*lambda*math.Abs(tau[m]) > 300 {
			tau[m] *= 300 / (float64(n+1) * lambda * math.Abs(tau[m]))
		}
	}
	return tau
}

// TestTiltedSums checks tiltedSum and tiltedSums against sums with
// per-entry exponentials in log space (values down to 1e-300, tilts whose
// weights leave float64 over the range): never below them, within 1e-10.
func TestTiltedSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2121))
	for trial := 0; trial < 300; trial++ {
		n := 4 * (1 + rng.IntN(300))
		lambda := math.Exp(-6 + 6*rng.Float64())
		K := 1 + rng.IntN(6)
		tau := make([]float64, K)
		for k := range tau {
			tau[k] = (2*rng.Float64() - 1) * 1200 / (float64(n) * lambda)
		}
		if rng.IntN(4) == 0 {
			tau[0] = 0
		}
		v1, v2 := make([]float64, 2*n), make([]float64, 2*n)
		for o := range v1 {
			if rng.IntN(3) != 0 {
				v1[o] = math.Pow(10, -300*rng.Float64()*rng.Float64())
				v2[o] = rng.Float64()
			}
		}
		lo := rng.IntN(2 * n)
		hi := lo + rng.IntN(2*n-lo)
		s1, s2 := tiltedSums(v1, v2, lo, hi, n, lambda, tau)
		for k, tk := range tau {
			for side, v := range [][]float64{v1, v2} {
				// reference: log-sum-exp of ln v + tau L
				ref := math.Inf(-1)
				for o := lo; o <= hi; o++ {
					if v[o] > 0 {
						x := math.Log(v[o]) + tk*float64(o-n+1)*lambda
						ref = math.Max(ref, x) + math.Log1p(math.Exp(-math.Abs(ref-x)))
					}
				}
				got := []float64{s1[k], s2[k]}[side]
				one := tiltedSum(v, lo, hi, n, lambda, tk)
				for _, g := range []float64{got, one} {
					if math.IsInf(ref, -1) {
						continue
					}
					lg := math.Log(g)
					if lg < ref-1e-10 || (lg > ref+1e-10 && !math.IsInf(g, 1) && ref < 700 && ref > -600) {
						t.Fatalf("trial %d tilt %g side %d: ln sum %.15g, reference %.15g (fused %.6g, single %.6g)", trial, tk, side, lg, ref, got, one)
					}
				}
			}
		}
	}
}
