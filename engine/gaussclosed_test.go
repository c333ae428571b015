package engine

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// closedPrec is the precision of the closed-form references (bits).
const closedPrec = 256

func bigF(v float64) *big.Float { return new(big.Float).SetPrec(closedPrec).SetFloat64(v) }

// bigExp returns e^y: range reduction to |y/2^k| < 2^-8, 60 Taylor terms,
// k squarings (0 where e^y is below big.Float's exponent range).
func bigExp(y *big.Float) *big.Float {
	k := 0
	if y.Sign() != 0 {
		k = max(0, y.MantExp(nil)+8)
	}
	z := new(big.Float).SetPrec(closedPrec+64).SetMantExp(y, -k)
	sum := new(big.Float).SetPrec(closedPrec + 64).SetInt64(1)
	term := new(big.Float).SetPrec(closedPrec + 64).SetInt64(1)
	for i := 1; i <= 60; i++ {
		term.Mul(term, z)
		term.Quo(term, new(big.Float).SetInt64(int64(i)))
		sum.Add(sum, term)
	}
	for ; k > 0; k-- {
		if sum.MantExp(nil) < -(1 << 29) { // about to leave the exponent range
			return new(big.Float).SetPrec(closedPrec)
		}
		sum.Mul(sum, sum)
	}
	return sum.SetPrec(closedPrec)
}

// bigSqrt2Pi is sqrt(2 pi), pi by Machin's formula.
var bigSqrt2Pi = func() *big.Float {
	atanInv := func(n int64) *big.Float { // atan(1/n)
		p := uint(closedPrec + 64)
		x := new(big.Float).SetPrec(p).Quo(big.NewFloat(1).SetPrec(p), new(big.Float).SetPrec(p).SetInt64(n))
		x2 := new(big.Float).SetPrec(p).Mul(x, x)
		sum := new(big.Float).SetPrec(p).Set(x)
		pow := new(big.Float).SetPrec(p).Set(x)
		for k := int64(1); k < 400; k++ {
			pow.Mul(pow, x2)
			t := new(big.Float).SetPrec(p).Quo(pow, new(big.Float).SetInt64(2*k+1))
			if k%2 == 1 {
				sum.Sub(sum, t)
			} else {
				sum.Add(sum, t)
			}
		}
		return sum
	}
	pi := new(big.Float).SetPrec(closedPrec+64).Mul(big.NewFloat(16), atanInv(5))
	pi.Sub(pi, new(big.Float).SetPrec(closedPrec+64).Mul(big.NewFloat(4), atanInv(239)))
	pi.Mul(pi, big.NewFloat(2))
	return pi.Sqrt(pi)
}()

// bigPhi returns the standard normal density at x.
func bigPhi(x *big.Float) *big.Float {
	y := new(big.Float).SetPrec(closedPrec).Mul(x, x)
	y.Quo(y, big.NewFloat(-2))
	return bigExp(y).Quo(bigExp(y), bigSqrt2Pi)
}

// bigQ returns P(Z > x) for a standard normal Z: the series Q(x) = 1/2 -
// phi(x) sum_n x^(2n+1)/(2n+1)!! for |x| < 5 (with the bits it cancels
// added), Laplace's continued fraction phi(x)/(x + 1/(x + 2/(x + ...)))
// beyond, and Q(x) = 1 - Q(-x) for x < 0.
func bigQ(x *big.Float) *big.Float {
	if x.Sign() < 0 {
		q := bigQ(new(big.Float).Neg(x))
		return q.Sub(big.NewFloat(1).SetPrec(closedPrec), q)
	}
	xf, _ := x.Float64()
	if xf < 5 {
		p := uint(closedPrec + 64 + int(xf*xf))
		xp := new(big.Float).SetPrec(p).Set(x)
		x2 := new(big.Float).SetPrec(p).Mul(xp, xp)
		term := new(big.Float).SetPrec(p).Set(xp)
		sum := new(big.Float).SetPrec(p).Set(xp)
		for n := int64(1); n < 2000; n++ {
			term.Mul(term, x2)
			term.Quo(term, new(big.Float).SetInt64(2*n+1))
			sum.Add(sum, term)
			if term.Sign() == 0 || term.MantExp(nil) < sum.MantExp(nil)-int(p)-8 {
				break
			}
		}
		y := new(big.Float).SetPrec(p).Mul(xp, xp)
		y.Quo(y, big.NewFloat(-2))
		phi := bigExp(y).SetPrec(p)
		phi.Quo(phi, bigSqrt2Pi)
		sum.Mul(sum, phi)
		return sum.Sub(big.NewFloat(0.5).SetPrec(p), sum).SetPrec(closedPrec)
	}
	return bigPhi(x).Quo(bigPhi(x), bigMillsCF(x))
}

// bigMillsCF returns x + 1/(x + 2/(x + 3/(x + ...))) = phi(x)/Q(x) for x >=
// 5 (Laplace's continued fraction), evaluated from enough terms for
// closedPrec bits.
func bigMillsCF(x *big.Float) *big.Float {
	xf, _ := x.Float64()
	terms := int(math.Pow(float64(closedPrec)/xf, 2)) + 200
	cf := new(big.Float).SetPrec(closedPrec + 64).Set(x)
	for k := terms; k >= 1; k-- {
		t := new(big.Float).SetPrec(closedPrec+64).Quo(new(big.Float).SetInt64(int64(k)), cf)
		cf.Add(x, t)
	}
	return cf
}

// bigStr formats x as m*2^e, m to 20 digits (big.Float's decimal forms
// take time proportional to the exponent).
func bigStr(x *big.Float) string {
	m := new(big.Float)
	e := x.MantExp(m)
	mf, _ := m.Float64()
	return fmt.Sprintf("%.20g*2^%d", mf, e)
}

// bigGaussDelta returns the tight delta of the pair (N(0, 1), N(mu, 1)) at
// eps (both directions): Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2).
func bigGaussDelta(mu *big.Float, eps float64) *big.Float {
	e := bigF(eps)
	a := new(big.Float).SetPrec(closedPrec).Quo(e, mu)
	h := new(big.Float).SetPrec(closedPrec).Quo(mu, big.NewFloat(2))
	x1 := new(big.Float).SetPrec(closedPrec).Sub(a, h)
	x2 := new(big.Float).SetPrec(closedPrec).Add(a, h)
	var t2 *big.Float
	if x2f, _ := x2.Float64(); x2f >= 5 {
		// e^eps phi(x2) = phi(x1): no overflow of e^eps
		t2 = bigPhi(x1)
		t2.Quo(t2, bigMillsCF(x2))
	} else {
		t2 = bigQ(x2)
		t2.Mul(t2, bigExp(e))
	}
	d := bigQ(x1)
	return d.Sub(d, t2)
}

// bigMu returns sqrt(count) sens/sigma to closedPrec bits.
func bigMu(sigma, sens float64, count int) *big.Float {
	mu := new(big.Float).SetPrec(closedPrec).Quo(bigF(sens), bigF(sigma))
	return mu.Mul(mu, new(big.Float).SetPrec(closedPrec).Sqrt(new(big.Float).SetPrec(closedPrec).SetInt64(int64(count))))
}

// TestBigQReference checks the closed-form references against each other
// and known values: the series and the continued fraction agree at x = 5
// (where bigQ switches), Q(0) = 1/2, Q(x) + Q(-x) = 1, and float64's Erfc.
func TestBigQReference(t *testing.T) {
	x := bigF(5)
	cfAt5 := func() *big.Float { // the continued fraction at 5, forced
		cf := new(big.Float).SetPrec(closedPrec + 64).Set(x)
		for k := 20000; k >= 1; k-- {
			cf.Add(x, new(big.Float).SetPrec(closedPrec+64).Quo(new(big.Float).SetInt64(int64(k)), cf))
		}
		return bigPhi(x).Quo(bigPhi(x), cf)
	}()
	series := bigQ(new(big.Float).SetPrec(closedPrec).SetFloat64(math.Nextafter(5, 0)))
	// Q(5 - ulp) - Q(5) = phi(5) ulp to first order
	diff := new(big.Float).Sub(series, cfAt5)
	want := new(big.Float).Mul(bigPhi(x), bigF(5-math.Nextafter(5, 0)))
	rel := new(big.Float).Quo(new(big.Float).Sub(diff, want), cfAt5)
	if r, _ := rel.Float64(); math.Abs(r) > 1e-25 {
		t.Errorf("series and continued fraction differ at 5 by %g relative", r)
	}
	if cf := bigQ(x); new(big.Float).Sub(cf, cfAt5).Sign() != 0 {
		if r, _ := new(big.Float).Quo(new(big.Float).Sub(cf, cfAt5), cfAt5).Float64(); math.Abs(r) > 1e-60 {
			t.Errorf("continued fraction at 5 with its own length: %g relative off", r)
		}
	}
	if q, _ := bigQ(bigF(0)).Float64(); q != 0.5 {
		t.Errorf("Q(0) = %v", q)
	}
	for _, v := range []float64{0.1, 1, 3, 4.9, 5, 7, 20, 37} {
		sum := new(big.Float).Add(bigQ(bigF(v)), bigQ(bigF(-v)))
		if s, _ := sum.Float64(); math.Abs(s-1) > 1e-70 {
			t.Errorf("Q(%v) + Q(-%v) = 1 %+g", v, v, s-1)
		}
		q, _ := bigQ(bigF(v)).Float64()
		if f := 0.5 * math.Erfc(v/math.Sqrt2); math.Abs(q-f) > 1e-13*f {
			t.Errorf("Q(%v) = %v, erfc gives %v", v, q, f)
		}
	}
}

// TestGaussClosedMuRounding checks the rounding of mu = sqrt(sum count
// (sens/sigma)^2) over a seeded grid of sequences: down^2 <= mu^2 <= up^2
// exactly, each the nearest float on its side, down = up exactly when mu is
// a float; and, in 256-bit closed form, that the leaves' deltas bracket the
// composition's: delta_down(eps) <= delta_mu(eps) <= delta_up(eps). The
// grid holds cases where mu rounded to nearest falls below mu (counted: a
// composition at the nearest float would understate delta there).
func TestGaussClosedMuRounding(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 24))
	nearestBelow, exact := 0, 0
	for i := 0; i < 400; i++ {
		var parts []Part
		for k := 0; k <= i%3; k++ {
			sigma := math.Exp(rng.Float64()*12 - 4)
			sens := math.Exp(rng.Float64()*6 - 3)
			if i%7 == 0 {
				sigma, sens = 2, 1 // mu = sqrt(r)/2: often a float
			}
			count := 1 + rng.IntN(1<<(1+rng.IntN(40)))
			if i%5 == 0 { // a power of 2 over a power of 2, square counts: mu a float when alone
				sigma, sens = math.Ldexp(1, rng.IntN(12)-4), math.Ldexp(1, -rng.IntN(4))
				count = 1 << (2 * rng.IntN(20))
			}
			m, err := Gauss(sigma, sens, 0)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, Part{Mechanism: m, Count: count})
		}
		down, up, ok := gaussClosedMu(parts)
		if !ok {
			t.Fatalf("case %d: not closed", i)
		}
		mu2 := new(big.Rat)
		naive := 0.0
		for _, p := range parts {
			g := p.Mechanism.(*gaussMech)
			q := new(big.Rat).Quo(new(big.Rat).SetFloat64(g.sens), new(big.Rat).SetFloat64(g.sigma))
			q.Mul(q, q)
			mu2.Add(mu2, q.Mul(q, new(big.Rat).SetInt64(int64(p.Count))))
			naive += float64(p.Count) * (g.sens / g.sigma) * (g.sens / g.sigma)
		}
		sq := func(v float64) *big.Rat { r := new(big.Rat).SetFloat64(v); return r.Mul(r, r) }
		if sq(down).Cmp(mu2) > 0 || sq(up).Cmp(mu2) < 0 {
			t.Fatalf("case %d: mu^2 = %v not in [%v^2, %v^2]", i, mu2.FloatString(30), down, up)
		}
		if sq(math.Nextafter(down, math.Inf(1))).Cmp(mu2) <= 0 || sq(math.Nextafter(up, 0)).Cmp(mu2) >= 0 {
			t.Fatalf("case %d: [%v, %v] is not the tightest float bracket of mu", i, down, up)
		}
		if (down == up) != (sq(down).Cmp(mu2) == 0) {
			t.Fatalf("case %d: down %v, up %v for mu^2 %v", i, down, up, mu2.FloatString(30))
		}
		if down == up {
			exact++
			continue
		}
		// the nearest float of mu (what fl(sqrt(fl(mu^2))) and a rounding to
		// nearest give, where it matters) below mu
		if n := math.Sqrt(naive); sq(n).Cmp(mu2) < 0 {
			nearestBelow++
		}
		if i%8 == 0 { // closed forms (slow): the leaves bracket the composition
			mu := new(big.Float).SetPrec(closedPrec)
			mu.Sqrt(new(big.Float).SetPrec(closedPrec).SetRat(mu2))
			muF, _ := mu.Float64()
			for _, eps := range []float64{0, 0.5 * muF * muF, muF * muF, muF*muF + 3*muF} {
				dd, dm, du := bigGaussDelta(bigF(down), eps), bigGaussDelta(mu, eps), bigGaussDelta(bigF(up), eps)
				if dm.Sign() > 0 && (dd.Cmp(dm) > 0 || dm.Cmp(du) > 0) {
					t.Errorf("case %d eps=%v: deltas at down, mu, up %s %s %s are not ordered", i, eps, bigStr(dd), bigStr(dm), bigStr(du))
				}
			}
		}
	}
	t.Logf("%d cases with mu a float, %d with the nearest float below mu", exact, nearestBelow)
	if nearestBelow < 10 || exact < 10 {
		t.Errorf("the grid has %d cases with the nearest float below mu and %d with mu a float: want both", nearestBelow, exact)
	}
}

// closedCase is one composition of the closed-form tests.
type closedCase struct {
	sigma, sens float64
	r           int
}

// closedForm returns the Result of c (ComposeMany) and mu to 256 bits.
func (c closedCase) compose(t *testing.T, opt Options) (*Result, *big.Float) {
	t.Helper()
	m, err := Gauss(c.sigma, c.sens, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, c.r, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, bigMu(c.sigma, c.sens, c.r)
}

// checkClosedDelta checks the delta bracket of res at eps against the
// closed form at mu, in both directions, and the bracket's form: no NaN,
// lower <= upper, a note where the upper bound is trivial.
func checkClosedDelta(t *testing.T, name string, res *Result, mu *big.Float, eps float64) (up, low float64) {
	t.Helper()
	d := res.Delta(eps)
	ex := bigGaussDelta(mu, eps)
	for _, v := range []float64{d.Upper, d.Lower, d.UpperAB, d.UpperBA, d.LowerAB, d.LowerBA} {
		if math.IsNaN(v) || v < 0 || v > 1 {
			t.Fatalf("%s eps=%v: bound %v in %+v", name, eps, v, d)
		}
	}
	for dir, b := range [][2]float64{{d.LowerAB, d.UpperAB}, {d.LowerBA, d.UpperBA}} {
		if bigF(b[1]).Cmp(ex) < 0 || bigF(b[0]).Cmp(ex) > 0 {
			t.Errorf("%s eps=%v direction %d: [%.17g, %.17g] does not contain the exact %s", name, eps, dir, b[0], b[1], bigStr(ex))
		}
	}
	if d.Upper >= 1 && d.Note == "" && ex.Cmp(bigF(0.999)) < 0 {
		t.Errorf("%s eps=%v: trivial upper bound without a note", name, eps)
	}
	return d.Upper, d.Lower
}

// TestGaussComposedInClosedForm checks ComposeMany of untruncated Gauss pairs against
// the closed form of delta (256 bits) over a seeded grid of sigma,
// sensitivity, r (1 to 2^40) and eps, mu from 1e-7 to 2^20 (where delta
// underflows at every eps of interest): both directions' brackets contain
// the exact delta, nothing is NaN, a trivial bound has a note; the Eps
// bracket's ends are on the right sides of delta in closed form; Renyi
// brackets alpha mu^2/2; TPR brackets the trade-off curve 1 - Phi(Phi^-1(1 -
// fpr) - mu) (Dong, Roth, Su 2022); Info and Notes name the composition.
func TestGaussComposedInClosedForm(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 12))
	cases := []closedCase{
		{200 * math.Sqrt2, 1, 512}, {2, 1, 1000}, {1, 1, 1}, {3, 1, 7},
		{1e4, 1e-3, 1}, {1, 1, 1 << 40}, {0.5, 1, 1 << 20}, {1e3, 1, 1 << 40},
		{7, 3, 999_999_937}, {1e-2, 1, 3},
	}
	for len(cases) < 26 {
		sigma := math.Exp(rng.Float64()*10 - 3)
		sens := math.Exp(rng.Float64()*4 - 2)
		r := 1 + rng.IntN(1<<rng.IntN(41))
		if mu := sens / sigma * math.Sqrt(float64(r)); mu < 1e-7 || mu > 1<<20 {
			continue
		}
		cases = append(cases, closedCase{sigma, sens, r})
	}
	for i, c := range cases {
		name := fmt.Sprintf("sigma=%v sens=%v r=%d", c.sigma, c.sens, c.r)
		res, mu := c.compose(t, Options{Buckets: 4000})
		muF, _ := mu.Float64()
		info := res.Info()
		if info.Compositions != c.r || info.Squarings != 0 {
			t.Errorf("%s: Info says %d compositions, %d squarings", name, info.Compositions, info.Squarings)
		}
		if want := fmt.Sprintf("^%d", c.r); c.r > 1 && (len(info.Mechanisms) != 1 || !strings.HasSuffix(info.Mechanisms[0], want)) {
			t.Errorf("%s: Info.Mechanisms %q", name, info.Mechanisms)
		}
		if !strings.Contains(strings.Join(res.Notes(), "\n"), fmt.Sprintf("composed in closed form: %d Gauss observation", c.r)) {
			t.Errorf("%s: notes %q do not say the closed form", name, res.Notes())
		}
		epss := []float64{0, 0.01, 0.3, 1, 3}
		for _, k := range []float64{-2, 0, 2, 5, 10, 20, 35} {
			// around the loss quantiles of the composition: delta from
			// about 1 to 1e-270
			if e := muF*muF/2 + k*muF; e > 0 && e < 1e12 {
				epss = append(epss, e)
			}
		}
		for _, eps := range epss {
			checkClosedDelta(t, name, res, mu, eps)
		}
		for _, delta := range []float64{1e-3, 1e-9} {
			e := res.Eps(delta)
			if math.IsNaN(e.Upper) || math.IsNaN(e.Lower) || e.Lower > e.Upper {
				t.Errorf("%s delta=%v: eps bracket %+v", name, delta, e)
				continue
			}
			if !math.IsInf(e.Upper, 1) && bigGaussDelta(mu, e.Upper).Cmp(bigF(delta)) > 0 {
				t.Errorf("%s delta=%v: delta(eps_up = %v) exceeds delta", name, delta, e.Upper)
			}
			if e.Lower > 0 && bigGaussDelta(mu, e.Lower).Cmp(bigF(delta)) <= 0 {
				t.Errorf("%s delta=%v: delta(eps_low = %v) does not exceed delta", name, delta, e.Lower)
			}
		}
		for _, alpha := range []float64{1.5, 2, 8, 64} {
			lo, up := res.Renyi(alpha)
			ex := alpha * muF * muF / 2
			if math.IsNaN(lo) || math.IsNaN(up) || lo > ex*(1+1e-12) || up < ex*(1-1e-12) {
				t.Errorf("%s alpha=%v: Renyi [%v, %v], exact %v", name, alpha, lo, up, ex)
			}
		}
		if i%3 == 0 {
			for _, fpr := range []float64{1e-6, 1e-3, 0.1, 0.5} {
				b := res.TPR(fpr)
				ex := gaussTPR(fpr, muF)
				if math.IsNaN(b.Lower) || math.IsNaN(b.Upper) || b.Lower > ex*(1+1e-12) || b.Upper < ex*(1-1e-12) {
					t.Errorf("%s fpr=%v: TPR [%v, %v], exact %v", name, fpr, b.Lower, b.Upper, ex)
				}
			}
		}
	}
}

// TestGaussClosedSequence checks ComposeSequence of untruncated Gauss
// parts (mu^2 adds over the parts) against the closed form, its Info, and
// that a sequence with a truncated Gauss part keeps the chain.
func TestGaussClosedSequence(t *testing.T) {
	ctx := context.Background()
	g1, _ := Gauss(3, 1, 0)
	g2, _ := Gauss(50, 2, 0)
	g3, _ := Gauss(1, 0.25, 0)
	parts := []Part{{g1, 10}, {g2, 1000}, {g3, 3}, {g1, 5}}
	res, err := ComposeSequence(ctx, parts, Options{Buckets: 4000})
	if err != nil {
		t.Fatal(err)
	}
	mu2 := new(big.Float).SetPrec(closedPrec)
	for _, p := range parts {
		m := bigMu(p.Mechanism.(*gaussMech).sigma, p.Mechanism.(*gaussMech).sens, p.Count)
		mu2.Add(mu2, m.Mul(m, m))
	}
	mu := mu2.Sqrt(mu2)
	for _, eps := range []float64{0, 0.1, 0.5, 1, 2, 4, 8} {
		checkClosedDelta(t, "sequence", res, mu, eps)
	}
	info := res.Info()
	if info.Compositions != 1018 || len(info.Mechanisms) != 3 || !strings.HasSuffix(info.Mechanisms[0], "^15") {
		t.Errorf("Info: %d compositions of %q", info.Compositions, info.Mechanisms)
	}
	tr, _ := Gauss(3, 1, 20)
	mixed, err := ComposeSequence(ctx, []Part{{g1, 10}, {tr, 10}}, Options{Buckets: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if mixed.Info().Squarings == 0 || strings.Contains(strings.Join(mixed.Notes(), "\n"), "closed form") {
		t.Errorf("a truncated part composed in closed form: %+v, %q", mixed.Info(), mixed.Notes())
	}
}

// TestGaussClosedComposeMany checks that ComposeMany gives every r the
// Result Compose gives it alone (each its own leaf), and that the power
// path's option and a truncated Gauss keep the chain.
func TestGaussClosedComposeMany(t *testing.T) {
	ctx := context.Background()
	m, _ := Gauss(10, 1, 0)
	rs := []int{1, 100, 7, 1 << 30, 100}
	opt := Options{Buckets: 2000}
	out, err := ComposeMany(ctx, m, rs, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		one, err := Compose(ctx, m, r, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.5, 3} {
			if a, b := out[i].Delta(eps), one.Delta(eps); a != b {
				t.Errorf("r=%d eps=%v: ComposeMany %+v, Compose %+v", r, eps, a, b)
			}
		}
		if out[i].Info().Compositions != r {
			t.Errorf("r=%d: Info.Compositions %d", r, out[i].Info().Compositions)
		}
	}
	tr, _ := Gauss(10, 1, 40)
	for _, c := range []struct {
		name string
		m    Mechanism
		opt  Options
	}{{"truncated", tr, opt}, {"power path asked", m, Options{Buckets: 1 << 12, power: powerOn}}} {
		res, err := Compose(ctx, c.m, 64, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.Join(res.Notes(), "\n"), "closed form") {
			t.Errorf("%s: composed in closed form", c.name)
		}
	}
	if _, err := ComposeMany(ctx, m, []int{0}, opt); err == nil {
		t.Error("r = 0 accepted")
	}
	if _, err := ComposeMany(ctx, m, []int{4}, Options{Buckets: 6}); err == nil {
		t.Error("6 buckets accepted")
	}
}

// TestGaussClosedRoundTrip checks that a closed-form Result (with its lower
// pair) decoded from its wire form and re-attached to its mechanism and
// count answers every query as the fresh one.
func TestGaussClosedRoundTrip(t *testing.T) {
	for _, c := range []closedCase{{200 * math.Sqrt2, 1, 512}, {2, 1, 4}} {
		res, _ := c.compose(t, Options{Buckets: 4000})
		data, err := res.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Result
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		m, _ := Gauss(c.sigma, c.sens, 0)
		if err := back.Reattach(m, c.r); err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.01, 0.4, 2} {
			if a, b := res.Delta(eps), back.Delta(eps); a != b {
				t.Errorf("r=%d eps=%v: decoded %+v, fresh %+v", c.r, eps, b, a)
			}
		}
		if a, b := res.Eps(1e-6), back.Eps(1e-6); a != b {
			t.Errorf("r=%d: decoded eps %+v, fresh %+v", c.r, b, a)
		}
		la, ua := res.Renyi(4)
		lb, ub := back.Renyi(4)
		if la != lb || ua != ub {
			t.Errorf("r=%d: decoded Renyi [%v, %v], fresh [%v, %v]", c.r, lb, ub, la, ua)
		}
		if a, b := res.TPR(0.01), back.TPR(0.01); a != b {
			t.Errorf("r=%d: decoded TPR %+v, fresh %+v", c.r, b, a)
		}
		if a, b := res.Info(), back.Info(); fmt.Sprint(a) != fmt.Sprint(b) || strings.Join(res.Notes(), "|") != strings.Join(back.Notes(), "|") {
			t.Errorf("r=%d: decoded Info %+v notes %q, fresh %+v %q", c.r, b, back.Notes(), a, res.Notes())
		}
	}
}

// gaussClosedSources returns the sources of the bounds of the closed-form
// composition of r observations of m (TestPairStatus): the leaf at mu
// rounded up (upper bounds) and the one at mu rounded down (lower bounds;
// the same Result when mu is a float); ok is false when m is not composed
// in closed form.
func gaussClosedSources(t *testing.T, m Mechanism, r int, opt Options) (up, down *Result, ok bool) {
	t.Helper()
	lo, hi, ok := gaussClosedMu([]Part{{Mechanism: m, Count: r}})
	if !ok {
		return nil, nil, false
	}
	ctx := context.Background()
	upper := &gaussMech{sigma: 1, sens: hi}
	up, err := gaussClosedLeaf(ctx, upper, opt)
	if err != nil {
		t.Fatal(err)
	}
	if lo == hi {
		return up, up, true
	}
	lower := &gaussMech{sigma: 1, sens: lo}
	down, err = gaussClosedLeaf(ctx, lower, lowerOptions(opt, lower))
	if err != nil {
		t.Fatal(err)
	}
	return up, down, true
}

// TestGaussClosedOptions checks that the closed form honours the options
// of its leaf: every list choice, an explicit factor, one tilt, error
// correction off (no lower bounds: NaN) and the default bucket count (0:
// 100,000, no path choice) give brackets that contain the closed form.
func TestGaussClosedOptions(t *testing.T) {
	t.Parallel()
	c := closedCase{200 * math.Sqrt2, 1, 512}
	for _, o := range []struct {
		name string
		opt  Options
	}{
		{"grid", Options{Buckets: 4000, Lists: ListsGrid}},
		{"grouped", Options{Buckets: 4000, Lists: ListsGrouped}},
		{"factor", Options{Buckets: 4000, Factor: 1.0002}},
		{"one tilt", Options{Buckets: 4000, Tilts: 1}},
		{"no error correction", Options{Buckets: 4000, DisableErrorCorrection: true}},
		{"default buckets", Options{}},
	} {
		res, mu := c.compose(t, o.opt)
		wantN := o.opt.Buckets
		if wantN == 0 {
			wantN = 100000
		}
		if res.Info().Buckets != wantN {
			t.Errorf("%s: %d buckets, want %d", o.name, res.Info().Buckets, wantN)
		}
		if o.opt.Factor != 0 && res.Info().LeafFactor != o.opt.Factor {
			t.Errorf("%s: leaf factor %v", o.name, res.Info().LeafFactor)
		}
		for _, eps := range []float64{0, 0.01, 0.1, 0.4} {
			if o.opt.DisableErrorCorrection {
				d := res.Delta(eps)
				if !math.IsNaN(d.Lower) || bigF(d.Upper).Cmp(bigGaussDelta(mu, eps)) < 0 {
					t.Errorf("%s eps=%v: %+v", o.name, eps, d)
				}
				continue
			}
			checkClosedDelta(t, o.name, res, mu, eps)
		}
	}
}

// TestGaussClosedLargeRange is TestGridSwapGauss's case in closed form:
// Gauss sigma 10, r = 2^16 at default options (mu = 25.6; the chain's
// composed range is about 1,130 nats and needs the swapped grid list, the
// leaf's about 580): both directions contain the closed form and are within
// 1e-3 of it where it exceeds 1e-3, and eps_upper(1e-5) is within 2e-3 of
// the exact 435.93661.
func TestGaussClosedLargeRange(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("composes at the default 100,000 buckets")
	}
	c := closedCase{10, 1, 1 << 16}
	res, mu := c.compose(t, Options{})
	muF, _ := mu.Float64()
	for _, eps := range []float64{0, 100, 300, 320, muF * muF / 2, 340, 400, 500, 700, 1000} {
		up, _ := checkClosedDelta(t, "sigma 10 r 2^16", res, mu, eps)
		if ex, _ := bigGaussDelta(mu, eps).Float64(); ex > 1e-3 && up > ex*(1+1e-3) {
			t.Errorf("eps=%v: upper %.10g is %.3g above exact %.10g", eps, up, up/ex-1, ex)
		}
	}
	const exactEps = 435.93661
	if up := res.EpsUpper(1e-5); up < exactEps || up > exactEps*(1+2e-3) {
		t.Errorf("eps_upper(1e-5) = %v, exact %v", up, exactEps)
	}
}

// TestComposesInClosedForm checks which compositions ComposesInClosedForm
// names (the untruncated Gauss pair only) and that PowerQualifies leaves
// them out: the pipeline labels a round by the path it asked for, and a
// closed-form composition is neither path.
func TestComposesInClosedForm(t *testing.T) {
	gauss, err := Gauss(2, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	trunc, err := Gauss(2, 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	sgd, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		m      Mechanism
		closed bool
	}{{"gauss", gauss, true}, {"truncated gauss", trunc, false}, {"sgd", sgd, false}} {
		for _, path := range []Path{PathDefault, PathChain, PathPower} {
			o := Options{Path: path}
			if got := ComposesInClosedForm(c.m, 512, o); got != c.closed {
				t.Errorf("%s, path %v: ComposesInClosedForm = %v, want %v", c.name, path, got, c.closed)
			}
			if c.closed {
				q, err := PowerQualifies(context.Background(), c.m, 512, o)
				if err != nil || q {
					t.Errorf("%s, path %v: PowerQualifies = %v, %v; want false", c.name, path, q, err)
				}
			}
		}
	}
	if ComposesInClosedForm(gauss, 0, Options{}) || ComposesInClosedForm(nil, 1, Options{}) {
		t.Errorf("ComposesInClosedForm accepted r 0 or a nil mechanism")
	}
}

// TestGaussClosedFewBucketsAndExtremes checks the closed form at the
// smallest bucket counts and an explicit coarse factor, at eps from 0 to
// past the loss range (800 nats) against the 256-bit closed form, and at
// eps = +Inf (the exact delta is 0: sound brackets, never NaN).
func TestGaussClosedFewBucketsAndExtremes(t *testing.T) {
	for _, c := range []closedCase{{2, 1, 1}, {1, 1, 512}, {0.01, 1, 3}, {200, 1, 1 << 30}} {
		for _, o := range []Options{{Buckets: 8}, {Buckets: 12}, {Buckets: 64}, {Buckets: 64, Factor: 1.5}, {Buckets: 8, Factor: 1.0001}} {
			res, mu := c.compose(t, o)
			name := fmt.Sprintf("sigma %v r %d buckets %d factor %v", c.sigma, c.r, o.Buckets, o.Factor)
			for _, eps := range []float64{0, 0.01, 0.5, 2, 30, 800} {
				checkClosedDelta(t, name, res, mu, eps)
			}
			d := res.Delta(math.Inf(1))
			if math.IsNaN(d.Upper) || math.IsNaN(d.Lower) || !(d.Upper >= 0) || d.Lower > 0 {
				t.Errorf("%s: delta at eps +Inf [%v, %v], want a sound bracket of 0", name, d.Lower, d.Upper)
			}
		}
	}
}
