package engine

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"sync"
	"testing"
)

// A reference for the Vuvuzela pairs with Gauss noise, independent of the
// engine's count code and of its normal distribution functions: the
// distribution function Phi at the counts' ends by the Maclaurin series of
// erf in big.Float arithmetic with enough bits to absorb its cancellation,
// the counts' masses as differences of those, their sums by convolution in
// big.Float, each final value enclosed by a rigorous absolute error bound.

// refPhiAbs bounds the absolute error of refPhi (and of each count mass
// refGaussCount returns, which is a difference of two values of refPhi).
const refPhiAbs = 0x1p-1150

// refPhiCut: |t| beyond it, Phi(t) is 0 or 1 to within refPhiAbs
// (Q(40.5) <= phi(40.5)/40.5 < 1e-357 < 2^-1150 = 7e-347).
const refPhiCut = 40.5

var (
	refPiOnce sync.Once
	refSqrtPi *big.Float // sqrt(pi) to refPiPrec bits
)

// refPiPrec is the precision of the constant sqrt(pi) (more than any refPhi
// uses: 1.45 * 40.5^2 / 2 + 1300 < 2600).
const refPiPrec = 3000

// bigSqrtPi returns sqrt(pi) to refPiPrec bits: pi by Machin's formula
// pi = 16 atan(1/5) - 4 atan(1/239), each arctangent by its alternating
// series cut where a term is below 2^-(refPiPrec+40).
func bigSqrtPi() *big.Float {
	refPiOnce.Do(func() {
		const p = refPiPrec + 64
		atanInv := func(m int64) *big.Float {
			pow := new(big.Float).SetPrec(p).Quo(big.NewFloat(1).SetPrec(p), new(big.Float).SetPrec(p).SetInt64(m))
			m2 := new(big.Float).SetPrec(p).SetInt64(m * m)
			sum := new(big.Float).SetPrec(p).Set(pow)
			term := new(big.Float).SetPrec(p)
			for n := int64(1); ; n++ {
				pow.Quo(pow, m2)
				term.Quo(pow, new(big.Float).SetPrec(p).SetInt64(2*n+1))
				if term.MantExp(nil) < -(p + 40) {
					break
				}
				if n%2 == 1 {
					sum.Sub(sum, term)
				} else {
					sum.Add(sum, term)
				}
			}
			return sum
		}
		a := atanInv(5)
		a.Mul(a, big.NewFloat(16).SetPrec(p))
		b := atanInv(239)
		b.Mul(b, big.NewFloat(4).SetPrec(p))
		pi := new(big.Float).SetPrec(p).Sub(a, b)
		refSqrtPi = new(big.Float).SetPrec(refPiPrec).Sqrt(pi)
	})
	return refSqrtPi
}

// refArg is the argument (k - mu)/s of refPhi held exactly: d = k - mu
// (exact at refArgPrec bits) and s, both scaled by the one power of two
// that brings s into [0.5, 1). The scaling is exact, so two refArgs with
// the same key are the same real number: C(mu + 2, s) at count k + 2 and
// C(mu/2, s/2) at count k meet C(mu, s)'s arguments at counts k and 2k
// (when mu + 2 and mu/2 are exact in float64).
type refArg struct {
	d *big.Float
	s float64
}

// refArgPrec holds k - mu exactly for |k| < 2^1000 and any float64 mu.
const refArgPrec = 2200

// newRefArg returns the exact argument (k - mu)/s.
func newRefArg(k int, mu, s float64) refArg {
	d := new(big.Float).SetPrec(refArgPrec).SetInt64(int64(k))
	d.Sub(d, new(big.Float).SetFloat64(mu))
	if d.Acc() != big.Exact {
		panic(fmt.Sprintf("refArg: %d - %g not exact", k, mu))
	}
	_, e := math.Frexp(s)
	d.SetMantExp(d, -e)
	return refArg{d, math.Ldexp(s, -e)}
}

// key identifies the argument's real value (exact hexadecimal digits).
func (a refArg) key() string {
	return a.d.Text('p', 0) + "/" + strconv.FormatFloat(a.s, 'x', -1, 64)
}

// refPhiMemo keeps refPhiAt's values by argument: the four counts of a
// Gauss pair reference (refGaussPairs) share most of theirs.
type refPhiMemo map[string]*big.Float

// phi returns refPhi(k, mu, s), computed once per argument.
func (m refPhiMemo) phi(k int, mu, s float64) *big.Float {
	a := newRefArg(k, mu, s)
	key := a.key()
	if v, ok := m[key]; ok {
		return v
	}
	v := refPhiAt(a)
	m[key] = v
	return v
}

// refPhi returns P(Z <= (k - mu)/s) for a standard normal Z, to an absolute
// error of at most refPhiAbs (refPhiAt).
func refPhi(k int, mu, s float64) *big.Float {
	return refPhiAt(newRefArg(k, mu, s))
}

// refPhiAt returns P(Z <= t), t = a.d/a.s, for a standard normal Z, to an
// absolute error of at most refPhiAbs: Phi(t) = 1/2 + S(x)/sqrt(pi),
// x = t/sqrt 2, S(x) = sum_n (-1)^n x^(2n+1) / (n! (2n+1)) (erf(x) =
// 2 S(x)/sqrt(pi)). Its terms grow to at most e^(x^2) < 2^(1.4427 x^2)
// before they fall, so with P = 1.45 x^2 + 1250 bits the roundings
// (relative 2^-P each, a few per term, at most a few thousand terms) add
// at most 2^-1220; the series is cut once its terms fall and are below
// 2^-1240 (an alternating series of falling terms: the rest is at most the
// first term left out).
func refPhiAt(a refArg) *big.Float {
	df, _ := a.d.Float64()
	tf := df / a.s
	if tf > refPhiCut {
		return big.NewFloat(1)
	}
	if tf < -refPhiCut {
		return new(big.Float)
	}
	x2f := tf*tf/2 + 1
	P := uint(1.45*x2f) + 1250
	nf := func(v int64) *big.Float { return new(big.Float).SetPrec(P).SetInt64(v) }
	t := new(big.Float).SetPrec(P).Quo(a.d, new(big.Float).SetPrec(P).SetFloat64(a.s))
	sqrt2 := new(big.Float).SetPrec(P).Sqrt(nf(2))
	x := new(big.Float).SetPrec(P).Quo(t, sqrt2)
	x2 := new(big.Float).SetPrec(P).Mul(x, x)
	sum := new(big.Float).SetPrec(P)
	pow := new(big.Float).SetPrec(P).Set(x) // x^(2n+1)/n!
	term := new(big.Float).SetPrec(P)
	for n := int64(0); ; n++ {
		term.Quo(pow, nf(2*n+1))
		if n%2 == 0 {
			sum.Add(sum, term)
		} else {
			sum.Sub(sum, term)
		}
		pow.Mul(pow, x2)
		pow.Quo(pow, nf(n+1))
		if float64(n) > x2f+2 && (pow.Sign() == 0 || pow.MantExp(nil) < -1240) {
			break
		}
	}
	sum.Quo(sum, bigSqrtPi())
	return sum.Add(sum, new(big.Float).SetPrec(P).SetFloat64(0.5))
}

// refGaussCount returns P(C = k), k = 0..K, for C = ceil(max(0, mu + s Z)),
// each to an absolute error of at most 2 refPhiAbs, and P(C > K) likewise.
func refGaussCount(memo refPhiMemo, mu, s float64, K int) (p []*big.Float, tail *big.Float) {
	phi := make([]*big.Float, K+1)
	for k := range phi {
		phi[k] = memo.phi(k, mu, s)
	}
	p = make([]*big.Float, K+1)
	p[0] = phi[0] // P(X <= 0)
	for k := 1; k <= K; k++ {
		p[k] = new(big.Float).SetPrec(max(phi[k].Prec(), phi[k-1].Prec())).Sub(phi[k], phi[k-1])
	}
	tail = new(big.Float).SetPrec(phi[K].Prec()+8).Sub(big.NewFloat(1), phi[K])
	return p, tail
}

// refConvolve returns z_k = sum_j x_j y_(k-j) at 1300 bits: each entry to
// an absolute error of at most 4 refPhiAbs when x and y are masses of
// total at most 1 each known to 2 refPhiAbs (the roundings add at most
// (K + 1) 2^-1298 per entry).
func refConvolve(x, y []*big.Float) []*big.Float {
	const P = 1300
	z := make([]*big.Float, len(x)+len(y)-1)
	for k := range z {
		z[k] = new(big.Float).SetPrec(P)
	}
	prod := new(big.Float).SetPrec(P)
	for i, a := range x {
		if a.Sign() == 0 {
			continue
		}
		for j, b := range y {
			if b.Sign() == 0 {
				continue
			}
			prod.Mul(a, b)
			z[i+j].Add(z[i+j], prod)
		}
	}
	return z
}

// refEnclose returns float64 bounds on a value v known to an absolute error
// of abs: the conversion's half unit (relative u, or 2^-1075 below
// 2^-1022) and abs, outwards.
func refEnclose(v *big.Float, abs float64) (lo, hi float64) {
	f, _ := v.Float64()
	w := math.Abs(f)*0x1p-52 + 0x1p-1074 + abs
	return math.Max(0, f-w), f + w
}

// gaussCountRange returns the last count K of the references: beyond it,
// both counts of means up to mu + 2 have tails below 1e-350.
func gaussCountRange(mu, s float64) int {
	return int(math.Ceil(mu+2+(refPhiCut+1)*s)) + 2
}

// refGaussPair holds the reference masses of a Gauss count pair: entry k
// (count k) has A-mass in [aLo[k], aHi[k]] and B-mass in [bLo[k], bHi[k]];
// restA and restB bound the masses beyond the last entry.
type refGaussPair struct {
	aLo, aHi, bLo, bHi []float64
	restA, restB       float64
}

// refGaussCache shares refGaussPairs' references between the tests that
// ask for the same parameters (TestGaussCountEntriesExact and
// TestCountPairsEnumeratedWholeSpace share their corners).
var refGaussCache struct {
	sync.Mutex
	m map[countParams]*refGaussEntry
}

// refGaussEntry is one cached reference, computed once.
type refGaussEntry struct {
	once                  sync.Once
	dialing, conversation *refGaussPair
}

// refGaussPairsCached returns refGaussPairs(c.mu, c.scale), computed once
// per parameters; the pairs returned are shared and must not be modified.
func refGaussPairsCached(c countParams) (dialing, conversation *refGaussPair) {
	refGaussCache.Lock()
	if refGaussCache.m == nil {
		refGaussCache.m = map[countParams]*refGaussEntry{}
	}
	e := refGaussCache.m[c]
	if e == nil {
		e = &refGaussEntry{}
		refGaussCache.m[c] = e
	}
	refGaussCache.Unlock()
	e.once.Do(func() { e.dialing, e.conversation = refGaussPairs(c.mu, c.scale) })
	return e.dialing, e.conversation
}

// refGaussPairs returns the dialing pair (C(mu) against C(mu + 2)) and
// the conversation pair (C(mu, s) + C(mu/2, s/2) against C(mu + 2, s) +
// C(mu/2 + 1, s/2)), which share the singles' counts.
func refGaussPairs(mu, s float64) (dialing, conversation *refGaussPair) {
	K := gaussCountRange(mu, s)
	memo := refPhiMemo{}
	xa, txa := refGaussCount(memo, mu, s, K)
	xb, txb := refGaussCount(memo, mu+2, s, K)
	ya, tya := refGaussCount(memo, mu/2, s/2, K)
	yb, tyb := refGaussCount(memo, mu/2+1, s/2, K)
	dialing = refGaussFrom(xa, xb, txa, txb, 2*refPhiAbs)
	// Sums beyond K need a count beyond K: at most the two tails.
	ta := new(big.Float).Add(txa, tya)
	tb := new(big.Float).Add(txb, tyb)
	conversation = refGaussFrom(refConvolve(xa, ya), refConvolve(xb, yb), ta, tb, 4*refPhiAbs)
	return dialing, conversation
}

// refGaussFrom encloses the masses pa, pb (each known to abs) and the
// tails ta, tb as a refGaussPair.
func refGaussFrom(pa, pb []*big.Float, ta, tb *big.Float, abs float64) *refGaussPair {
	r := &refGaussPair{}
	for k := range pa {
		lo, hi := refEnclose(pa[k], abs)
		r.aLo, r.aHi = append(r.aLo, lo), append(r.aHi, hi)
		lo, hi = refEnclose(pb[k], abs)
		r.bLo, r.bHi = append(r.bLo, lo), append(r.bHi, hi)
	}
	_, r.restA = refEnclose(ta, abs)
	_, r.restB = refEnclose(tb, abs)
	return r
}

// TestRefPhiKnownValues checks refPhi against values of Phi known
// independently (mpmath's ncdf at 40 digits): in the bulk, in both tails, and at
// the far tail near 1e-300, to its stated absolute error (relative 1e-30
// where the value is far above it).
func TestRefPhiKnownValues(t *testing.T) {
	for _, c := range []struct {
		k        int
		mu, s    float64
		want     string
		relLimit float64
	}{
		{0, 0, 1, "0.5", 1e-30},
		{1, 0, 1, "0.8413447460685429485852325456320379224779", 1e-38},
		{-3, 0, 1, "0.001349898031630094526651814767594977377829", 1e-38},
		{-10, 0, 1, "7.619853024160526065973343251599308363504e-24", 1e-38},
		{-37, 0, 1, "5.725571222524576822683192548273201656433e-300", 1e-38},
		{7, 1, 2, "0.9986501019683699054733481852324050226222", 1e-38},
	} {
		got := refPhi(c.k, c.mu, c.s)
		want, _, err := big.ParseFloat(c.want, 10, 200, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		d := new(big.Float).Sub(got, want)
		d.Abs(d)
		lim := new(big.Float).Mul(want, big.NewFloat(c.relLimit))
		if d.Cmp(lim) > 0 {
			t.Errorf("Phi((%d - %v)/%v) = %s, want %s", c.k, c.mu, c.s, got.Text('g', 25), c.want)
		}
	}
}
