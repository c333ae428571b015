package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// randomPMF returns a random probability vector of length k, with a chance
// of exact zeros (distinguishing events) and of tiny masses.
func randomPMF(rng *rand.Rand, k int) []float64 { return randomPMFWith(rng, k, false) }

// randomPMFWith is randomPMF, with masses down to 1e-300 as well if tiny.
func randomPMFWith(rng *rand.Rand, k int, tiny bool) []float64 {
	p := make([]float64, k)
	s := 0.0
	choices := 6
	if tiny {
		choices = 7
	}
	for i := range p {
		switch rng.IntN(choices) {
		case 0:
			p[i] = 0
		case 1:
			p[i] = math.Exp(-30 * rng.Float64())
		case 6:
			p[i] = math.Pow(10, -300*rng.Float64())
		default:
			p[i] = rng.Float64()
		}
		s += p[i]
	}
	if s == 0 {
		p[0], s = 1, 1
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// product returns the product PMFs of a list of pairs.
func product(as, bs [][]float64) ([]float64, []float64) {
	pa, pb := []float64{1}, []float64{1}
	for k := range as {
		var na, nb []float64
		for i := range pa {
			for j := range as[k] {
				na = append(na, pa[i]*as[k][j])
				nb = append(nb, pb[i]*bs[k][j])
			}
		}
		pa, pb = na, nb
	}
	return pa, pb
}

// TestBruteForceSoundness composes 2-4 small random pairs with random
// factors, bucket counts and forced squarings, enumerates the product
// universe and checks delta_low <= exact <= delta_up (Theorem 2) at many eps.
func TestBruteForceSoundness(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	trials := 300
	if testing.Short() {
		trials = 60
	}
	for trial := 0; trial < trials; trial++ {
		k := 2 + rng.IntN(3)
		var as, bs [][]float64
		var mechs []Mechanism
		for i := 0; i < k; i++ {
			n := 2 + rng.IntN(4)
			a, b := randomPMF(rng, n), randomPMF(rng, n)
			m, err := Histogram(a, b)
			if err != nil {
				t.Fatal(err)
			}
			as, bs = append(as, a), append(bs, b)
			mechs = append(mechs, m)
		}
		buckets := 4 * (2 + rng.IntN(30))
		factor := 1 + math.Exp(-6*rng.Float64())
		tilts := 1 + rng.IntN(5)
		o, err := Options{Buckets: buckets, Factor: factor, Tilts: tilts}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]Part, k)
		for i := range parts {
			parts[i] = Part{mechs[i], 1}
		}
		p, err := newPlan(parts, o)
		if err != nil {
			t.Fatal(err)
		}
		leaves := make([]*list, k)
		for i := range leaves {
			leaves[i], _ = p.leaf(mechs[i])
		}
		acc := composeRandomly(rng, p.cp, leaves)
		if rng.IntN(2) == 0 {
			acc = acc.square()
		}
		res := newResult(acc, true, len(p.tau), p.lambda)
		pa, pb := product(as, bs)
		for _, eps := range []float64{0, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.7, 1, 2, 5, 20, math.Inf(1)} {
			ex := exactDelta(pa, pb, eps)
			if math.IsInf(eps, 1) {
				ex = exactInf(pa, pb)
			}
			d := res.Delta(eps)
			if d.Upper < ex*(1-1e-12)-1e-300 {
				t.Fatalf("trial %d (k=%d, buckets=%d, f=%v, tilts=%d, squarings=%d): eps=%v upper %.17g < exact %.17g",
					trial, k, buckets, factor, tilts, acc.squarings, eps, d.Upper, ex)
			}
			if d.Lower > ex*(1+1e-12)+1e-300 {
				t.Fatalf("trial %d: eps=%v lower %.17g > exact %.17g", trial, eps, d.Lower, ex)
			}
		}
	}
}

// composeRandomly composes the leaves in order with random squarings
// (before a composition, of one operand or both) and random re-tilts, as
// plans do, with cp.
func composeRandomly(rng *rand.Rand, cp *composer, leaves []*list) *list {
	var acc *list
	for _, leaf := range leaves {
		if rng.IntN(3) == 0 {
			leaf = leaf.square()
		}
		if acc == nil {
			acc = leaf
			continue
		}
		for acc.squarings < leaf.squarings {
			acc = acc.square()
		}
		for leaf.squarings < acc.squarings {
			leaf = leaf.square()
		}
		if rng.IntN(3) == 0 {
			acc, leaf = acc.square(), leaf.square()
		}
		if rng.IntN(2) == 0 {
			// Re-tilt both to random tilts, as composePair does per level.
			tau := make([]float64, 1+rng.IntN(5))
			for m := 1; m < len(tau); m++ {
				tau[m] = (rng.Float64()*2 - 1) * 30 / (float64(acc.n+1) * acc.lambda)
			}
			acc, leaf = acc.retilt(tau), leaf.retilt(tau)
		}
		leaf = leaf.retilt(acc.tau)
		acc = cp.compose(acc, leaf, nil)
	}
	return acc
}

func exactInf(a, b []float64) float64 {
	var d1, d2 float64
	for i := range a {
		if b[i] == 0 {
			d1 += a[i]
		}
		if a[i] == 0 {
			d2 += b[i]
		}
	}
	return math.Max(d1, d2)
}

// TestLemma8BucketsAreSumsOverEvents checks that after composition and
// squaring every regular bucket holds exactly the A-mass and B-mass of the
// atomic events whose index (Definition 6, with absorbing corners) is that
// bucket, which makes c - a/f^i the virtual error term of Lemma 11.
func TestLemma8BucketsAreSumsOverEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := 0; trial < 100; trial++ {
		n1, n2 := 2+rng.IntN(5), 2+rng.IntN(5)
		a1, b1 := randomPMF(rng, n1), randomPMF(rng, n1)
		a2, b2 := randomPMF(rng, n2), randomPMF(rng, n2)
		m1, _ := Histogram(a1, b1)
		m2, _ := Histogram(a2, b2)
		buckets := 4 * (2 + rng.IntN(20))
		factor := 1 + math.Exp(-4*rng.Float64())
		o, _ := Options{Buckets: buckets, Factor: factor, Tilts: 3}.withDefaults()
		p, err := newPlan([]Part{{m1, 1}, {m2, 1}}, o)
		if err != nil {
			t.Fatal(err)
		}
		l1, _ := p.leaf(m1)
		l2, _ := p.leaf(m2)
		sq := rng.IntN(2) == 0
		x, y := l1, l2
		if sq {
			x, y = x.square(), y.square()
		}
		z := p.cp.compose(x, y, nil)
		n := z.n
		lam := z.lambda
		// index of a leaf event at the squared or unsquared level
		idx := func(pa, pb float64) (int, bool) {
			if pa == 0 || pb == 0 {
				return 0, false
			}
			lo, hi := eventLoss(pa, pb)
			_ = lo
			i := int(bucketOf(hi, lambdaOf(p)))
			if i > n || i <= -n {
				return 0, false
			}
			if sq {
				i = int(math.Ceil(float64(i) / 2))
			}
			return i, true
		}
		wantA := make([]float64, 2*n)
		wantC := make([]float64, 2*n)
		for i := range a1 {
			for j := range a2 {
				i1, ok1 := idx(a1[i], b1[i])
				i2, ok2 := idx(a2[j], b2[j])
				if !ok1 || !ok2 {
					continue
				}
				s := i1 + i2
				if s > n || s <= -n {
					continue
				}
				wantA[s+n-1] += a1[i] * a2[j]
				wantC[s+n-1] += b1[i] * b2[j]
			}
		}
		res := newResult(z, true, len(p.tau), p.lambda)
		for o := 0; o < 2*n; o++ {
			if math.Abs(z.a[o]-wantA[o]) > res.b.ea[o]+1e-15*wantA[o] || math.Abs(z.c[o]-wantC[o]) > res.b.ec[o]+1e-15*wantC[o] {
				t.Fatalf("trial %d bucket %d: got (%g, %g) want (%g, %g), bounds (%g, %g)", trial, o-n+1, z.a[o], z.c[o], wantA[o], wantC[o], res.b.ea[o], res.b.ec[o])
			}
			// Lemma 6: every event in bucket i has ratio <= f^i, so c >= a/f^i.
			L := float64(o-n+1) * lam
			if wantC[o] < wantA[o]*math.Exp(-L)*(1-1e-12) {
				t.Fatalf("trial %d bucket %d: Lemma 6 violated", trial, o-n+1)
			}
		}
	}
}

func lambdaOf(p *plan) float64 { return p.lambda }

// TestAtomsAndFFTSound composes histograms with more outcomes than are
// convolved directly, with a few heavy atoms among them, so that the direct
// part (atoms) and the tilted FFT (the rest) both contribute, and checks
// the bounds against enumeration of the product (r = 2 and 3).
func TestAtomsAndFFTSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 8))
	for trial := 0; trial < 30; trial++ {
		k := maxAtoms + 10 + rng.IntN(60)
		a, b := randomPMF(rng, k), randomPMF(rng, k)
		// heavy atoms: a few outcomes get most of the mass
		for h := 0; h < 3; h++ {
			i := rng.IntN(k)
			a[i] += 5 * rng.Float64()
			b[i] += 5 * rng.Float64()
		}
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
		buckets := 4 * (20 + rng.IntN(400))
		res, err := ComposeMany(context.Background(), m, []int{2, 3}, Options{Buckets: buckets, Tilts: 1 + rng.IntN(5)})
		if err != nil {
			t.Fatal(err)
		}
		a2, b2 := product([][]float64{a, a}, [][]float64{b, b})
		a3, b3 := product([][]float64{a, a, a}, [][]float64{b, b, b})
		for ri, pr := range [][2][]float64{{a2, b2}, {a3, b3}} {
			for _, eps := range []float64{0, 0.01, 0.1, 0.5, 1, 3} {
				ex := exactDelta(pr[0], pr[1], eps)
				d := res[ri].Delta(eps)
				if d.Upper < ex*(1-1e-12)-1e-300 || d.Lower > ex*(1+1e-12)+1e-300 {
					t.Fatalf("trial %d (k=%d, buckets=%d) r=%d eps=%v: [%g, %g] does not contain %g", trial, k, buckets, ri+2, eps, d.Lower, d.Upper, ex)
				}
			}
		}
	}
}

// TestParallelTiltsIdentical checks that convolving the tilts on several
// goroutines gives bitwise the same lists as one after the other.
func TestParallelTiltsIdentical(t *testing.T) {
	g, _ := Gauss(50, 1, 0)
	lap, _ := Laplace(20, 1, 0)
	for _, m := range []Mechanism{g, lap} {
		var lists [2]*list
		for i, workers := range []int{1, 3} {
			o, _ := Options{Buckets: 4000}.withDefaults()
			p, err := newPlan([]Part{{m, 300}}, o)
			if err != nil {
				t.Fatal(err)
			}
			p.cp.workers = workers
			res, err := p.composeMany(context.Background(), m, []int{300})
			if err != nil {
				t.Fatal(err)
			}
			lists[i] = res[0].l
		}
		a, b := lists[0], lists[1]
		if a.lo != b.lo || a.hi != b.hi || a.u != b.u || a.relA != b.relA {
			t.Fatalf("%v: lists differ in shape", m)
		}
		for o := range a.a {
			if a.a[o] != b.a[o] || a.c[o] != b.c[o] {
				t.Fatalf("%v: offset %d differs: %v/%v vs %v/%v", m, o, a.a[o], a.c[o], b.a[o], b.c[o])
			}
		}
		for k := range a.envA {
			if a.envA[k] != b.envA[k] || a.envC[k] != b.envC[k] {
				t.Fatalf("%v: envelope %d differs", m, k)
			}
		}
		if a.hiA != b.hiA || a.loC != b.loC {
			t.Fatalf("%v: corners differ", m)
		}
	}
}
