package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fusedPairs are the continuous pairs with fused functions (lossBoth,
// masses), over a range of rates and shifts.
func fusedPairs() []struct {
	name string
	mp   *monotonePair
} {
	type named = struct {
		name string
		mp   *monotonePair
	}
	var ps []named
	for _, c := range []struct{ q, a float64 }{{0.01, 1 / 1.1}, {0.001, 1}, {0.01, 0.25}, {0.3, 2}, {0.999, 1.25}, {1e-6, 8}} {
		ps = append(ps, named{"gaussRemove", gaussRemove(c.q, c.a)}, named{"gaussAntipodal", gaussAntipodal(c.q, c.a)})
		lr := newLapRemove(c.q, c.a)
		ps = append(ps, named{"lapRemove.middle", lr.middle(0, lr.lm)}, named{"lapRemove.antipodalMiddle", lr.antipodalMiddle()})
	}
	return ps
}

// TestFusedPairFunctions checks that each pair's fused functions return the
// values of its separate ones bit for bit: lossBoth(t) = (loss(t),
// lossErr(t)) and masses(t1, t2) = (massA(t1, t2), massB(t1, t2)), on
// points across the support, from far tails to narrow intervals.
func TestFusedPairFunctions(t *testing.T) {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	for _, p := range fusedPairs() {
		mp := p.mp
		if mp.lossBoth == nil || mp.masses == nil {
			t.Fatalf("%s: no fused functions", p.name)
		}
		lo, hi := math.Max(mp.tMin, -40), math.Min(mp.tMax, 40)
		for i := 0; i <= 4000; i++ {
			x := lo + (hi-lo)*float64(i)/4000
			if x <= mp.tMin || x >= mp.tMax {
				continue
			}
			L, e := mp.lossBoth(x)
			if !same(L, mp.loss(x)) || !same(e, mp.lossErr(x)) {
				t.Fatalf("%s: lossBoth(%v) = %v, %v; separate %v, %v", p.name, x, L, e, mp.loss(x), mp.lossErr(x))
			}
			for _, w := range []float64{1e-9, 1e-4, 0.01, 0.7, 5} {
				x2 := math.Min(x+w, mp.tMax)
				pa, pb := mp.masses(x, x2)
				if !same(pa, mp.massA(x, x2)) || !same(pb, mp.massB(x, x2)) {
					t.Fatalf("%s: masses(%v, %v) = %v, %v; separate %v, %v", p.name, x, x2, pa, pb, mp.massA(x, x2), mp.massB(x, x2))
				}
			}
		}
	}
}

// TestFusedEmbedIdentical checks that embedding a pair with its fused
// functions adds the same groups, bit for bit and in order, as embedding
// it with the separate functions only (embedWorkers shares each cut's loss
// bounds between its two pieces either way).
func TestFusedEmbedIdentical(t *testing.T) {
	t.Parallel()
	for _, p := range fusedPairs() {
		for _, g := range []struct {
			lam float64
			n   int
		}{{1e-4, 30000}, {0.05, 300}} {
			fused := &recordSink{lam: g.lam, n: g.n}
			p.mp.embedWorkers(fused, 2)
			plain := *p.mp
			plain.lossBoth, plain.masses = nil, nil
			sep := &recordSink{lam: g.lam, n: g.n}
			plain.embedWorkers(sep, 2)
			if len(fused.adds) != len(sep.adds) {
				t.Fatalf("%s lambda %v: %d groups, separate %d", p.name, g.lam, len(fused.adds), len(sep.adds))
			}
			for i := range sep.adds {
				for k := range 4 {
					if math.Float64bits(fused.adds[i][k]) != math.Float64bits(sep.adds[i][k]) {
						t.Fatalf("%s lambda %v: group %d = %v, separate %v", p.name, g.lam, i, fused.adds[i], sep.adds[i])
					}
				}
			}
		}
	}
}

// TestNarrowNormalTails checks narrowNormal's claim: wherever it holds, the
// computed tails satisfy normQ(t2) > normQ(t1)/2, so normMass takes the
// narrow branch with or without computing them; and that it holds for the
// narrow pieces of a fine leaf (it is what saves the tails' cost).
func TestNarrowNormalTails(t *testing.T) {
	held := 0
	for i := 0; i <= 3000; i++ {
		t1 := 40 * float64(i) / 3000
		for _, w := range []float64{1e-12, 1e-6, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 1} {
			t2 := t1 + w
			if !narrowNormal(t1, t2) {
				continue
			}
			held++
			q1, q2 := normQ(t1), normQ(t2)
			if !(q2 > 0.5*q1) || !(q2 > 0.54*q1) {
				t.Fatalf("narrowNormal(%v, %v) but Q ratio %v", t1, t2, q2/q1)
			}
		}
	}
	if held < 10000 || !narrowNormal(5, 5+1e-4) || narrowNormal(29.9, 30.01) || narrowNormal(0, 0.7) {
		t.Errorf("narrowNormal held on %d intervals of the grid", held)
	}
}

// TestSpreadSkipIdentical checks that spreadCache.spread, which skips the
// loss-based enclosures that cannot be the tighter, returns the same
// spread, bit for bit, as computing all four (spreadCache.full), on groups
// from fine grids (where the masses' enclosures win) to coarse ones (where
// the losses' do), with masses exact or off by their relative error.
func TestSpreadSkipIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const u = unitRoundoff
	checked := 0
	for _, lam := range []float64{1e-5, 2e-4, 0.01, 0.3, 1.5} {
		for _, rMax := range []float64{64 * u, 1e-9, 1e-3} {
			for it := 0; it < 3000; it++ {
				// relative errors log-uniform up to rMax, so that the
				// masses' and the losses' enclosures each win somewhere
				r := rMax * math.Pow(1e-6, rng.Float64())
				j := rng.IntN(200) - 100
				i := j + 1 + rng.IntN(2)
				x0, x1 := float64(j)*lam, float64(i)*lam
				lo := x0 + (x1-x0)*rng.Float64()
				hi := lo + (x1-lo)*rng.Float64()
				loGrid, hiGrid := true, true
				if it%5 == 1 {
					// a loss bound a rounding error beyond its point
					lo, loGrid = x0-1e-13, false
				}
				if it%5 == 2 {
					hi, hiGrid = x1+1e-13, false
				}
				p := math.Exp(-30 * rng.Float64())
				if it%7 == 3 {
					// masses near underflow (lowAtomUnderflows)
					p = math.Exp(-660 - 50*rng.Float64())
				}
				// a group's B-mass: the A-mass at a loss inside [lo, hi],
				// perturbed by up to r
				l := lo + (hi-lo)*rng.Float64()
				q := p * math.Exp(-l) * (1 + r*(2*rng.Float64()-1))
				var fast, full spreadCache
				full.full = true
				a := fast.spread(p, q, ln(q), r, j, i, lam, lo, hi, loGrid, hiGrid)
				b := full.spread(p, q, ln(q), r, j, i, lam, lo, hi, loGrid, hiGrid)
				if !sameSpread(a, b) {
					t.Fatalf("lambda %v r %v group p %v q %v losses [%v, %v] on %d..%d: %+v, all enclosures %+v", lam, r, p, q, lo, hi, j, i, a, b)
				}
				checked++
			}
		}
	}
	if checked < 40000 {
		t.Errorf("only %d groups", checked)
	}
}

// sameSpread reports whether a and b are the same spread, bit for bit;
// bLo, which serves lowAtomUnderflows only, only where that holds (else
// the decision must agree).
func sameSpread(a, b spreadParts) bool {
	if lowAtomUnderflows(a) != lowAtomUnderflows(b) {
		return false
	}
	if lowAtomUnderflows(b) && math.Float64bits(a.bLo) != math.Float64bits(b.bLo) {
		return false
	}
	fa := []float64{a.lo, a.hi, a.relLo, a.relHi, a.w, a.x0, a.x1, a.hiBound, a.wHi}
	fb := []float64{b.lo, b.hi, b.relLo, b.relHi, b.w, b.x0, b.x1, b.hiBound, b.wHi}
	for k := range fa {
		if math.Float64bits(fa[k]) != math.Float64bits(fb[k]) {
			return false
		}
	}
	return a.absorb == b.absorb
}

// TestGaussLegendreFew checks glNormal's choice of rule: where it takes 4
// points, the sum agrees with the 8-point rule (exact to far below
// roundoff on these intervals) within the roundings of the two sums, on
// intervals up to the threshold of few4 and well beyond it, for starts of
// either sign (narrowMassAt).
func TestGaussLegendreFew(t *testing.T) {
	u := unitRoundoff
	eight := func(t, h float64) float64 {
		sum := 0.0
		for k := 0; k < 8; k++ {
			s := h * (1 + gl8x[k])
			sum += gl8w[k] * math.Exp(-t*s-s*s/2)
		}
		return sum
	}
	four, worst := 0, 0.0
	for i := 0; i <= 400; i++ {
		tt := -40 + 80*float64(i)/400
		for _, y := range []float64{1e-6, 1e-3, 0.01, 0.03, 0.05, 0.06, 0.08, 0.15, 0.3, 0.6, 1.2} {
			A := math.Abs(tt)
			// w (|t| + w + 3) = y
			w := (-(A + 3) + math.Sqrt((A+3)*(A+3)+4*y)) / 2
			got := glNormal(tt, w, A+w, w/2)
			want := eight(tt, w/2)
			rel := math.Abs(got-want) / want
			worst = math.Max(worst, rel)
			if !(rel <= 16*u) {
				t.Fatalf("t %v, w %v (w (A+3) = %v): %v, 8 points %v (%.3g u)", tt, w, y, got, want, rel/u)
			}
			if few4(w, A+w) {
				four++
			}
		}
	}
	if four < 2000 {
		t.Errorf("4 points on only %d intervals", four)
	}
	t.Logf("largest difference %.2f u", worst/u)
}

// TestLowerChainSkipIdentical checks that lowerChain, which does not run
// the sweep from the mode where a bound on what it can keep already loses
// to the single upward sweep, builds the same lower pair, bit for bit, as
// running every sweep, on the random cases of the sweep's brute-force test
// (bumps, masses heavy at the lowest loss, uniform).
func TestLowerChainSkipIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for it := 0; it < 2000; it++ {
		c := randomLowerSweepCase(rng)
		a := c.lowerLeafSweeps(0, true, false)
		b := c.lowerLeafSweeps(0, true, true)
		for o := range b.c {
			if math.Float64bits(a.c[o]) != math.Float64bits(b.c[o]) {
				t.Fatalf("case %d offset %d: %v, with every sweep %v", it, o, a.c[o], b.c[o])
			}
		}
		if math.Float64bits(a.wLo) != math.Float64bits(b.wLo) || math.Float64bits(a.relC) != math.Float64bits(b.relC) {
			t.Fatalf("case %d: window %v rel %v, with every sweep %v %v", it, a.wLo, a.relC, b.wLo, b.relC)
		}
	}
}
