package fft

import (
	"math"
	"math/big"
	"testing"
)

// The exact reference of the error tests: complex numbers in 200-bit
// binary floating point (math/big), twiddles from Taylor series at 260
// bits, and the DFT by a mixed-radix recursion in that precision (relative
// error below 2^-190, checked against direct summation by
// TestExactDFTMatchesDirectSum). Every float64 input is exact in it.

const (
	bigPrec         = 200
	trigPrec        = 260
	piDigits        = "3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679821480865"
	sqrt3HalfDigits = "0.8660254037844386467637231707529361834714026269051903140279034897259665084544000185405730933786242878378130707077"
)

// bc is a complex number of the reference arithmetic.
type bc struct{ re, im *big.Float }

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

func bcOf(re, im float64) bc { return bc{bf(re), bf(im)} }

func bcAdd(x, y bc) bc {
	return bc{new(big.Float).SetPrec(bigPrec).Add(x.re, y.re), new(big.Float).SetPrec(bigPrec).Add(x.im, y.im)}
}

func bcSub(x, y bc) bc {
	return bc{new(big.Float).SetPrec(bigPrec).Sub(x.re, y.re), new(big.Float).SetPrec(bigPrec).Sub(x.im, y.im)}
}

func bcMul(x, y bc) bc {
	p := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(bigPrec).Mul(a, b) }
	re := new(big.Float).SetPrec(bigPrec).Sub(p(x.re, y.re), p(x.im, y.im))
	im := new(big.Float).SetPrec(bigPrec).Add(p(x.re, y.im), p(x.im, y.re))
	return bc{re, im}
}

func bcConj(x bc) bc { return bc{x.re, new(big.Float).SetPrec(bigPrec).Neg(x.im)} }

// abs2 returns |x|^2.
func (x bc) abs2() *big.Float {
	r := new(big.Float).SetPrec(bigPrec).Mul(x.re, x.re)
	return r.Add(r, new(big.Float).SetPrec(bigPrec).Mul(x.im, x.im))
}

// float returns x rounded to float64 components.
func (x bc) float() (float64, float64) {
	re, _ := x.re.Float64()
	im, _ := x.im.Float64()
	return re, im
}

// bigSinCos returns sin and cos of theta (|theta| <= 7) by their Taylor
// series at trigPrec bits, stopped when a term falls below 2^-(trigPrec+10).
func bigSinCos(theta *big.Float) (sin, cos *big.Float) {
	x := new(big.Float).SetPrec(trigPrec).Set(theta)
	x2 := new(big.Float).SetPrec(trigPrec).Mul(x, x)
	tol := new(big.Float).SetPrec(trigPrec).SetMantExp(big.NewFloat(1), -(trigPrec + 10))
	series := func(term *big.Float, first int) *big.Float {
		sum := new(big.Float).SetPrec(trigPrec).Set(term)
		t := new(big.Float).SetPrec(trigPrec).Set(term)
		for j := first; ; j += 2 {
			t.Mul(t, x2)
			t.Quo(t, new(big.Float).SetPrec(trigPrec).SetInt64(int64(-(j+1)*(j+2))))
			sum.Add(sum, t)
			if new(big.Float).Abs(t).Cmp(tol) < 0 {
				return sum
			}
		}
	}
	return series(x, 1), series(new(big.Float).SetPrec(trigPrec).SetInt64(1), 0)
}

// bigPi returns pi at trigPrec bits.
func bigPi() *big.Float {
	p, _, err := big.ParseFloat(piDigits, 10, trigPrec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return p
}

// exactRoots returns w_n^e = exp(-2 pi i e/n) for e < n in the reference
// arithmetic.
func exactRoots(n int) []bc {
	w := make([]bc, n)
	for e := range w {
		w[e] = exactRoot(e, n)
	}
	return w
}

// exactRoot returns w_n^e = exp(-2 pi i e/n), 0 <= e < n, in the reference
// arithmetic.
func exactRoot(e, n int) bc {
	twoPi := new(big.Float).SetPrec(trigPrec).Mul(bigPi(), new(big.Float).SetInt64(2))
	theta := new(big.Float).SetPrec(trigPrec).Mul(twoPi, new(big.Float).SetPrec(trigPrec).SetInt64(int64(e)))
	theta.Quo(theta, new(big.Float).SetPrec(trigPrec).SetInt64(int64(n)))
	if e > n/2 { // reduce to |theta| <= pi
		theta.Sub(theta, twoPi)
	}
	s, c := bigSinCos(theta)
	return bc{new(big.Float).SetPrec(bigPrec).Set(c), new(big.Float).SetPrec(bigPrec).Neg(s)}
}

// exactDFT returns the DFT sum_j x_j w^(jk) of x (len(x) = 2^a 3^b) with
// w = roots[len(roots)/len(x)] conjugated for the inverse: radix-2
// decimation in time while the length is even, direct sums below.
func exactDFT(x []bc, roots []bc, inverse bool) []bc {
	n, all := len(x), len(roots)
	stride := all / n
	w := func(e int) bc {
		r := roots[(e%n)*stride]
		if inverse {
			return bcConj(r)
		}
		return r
	}
	if n%2 != 0 {
		out := make([]bc, n)
		for k := range out {
			s := bcOf(0, 0)
			for j := range x {
				s = bcAdd(s, bcMul(x[j], w(j*k)))
			}
			out[k] = s
		}
		return out
	}
	even, odd := make([]bc, n/2), make([]bc, n/2)
	for j := 0; j < n/2; j++ {
		even[j], odd[j] = x[2*j], x[2*j+1]
	}
	e := exactDFT(even, roots, inverse)
	o := exactDFT(odd, roots, inverse)
	out := make([]bc, n)
	for k := 0; k < n/2; k++ {
		t := bcMul(w(k), o[k])
		out[k], out[k+n/2] = bcAdd(e[k], t), bcSub(e[k], t)
	}
	return out
}

// directDFT is the DFT by direct summation in the reference arithmetic.
func directDFT(x []bc, roots []bc, inverse bool) []bc {
	n := len(x)
	out := make([]bc, n)
	for k := range out {
		s := bcOf(0, 0)
		for j := range x {
			r := roots[(j*k)%n]
			if inverse {
				r = bcConj(r)
			}
			s = bcAdd(s, bcMul(x[j], r))
		}
		out[k] = s
	}
	return out
}

// relErrBig returns ||got - want||_2 / ||want||_2 in the reference
// arithmetic (got[i] is compared with want[at(i)]).
func relErrBig(gotRe, gotIm []float64, want []bc, at func(int) int) float64 {
	e2, w2 := new(big.Float).SetPrec(bigPrec), new(big.Float).SetPrec(bigPrec)
	for i := range gotRe {
		wv := want[at(i)]
		e2.Add(e2, bcSub(bcOf(gotRe[i], gotIm[i]), wv).abs2())
		w2.Add(w2, wv.abs2())
	}
	if w2.Sign() == 0 {
		if e2.Sign() == 0 {
			return 0
		}
		return math.Inf(1)
	}
	r := new(big.Float).SetPrec(bigPrec).Quo(e2, w2)
	r.Sqrt(r)
	f, _ := r.Float64()
	return f
}

// TestExactDFTMatchesDirectSum checks the reference DFT (the recursion)
// against direct summation, both in 200-bit arithmetic, and the roots'
// Taylor series against math.Sincos.
func TestExactDFTMatchesDirectSum(t *testing.T) {
	for _, n := range []int{3, 6, 12, 16, 48, 96} {
		roots := exactRoots(n)
		for e, r := range roots {
			s, c := math.Sincos(2 * math.Pi * float64(e) / float64(n))
			re, im := r.float()
			if math.Abs(re-c) > 1e-15 || math.Abs(im+s) > 1e-15 {
				t.Fatalf("n=%d: root %d is (%v, %v), Sincos gives (%v, %v)", n, e, re, im, c, -s)
			}
		}
		x := make([]bc, n)
		for j := range x {
			x[j] = bcOf(math.Sin(float64(3*j+1)), math.Cos(float64(j*j)))
		}
		for _, inv := range []bool{false, true} {
			got, want := exactDFT(x, roots, inv), directDFT(x, roots, inv)
			d, w := new(big.Float), new(big.Float)
			for k := range got {
				d.Add(d, bcSub(got[k], want[k]).abs2())
				w.Add(w, want[k].abs2())
			}
			lim := new(big.Float).SetMantExp(w, -380) // relative 2^-190
			if d.Cmp(lim) > 0 {
				t.Errorf("n=%d inverse=%v: recursion and direct sums differ by %v (squared norm %v)", n, inv, d, w)
			}
		}
	}
}
