package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Tests of the random-allocation pair (allocation.go) against references
// of the exact pair P = (1/t) sum_i N(m e_i, I), Q = N(0, I):
//   - t = 1: the Gauss mechanism's closed form (exactGauss), also composed;
//   - t = 2, 3: delta in both directions by quadrature over all
//     coordinates but the last, whose expectation is in closed form
//     (Black-Scholes for the lognormal; sumQuad, soundness_alloc_test.go),
//     with the difference of two resolutions as the error estimate;
//   - t = 10: importance-sampling Monte Carlo with a fixed seed, 99.9%
//     confidence limits.

var allocOpts = Options{Buckets: 20000}

func allocCompose(t *testing.T, sigma float64, steps, epochs int) *Result {
	t.Helper()
	m, err := RandomAllocationGauss(sigma, 1, steps, 1, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, epochs, allocOpts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAllocT1ClosedForm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sigma  float64
		epochs int
	}{{0.8, 1}, {2, 1}, {1, 4}, {0.2, 30}, {0.1, 20}} {
		res := allocCompose(t, c.sigma, 1, c.epochs)
		mu := math.Sqrt(float64(c.epochs)) / c.sigma
		if c.sigma == 0.1 && res.s == nil {
			t.Errorf("sigma 0.1, %d epochs: the swapped grid list was not composed", c.epochs)
		}
		// (0.2, 30), (0.1, 20): losses beyond 600 nats, where the engine also
		// composes the swapped grid leaves (gridswap.go)
		for _, eps := range []float64{0, 0.5, 1, 2, 4, mu * mu / 2, mu*mu/2 + 2*mu} {
			// log-space reference (refGauss: no underflow of the second
			// term far in the tail) with its uncertainty
			l, dl := refGauss(mu, eps)
			ref := math.Exp(l)
			if ref < 1e-14 {
				continue
			}
			d := res.Delta(eps)
			if !(d.Upper >= math.Exp(l-dl)*(1-1e-12) && d.Lower <= math.Exp(l+dl)*(1+1e-12)) {
				t.Errorf("sigma %v, %d epochs, eps %v: [%.12g, %.12g] misses %.12g", c.sigma, c.epochs, eps, d.Lower, d.Upper, ref)
			}
			if d.Upper-d.Lower > 5e-3*ref {
				t.Errorf("sigma %v, %d epochs, eps %v: [%.12g, %.12g] wider than 5e-3 of %.6g", c.sigma, c.epochs, eps, d.Lower, d.Upper, ref)
			}
		}
	}
}

// phiC is the standard normal distribution function Phi(x).
func phiC(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func TestAllocQuadrature(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sigma float64
		t     int
	}{{1, 2}, {0.7, 2}, {1, 3}, {2, 3}} {
		res := allocCompose(t, c.sigma, c.t, 1)
		m := 1 / c.sigma
		for _, eps := range []float64{0.1, 0.5, 1, 2} {
			ab, ba := sumQuad{m, 0.5}.dirs(c.t, eps)
			ab2, ba2 := sumQuad{m, 1}.dirs(c.t, eps)
			ref := math.Max(ab, ba)
			errEst := 10*math.Max(math.Abs(ab-ab2), math.Abs(ba-ba2)) + 1e-14*ref + 1e-16
			if ref < 1e-12 {
				continue
			}
			d := res.Delta(eps)
			if !(d.Upper >= ref-errEst && d.Lower <= ref+errEst) {
				t.Errorf("sigma %v t %d eps %v: [%.12g, %.12g] misses quadrature %.12g +- %.2g (ab %.6g ba %.6g)", c.sigma, c.t, eps, d.Lower, d.Upper, ref, errEst, ab, ba)
			}
			// directions separately
			if !(d.UpperAB >= ab-errEst && d.UpperBA >= ba-errEst) {
				t.Errorf("sigma %v t %d eps %v: upper by direction %.12g %.12g below %.12g %.12g", c.sigma, c.t, eps, d.UpperAB, d.UpperBA, ab, ba)
			}
			if d.Upper-d.Lower > 2e-3*ref+errEst {
				t.Errorf("sigma %v t %d eps %v: [%.12g, %.12g] wider than 2e-3 of %.6g", c.sigma, c.t, eps, d.Lower, d.Upper, ref)
			}
		}
	}
}

// allocMC estimates delta_{P||Q}(eps) = E_P[(1 - e^(eps - L))+] by
// importance sampling: every coordinate from N(tau, 1) and one (uniform
// index) from N(tau + m + theta, 1), weighted by dP/dproposal; and
// delta_{Q||P}(eps) = E_Q[(1 - e^(eps + L))+] with every coordinate from
// N(tauBA, 1), weighted by dQ/dproposal. Returns means, standard errors
// and the numbers of non-zero terms.
func allocMC(m float64, steps int, eps, theta, tau, tauBA float64, n int, seed uint64) (ab, seAB, ba, seBA float64, hitsAB, hitsBA int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	y := make([]float64, steps)
	tf := float64(steps)
	c := m + theta
	var s1, s2, q1, q2 float64
	for it := 0; it < n; it++ {
		var sy float64
		for k := range y {
			y[k] = tau + rng.NormFloat64()
		}
		y[rng.IntN(steps)] += c
		// log dP/dprop = ln sum e^(m y - m^2/2) - ln sum e^(c (y - tau) - c^2/2) - tau sum y + t tau^2/2
		var S, D float64
		for _, v := range y {
			S += math.Exp(m*v - m*m/2)
			D += math.Exp(c*(v-tau) - c*c/2)
			sy += v
		}
		L := math.Log(S / tf)
		w := math.Exp(math.Log(S) - math.Log(D) - tau*sy + tf*tau*tau/2)
		f := w * math.Max(0, -math.Expm1(eps-L))
		s1 += f
		s2 += f * f
		if f > 0 {
			hitsAB++
		}
		// under Q, tilted to tauBA
		var Sq, sq float64
		for range y {
			v := tauBA + rng.NormFloat64()
			Sq += math.Exp(m*v - m*m/2)
			sq += v
		}
		wq := math.Exp(-tauBA*sq + tf*tauBA*tauBA/2)
		g := wq * math.Max(0, -math.Expm1(eps+math.Log(Sq/tf)))
		q1 += g
		q2 += g * g
		if g > 0 {
			hitsBA++
		}
	}
	nf := float64(n)
	ab = s1 / nf
	seAB = math.Sqrt(math.Max(0, s2/nf-ab*ab) / nf)
	ba = q1 / nf
	seBA = math.Sqrt(math.Max(0, q2/nf-ba*ba) / nf)
	return
}

func TestAllocMonteCarlo(t *testing.T) {
	t.Parallel()
	const z = 3.2905 // two-sided 99.9%
	for _, c := range []struct {
		sigma                 float64
		steps                 int
		eps, theta, tau, tauB float64
	}{
		{1, 10, 0.5, 0.5, 0, 0}, {1, 10, 1.5, 1.5, 0, -0.4}, {0.7, 20, 1, 1, 0, -0.2}, {2, 5, 0.1, 0.5, 0, 0},
		{1, 200, 0.3, 0.5, 0.05, -0.08}, {0.8, 1000, 0.2, 0.5, 0.03, -0.04},
	} {
		res := allocCompose(t, c.sigma, c.steps, 1)
		n := min(100000, 4000000/c.steps)
		ab, seAB, ba, seBA, hAB, hBA := allocMC(1/c.sigma, c.steps, c.eps, c.theta, c.tau, c.tauB, n, 7)
		d := res.Delta(c.eps)
		t.Logf("sigma %v t %d eps %v: ours AB [%.6g, %.6g] BA [%.6g, %.6g], MC AB %.6g +- %.2g (%d hits), BA %.6g +- %.2g (%d hits)", c.sigma, c.steps, c.eps, d.LowerAB, d.UpperAB, d.LowerBA, d.UpperBA, ab, seAB, hAB, ba, seBA, hBA)
		// the normal confidence interval needs enough non-zero terms
		for _, k := range []struct {
			name            string
			up, low, mc, se float64
			hits            int
		}{{"AB", d.UpperAB, d.LowerAB, ab, seAB, hAB}, {"BA", d.UpperBA, d.LowerBA, ba, seBA, hBA}} {
			if k.hits < 100 {
				continue
			}
			if k.up < k.mc-z*k.se {
				t.Errorf("%s: upper %.6g below a 99.9%% lower confidence limit %.6g", k.name, k.up, k.mc-z*k.se)
			}
			if k.low > k.mc+z*k.se {
				t.Errorf("%s: lower %.6g above a 99.9%% upper confidence limit %.6g", k.name, k.low, k.mc+z*k.se)
			}
		}
	}
}

func TestAllocRefusals(t *testing.T) {
	for _, c := range []struct {
		k    int
		rel  Relation
		t    int
		want string
	}{
		{1, ReplaceOne, 10, "replace"},
		{2, ReplaceOne, 10, "replace"},
		{1, AddRemove, 0, "steps_per_epoch"},
		{11, AddRemove, 10, "participations"},
	} {
		_, err := RandomAllocationGauss(1, 1, c.t, c.k, c.rel)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("k %d rel %v t %d: error %v, want one mentioning %q", c.k, c.rel, c.t, err, c.want)
		}
	}
	if _, err := RandomAllocationGauss(1, 1, 10, 1, AddRemove); err != nil {
		t.Error(err)
	}
}

// The groups are exact groups of the pair: their B-masses sum to 1 and
// their A-masses to 1 (E_Q[S/t] = 1), up to the set-aside mass, and every
// group's mean ratio lies in its loss interval.
func TestAllocGroupsConsistent(t *testing.T) {
	t.Parallel()
	for _, steps := range []int{1, 3, 7, 16} {
		m, _ := RandomAllocationGauss(0.9, 1, steps, 1, AddRemove)
		a := m.(*allocMech)
		if err := a.ensure(); err != nil {
			t.Fatal(err)
		}
		var sa, sb float64
		for i := range a.pa {
			sa += a.pa[i]
			sb += a.pb[i]
			l := math.Log(a.pa[i] / a.pb[i])
			if !(l >= a.lossLo[i]-1e-12 && l <= a.lossHi[i]+1e-12) {
				t.Fatalf("t %d group %d: mean loss %v outside [%v, %v]", steps, i, l, a.lossLo[i], a.lossHi[i])
			}
		}
		if math.Abs(sa-1) > 1e-12 || math.Abs(sb-1) > 1e-12 {
			t.Errorf("t %d: masses sum to %.17g, %.17g", steps, sa, sb)
		}
	}
}

func BenchmarkAllocEpoch(b *testing.B) {
	for _, c := range []struct {
		name   string
		sigma  float64
		steps  int
		epochs int
	}{{"s1_t100_E1", 1, 100, 1}, {"s1_t1000_E50", 1, 1000, 50}, {"s0.5_t1000_E50", 0.5, 1000, 50},
		{"s0.5_t10000_E50", 0.5, 10000, 50}, {"s2_t100_E50", 2, 100, 50}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m, _ := RandomAllocationGauss(c.sigma, 1, c.steps, 1, AddRemove)
				res, err := Compose(context.Background(), m, c.epochs, Options{})
				if err != nil {
					b.Fatal(err)
				}
				_ = res.Eps(1e-5)
			}
		})
	}
}

// allocPairDelta returns delta in both directions of one epoch's upper or
// lower pair, summed directly over its atoms.
func allocPairDelta(gs []leafGroup, eps float64) (ab, ba float64) {
	e := math.Exp(eps)
	for _, g := range gs {
		ab += math.Max(0, g.pa-e*g.pb)
		ba += math.Max(0, g.pb-e*g.pa)
	}
	return ab, ba
}

// The dominating pair is above and the dominated pair below the exact
// delta of one epoch in each direction (closed form for t = 1, quadrature
// for t = 2, 3), both close to it.
func TestAllocPairsBracket(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sigma float64
		t     int
	}{{0.8, 1}, {2, 1}, {1, 2}, {0.6, 2}, {1, 3}, {3, 3}} {
		m, _ := RandomAllocationGauss(c.sigma, 1, c.t, 1, AddRemove)
		a := m.(*allocMech)
		if err := a.ensure(); err != nil {
			t.Fatal(err)
		}
		mu := 1 / c.sigma
		for _, eps := range []float64{0, 0.2, 1, 3} {
			var ab, ba, errEst float64
			if c.t == 1 {
				l, dl := refGauss(mu, eps)
				ab, ba = math.Exp(l), math.Exp(l)
				errEst = math.Expm1(dl)*ab + 1e-13*ab
			} else {
				ab, ba = sumQuad{mu, 0.5}.dirs(c.t, eps)
				ab2, ba2 := sumQuad{mu, 1}.dirs(c.t, eps)
				errEst = 10*math.Max(math.Abs(ab-ab2), math.Abs(ba-ba2)) + 1e-14*math.Max(ab, ba) + 1e-17
			}
			uab, uba := allocPairDelta(a.upGroups, eps)
			lab, lba := allocPairDelta(a.lowGrps, eps)
			if !(uab >= ab-errEst && uba >= ba-errEst) {
				t.Errorf("sigma %v t %d eps %v: upper pair (%.12g, %.12g) below (%.12g, %.12g)", c.sigma, c.t, eps, uab, uba, ab, ba)
			}
			if !(lab <= ab+errEst && lba <= ba+errEst) {
				t.Errorf("sigma %v t %d eps %v: lower pair (%.12g, %.12g) above (%.12g, %.12g)", c.sigma, c.t, eps, lab, lba, ab, ba)
			}
			for _, d := range [][2]float64{{uab - lab, ab}, {uba - lba, ba}} {
				if d[1] > 1e-6 && d[0] > 1e-2*d[1]+errEst {
					t.Errorf("sigma %v t %d eps %v: pairs (%.12g, %.12g), (%.12g, %.12g) wider than 1e-2 of (%.6g, %.6g)", c.sigma, c.t, eps, lab, uab, lba, uba, ab, ba)
				}
			}
		}
	}
}

// In a sequence with another mechanism (whose grid leaf has no separate
// lower groups): two t = 1 epochs and one Gauss step of the same sigma are
// the Gauss mechanism with mu = sqrt(3)/sigma.
func TestAllocSequence(t *testing.T) {
	const sigma = 1.5
	a, _ := RandomAllocationGauss(sigma, 1, 1, 1, AddRemove)
	g, _ := Gauss(sigma, 1, 0)
	res, err := ComposeSequence(context.Background(), []Part{{a, 2}, {g, 1}}, allocOpts)
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(3) / sigma
	for _, eps := range []float64{0, 0.5, 1, 2} {
		l, dl := refGauss(mu, eps)
		d := res.Delta(eps)
		if !(d.Upper >= math.Exp(l-dl)*(1-1e-12) && d.Lower <= math.Exp(l+dl)*(1+1e-12)) {
			t.Errorf("eps %v: [%.12g, %.12g] misses %.12g", eps, d.Lower, d.Upper, math.Exp(l))
		}
		if d.Upper-d.Lower > 5e-3*math.Exp(l) {
			t.Errorf("eps %v: [%.12g, %.12g] wider than 5e-3 of %.6g", eps, d.Lower, d.Upper, math.Exp(l))
		}
	}
}
