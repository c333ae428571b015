package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// farHist returns a random pair with k outcomes whose losses reach about
// +-span nats (masses down to about e^-(2 span), far below e^-745 once
// composed), in random groups.
func farHist(rng *rand.Rand, k int, span float64) *groupedHist {
	g := newGroupedHist(rng, k)
	// re-draw the B-masses with losses in [-span, span]: b = a e^-l
	a := g.a
	type ev struct{ a, l float64 }
	evs := make([]ev, k)
	for i := range evs {
		evs[i] = ev{a[i], (rng.Float64()*2 - 1) * span}
	}
	// normalise B in log space: b_i = a_i e^-l_i / sum
	lb := make([]float64, k)
	var s logSum
	for i, e := range evs {
		lb[i] = ln(e.a) - e.l
		s.add(lb[i])
	}
	for i := range lb {
		lb[i] -= s.value()
	}
	// sort by loss ln a - ln b
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	loss := func(i int) float64 { return ln(evs[i].a) - lb[i] }
	for i := 1; i < k; i++ {
		for j := i; j > 0 && loss(idx[j]) < loss(idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	h := &groupedHist{a: make([]float64, k), b: make([]float64, k), sizes: g.sizes}
	for i, j := range idx {
		h.a[i], h.b[i] = evs[j].a, math.Exp(lb[j])
	}
	return h
}

// swapCase composes 1-3 random leaves (histograms with masses down to
// 1e-300, randomized response, groups with loss ranges, groups with losses
// of hundreds of nats) into one SWAPPED grid list (the grid list of (B, A),
// gridswap.go) with random squarings and tilts, and returns it with the
// leaves' PMFs.
func swapCase(rng *rand.Rand, trial int) (*list, [][]float64, [][]float64, string) {
	k := 1 + rng.IntN(3)
	var as, bs [][]float64
	var mechs []Mechanism
	far := false
	for i := 0; i < k; i++ {
		var a, b []float64
		var m Mechanism
		switch rng.IntN(4) {
		case 0: // histogram (atoms, distinguishing and tiny masses)
			a, b, m = randomHistLeaf(rng)
		case 1: // randomized response
			p := 0.5 + 0.45*rng.Float64()
			a, b = []float64{p, 1 - p}, []float64{1 - p, p}
			m, _ = RandomizedResponse(p)
		case 2: // groups with loss ranges, like continuous buckets
			g := newGroupedHist(rng, 3+rng.IntN(8))
			a, b, m = g.a, g.b, g
		default: // groups at losses of up to hundreds of nats
			// (span at most 340: every B-mass stays above e^-700, a
			// normal float64, as the groups' full support requires)
			g := farHist(rng, 3+rng.IntN(6), 50+rng.Float64()*290)
			a, b, m = g.a, g.b, g
			far = true
		}
		as, bs = append(as, a), append(bs, b)
		mechs = append(mechs, m)
	}
	buckets := 4 * (2 + rng.IntN(60))
	factor := 1 + math.Exp(-5*rng.Float64())
	o, _ := Options{Buckets: buckets, Factor: factor, Tilts: 1 + rng.IntN(5)}.withDefaults()
	if far || rng.IntN(3) == 0 {
		o.Factor = 0 // automatic factor (the far losses inside the range)
	}
	p, leaves := gridLeavesOf(mechs, o, true)
	acc := composeRandomly(rng, p.gcp, leaves)
	for s := rng.IntN(3); s > 0 && rng.IntN(2) == 0; s-- {
		acc = acc.square()
	}
	desc := fmt.Sprintf("trial %d: k=%d buckets=%d f=%v tilts=%d squarings=%d range=%.4g wUp=%g wLo=%g", trial, k, buckets, math.Exp(p.lambda), o.Tilts, acc.squarings, float64(acc.n+1)*acc.lambda, acc.wUp, acc.wLo)
	return acc, as, bs, desc
}

var swapEps = []float64{0, 1e-3, 0.1, 0.7, 2, 10, 50, 100, 300, 600, 700, 745, 800, 1000, 1500, math.Inf(1)}

// TestGridSwapBruteForce composes small random pairs, among them pairs with
// losses of hundreds of nats (e^-L beyond float64 once composed), through
// the swapped grid leaf, compositions, squarings and re-tilts, and checks
// against enumeration in log space that its bounds, with the directions
// exchanged, bound the mechanism's delta in both directions: the swapped
// list's A||B bounds delta_{B||A} and its B||A bounds delta_{A||B}.
func TestGridSwapBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2027))
	trials := 3000
	if testing.Short() {
		trials = 600
	}
	informative := 0 // checks beyond eps 700 with an upper bound below 1
	for trial := 0; trial < trials; trial++ {
		s, as, bs, desc := swapCase(rng, trial)
		tab := s.gridTable(s.bounds())
		for _, eps := range swapEps {
			d := s.gridDelta(eps, tab)
			// the swapped list's directions are exchanged
			sw := DeltaBound{UpperAB: d.UpperBA, LowerAB: d.LowerBA, UpperBA: d.UpperAB, LowerBA: d.LowerAB}
			if msg := checkDirs(as, bs, eps, sw); msg != "" {
				t.Fatalf("%s: swapped list: %s", desc, msg)
			}
			ab, _, ba, _ := refEnumerateDirs(as, bs, eps)
			for _, c := range [][2]float64{{ab, sw.UpperAB}, {ba, sw.UpperBA}} {
				if eps > 700 && !math.IsInf(eps, 1) && c[1] < 1 && c[1] > 0 && !math.IsInf(c[0], -1) {
					informative++
				}
			}
		}
	}
	t.Logf("%d checks beyond eps 700 with a non-trivial upper bound", informative)
	if informative < 20 {
		t.Errorf("only %d informative checks beyond eps 700: the far cases do not reach the swapped list's regular atoms", informative)
	}
}

// TestGridSwapGauss is the case that asked for the swapped chain: Gauss
// sigma 10, r = 2^16 at default options (composed range about 1,130 nats).
// The pair is symmetric, so both directions have the closed form; without
// the swapped list delta_up(B||A) was made of error bounds (0.542 against
// the exact 0.484 at eps = mu^2/2, 0.871 against 0.851 at eps = 300) and
// eps_upper(1e-5) was 438.99 against the exact 435.94. It also checks the
// encoding round trip of a result with a swapped list. The chain is
// called directly (ComposeMany composes Gauss pairs in closed form;
// TestGaussClosedLargeRange checks that at this case).
func TestGridSwapGauss(t *testing.T) {
	if testing.Short() {
		t.Skip("composes at the default 100,000 buckets")
	}
	m, _ := Gauss(10, 1, 0)
	out, err := composeManyPlain(context.Background(), m, []int{1 << 16}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := out[0]
	if res.s == nil {
		t.Error("no swapped grid list at a composed range of about 1,130 nats")
	}
	mu := math.Sqrt(1<<16) / 10
	for _, eps := range []float64{0, 100, 300, 320, mu * mu / 2, 340, 400, 500, 700, 1000} {
		ex := exactGaussLarge(mu, eps)
		d := res.Delta(eps)
		for _, c := range []struct {
			name         string
			upper, lower float64
		}{{"A||B", d.UpperAB, d.LowerAB}, {"B||A", d.UpperBA, d.LowerBA}} {
			if c.upper < ex*(1-1e-12) || c.lower > ex*(1+1e-12) {
				t.Errorf("eps=%v %s: [%.10g, %.10g] does not contain exact %.10g", eps, c.name, c.lower, c.upper, ex)
			}
			if ex > 1e-3 && c.upper > ex*(1+1e-3) {
				t.Errorf("eps=%v %s: upper %.10g is %.3g above exact %.10g", eps, c.name, c.upper, c.upper/ex-1, ex)
			}
		}
	}
	const exactEps = 435.93661 // eps at delta 1e-5, by bisection of the closed form
	if up := res.EpsUpper(1e-5); up < exactEps || up > exactEps*(1+2e-3) {
		t.Errorf("eps_upper(1e-5) = %v, exact %v", up, exactEps)
	}
	back := roundTrip(t, res)
	if back.s == nil {
		t.Fatal("the decoded result lost its swapped grid list")
	}
	for _, eps := range []float64{0, 300, mu * mu / 2, 400, math.Inf(1)} {
		if a, b := res.Delta(eps), back.Delta(eps); a != b {
			t.Fatalf("eps %v: %+v vs decoded %+v", eps, a, b)
		}
	}
	if a, b := res.EpsUpper(1e-6), back.EpsUpper(1e-6); a != b {
		t.Fatalf("EpsUpper %v vs decoded %v", a, b)
	}
}

// TestGridSwapCompose runs very non-private histograms (losses of hundreds
// of nats per observation, thousands composed) through Compose and
// ComposeSequence, where the composed range triggers the swapped chain, and
// checks every bound of both directions against enumeration in log space.
func TestGridSwapCompose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 745))
	swapped := 0
	trials := 200
	if testing.Short() {
		trials = 60
	}
	for trial := 0; trial < trials; trial++ {
		var parts []Part
		var as, bs [][]float64
		for k := 0; k < 1+rng.IntN(2); k++ {
			var a, b []float64
			if rng.IntN(2) == 0 {
				h := farHist(rng, 2+rng.IntN(3), 200+140*rng.Float64())
				a, b = h.a, h.b
			} else {
				kk := 2 + rng.IntN(3)
				a, b = randomPMFWith(rng, kk, true), randomPMFWith(rng, kk, true)
			}
			m, err := Histogram(a, b)
			if err != nil {
				continue
			}
			h := m.(*histMech)
			cnt := 1 + rng.IntN(4)
			parts = append(parts, Part{m, cnt})
			for j := 0; j < cnt; j++ {
				as, bs = append(as, h.a), append(bs, h.b)
			}
		}
		if len(parts) == 0 {
			continue
		}
		opt := Options{Buckets: 4 * (50 + rng.IntN(500))}
		if rng.IntN(3) == 0 {
			opt.Lists = ListsGrid
		}
		var res *Result
		var err error
		if len(parts) == 1 {
			res, err = Compose(context.Background(), parts[0].Mechanism, parts[0].Count, opt)
		} else {
			res, err = ComposeSequence(context.Background(), parts, opt)
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.s != nil {
			swapped++
		}
		for _, eps := range swapEps {
			if msg := checkDirs(as, bs, eps, res.Delta(eps)); msg != "" {
				t.Errorf("trial %d (%d parts, swapped %v): %s", trial, len(parts), res.s != nil, msg)
			}
		}
	}
	t.Logf("%d of %d results with a swapped grid list", swapped, trials)
	if swapped < trials/4 {
		t.Errorf("only %d results with a swapped grid list", swapped)
	}
}

// checkDirs checks the per-direction bounds d at eps against enumeration
// of the product of the pairs (as[k], bs[k]) in log space; it returns what
// failed ("" if nothing).
func checkDirs(as, bs [][]float64, eps float64, d DeltaBound) string {
	ab, dab, ba, dba := refEnumerateDirs(as, bs, eps)
	for _, c := range []struct {
		name         string
		ex, unc      float64
		upper, lower float64
	}{{"A||B", ab, dab, d.UpperAB, d.LowerAB}, {"B||A", ba, dba, d.UpperBA, d.LowerBA}} {
		if c.unc > 1e-6 {
			continue // the reference cannot decide
		}
		tol := c.unc + 1e-12*(1+math.Abs(c.ex))
		if !math.IsInf(c.ex, -1) && ln(c.upper) < c.ex-tol {
			return fmt.Sprintf("eps=%v %s: upper %.17g < exact %.17g", eps, c.name, c.upper, math.Exp(c.ex))
		}
		if c.lower > 0 && (math.IsInf(c.ex, -1) || ln(c.lower) > c.ex+tol) {
			return fmt.Sprintf("eps=%v %s: lower %.17g > exact %.17g", eps, c.name, c.lower, math.Exp(c.ex))
		}
	}
	return ""
}
