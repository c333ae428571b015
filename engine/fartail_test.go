package engine

import (
	"context"
	"math"
	"runtime"
	"sync"
	"testing"
)

// Far tails: the corners' Chernoff caps (cornertail.go) and the
// moment bounds on delta (momentbound.go).

// multisetDelta enumerates the multisets of r events of the pair with
// A-masses in [aLo, aHi] and B-masses in [bLo, bHi] (events of mass 0 are
// left out by the caller) and returns, for each eps, a lower and an upper
// bound on the exact delta of each direction of the r-fold product: the
// lower from the masses' lower ends, the upper from their upper ends plus
// rest (the dropped events' mass, times r: every tuple with a dropped
// component).
//
// The eps are split between GOMAXPROCS goroutines, each enumerating every
// multiset for its share: each delta is summed in the same order as by
// one goroutine (the same bits).
func multisetDelta(aLo, aHi, bLo, bHi []float64, restA, restB float64, r int, eps []float64) (abLo, abHi, baLo, baHi []float64) {
	n := len(eps)
	abLo, abHi = make([]float64, n), make([]float64, n)
	baLo, baHi = make([]float64, n), make([]float64, n)
	parts := min(n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for p := range parts {
		i0, i1 := p*n/parts, (p+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b, c, d := multisetDeltaPart(aLo, aHi, bLo, bHi, restA, restB, r, eps[i0:i1])
			copy(abLo[i0:i1], a)
			copy(abHi[i0:i1], b)
			copy(baLo[i0:i1], c)
			copy(baHi[i0:i1], d)
		}()
	}
	wg.Wait()
	return abLo, abHi, baLo, baHi
}

// multisetDeltaPart is multisetDelta on one goroutine.
func multisetDeltaPart(aLo, aHi, bLo, bHi []float64, restA, restB float64, r int, eps []float64) (abLo, abHi, baLo, baHi []float64) {
	K := len(aLo)
	lnA := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = ln(x) // math.Log is -709.09 for every subnormal (float.go)
		}
		return out
	}
	la0, la1, lb0, lb1 := lnA(aLo), lnA(aHi), lnA(bLo), lnA(bHi)
	abLo, abHi = make([]float64, len(eps)), make([]float64, len(eps))
	baLo, baHi = make([]float64, len(eps)), make([]float64, len(eps))
	lfs := make([]float64, r+1) // ln n!
	for n := range lfs {
		lfs[n], _ = math.Lgamma(float64(n + 1))
	}
	lf := func(n int) float64 { return lfs[n] }
	counts := make([]int, K)
	// term adds w e^lnP (1 - e^(eps + lnQ - lnP))^+ for each eps (e^lnP
	// once: the same operations in the same order as per eps)
	term := func(dst []float64, lnP, lnQ float64, scale float64) {
		p := math.Exp(lnP)
		for i, e := range eps {
			x := e + lnQ - lnP
			if x < 0 {
				dst[i] += p * -math.Expm1(x) * scale
			}
		}
	}
	terms := 0 // multisets summed: the sums' rounding grows with them
	var rec func(k, left int, lw, sa0, sa1, sb0, sb1 float64)
	rec = func(k, left int, lw, sa0, sa1, sb0, sb1 float64) {
		if left == 0 {
			terms++
			w := lf(r) - lw
			// rounding of the logarithms' sums: relative 1e-12 each way
			term(abLo, w+sa0, w+sb1, 1-1e-12)
			term(abHi, w+sa1, w+sb0, 1+1e-12)
			term(baLo, w+sb0, w+sa1, 1-1e-12)
			term(baHi, w+sb1, w+sa0, 1+1e-12)
			return
		}
		if k == K {
			return
		}
		for c := left; c >= 0; c-- {
			counts[k] = c
			fc := float64(c)
			// c copies of the event: c ln(mass), 0 for c = 0 even where
			// the mass's lower end is 0 (ln -Inf)
			times := func(l float64) float64 {
				if c == 0 {
					return 0
				}
				return fc * l
			}
			rec(k+1, left-c, lw+lf(c), sa0+times(la0[k]), sa1+times(la1[k]), sb0+times(lb0[k]), sb1+times(lb1[k]))
		}
		counts[k] = 0
	}
	rec(0, r, 0, 0, 0, 0, 0)
	// the recursive sums of non-negative terms: relative error at most
	// gamma_(terms) (Higham, eq. (4.4)), outward
	g := 1.01 * float64(terms+1) * 0x1p-53
	for i := range eps {
		abLo[i] *= 1 - g
		baLo[i] *= 1 - g
		abHi[i] = abHi[i]*(1+g) + float64(r)*restA
		baHi[i] = baHi[i]*(1+g) + float64(r)*restB
	}
	return abLo, abHi, baLo, baHi
}

// smallCountCase is a Vuvuzela pair with small counts whose r-fold
// compositions, r <= rMax, exact multiset enumeration handles (events
// below drop in both masses are dropped from the enumeration).
type smallCountCase struct {
	name      string
	conv      bool
	noise     Noise
	mu, scale float64
	rMax      int
	drop      float64
}

// smallCountCases are the pairs of the enumeration tests: dialing and
// conversation, Gauss and Laplace noise.
var smallCountCases = []smallCountCase{
	{"dialing-gauss", false, NoiseGauss, 3, 0.8, 6, 1e-60},
	{"dialing-laplace", false, NoiseLaplace, 3, 1, 4, 1e-22},
	{"conv-gauss", true, NoiseGauss, 4, 1, 4, 1e-40},
	{"conv-laplace", true, NoiseLaplace, 4, 1.2, 3, 1e-20},
}

// prepared returns the case's prepared count pair.
func (c smallCountCase) prepared(t *testing.T) *countMech {
	t.Helper()
	var m Mechanism
	var err error
	if c.conv {
		m, err = VuvuzelaConversation(c.noise, c.mu, c.scale)
	} else {
		m, err = VuvuzelaDialing(c.noise, c.mu, c.scale)
	}
	if err != nil {
		t.Fatal(err)
	}
	cm := m.(*countMech)
	if err := cm.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	return cm
}

// TestFarTailCountPairsEnumerated composes small dialing and conversation
// pairs (Gauss and Laplace noise, small scales) r = 1..6 times and checks
// delta_up and delta_low in each direction against exact enumeration of
// the r-fold product (multisets of the events, from the mechanism's own
// mass enclosures), at eps out to where delta is about 1e-300.
func TestFarTailCountPairsEnumerated(t *testing.T) {
	t.Parallel()
	eps := []float64{0, 0.1, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 45, 70, 100, 150, 250, 400, 690}
	for _, c := range smallCountCases {
		cm := c.prepared(t)
		var aLo, aHi, bLo, bHi []float64
		restA, restB := cm.unknownA[1], cm.unknownB[1]
		for k := range cm.pa {
			if cm.pa[k] <= cm.ea[k] || cm.pb[k] <= cm.eb[k] || (cm.pa[k] < c.drop && cm.pb[k] < c.drop) {
				restA += cm.pa[k] + cm.ea[k]
				restB += cm.pb[k] + cm.eb[k]
				continue
			}
			aLo, aHi = append(aLo, cm.pa[k]-cm.ea[k]), append(aHi, cm.pa[k]+cm.ea[k])
			bLo, bHi = append(bLo, cm.pb[k]-cm.eb[k]), append(bHi, cm.pb[k]+cm.eb[k])
		}
		rs := make([]int, c.rMax)
		for i := range rs {
			rs[i] = i + 1
		}
		res, err := ComposeMany(context.Background(), cm, rs, Options{Buckets: 4000})
		if err != nil {
			t.Fatal(err)
		}
		for ri, r := range rs {
			abLo, abHi, baLo, baHi := multisetDelta(aLo, aHi, bLo, bHi, restA, restB, r, eps)
			for i, e := range eps {
				d := res[ri].Delta(e)
				if d.UpperAB < abLo[i] || d.UpperBA < baLo[i] {
					t.Errorf("%s r=%d eps=%v: upper bounds %v, %v below the exact %v, %v", c.name, r, e, d.UpperAB, d.UpperBA, abLo[i], baLo[i])
				}
				if testing.Verbose() && r == c.rMax {
					t.Logf("%s r=%d eps=%v: AB [%.3g, %.3g] exact [%.3g, %.3g]; BA [%.3g, %.3g] exact [%.3g, %.3g]", c.name, r, e, d.LowerAB, d.UpperAB, abLo[i], abHi[i], d.LowerBA, d.UpperBA, baLo[i], baHi[i])
				}
				if d.LowerAB > abHi[i] || d.LowerBA > baHi[i] {
					t.Errorf("%s r=%d eps=%v: lower bounds %v, %v above the exact %v, %v", c.name, r, e, d.LowerAB, d.LowerBA, abHi[i], baHi[i])
				}
			}
		}
	}
}

// TestFarTailConversationNoFloor: the conversation pair GS(15k, 2.5k) at
// r = 1,024 had a flat delta_up of 5.9e-20 from e^eps = 1.5 on (the corners'
// FFT error bounds, counted in full). The continuous Gaussian model
// (sensitivity 3, variance 1.25 scale^2) bounds the exact delta from above:
// 6.4e-35 at e^eps = 1.5, 1.7e-93 at 2.
func TestFarTailConversationNoFloor(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a paper-scale conversation pair")
	}
	m, err := VuvuzelaConversation(NoiseGauss, 15000, 2500)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 1024, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(1024) * 3 / (2500 * math.Sqrt(1.25))
	for _, c := range []struct{ eEps, max float64 }{{1.5, 1e-32}, {2, 1e-35}} {
		d := res.Delta(math.Log(c.eEps))
		cont := exactGaussLarge(mu, math.Log(c.eEps))
		if d.Upper > c.max {
			t.Errorf("e^eps %v: delta_up %v above %v (continuous model %v)", c.eEps, d.Upper, c.max, cont)
		}
	}
	// the bulk is the buckets' (the moment bound is far above it there)
	if d := res.Delta(math.Log(1.1)); !(d.Upper < 2.99e-5 && d.Lower > 2.97e-5) {
		t.Errorf("e^eps 1.1: [%v, %v], want within [2.97e-5, 2.99e-5]", d.Lower, d.Upper)
	}
}

// TestFarTailGaussCorners: the corners of Gauss sigma 200 sqrt 2 at r = 512
// held 1.4e-20 of FFT error bounds (delta_up flat from e^eps 2.5 on, exact
// below 1e-30); the Chernoff caps of the overflow leave about 2e-22.
func TestFarTailGaussCorners(t *testing.T) {
	sigma := 200 * math.Sqrt2
	m, err := Gauss(sigma, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 512, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(512) / sigma
	for _, ee := range []float64{1.5, 2, 2.5, 3, 10} {
		eps := math.Log(ee)
		ex := exactGaussLarge(mu, eps)
		d := res.Delta(eps)
		if d.Upper < ex || d.Lower > ex {
			t.Errorf("e^eps %v: [%v, %v] does not contain %v", ee, d.Lower, d.Upper, ex)
		}
		if ee >= 2.5 && d.Upper > 1e-21 {
			t.Errorf("e^eps %v: delta_up %v above 1e-21 (exact %v)", ee, d.Upper, ex)
		}
	}
}

// TestMomentRefineTightens: the moment bound with its tilt refined between
// the grid's (momentBound.refine) is never above the grid's bound, never
// below the exact delta of the r-fold product (exact enumeration of a
// small Gauss conversation pair, reference masses apart from the engine's
// sums), and at points between grid tilts strictly tighter; lnMomentAt
// agrees with the grid's moments at the grid's tilts.
func TestMomentRefineTightens(t *testing.T) {
	m, err := VuvuzelaConversation(NoiseGauss, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	cm := m.(*countMech)
	ma, mb, _, _, ok := cm.lnMoments()
	if !ok {
		t.Fatal("no moments")
	}
	for k, tau := range tailTaus {
		if tau <= 0 || k%8 != 0 {
			continue
		}
		if a := cm.lnMomentAt(tau, 0); a != ma[k] {
			t.Errorf("tau %v: lnMomentAt %v, grid %v", tau, a, ma[k])
		}
		if b := cm.lnMomentAt(tau, 1); b != mb[k+1] {
			t.Errorf("tau %v: lnMomentAt (B) %v, grid %v", tau, b, mb[k+1])
		}
	}
	K := 60
	za := ddConvolve(directCount(NoiseGauss, 4, 1, K), directCount(NoiseGauss, 2, 0.5, K))
	zb := ddConvolve(directCount(NoiseGauss, 6, 1, K), directCount(NoiseGauss, 3, 0.5, K))
	var aLo, aHi, bLo, bHi []float64
	for k := range za {
		if za[k] > 0 && zb[k] > 0 {
			aLo, aHi = append(aLo, za[k]*(1-1e-12)), append(aHi, za[k]*(1+1e-12))
			bLo, bHi = append(bLo, zb[k]*(1-1e-12)), append(bHi, zb[k]*(1+1e-12))
		}
	}
	const r = 3
	mom := momentsFn([]Part{{Mechanism: m, Count: r}})()
	if mom == nil || mom.at == nil {
		t.Fatal("no refinable moment bound")
	}
	grid := *mom
	grid.at = nil
	eps := []float64{2, 5, 8, 12, 20, 30, 45}
	abLo, _, baLo, _ := multisetDelta(aLo, aHi, bLo, bHi, 0, 0, r, eps)
	tighter := 0
	for i, e := range eps {
		ab, ba := mom.delta(e)
		gab, gba := grid.delta(e)
		if ab > gab || ba > gba {
			t.Errorf("eps %v: refined (%v, %v) above the grid's (%v, %v)", e, ab, ba, gab, gba)
		}
		if ab < abLo[i] || ba < baLo[i] {
			t.Errorf("eps %v: refined (%v, %v) below the exact (%v, %v)", e, ab, ba, abLo[i], baLo[i])
		}
		if ab < gab*0.99 {
			tighter++
		}
		t.Logf("eps %v: A||B exact %.4g refined %.4g grid %.4g; B||A exact %.4g refined %.4g grid %.4g", e, abLo[i], ab, gab, baLo[i], ba, gba)
	}
	if tighter < 2 {
		t.Errorf("refined bound at least 1%% tighter at %d eps, want >= 2", tighter)
	}
}

// TestFarTailConversationDeepBudget: with the corners' budget at 1e-40
// (Options.TailBudget) the accurate Gauss sums let the buckets decide the
// far tail of GS(15k, 2.5k) at r = 1,024: within 10x of the continuous
// Gaussian model (an upper bound on the exact delta) from above, and
// within 10x of it from below (measured: 1.2%), down to 5.3e-30 at
// e^eps 1.45. At the default budget (1e-22) the buckets floor near 1e-20
// and the moment bound decides there (about 10x).
func TestFarTailConversationDeepBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a paper-scale conversation pair")
	}
	m, err := VuvuzelaConversation(NoiseGauss, 15000, 2500)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 1024, Options{TailBudget: 1e-40})
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Sqrt(1024) * 3 / (2500 * math.Sqrt(1.25))
	for _, ee := range []float64{1.3, 1.35, 1.4, 1.45} {
		eps := math.Log(ee)
		cont := exactGaussLarge(mu, eps)
		d := res.Delta(eps)
		t.Logf("e^eps %v: [%.5g, %.5g], continuous model %.5g", ee, d.Lower, d.Upper, cont)
		if d.Lower > cont || d.Upper > 10*cont || d.Lower < cont/10 {
			t.Errorf("e^eps %v: [%.5g, %.5g], want within 10x of the continuous model %.5g (lower end below it)", ee, d.Lower, d.Upper, cont)
		}
	}
}
