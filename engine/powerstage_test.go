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

// bigVec is a sequence of 200-bit floats on grid indices g0, g0+1, ...
type bigVec struct {
	g0 int
	v  []*big.Float
}

func newBig(x float64) *big.Float { return new(big.Float).SetPrec(200).SetFloat64(x) }

// at returns the entry at grid index g (0 outside).
func (b bigVec) at(g int) *big.Float {
	if i := g - b.g0; i >= 0 && i < len(b.v) {
		return b.v[i]
	}
	return newBig(0)
}

// bigPowerVec is bigPower on a bigVec (the exact r-fold convolution power).
func bigPowerVec(b bigVec, r int) bigVec {
	f := make([]float64, len(b.v))
	exact := true
	for i, x := range b.v {
		f[i], _ = x.Float64()
		if new(big.Float).SetPrec(200).SetFloat64(f[i]).Cmp(x) != 0 {
			exact = false
		}
	}
	if exact {
		return bigVec{g0: r * b.g0, v: bigPower(f, r)}
	}
	conv := func(x, y []*big.Float) []*big.Float {
		out := make([]*big.Float, len(x)+len(y)-1)
		for i := range out {
			out[i] = newBig(0)
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
	base := b.v
	var acc []*big.Float
	for k := r; k > 0; k >>= 1 {
		if k&1 == 1 {
			if acc == nil {
				acc = base
			} else {
				acc = conv(acc, base)
			}
		}
		if k > 1 {
			base = conv(base, base)
		}
	}
	return bigVec{g0: r * b.g0, v: acc}
}

// cut returns the entries of b on grid indices -n+1..n (a list of n
// points per side).
func (b bigVec) cut(n int) bigVec {
	out := bigVec{g0: -n + 1, v: make([]*big.Float, 2*n)}
	for i := range out.v {
		out.v[i] = b.at(out.g0 + i)
	}
	return out
}

// spread returns b spread onto the grid of twice the spacing as
// spreadSquare spreads (b at the spacing lam).
func (b bigVec) spread(lam float64) bigVec {
	t := math.Exp(-lam)
	cUp := 1 / (1 + t)
	cDn := t * cUp
	lo, _ := halfIndex(b.g0)
	_, hi := halfIndex(b.g0 + len(b.v) - 1)
	out := bigVec{g0: lo, v: make([]*big.Float, hi-lo+1)}
	for i := range out.v {
		out.v[i] = newBig(0)
	}
	tmp := new(big.Float).SetPrec(200)
	for i, x := range b.v {
		dn, up := halfIndex(b.g0 + i)
		if dn == up {
			out.v[dn-lo].Add(out.v[dn-lo], x)
			continue
		}
		out.v[up-lo].Add(out.v[up-lo], tmp.Mul(x, newBig(cUp)))
		out.v[dn-lo].Add(out.v[dn-lo], tmp.Mul(x, newBig(cDn)))
	}
	return out
}

// mergeDefined returns the lower pair that the merges log define from the
// true masses T of the input list in (on its offsets): an even atom kept
// takes the fraction x/c of its true mass; a merge of x of o1 and y of o2
// keeps min(x/c1 T1 k1, y/c2 T2 k2) (mergeSquare).
func mergeDefined(in *list, log *mergeLog, T bigVec) bigVec {
	n := in.n
	out := bigVec{g0: -n + 1, v: make([]*big.Float, 2*n)}
	for i := range out.v {
		out.v[i] = newBig(0)
	}
	share := func(o int, x, k float64) *big.Float {
		v := new(big.Float).SetPrec(200).Quo(newBig(x), newBig(in.c[o]))
		v.Mul(v, T.at(o-n+1))
		return v.Mul(v, newBig(k))
	}
	for _, pt := range log.parts {
		g := pt.ok - n + 1
		i := g - out.g0
		if pt.o2 < 0 {
			out.v[i].Add(out.v[i], share(pt.o1, pt.x, 1))
			continue
		}
		a, b := share(pt.o1, pt.x, pt.k1), share(pt.o2, pt.y, pt.k2)
		if a.Cmp(b) > 0 {
			a = b
		}
		out.v[i].Add(out.v[i], a)
	}
	return out
}

// stageLeaf returns a random grid leaf of a proper pair with atoms exactly
// at the grid losses g lam, |g| < nl (a mixture of binary pairs with the
// losses +-g lam and the atom 0), its lower pair equal to its upper pair.
func stageLeaf(rng *rand.Rand, nl int, lam float64) *list {
	leaf := newList(nl, lam, nil)
	leaf.grid = true
	leaf.names = []nameCount{{"leaf", 1}}
	v := make([]float64, nl)
	var sum float64
	for g := range v {
		if g > 0 && rng.IntN(3) == 0 {
			continue
		}
		v[g] = math.Exp(-30 * rng.Float64() * rng.Float64())
		sum += v[g]
	}
	for g, x := range v {
		x /= sum
		if g == 0 {
			leaf.a[nl-1] = x
			continue
		}
		p := 1 / (1 + math.Exp(-float64(g)*lam))
		leaf.a[g+nl-1] = x * p
		leaf.a[-g+nl-1] = x * (1 - p)
	}
	copy(leaf.c, leaf.a)
	leaf.relA, leaf.relC = 4*unitRoundoff, 4*unitRoundoff
	leaf.lo, leaf.hi = 0, 2*nl-1
	leaf.trim()
	return leaf
}

// TestPowerTwoStageBruteForce checks the two-stage power path
// (composeStages) against exact compositions (200-bit floats) of small
// random grid leaves of proper pairs, with ranges that cut the composed
// mass in both stages (k 2, 4 or 8): every entry of both pairs within its
// pointwise bound and the tilted and untilted total errors within tl1 and
// l1, the upper pair against the exact q-fold power of the spread m-fold
// power of the leaf (the part within the first stage's range), the lower
// pair against the q-fold power of the lower pair the merges define from
// the exact m-fold power; the A- and B-mass of every outcome outside the
// regular entries within the corners; and delta_up (delta_low) of the
// result at or above (at or below) the exact delta of the r-fold
// composition of the leaf.
func TestPowerTwoStageBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 77))
	trials := 300
	if testing.Short() {
		trials = 60
	}
	worst, used := 0.0, 0
	for trial := 0; trial < trials; trial++ {
		nl := 3 + rng.IntN(5)
		lam1 := math.Exp(-4 * rng.Float64())
		leaf := stageLeaf(rng, nl, lam1)
		k := []int{2, 4, 8}[rng.IntN(3)]
		m := 2 + rng.IntN(5)
		q := 2 + rng.IntN(5)
		r := m * q
		lam := lam1 * float64(k)
		n1 := nextPow2(max(nl, 1+rng.IntN(m*nl)))
		if trial%3 == 2 && n1 >= 4 && 3*n1/4 >= nl {
			// the first stage on 3*2^j points
			n1 = 3 * n1 / 4
		}
		n := nextPow2(max(n1, 1+rng.IntN(q*m*nl/k+2)))
		if trial%2 == 1 && n >= 4 && 3*n/4 >= n1 {
			// the second stage on 3*2^j points (the power path's other
			// lengths)
			n = 3 * n / 4
		}
		v := leaf.lossVariance()
		sd1, sd := math.Sqrt(float64(m)*v), math.Sqrt(float64(r)*v)
		tau := [][]float64{{0}, {0, 3.5 / sd}, {0, 3.5 / sd, -(3.5/sd + 1)}, {3.5 / sd, -(3.5/sd + 1)}}[rng.IntN(4)]
		tau = append([]float64(nil), tau...)
		for i := range tau {
			tau[i] = math.Max(-150/(float64(n)*lam), math.Min(150/(float64(n)*lam), tau[i]))
		}
		st := powerStages{m: m, q: q, k: k, n1: n1, rm: float64(n1) * lam1}
		var tr stageTrace
		p := &plan{}
		z, z1, err := p.composeStages(context.Background(), leaf, st, tau, sd1, sd, fft.NewPlan(2*n), &tr)
		if err != nil {
			t.Fatal(err)
		}
		desc := fmt.Sprintf("trial %d: nl=%d lambda1=%.3g k=%d m=%d q=%d n1=%d n=%d tau=%v", trial, nl, lam1, k, m, q, n1, n, tau)
		if z == nil {
			t.Logf("%s: one stage (first stage unusable)", desc)
			continue
		}
		used++
		if z1.n != n1 || z1.lambda != lam || z.compositions != r {
			t.Fatalf("%s: coarse list n=%d lambda=%v, composed %d", desc, z1.n, z1.lambda, z.compositions)
		}
		b := z.bounds()
		leafA := bigVec{g0: leaf.lo - nl + 1}
		leafC := bigVec{g0: leaf.lo - nl + 1}
		for o := leaf.lo; o <= leaf.hi; o++ {
			leafA.v = append(leafA.v, newBig(leaf.a[o]))
			leafC.v = append(leafC.v, newBig(leaf.c[o]))
		}
		// the upper pair: the whole m-fold power spread (for the corners)
		// and its part within the first stage's range
		E1 := bigPowerVec(leafA, m)
		full, cut := E1, E1.cut(n1)
		for c, l := k, lam1; c > 1; c, l = c/2, 2*l {
			full, cut = full.spread(l), cut.spread(l)
		}
		cut = cut.cut(n1)
		exA, exFull := bigPowerVec(cut, q), bigPowerVec(full, q)
		// the lower pair: the merges' pair from the exact m-fold power
		// within the first stage's range
		T := bigPowerVec(leafC, m).cut(n1)
		for i := range tr.logs {
			T = mergeDefined(tr.inputs[i], tr.logs[i], T)
		}
		exC := bigPowerVec(T, q)
		for side := 0; side < 2; side++ {
			ex, vals, eb, tl1, l1 := exA, z.a, b.ea, z.tl1A, z.l1A
			if side == 1 {
				ex, vals, eb, tl1, l1 = exC, z.c, b.ec, z.tl1C, z.l1C
			}
			tilted := make([]float64, len(tau))
			var untilted float64
			for o := 0; o < 2*n; o++ {
				g := o - n + 1
				e, _ := ex.at(g).Float64()
				d := math.Abs(vals[o] - e)
				if d > eb[o] {
					t.Fatalf("%s side %d: offset %d value %.17g exact %.17g: error %.3g above its bound %.3g", desc, side, o, vals[o], e, d, eb[o])
				}
				if eb[o] > 0 {
					worst = math.Max(worst, d/eb[o])
				}
				untilted += d
				for i, tm := range tau {
					tilted[i] += d * math.Exp(tm*z.loss(o))
				}
			}
			if untilted > l1*(1+1e-12) {
				t.Fatalf("%s side %d: untilted total error %.3g above l1 %.3g", desc, side, untilted, l1)
			}
			for i := range tau {
				if tilted[i] > tl1[i]*(1+1e-12) {
					t.Fatalf("%s side %d: tilted total error %.3g above tl1 %.3g (tilt %v)", desc, side, tilted[i], tl1[i], tau[i])
				}
			}
		}
		// the corners: every outcome of the full composition outside the
		// regular entries' exact values
		outA, outB := newBig(0), newBig(0)
		tmp := new(big.Float).SetPrec(200)
		for i, x := range exFull.v {
			g := exFull.g0 + i
			d := new(big.Float).SetPrec(200).Set(x)
			if g > -n && g <= n {
				d.Sub(d, exA.at(g))
			}
			outA.Add(outA, d)
			outB.Add(outB, tmp.Mul(d, newBig(math.Exp(-float64(g)*lam))))
		}
		oa, _ := outA.Float64()
		ob, _ := outB.Float64()
		if oa > (z.hiA.upper()+z.loA.upper())*(1+1e-9) {
			t.Fatalf("%s: A-mass outside the regular entries %.3g above the corners %.3g", desc, oa, z.hiA.upper()+z.loA.upper())
		}
		if ob > (z.hiC.upper()+z.loC.upper())*(1+1e-9) {
			t.Fatalf("%s: B-mass outside the regular entries %.3g above the corners %.3g", desc, ob, z.hiC.upper()+z.loC.upper())
		}
		// delta against the exact r-fold composition of the leaf
		res := newGridResult(z, len(z.tau), z.lambda)
		E := bigPowerVec(leafA, r)
		for _, eps := range []float64{0, 0.5 * sd, sd, 2 * sd, 3 * sd} {
			ex := newBig(0)
			for i, x := range E.v {
				L := float64(E.g0+i) * lam1
				if L > eps {
					ex.Add(ex, tmp.Mul(x, newBig(-math.Expm1(eps-L))))
				}
			}
			e, _ := ex.Float64()
			d := res.Delta(eps)
			if d.Upper < e*(1-1e-12) || d.Lower > e*(1+1e-12) {
				t.Fatalf("%s: eps %.4g: [%.17g, %.17g] does not contain the exact delta %.17g", desc, eps, d.Lower, d.Upper, e)
			}
		}
	}
	if used < trials/2 {
		t.Errorf("two stages composed only %d of %d trials", used, trials)
	}
	t.Logf("two stages in %d of %d trials; largest error / bound: %.5g", used, trials, worst)
}

// stagedResult composes r observations of mech on the power path at N
// points with the two-stage plan of m first-stage observations at the
// spacing lambda/k forced (stageFit without the cost bound); planned
// reports whether the plan was legal (otherwise one stage composed).
func stagedResult(t *testing.T, mech Mechanism, r, N, m, k int, o Options) (res *Result, planned bool) {
	t.Helper()
	p := stagedPlan(t, mech, r, N, o)
	if p == nil {
		t.Fatalf("%s r=%d: not on the power path", mech, r)
	}
	fp := fft.Shared(p.powerN)
	choose := func(lambda float64) (powerStages, bool) {
		st, ok := p.stageFit(mech, r, fp.Len(), lambda, m, k, 1)
		planned = ok
		return st, ok
	}
	g, why, err := p.powerListWith(context.Background(), mech, r, fp, choose)
	if err != nil {
		t.Fatal(err)
	}
	if g == nil {
		t.Fatalf("%s r=%d: not composed by the power path: %s", mech, r, why)
	}
	if g.compositions != r || g.squarings != 0 {
		t.Fatalf("%s r=%d: composed %d, %d squarings", mech, r, g.compositions, g.squarings)
	}
	return newGridResult(g, len(g.tau), g.lambda), planned
}

// stagedPlan returns the power path's plan for r observations of mech at N
// points with the options o completed as Compose completes them; nil when
// the mechanism does not qualify or its range exceeds powerMaxRange.
func stagedPlan(t *testing.T, mech Mechanism, r, N int, o Options) *plan {
	t.Helper()
	o.Buckets = N
	o, err := o.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if err := prepare(context.Background(), mech); err != nil {
		t.Fatal(err)
	}
	o = o.withTailBudget([]Part{{Mechanism: mech, Count: r}})
	p, err := newPowerPlan(mech, r, o)
	if err != nil {
		t.Fatal(err)
	}
	if p == nil {
		return nil
	}
	if R := p.powerRange(mech, r); !(R <= powerMaxRange) {
		return nil
	}
	return p
}

// legalStages returns the divisors m of r (2 <= m <= r/2) for which the
// plan of m first-stage observations at the spacing lambda/k is legal at N
// points (stageFit without the cost bound, lambda as powerPrepare sets it).
func legalStages(t *testing.T, mech Mechanism, r, N, k int) []int {
	p := stagedPlan(t, mech, r, N, Options{})
	if p == nil {
		return nil
	}
	lambda := p.powerRange(mech, r) / float64(p.powerN/2)
	var ms []int
	for _, m := range divisorsIn(r, 2, r/2) {
		if _, ok := p.stageFit(mech, r, p.powerN, lambda, m, k, 1); ok {
			ms = append(ms, m)
		}
	}
	return ms
}

// divisorsIn returns the divisors d of r with lo <= d <= hi.
func divisorsIn(r, lo, hi int) []int {
	var ds []int
	for d := max(lo, 1); d <= hi; d++ {
		if r%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds
}

// TestPowerTwoStageGaussClosedForm checks two-stage power paths with
// random plans (m a random divisor of r, k in 2, 4, 8; random bucket
// counts and tilt counts) on random Gauss pairs against the closed form of
// delta at eps from 0 to beyond the bulk.
func TestPowerTwoStageGaussClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	cases := 24
	if testing.Short() {
		cases = 8
	}
	planned := 0
	for c := 0; c < cases; c++ {
		sigma := math.Exp(0.5 + 5*rng.Float64())
		r := []int{64, 100, 512, 1000, 4096, 10000, 65536}[rng.IntN(7)]
		k := []int{2, 4, 8}[rng.IntN(3)]
		N := 1 << (12 + rng.IntN(4))
		o := Options{}
		if rng.IntN(2) == 0 {
			o.Tilts = 1 + rng.IntN(5)
		}
		mech, err := Gauss(sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if p := stagedPlan(t, mech, r, N, o); p == nil {
			t.Logf("sigma=%.4g r=%d: not on the power path", sigma, r)
			continue
		}
		ms := legalStages(t, mech, r, N, k)
		if len(ms) == 0 {
			t.Logf("sigma=%.4g r=%d k=%d N=%d: no legal two-stage plan", sigma, r, k, N)
			continue
		}
		m := ms[rng.IntN(len(ms))]
		res, ok := stagedResult(t, mech, r, N, m, k, o)
		if ok {
			planned++
		}
		mu := math.Sqrt(float64(r)) / sigma
		desc := fmt.Sprintf("sigma=%.4g r=%d m=%d k=%d N=%d tilts=%d (two stages: %v)", sigma, r, m, k, N, o.Tilts, ok)
		for _, eps := range []float64{0, 0.001, 0.01, 0.1, mu / 2, mu, mu * mu / 2, 2 * mu, mu*mu/2 + 3*mu} {
			ex := exactGauss(mu, eps)
			d := res.Delta(eps)
			if d.Upper < ex*(1-1e-13) || d.Lower > ex*(1+1e-13) {
				t.Errorf("%s eps=%.4g: [%.12g, %.12g] does not contain exact %.12g", desc, eps, d.Lower, d.Upper, ex)
			}
		}
	}
	if planned < cases/2 {
		t.Errorf("two stages planned in only %d of %d cases", planned, cases)
	}
	t.Logf("two stages planned in %d of %d cases", planned, cases)
}

// TestPowerTwoStageSGDChain checks two-stage power paths with random plans
// on subsampled Gaussian pairs against the squaring chain: both brackets
// are sound, so they must overlap (delta at several eps, eps at delta
// 1e-5); a two-stage bracket beside the chain's is unsound.
func TestPowerTwoStageSGDChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 21))
	cases := []struct {
		sigma, q float64
		r        int
	}{{4, 0.01, 4096}, {3, 0.02, 10000}, {5, 0.05, 2048}, {8, 0.1, 1000}, {2, 0.01, 2000}}
	if testing.Short() {
		cases = cases[:2]
	}
	ctx := context.Background()
	planned := 0
	for _, c := range cases {
		mech, err := SGD(c.sigma, c.q)
		if err != nil {
			t.Fatal(err)
		}
		chain, err := Compose(ctx, mech, c.r, Options{Buckets: 1 << 14, power: powerOff})
		if err != nil {
			t.Fatal(err)
		}
		k := []int{2, 4}[rng.IntN(2)]
		ms := legalStages(t, mech, c.r, 1<<15, k)
		if len(ms) == 0 {
			t.Logf("SGD(%v, %v) r=%d k=%d: no legal two-stage plan", c.sigma, c.q, c.r, k)
			continue
		}
		planned++
		m := ms[rng.IntN(len(ms))]
		res, ok := stagedResult(t, mech, c.r, 1<<15, m, k, Options{})
		if !ok {
			t.Fatalf("SGD(%v, %v) r=%d m=%d k=%d: plan not legal", c.sigma, c.q, c.r, m, k)
		}
		desc := fmt.Sprintf("SGD(%v, %v) r=%d m=%d k=%d (two stages: %v)", c.sigma, c.q, c.r, m, k, ok)
		ce := chain.Eps(1e-5)
		for _, eps := range []float64{0, ce.Lower / 4, ce.Lower / 2, ce.Lower, 1.5 * ce.Upper} {
			d, dc := res.Delta(eps), chain.Delta(eps)
			if d.Upper < dc.Lower*(1-1e-12) || d.Lower > dc.Upper*(1+1e-12) {
				t.Errorf("%s eps=%.4g: [%.10g, %.10g] beside the chain's [%.10g, %.10g]", desc, eps, d.Lower, d.Upper, dc.Lower, dc.Upper)
			}
		}
		e := res.Eps(1e-5)
		if e.Upper < ce.Lower*(1-1e-12) || e.Lower > ce.Upper*(1+1e-12) {
			t.Errorf("%s eps(1e-5): [%.10g, %.10g] beside the chain's [%.10g, %.10g]", desc, e.Lower, e.Upper, ce.Lower, ce.Upper)
		}
		t.Logf("%s: eps(1e-5) [%.8g, %.8g], chain [%.8g, %.8g]", desc, e.Lower, e.Upper, ce.Lower, ce.Upper)
	}
	if planned < len(cases)/2 {
		t.Errorf("two stages in only %d of %d cases", planned, len(cases))
	}
}

// TestStageCoarsenTilted checks stageCoarsen's tilted total errors of the
// lower pair on lists whose errors sit at their declared bound: stored
// masses c, true masses c (1 +- relC) with random signs (relC 1e-3, no
// envelopes, tl1C the exact tilted sums of those errors), sparse tails
// (far merges); the coarsened list against the pair the merges define from
// the true masses, in every tilted measure.
func TestStageCoarsenTilted(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	worst := 0.0
	for trial := 0; trial < 300; trial++ {
		n := 8 << rng.IntN(3)
		lam := math.Exp(-4 * rng.Float64())
		tau := []float64{0, (1 + 3*rng.Float64()) / (float64(n) * lam) * 8, -(1 + 3*rng.Float64()) / (float64(n) * lam) * 8}
		l := newList(n, lam, tau)
		l.grid = true
		l.relA, l.relC = 1e-3, 1e-3
		T := bigVec{g0: -n + 1, v: make([]*big.Float, 2*n)}
		for o := 0; o < 2*n; o++ {
			T.v[o] = newBig(0)
			// dense near the middle, sparse in the tails
			if d := math.Abs(float64(o-n)) / float64(n); rng.Float64() < d*d {
				continue
			}
			l.c[o] = math.Exp(-20 * rng.Float64())
			l.a[o] = l.c[o]
			s := 1.0
			if rng.IntN(2) == 0 {
				s = -1
			}
			T.v[o] = newBig(l.c[o] * (1 + s*l.relC))
		}
		l.lo, l.hi = 0, 2*n-1
		l.trim()
		if l.lo > l.hi {
			continue
		}
		l.tl1A, l.tl1C = make([]float64, len(tau)), make([]float64, len(tau))
		for m, tm := range tau {
			for o := l.lo; o <= l.hi; o++ {
				l.tl1C[m] += l.relC * l.c[o] * math.Exp(tm*l.loss(o)) * (1 + 1e-12)
			}
			l.tl1A[m] = l.tl1C[m]
		}
		l.l1A, l.l1C = l.tl1A[0], l.tl1C[0]
		var rec mergeLog
		z := l.stageCoarsen(&rec)
		D := mergeDefined(l, &rec, T)
		for m, tm := range tau {
			var s float64
			for o := 0; o < 2*n; o++ {
				d, _ := D.at(o - n + 1).Float64()
				s += math.Abs(d-z.c[o]) * math.Exp(tm*z.loss(o))
			}
			if s > z.tl1C[m]*(1+1e-12) {
				t.Fatalf("trial %d: n=%d lambda=%.3g tilt %v: tilted error %.6g above tl1C %.6g", trial, n, lam, tm, s, z.tl1C[m])
			}
			if z.tl1C[m] > 0 {
				worst = math.Max(worst, s/z.tl1C[m])
			}
		}
	}
	t.Logf("largest tilted error / tl1C: %.3g", worst)
}
