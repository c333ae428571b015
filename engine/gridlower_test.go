package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// lowerSweepCase is a pair of events (exact masses and losses) placed into
// the half cells of a grid of 2n offsets with spacing lambda, as finishGrid
// places a mechanism's groups.
type lowerSweepCase struct {
	n      int
	lambda float64
	p, q   []float64 // the events
}

// randomLowerSweepCase draws 1-400 events with losses spread over the
// grid's range: a bump (the sweeps up and down from the mode), masses
// heavy at the lowest loss (the single upward sweep), or uniform at random.
func randomLowerSweepCase(rng *rand.Rand) lowerSweepCase {
	c := lowerSweepCase{n: 4 + rng.IntN(40), lambda: math.Exp(-4 * rng.Float64())}
	k := 1 + rng.IntN(400)
	span := float64(c.n-2) * c.lambda
	center := (2*rng.Float64() - 1) * span / 2
	width := span * (0.05 + rng.Float64())
	shape := rng.IntN(3)
	var sa, sb float64
	for i := 0; i < k; i++ {
		l := center + width*(2*rng.Float64()-1)
		l = math.Max(-span, math.Min(span, l))
		var w float64
		switch shape {
		case 0: // a bump
			w = math.Exp(-8 * (l - center) * (l - center) / (width * width))
		case 1: // heavy at the lowest loss
			w = math.Exp(-4 * (l + span) / span)
		default:
			w = rng.Float64()
		}
		w += 1e-9
		c.p = append(c.p, w)
		c.q = append(c.q, w*math.Exp(-l))
		sa += w
		sb += w * math.Exp(-l)
	}
	for i := range c.p {
		c.p[i] /= sa
		c.q[i] /= sb
	}
	return c
}

// lowerLeaf runs finishGrid's lower-pair construction (half cells by mean
// loss, lowerChain) on the events and returns the list; overshoot is the
// gridBuilder's mutation (0: the engine's merges), halves lowerChain's
// (false: the single upward sweep only).
func (c lowerSweepCase) lowerLeaf(overshoot float64, halves bool) *list {
	return c.lowerLeafSweeps(overshoot, halves, false)
}

// lowerLeafSweeps is lowerLeaf with gridBuilder.allSweeps set to all.
func (c lowerSweepCase) lowerLeafSweeps(overshoot float64, halves, all bool) *list {
	n, lam := c.n, c.lambda
	l := newList(n, lam, nil)
	l.grid = true
	g := &gridBuilder{l: l, r: 4 * unitRoundoff, addsA: make([]int32, 2*n), addsC: make([]int32, 2*n), overshoot: overshoot, allSweeps: all}
	hp, hq, hn := make([]float64, 4*n), make([]float64, 4*n), make([]int32, 4*n)
	for i := range c.p {
		mean := ln(c.p[i]) - ln(c.q[i])
		k := int(bucketOf(mean, lam))
		if k <= -n || k > n {
			continue // a lower pair may drop events
		}
		h := 2 * (k + n - 1)
		if mean > (float64(k)-0.5)*lam {
			h++
		}
		hp[h] += c.p[i]
		hq[h] += c.q[i]
		hn[h]++
	}
	g.lowerChain(hp, hq, hn, nil, nil, halves)
	l.relC = (g.relC + gamma(int(maxInt32(g.addsC))+2)) * (1 + 2*unitRoundoff)
	l.wLo = g.wLo * (1 + 4*unitRoundoff)
	return l
}

func maxInt32(v []int32) int32 {
	m := int32(0)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// lowerDelta is delta_low of both directions of the lower pair stored in
// c (A-masses at the points, B-masses A e^-L, each atom at its window's
// worst end, masses at their lower ends).
func lowerDelta(l *list, c []float64, eps float64) (ab, ba float64) {
	for o, a := range c {
		if a == 0 {
			continue
		}
		a *= 1 - l.relC
		L := l.loss(o)
		ab += a * math.Max(0, -math.Expm1(eps-L+l.wLo))
		ba += a * math.Max(0, math.Exp(-L-l.wLo)-math.Exp(eps))
	}
	return ab, ba
}

var lowerSweepEps = []float64{0, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 5}

// violation returns the largest relative excess of the lower pair's delta
// over the events' exact delta, over both directions and lowerSweepEps.
func (c lowerSweepCase) violation(l *list, lowC []float64) float64 {
	worst := math.Inf(-1)
	for _, eps := range lowerSweepEps {
		ab, ba := exactDir(c.p, c.q, eps)
		lab, lba := lowerDelta(l, lowC, eps)
		worst = math.Max(worst, (lab-ab)/math.Max(ab, 1e-300))
		worst = math.Max(worst, (lba-ba)/math.Max(ba, 1e-300))
	}
	return worst
}

// TestGridLowerSweepDominated checks lowerChain's merges by brute force:
// the lower pair built from random events (see randomLowerSweepCase)
// never has a delta above the events' exact delta,
// in both directions. Two merges that are not garblings, each too
// aggressive, must be caught by the same check: atoms put on their
// nearest point without balancing, and a sweep taking 20% more of each
// partner than the balance allows.
func TestGridLowerSweepDominated(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	trials := 2000
	if testing.Short() {
		trials = 400
	}
	const tol = 1e-12
	caughtNearest, caughtOver := 0, 0
	for trial := 0; trial < trials; trial++ {
		c := randomLowerSweepCase(rng)
		halves := trial%4 != 0
		l := c.lowerLeaf(0, halves)
		if v := c.violation(l, l.c); v > tol {
			t.Fatalf("trial %d (n %d, lambda %g, %d events): lower pair above the exact delta by %.3g relative", trial, c.n, c.lambda, len(c.p), v)
		}
		// mutant 1: each event's A-mass on its nearest point (no balance)
		near := make([]float64, 2*c.n)
		for i := range c.p {
			k := int(math.Round((ln(c.p[i]) - ln(c.q[i])) / c.lambda))
			if k > -c.n && k <= c.n {
				near[k+c.n-1] += c.p[i]
			}
		}
		if c.violation(l, near) > tol {
			caughtNearest++
		}
		// mutant 2: the sweep taking 20% more of each partner than the
		// balance allows, its atoms kept on their points
		if m := c.lowerLeaf(0.2, halves); c.violation(m, m.c) > tol {
			caughtOver++
		}
	}
	if caughtNearest < trials/2 || caughtOver < trials/2 {
		t.Fatalf("the check caught too few too aggressive merges: nearest point %d, overshoot %d of %d", caughtNearest, caughtOver, trials)
	}
	t.Logf("too aggressive merges caught: nearest point %d, overshoot 20%% %d of %d", caughtNearest, caughtOver, trials)
}

// TestGridLowerGaussClosedForm checks the grid lower pair of the Gauss
// mechanism (leaves from the half-cell groups of the continuous embedding,
// composed by the chain with its squarings) against the closed form, at
// coarse grids where the merges' losses are large: never above it, and at
// the leaf within lambda^2 of it (the merge of half cells onto the points
// loses about lambda^2/12 of the loss variance).
func TestGridLowerGaussClosedForm(t *testing.T) {
	for _, tc := range []struct {
		sigma   float64
		buckets int
		rs      []int
	}{
		{1, 40, []int{1, 2, 3, 8, 64}},
		{2, 100, []int{1, 5, 100}},
		{0.5, 400, []int{1, 7, 1000}},
		{20, 64, []int{1, 16, 512}},
	} {
		m, err := Gauss(tc.sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ComposeMany(context.Background(), m, tc.rs, Options{Buckets: tc.buckets, Lists: ListsGrid})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range tc.rs {
			mu := math.Sqrt(float64(r)) / tc.sigma
			for _, eps := range []float64{0, 0.01, 0.1, 0.5, 1, 2, 4} {
				ex := exactGauss(mu, eps)
				d := res[i].Delta(eps)
				if d.LowerAB > ex*(1+1e-12)+1e-300 || d.LowerBA > ex*(1+1e-12)+1e-300 {
					t.Fatalf("sigma %g buckets %d r %d eps %g: lower (%.17g, %.17g) above the exact %.17g", tc.sigma, tc.buckets, r, eps, d.LowerAB, d.LowerBA, ex)
				}
				if r == 1 && ex > 1e-6 {
					lam := res[i].g.lambda
					if gap := (ex - d.LowerAB) / ex; gap > 4*lam*lam/(mu*mu)+1e-9 {
						t.Errorf("sigma %g buckets %d eps %g: leaf lower %.10g is %.3g below the exact %.10g (lambda %.3g)", tc.sigma, tc.buckets, eps, d.LowerAB, gap, ex, lam)
					}
				}
			}
		}
	}
}
