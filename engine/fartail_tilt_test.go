package engine

import (
	"context"
	"math"
	"testing"
)

// The tilted far-tail bounds (tiltbounds.go) against exact references at
// large r: pairs of three events, whose r-fold products are trinomial and
// summed exactly (in log space, term by term).

// threeEventPair returns a count pair of the events with A-masses pa and
// B-masses pb (exact as given: error 0).
func threeEventPair(pa, pb [3]float64) *countMech {
	m := &countMech{name: "three-event pair"}
	m.build = func(context.Context) error {
		for k := range pa {
			m.addEvent(pa[k], 0, pb[k], 0)
		}
		return nil
	}
	return m
}

// trinomialDelta returns delta_{A||B}(eps) and delta_{B||A}(eps) of the
// r-fold product of the pair, summed over the trinomial counts (each term
// to about 1e-13 relative; the sums of positive terms to about r^2 u).
func trinomialDelta(pa, pb [3]float64, r int, eps float64) (ab, ba float64) {
	lg := func(n int) float64 { v, _ := math.Lgamma(float64(n + 1)); return v }
	var la, lb [3]float64
	for k := range pa {
		la[k], lb[k] = math.Log(pa[k]), math.Log(pb[k])
	}
	for i := 0; i <= r; i++ {
		for j := 0; i+j <= r; j++ {
			k := r - i - j
			c := lg(r) - lg(i) - lg(j) - lg(k)
			a := c + float64(i)*la[0] + float64(j)*la[1] + float64(k)*la[2]
			b := c + float64(i)*lb[0] + float64(j)*lb[1] + float64(k)*lb[2]
			if x := eps + b - a; x < 0 {
				ab += math.Exp(a) * -math.Expm1(x)
			}
			if x := eps + a - b; x < 0 {
				ba += math.Exp(b) * -math.Expm1(x)
			}
		}
	}
	return ab, ba
}

// TestTiltBoundsTrinomial checks the tilted lower and upper bounds of
// both directions against the exact delta of r-fold products of
// three-event pairs, r = 256 to 2,048, at eps out to where delta is about
// 1e-150: never on the wrong side (beyond the exact sums' own rounding),
// the lower bound alive and the upper bound within 2x of the exact where
// the normal integral beats the Berry-Esseen term by 4x. It also checks
// that the comparison fails for a lower bound without the Berry-Esseen
// term (the normal approximation alone is above the exact somewhere).
func TestTiltBoundsTrinomial(t *testing.T) {
	t.Parallel()
	pa := [3]float64{0.5, 0.3, 0.2}
	pb := [3]float64{0.3, 0.3, 0.4}
	m := threeEventPair(pa, pb)
	if err := m.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	alive, tight, brokenCaught := 0, 0, 0
	for _, r := range []int{256, 512, 2048} {
		x := momentsFn([]Part{{Mechanism: m, Count: r}})()
		if x == nil || x.tilt == nil || !x.lowerOK {
			t.Fatal("no tilted bounds for an exact count pair")
		}
		mean := 0.0
		for k := range pa {
			mean += pa[k] * math.Log(pa[k]/pb[k])
		}
		for _, z := range []float64{2, 4, 8, 12, 16, 20, 25} {
			// eps z standard deviations of the loss above its mean
			sd := math.Sqrt(float64(r) * 0.25)
			eps := float64(r)*mean + z*sd
			exAB, exBA := trinomialDelta(pa, pb, r, eps)
			for side, ex := range []float64{exAB, exBA} {
				if ex == 0 {
					continue
				}
				tau0 := x.bestTilt(eps, side)
				lo := x.tilt(eps, side, tau0, false)
				up := x.tilt(eps, side, tau0, true) + []float64{x.restA, x.restB}[side]
				tol := 1e-9 * ex
				if lo > ex+tol || up < ex-tol {
					t.Errorf("r=%d eps=%.4g side %d: [%.6g, %.6g] does not contain the exact %.6g", r, eps, side, lo, up, ex)
				}
				if lo > 0 {
					alive++
				}
				if up < 2*ex {
					tight++
				}
				// without the Berry-Esseen term the bound is the normal
				// approximation's, not a bound: it is caught above the
				// exact somewhere
				if noBE := normalApproxLower(x, m, r, eps, side, tau0); noBE > ex*(1+1e-6) {
					brokenCaught++
				}
				if testing.Verbose() {
					t.Logf("r=%d z=%v side %d: [%.4g, %.4g] exact %.4g", r, z, side, lo, up, ex)
				}
			}
		}
	}
	if alive < 10 || tight < 10 {
		t.Errorf("lower bound alive in %d cases, upper within 2x in %d; want >= 10 each", alive, tight)
	}
	if brokenCaught == 0 {
		t.Error("the normal approximation without the Berry-Esseen term was never above the exact delta: the comparison cannot catch a broken bound")
	}
}

// normalApproxLower is tiltBoundAt's lower bound without the
// Berry-Esseen term, at the golden-section tilts' centre: not a bound
// (for the test that the comparison catches a broken one).
func normalApproxLower(x *momentBound, m *countMech, r int, eps float64, side int, tau float64) float64 {
	lnW, v, _ := m.tiltEvents(side, false)
	st, ok := tiltAt(lnW, v, tau, false)
	if !ok {
		return 0
	}
	fr := float64(r)
	mu, V := fr*st.mean, fr*st.variance
	sd := math.Sqrt(V)
	lnI := func(t float64) float64 { return -t*mu + t*t*V/2 + lnNormQ((eps-mu+t*V)/sd) }
	j := math.Exp(lnI(tau)+fr*st.lnW) - math.Exp(eps+lnI(tau+1)+fr*st.lnW)
	return math.Max(j, 0)
}

// TestFarTailConversationTilted: GS(15k, 2.5k) after r = 65,536 rounds at
// the default options, beyond the default budget's reach (delta 1e-30 at
// e^eps 22.14, 2.2e-58 at 80): the tilted bounds hold the bracket within
// 1.2x of the continuous Gaussian model (an upper bound on the exact
// delta, so the lower end must stay below it), where the buckets and the
// moment bound gave [0, 1.06e-29].
func TestFarTailConversationTilted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a paper-scale conversation pair")
	}
	m, err := VuvuzelaConversation(NoiseGauss, 15000, 2500)
	if err != nil {
		t.Fatal(err)
	}
	const r = 65536
	res, err := Compose(context.Background(), m, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(r) * 3 / (2500 * math.Sqrt(1.25))
	for _, ee := range []float64{22.14, 80} {
		eps := math.Log(ee)
		cont := exactGaussLarge(mu, eps)
		d := res.Delta(eps)
		t.Logf("e^eps %v: [%.5g, %.5g], continuous model %.5g", ee, d.Lower, d.Upper, cont)
		if d.Lower > cont || d.Upper > 1.2*cont || d.Lower < cont/1.2 {
			t.Errorf("e^eps %v: [%.5g, %.5g], want within 1.2x of the continuous model %.5g (lower end below it)", ee, d.Lower, d.Upper, cont)
		}
	}
}
