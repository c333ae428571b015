package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// groupedHist is a test mechanism: a histogram whose events are passed to
// the leaf builder in groups of consecutive losses, each group with the
// loss range of its events, as a continuous mechanism passes a bucket's
// interval. The true pair is the histogram, so enumeration gives the exact
// delta while the grid leaf sees only the groups' masses and ranges.
type groupedHist struct {
	a, b  []float64 // sorted by loss
	sizes []int     // group sizes
}

func (g *groupedHist) String() string {
	return fmt.Sprintf("groupedHist(%d, %016x)", len(g.a), hashFloats(g.a, g.b))
}

func (g *groupedHist) embed(b *leafBuilder) error {
	k := 0
	for _, s := range g.sizes {
		var pa, pb float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := k; i < k+s; i++ {
			pa += g.a[i]
			pb += g.b[i]
			l, h := eventLoss(g.a[i], g.b[i])
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
		b.add(pa, pb, lo, hi)
		k += s
	}
	return nil
}

func (g *groupedHist) lossRange(float64) float64 {
	t := 0.0
	for i := range g.a {
		l, h := eventLoss(g.a[i], g.b[i])
		t = math.Max(t, math.Max(math.Abs(l), math.Abs(h)))
	}
	return math.Max(t, 1e-9)
}

// newGroupedHist returns a random pair with k outcomes of full support
// (every event has a finite loss), sorted by loss, in random groups.
func newGroupedHist(rng *rand.Rand, k int) *groupedHist {
	a, b := make([]float64, k), make([]float64, k)
	sa, sb := 0.0, 0.0
	for i := range a {
		a[i] = 0.05 + rng.Float64()
		b[i] = a[i] * math.Exp(-(rng.Float64()*2-1)*rng.Float64()*3)
		sa += a[i]
		sb += b[i]
	}
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(x, y int) bool { return a[idx[x]]/b[idx[x]] < a[idx[y]]/b[idx[y]] })
	g := &groupedHist{a: make([]float64, k), b: make([]float64, k)}
	for i, j := range idx {
		g.a[i], g.b[i] = a[j]/sa, b[j]/sb
	}
	for left := k; left > 0; {
		s := min(left, 1+rng.IntN(4))
		g.sizes = append(g.sizes, s)
		left -= s
	}
	return g
}

// gridCase composes 1-3 random leaves into one grid list with random
// squarings and tilts, and returns it with the product PMFs.
func gridCase(rng *rand.Rand, trial int) (*list, []float64, []float64, string) {
	k := 1 + rng.IntN(3)
	var as, bs [][]float64
	var mechs []Mechanism
	for i := 0; i < k; i++ {
		var a, b []float64
		var m Mechanism
		switch rng.IntN(3) {
		case 0: // plain histogram (atoms, some distinguishing)
			n := 2 + rng.IntN(4)
			a, b = randomPMF(rng, n), randomPMF(rng, n)
			m, _ = Histogram(a, b)
		case 1: // randomized response: atoms on the grid when the factor fits
			p := 0.5 + 0.45*rng.Float64()
			a, b = []float64{p, 1 - p}, []float64{1 - p, p}
			m, _ = RandomizedResponse(p)
		default: // groups with loss ranges, like continuous buckets
			g := newGroupedHist(rng, 3+rng.IntN(8))
			a, b, m = g.a, g.b, g
		}
		as, bs = append(as, a), append(bs, b)
		mechs = append(mechs, m)
	}
	buckets := 4 * (2 + rng.IntN(40))
	factor := 1 + math.Exp(-5*rng.Float64())
	o, _ := Options{Buckets: buckets, Factor: factor, Tilts: 1 + rng.IntN(5)}.withDefaults()
	if rng.IntN(3) == 0 {
		o.Factor = 0 // automatic factor (atoms on borders)
	}
	p, leaves := gridLeavesOf(mechs, o, false)
	acc := composeRandomly(rng, p.cp, leaves)
	for s := rng.IntN(3); s > 0 && rng.IntN(2) == 0; s-- {
		acc = acc.square()
	}
	pa, pb := product(as, bs)
	desc := fmt.Sprintf("trial %d: k=%d buckets=%d f=%v tilts=%d squarings=%d wUp=%g wLo=%g", trial, k, buckets, math.Exp(p.lambda), o.Tilts, acc.squarings, acc.wUp, acc.wLo)
	return acc, pa, pb, desc
}

// gridLeavesOf plans one observation of each mechanism with the options o
// and returns the plan and the grid leaves (swap: the swapped grid leaves
// of gridswap.go).
func gridLeavesOf(mechs []Mechanism, o Options, swap bool) (*plan, []*list) {
	parts := make([]Part, len(mechs))
	for i := range parts {
		parts[i] = Part{mechs[i], 1}
	}
	p, err := newPlan(parts, o)
	if err != nil {
		panic(err)
	}
	leaves := make([]*list, len(mechs))
	for i := range leaves {
		leaves[i] = p.gridLeaves[mechs[i]]
		if swap {
			leaves[i] = p.swapLeaf(mechs[i])
		}
	}
	return p, leaves
}

// exactDir returns the exact delta of both directions of explicit PMFs.
func exactDir(a, b []float64, eps float64) (ab, ba float64) {
	e := math.Exp(eps)
	for i := range a {
		if math.IsInf(eps, 1) {
			if b[i] == 0 {
				ab += a[i]
			}
			if a[i] == 0 {
				ba += b[i]
			}
			continue
		}
		ab += math.Max(0, a[i]-e*b[i])
		ba += math.Max(0, b[i]-e*a[i])
	}
	return ab, ba
}

// logPhiBar returns ln P(Z > x) for a standard normal Z, accurate also
// where the tail underflows (asymptotic series beyond x = 30).
func logPhiBar(x float64) float64 {
	if x < 30 {
		return math.Log(0.5 * math.Erfc(x/math.Sqrt2))
	}
	x2 := x * x
	s := 1 - 1/x2 + 3/(x2*x2) - 15/(x2*x2*x2) + 105/(x2*x2*x2*x2)
	return -x2/2 - math.Log(x*math.Sqrt(2*math.Pi)) + math.Log(s)
}

// exactGaussLarge is exactGauss with the second term in log space, so that
// it stays accurate at large eps (e^eps times an underflowing tail).
func exactGaussLarge(mu, eps float64) float64 {
	a := math.Exp(logPhiBar(eps/mu - mu/2))
	b := math.Exp(eps + logPhiBar(eps/mu+mu/2))
	return math.Max(0, a-b)
}

var gridEps = []float64{0, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.7, 1, 2, 5, 10, 20, 50, math.Inf(1)}

// TestGridBruteForce composes small random pairs (atoms, randomized
// response, groups with loss ranges) through the grid leaf (spread and
// merging chain), compositions, squarings (spread and merging) and
// re-tilts, enumerates the product universe, and checks that the upper
// pair bounds the exact delta from above and the lower pair from below, in
// both directions, at small, large and infinite eps.
func TestGridBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2026))
	trials := 600
	if testing.Short() {
		trials = 150
	}
	for trial := 0; trial < trials; trial++ {
		g, pa, pb, desc := gridCase(rng, trial)
		tab := g.gridTable(g.bounds())
		for _, eps := range gridEps {
			ab, ba := exactDir(pa, pb, eps)
			d := g.gridDelta(eps, tab)
			tol := func(x float64) float64 { return x*1e-12 + 1e-300 }
			if d.UpperAB < ab-tol(ab) || d.UpperBA < ba-tol(ba) {
				t.Fatalf("%s eps=%v: upper (%.17g, %.17g) < exact (%.17g, %.17g)", desc, eps, d.UpperAB, d.UpperBA, ab, ba)
			}
			if d.LowerAB > ab+tol(ab) || d.LowerBA > ba+tol(ba) {
				t.Fatalf("%s eps=%v: lower (%.17g, %.17g) > exact (%.17g, %.17g)", desc, eps, d.LowerAB, d.LowerBA, ab, ba)
			}
		}
	}
}

// TestGridSpreadDominates checks the leaf spread of one group directly:
// for random groups of events (with masses perturbed by up to the relative
// error given), the two atoms of spreadUpper, each at the worst end of the
// window, bound the group's exact delta from above in both directions.
func TestGridSpreadDominates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 77))
	for trial := 0; trial < 20000; trial++ {
		lam := math.Exp(-12 * rng.Float64())
		k := 1 + rng.IntN(6)
		j := rng.IntN(200) - 100
		i := j + 1 + rng.IntN(2)
		// events with losses in [j lam, i lam] (or a rounding error beyond)
		var p, q float64
		var ev [][2]float64  // (A-mass, B-mass)
		var evl [][2]float64 // (A-mass, loss)
		lo, hi := math.Inf(1), math.Inf(-1)
		for e := 0; e < k; e++ {
			l := (float64(j) + float64(i-j)*rng.Float64()) * lam
			switch rng.IntN(8) {
			case 0:
				l = float64(j) * lam
			case 1:
				l = float64(i) * lam
			case 2: // a rounding error beyond a border (continuous buckets)
				l = float64(j)*lam - math.Exp(-35+8*rng.Float64())
			case 3:
				l = float64(i)*lam + math.Exp(-35+8*rng.Float64())
			}
			m := math.Exp(-20 * rng.Float64())
			ev = append(ev, [2]float64{m, m * math.Exp(-l)})
			evl = append(evl, [2]float64{m, l})
			p += m
			q += m * math.Exp(-l)
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
		// relative error r of the masses: a perturbation of up to r/2
		// plus the rounding of the sums
		r := math.Max(16*unitRoundoff, math.Exp(-35+30*rng.Float64()))
		pc := p * (1 + r/2*(2*rng.Float64()-1))
		qc := q * (1 + r/2*(2*rng.Float64()-1))
		// the events' losses are l up to the rounding of m e^-l
		lossLo, lossHi := lo-8*unitRoundoff*(1+math.Abs(lo)), hi+8*unitRoundoff*(1+math.Abs(hi))
		jj := int(gridFloor(lossLo, lam))
		ii := int(bucketOf(lossHi, lam))
		loGrid, hiGrid := true, true
		if jj < ii-1 && math.FMA(float64(jj+1), lam, -lossLo) <= gridWindowCap {
			jj, loGrid = jj+1, false
		}
		if jj < ii-1 && math.FMA(-float64(ii-1), lam, lossHi) <= gridWindowCap {
			ii, hiGrid = ii-1, false
		}
		if jj >= ii {
			continue
		}
		s := spreadUpper(pc, qc, r, jj, ii, lam, lossLo, lossHi, loGrid, hiGrid)
		checkSpreadInvariants(t, trial, s, evl, jj, ii, lam)
		for _, eps := range []float64{0, lam / 3, lam, float64(j) * lam, float64(i) * lam, 0.5, 3} {
			var ab, ba float64
			for _, e := range ev {
				ab += math.Max(0, e[0]-math.Exp(eps)*e[1])
				ba += math.Max(0, e[1]-math.Exp(eps)*e[0])
			}
			var uab, uba float64
			for _, at := range []struct {
				m, rel float64
				idx    int
			}{{s.lo, s.relLo, jj}, {s.hi, s.relHi, ii}} {
				mass := at.m * (1 + at.rel)
				L := float64(at.idx) * lam
				uab += mass * math.Max(0, -math.Expm1(eps-L-s.w))
				uba += mass * math.Exp(-L+s.w) * math.Max(0, -math.Expm1(eps+L-s.w))
			}
			tol := 1e-12*(ab+ba) + 1e-300
			if uab < ab-tol || uba < ba-tol {
				t.Fatalf("trial %d (lam %g, j %d, i %d, r %g, %d events): eps %v: spread (%g, %g) < exact (%g, %g); parts %+v", trial, lam, jj, ii, r, k, eps, uab, uba, ab, ba, s)
			}
		}
	}
}

// checkSpreadInvariants checks the facts the dominance proof of spreadUpper
// uses, with the events ev (A-mass, loss): the exact atom carries at least
// its exact spread mass (so the absorbing atom's ratio lies beyond every
// event's), the absorbing atom's loss lies within the window of its grid
// point and its mass within the stored value's relative error; without an
// absorbing atom both masses bound the exact spread from above. The exact
// spread is summed per event (G(l) = (1 - e^-(l-x0))/(1 - e^-W), no
// cancellation).
func checkSpreadInvariants(t *testing.T, trial int, s spreadParts, ev [][2]float64, j, i int, lam float64) {
	t.Helper()
	W := s.x1 - s.x0
	den := -math.Expm1(-W)
	var p, aHi, aLo float64
	for _, e := range ev {
		g := -math.Expm1(-(e[1] - s.x0)) / den
		p += e[0]
		aHi += e[0] * g
		aLo += e[0] * math.Exp(-(e[1] - s.x0)) * -math.Expm1(-(s.x1 - e[1])) / den
	}
	tol := 1e-13 * p
	gridLo, gridHi := float64(j)*lam, float64(i)*lam
	switch s.absorb {
	case 0:
		if s.hi < aHi-tol || s.lo < aLo-tol {
			t.Fatalf("trial %d: fallback masses (%g, %g) below the exact spread (%g, %g)", trial, s.lo, s.hi, aLo, aHi)
		}
	case 1:
		// lower atom: loss x0 - ln(1 + (H - aHi)(1 - e^-W)/(p - H))
		rest := p - s.hi
		l := s.x0 - math.Log1p((s.hi-aHi)*den/rest)
		if s.hi < aHi-tol || l < gridLo-s.w*(1+1e-6)-2*unitRoundoff*(1+math.Abs(gridLo)) || math.Abs(rest-s.lo) > s.relLo*s.lo*(1+1e-6)+tol {
			t.Fatalf("trial %d: hi exact %g (spread %g); lower atom %g at loss %g vs stored %g (rel %g), grid %g, window %g", trial, s.hi, aHi, rest, l, s.lo, s.relLo, gridLo, s.w)
		}
	case 2:
		// upper atom: loss x1 + ln(1 + (Lm - aLo)(e^W - 1)/(aHi - (Lm - aLo) e^W))
		rest := p - s.lo
		d := s.lo - aLo
		l := s.x1 + math.Log1p(d*math.Expm1(W)/(aHi-d*math.Exp(W)))
		if s.lo < aLo-tol || l > gridHi+s.w*(1+1e-6)+2*unitRoundoff*(1+math.Abs(gridHi)) || math.Abs(rest-s.hi) > s.relHi*s.hi*(1+1e-6)+tol {
			t.Fatalf("trial %d: lo exact %g (spread %g); upper atom %g at loss %g vs stored %g (rel %g), grid %g, window %g", trial, s.lo, aLo, rest, l, s.hi, s.relHi, gridHi, s.w)
		}
	}
}

// TestGridClosedForms checks the grid bounds alone against the Gauss
// closed form and the binomial sum of randomized response at random
// parameters (Compose, so with the automatic factor, tilts and squarings).
func TestGridClosedForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 12))
	n := 8
	if testing.Short() {
		n = 3
	}
	for c := 0; c < n; c++ {
		sigma := math.Exp(rng.Float64()*6 - 1)
		r := 1 + rng.IntN(1<<rng.IntN(15))
		m, _ := Gauss(sigma, 1, 0)
		res, err := Compose(context.Background(), m, r, Options{Buckets: 8000})
		if err != nil {
			t.Fatal(err)
		}
		g := res.g
		tab := g.gridTable(g.bounds())
		mu := math.Sqrt(float64(r)) / sigma
		for _, eps := range []float64{0, 0.001, 0.01, 0.1, 0.3, 0.7, 1, 2, 4, 10, mu * mu / 2, mu*mu/2 + 3*mu} {
			ex := exactGaussLarge(mu, eps)
			d := g.gridDelta(eps, tab)
			if d.Upper < ex*(1-1e-12) || d.Lower > ex*(1+1e-12) {
				t.Errorf("gauss sigma=%v r=%d eps=%v: grid [%.10g, %.10g] does not contain exact %.10g", sigma, r, eps, d.Lower, d.Upper, ex)
			}
		}
	}
	for c := 0; c < n; c++ {
		p := 0.5 + 0.45*rng.Float64()
		r := 1 + rng.IntN(2000)
		m, _ := RandomizedResponse(p)
		res, err := Compose(context.Background(), m, r, Options{Buckets: 4000 + 4*rng.IntN(4000)})
		if err != nil {
			t.Fatal(err)
		}
		g := res.g
		tab := g.gridTable(g.bounds())
		for _, ee := range []float64{1, 1.001, 1.1, 1.3, 1.5, 2, 5, 50} {
			eps := math.Log(ee)
			ex := math.Min(1, exactRR(p, r, eps)) // the sum can round above 1
			d := g.gridDelta(eps, tab)
			if d.Upper < ex*(1-1e-12) || d.Lower > ex*(1+1e-12) {
				t.Errorf("rr p=%v r=%d e^eps=%v: grid [%.12g, %.12g] does not contain exact %.12g", p, r, ee, d.Lower, d.Upper, ex)
			}
		}
	}
}

// TestGridNeverLooser checks that the default result (the tighter of the
// grouped and the grid list) is never looser than the grouped list alone,
// contains the closed form, and that the grid list is what makes it
// tighter where the straddling window decides (Gauss, r = 512, composed
// by the chain: ComposeMany composes Gauss pairs in closed form, one leaf).
func TestGridNeverLooser(t *testing.T) {
	m, _ := Gauss(200*math.Sqrt2, 1, 0)
	chain := func(o Options) *Result {
		out, err := composeManyPlain(context.Background(), m, []int{512}, o)
		if err != nil {
			t.Fatal(err)
		}
		return out[0]
	}
	both, grouped := chain(Options{Buckets: 20000}), chain(Options{Buckets: 20000, Lists: ListsGrouped})
	mu := math.Sqrt(512) / (200 * math.Sqrt2)
	for _, ee := range []float64{1, 1.001, 1.01, 1.1, 1.3, 1.5, 2} {
		eps := math.Log(ee)
		ex := exactGauss(mu, eps)
		d, dg := both.Delta(eps), grouped.Delta(eps)
		if d.Upper > dg.Upper || d.Lower < dg.Lower {
			t.Errorf("e^eps=%v: default [%g, %g] looser than grouped [%g, %g]", ee, d.Lower, d.Upper, dg.Lower, dg.Upper)
		}
		if d.Upper < ex || d.Lower > ex {
			t.Errorf("e^eps=%v: default [%g, %g] does not contain %g", ee, d.Lower, d.Upper, ex)
		}
		if ee >= 1.01 && ee <= 1.5 && !(d.Upper-ex < (dg.Upper-ex)/4) {
			t.Errorf("e^eps=%v: grid does not tighten the upper bound: %g vs grouped %g (exact %g)", ee, d.Upper, dg.Upper, ex)
		}
	}
}

// TestResultRoundTripWithGrid checks that an encoded result keeps its grid
// list: the decoded result answers every query bitwise as the original.
func TestResultRoundTripWithGrid(t *testing.T) {
	m, _ := SGD(2, 0.05)
	res, err := Compose(context.Background(), m, 300, Options{Buckets: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if res.g == nil {
		t.Fatal("no grid list")
	}
	back := roundTrip(t, res)
	for _, eps := range []float64{0, 0.1, 0.5, 1, 3, math.Inf(1)} {
		if a, b := res.Delta(eps), back.Delta(eps); a != b {
			t.Fatalf("eps %v: %+v vs decoded %+v", eps, a, b)
		}
	}
	if a, b := res.EpsUpper(1e-6), back.EpsUpper(1e-6); a != b {
		t.Fatalf("EpsUpper %v vs %v", a, b)
	}
}

// roundTrip returns res encoded and decoded.
func roundTrip(t *testing.T, res *Result) *Result {
	t.Helper()
	data, err := res.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestGridOnlyResult checks a result built from the grid list alone (no
// grouped list): delta and eps bounds around the closed forms, Renyi
// bounds around randomized response's closed form, corners, and the
// encoding round trip.
func TestGridOnlyResult(t *testing.T) {
	g, _ := Gauss(30, 1, 0)
	res, err := Compose(context.Background(), g, 300, Options{Buckets: 8000, Lists: ListsGrid})
	if err != nil {
		t.Fatal(err)
	}
	if res.l != nil || res.g == nil {
		t.Fatal("not a grid-only result")
	}
	mu := math.Sqrt(300) / 30
	for _, eps := range []float64{0, 0.1, 0.5, 1, 2} {
		ex := exactGaussLarge(mu, eps)
		d := res.Delta(eps)
		if d.Upper < ex || d.Lower > ex || d.Upper-ex > 1e-3*ex+1e-12 {
			t.Errorf("gauss eps=%v: [%g, %g] around %g", eps, d.Lower, d.Upper, ex)
		}
	}
	for _, delta := range []float64{1e-3, 1e-6} {
		lo, hi := 0.0, 50.0
		for i := 0; i < 200; i++ {
			mid := (lo + hi) / 2
			if exactGaussLarge(mu, mid) > delta {
				lo = mid
			} else {
				hi = mid
			}
		}
		up, low := res.EpsUpper(delta), res.EpsLower(delta)
		if up < lo || low > hi || up-low > 1e-3*up {
			t.Errorf("gauss delta=%v: eps [%v, %v] around [%v, %v]", delta, low, up, lo, hi)
		}
	}
	_ = res.Corners()
	if a, b := res.Delta(0.5), roundTrip(t, res).Delta(0.5); a != b {
		t.Fatalf("decoded grid-only result differs: %+v vs %+v", a, b)
	}
	for _, c := range []struct {
		p float64
		r int
	}{{0.51, 512}, {0.6, 50}, {0.9, 3}} {
		m, _ := RandomizedResponse(c.p)
		res, err := Compose(context.Background(), m, c.r, Options{Buckets: 20000, Lists: ListsGrid})
		if err != nil {
			t.Fatal(err)
		}
		// (the upper bound is +Inf as soon as a corner may hold mass: the
		// grid list does not bound the corners' ratios; the lower pair of a
		// sparse list loses mass at every squaring)
		checkRRRenyi(t, res, c.p, c.r, "grid list")
		for _, ee := range []float64{1, 1.1, 1.5, 2} {
			eps := math.Log(ee)
			ex := exactRR(c.p, c.r, eps)
			d := res.Delta(eps)
			if d.Upper < ex*(1-1e-12) || d.Lower > ex*(1+1e-12) {
				t.Errorf("rr p=%v r=%d e^eps=%v: [%g, %g] around %g", c.p, c.r, ee, d.Lower, d.Upper, ex)
			}
		}
	}
}

// TestListsOption checks that Options.Lists selects the lists composed and
// that an unknown value is refused as invalid input.
func TestListsOption(t *testing.T) {
	m, _ := Gauss(20, 1, 0)
	for _, c := range []struct {
		lists         Lists
		grouped, grid bool
	}{{ListsBoth, true, true}, {ListsGrouped, true, false}, {ListsGrid, false, true}} {
		res, err := Compose(context.Background(), m, 16, Options{Buckets: 400, Lists: c.lists})
		if err != nil {
			t.Fatal(err)
		}
		if (res.l != nil) != c.grouped || (res.g != nil) != c.grid {
			t.Errorf("%v: grouped list %v, grid list %v", c.lists, res.l != nil, res.g != nil)
		}
	}
	if _, err := Compose(context.Background(), m, 16, Options{Lists: 3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Lists(3): %v, want ErrInvalid", err)
	}
}

// TestGridLeafBelowChord checks, where both lists apply to the same events
// (leaves of continuous mechanisms, r = 1, both directions, random eps),
// that the grid's upper bound is never above the grouped list's chord
// bound (the spread of a bucket's group onto its borders is the chord over
// the bucket; the grouped chord spans the leaf's window u >= the group's
// width) and, for Gauss, never below the closed form.
func TestGridLeafBelowChord(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 21))
	for trial := 0; trial < 40; trial++ {
		var m Mechanism
		var mu float64
		switch trial % 4 {
		case 0:
			sigma := math.Exp(4*rng.Float64() - 1)
			m, _ = Gauss(sigma, 1, 0)
			mu = 1 / sigma
		case 1:
			m, _ = SGD(0.5+4*rng.Float64(), math.Exp(-6*rng.Float64()))
		case 2:
			m, _ = Laplace(math.Exp(3*rng.Float64()-1), 1, 0)
		default:
			m, _ = SubsampledGauss(0.5+3*rng.Float64(), 1, math.Exp(-5*rng.Float64()), Poisson, ReplaceOne)
		}
		res, err := Compose(context.Background(), m, 1, Options{Buckets: 4 * (100 + rng.IntN(5000))})
		if err != nil {
			t.Fatal(err)
		}
		tab := res.g.gridTable(res.gb)
		res.tableOnce.Do(func() { res.table = res.l.deltaTable(res.b) })
		for k := 0; k < 20; k++ {
			eps := math.Exp(6*rng.Float64() - 5)
			g := res.g.gridDelta(eps, tab)
			c := res.l.delta(eps, res.b, true, res.table)
			// (the grid's error model is a little wider: its absorbing
			// atoms carry twice the masses' relative error)
			tol := func(x float64) float64 { return 1e-6*x + 1e-300 }
			floor := 1e6 * math.Max(g.Corners.Mass(), c.Corners.Mass())
			if c.Upper > floor && (g.UpperAB > c.UpperAB+tol(c.UpperAB) || g.UpperBA > c.UpperBA+tol(c.UpperBA)) {
				t.Errorf("%v eps=%v: grid upper (%g, %g) above the chord bound (%g, %g)", m, eps, g.UpperAB, g.UpperBA, c.UpperAB, c.UpperBA)
			}
			if mu > 0 {
				if ex := exactGaussLarge(mu, eps); g.Upper < ex*(1-1e-12) {
					t.Errorf("%v eps=%v: grid upper %g below exact %g", m, eps, g.Upper, ex)
				}
			}
		}
	}
}
