package fft

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestNewPlan3 checks the plans of length 3*2^k, k = 1..18: Len, Kappa =
// Kappa3(k), growing with n, and the spectrum order: Frequency is a
// permutation with Position its inverse, the bit reversal within each
// third, and Mirror finds the frequency n-k where Frequency's comment says
// (the first third as a radix-2 spectrum of length m, position m+j with
// 3m-1-j); for 2^k, Frequency is the bit reversal and Mirror the engine's
// rule (p in [h, 2h) with 3h-1-p).
func TestNewPlan3(t *testing.T) {
	prev := 0.0
	for k := 1; k <= 18; k++ {
		m := 1 << k
		n := 3 * m
		p := NewPlan(n)
		if p.Len() != n || p.Kappa() != Kappa3(k) {
			t.Fatalf("n=%d: Len %d, Kappa %v (Kappa3 %v)", n, p.Len(), p.Kappa(), Kappa3(k))
		}
		if !(p.Kappa() > prev && p.Kappa() < 1e-13) {
			t.Errorf("n=%d: kappa %v (previous %v)", n, p.Kappa(), prev)
		}
		prev = p.Kappa()
		if k > 12 {
			continue
		}
		seen := make([]bool, n)
		p2 := NewPlan(m)
		for pos := 0; pos < n; pos++ {
			f := p.Frequency(pos)
			if f < 0 || f >= n || seen[f] {
				t.Fatalf("n=%d: Frequency(%d) = %d repeats or is out of range", n, pos, f)
			}
			seen[f] = true
			if p.Position(f) != pos {
				t.Fatalf("n=%d: Position(Frequency(%d)) = %d", n, pos, p.Position(f))
			}
			s, q := pos/m, pos%m
			if want := 3*int(bits.Reverse(uint(q))>>(bits.UintSize-k)) + s; f != want {
				t.Fatalf("n=%d: Frequency(%d) = %d, want %d", n, pos, f, want)
			}
			mirror := p.Mirror(pos)
			if p.Frequency(mirror) != (n-f)%n {
				t.Fatalf("n=%d: Mirror(%d) = %d holds frequency %d, want %d", n, pos, mirror, p.Frequency(mirror), (n-f)%n)
			}
			switch {
			case s == 1 && mirror != 3*m-1-q:
				t.Fatalf("n=%d: the mirror of position %d is %d, want %d", n, pos, mirror, 3*m-1-q)
			case s == 2 && mirror != 4*m-1-pos:
				t.Fatalf("n=%d: the mirror of position %d is %d, want %d", n, pos, mirror, 4*m-1-pos)
			case s == 0 && mirror != p2.Mirror(q):
				t.Fatalf("n=%d: the mirror of position %d is %d, not the radix-2 mirror", n, pos, mirror)
			}
		}
	}
	for logN := 1; logN <= 10; logN++ {
		p := NewPlan(1 << logN)
		for pos := 0; pos < p.Len(); pos++ {
			if f := p.Frequency(pos); f != int(p.revTable()[pos]) || p.Position(f) != pos {
				t.Fatalf("n=%d: Frequency(%d) = %d, bit reversal %d", p.Len(), pos, f, p.revTable()[pos])
			}
			// positions 0 and 1 (k = 0, n/2) are their own mirrors; p in
			// [h, 2h) pairs with 3h-1-p
			want := pos
			if pos >= 2 {
				h := 1 << (bits.Len(uint(pos)) - 1)
				want = 3*h - 1 - pos
			}
			if got := p.Mirror(pos); got != want {
				t.Fatalf("n=%d: Mirror(%d) = %d, want %d", p.Len(), pos, got, want)
			}
		}
	}
}

// TestRadix3NaturalOrder checks that Forward and Inverse of the plans of
// length 3*2^k are bitwise the bit-reversed transforms with the spectrum
// permuted to natural order (Frequency), and that BitReverse turns the
// spectrum order into X_(3q+s) at s m + q.
func TestRadix3NaturalOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 53))
	for _, n := range []int{6, 24, 3 << 10, 3 << 13} {
		p := NewPlan(n)
		m := n / 3
		re, im := randomComplex(rng, n)
		fr, fi := append([]float64(nil), re...), append([]float64(nil), im...)
		p.Forward(fr, fi)
		br, bi := append([]float64(nil), re...), append([]float64(nil), im...)
		p.ForwardBitReversed(br, bi)
		for pos := range br {
			f := p.Frequency(pos)
			if math.Float64bits(fr[f]) != math.Float64bits(br[pos]) || math.Float64bits(fi[f]) != math.Float64bits(bi[pos]) {
				t.Fatalf("n=%d: Forward X_%d differs from ForwardBitReversed at %d", n, f, pos)
			}
		}
		p.BitReverse(br, bi)
		for pos := range br {
			if f := 3*(pos%m) + pos/m; br[pos] != fr[f] || bi[pos] != fi[f] {
				t.Fatalf("n=%d: after BitReverse position %d does not hold X_%d", n, pos, f)
			}
		}
		ir, ii := append([]float64(nil), re...), append([]float64(nil), im...)
		p.Inverse(ir, ii)
		sr, si := make([]float64, n), make([]float64, n)
		for k := range re {
			sr[p.Position(k)], si[p.Position(k)] = re[k], im[k]
		}
		p.InverseBitReversed(sr, si)
		for i := range sr {
			if math.Float64bits(ir[i]) != math.Float64bits(sr[i]) || math.Float64bits(ii[i]) != math.Float64bits(si[i]) {
				t.Fatalf("n=%d: Inverse differs from InverseBitReversed at %d", n, i)
			}
		}
	}
}

// TestRadix3RoundTrip checks InverseBitReversed(ForwardBitReversed(x)) =
// n x within the bound the two transforms' kappas give: ||z^ - n x||_2 <=
// (2 kappa + kappa^2) n ||x||_2 (the forward error kappa sqrt n ||x||,
// carried by the exact inverse, of norm sqrt n, and the inverse's own
// error kappa sqrt n ||y^|| with ||y^|| <= (1 + kappa) sqrt n ||x||),
// plus u n ||x||_2 for the test's own rounded n x (n = 3*2^k).
func TestRadix3RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 67))
	for _, n := range []int{6, 12, 48, 3 << 10, 3 << 12, 3 << 15} {
		p := NewPlan(n)
		for _, in := range errorInputs {
			re, im := in.gen(rng, n)
			zr, zi := append([]float64(nil), re...), append([]float64(nil), im...)
			p.ForwardBitReversed(zr, zi)
			p.InverseBitReversed(zr, zi)
			var e2, x2 float64
			nf := float64(n)
			for i := range re {
				// n x_i is off by at most u n |x_i| (3 x_i rounds)
				dr, di := zr[i]-float64(nf*re[i]), zi[i]-float64(nf*im[i])
				e2 += dr*dr + di*di
				x2 += re[i]*re[i] + im[i]*im[i]
			}
			k := p.Kappa()
			// the differences and the sums of squares carry relative
			// errors below u and n u
			lim := (2*k + k*k + unitRoundoff) * nf * math.Sqrt(x2) * (1 + 2*nf*unitRoundoff)
			if e := math.Sqrt(e2); !(e <= lim) {
				t.Errorf("n=%d %s: round trip off by %.3g, bound %.3g", n, in.name, e, lim)
			}
		}
	}
}

// TestRadix3ConvolutionMatchesDirect checks the circular convolution of
// two complex integer sequences through ForwardBitReversed, the pointwise
// product in the spectrum order and InverseBitReversed against the exact
// integer convolution (times n, so no division rounds): with X^ = X + E,
// ||E||_2 <= kappa ||X||_2 = kappa sqrt n ||x||_2, so |X_k| and |X^_k|
// are at most X_inf = max |X^_k| + kappa sqrt n ||x||_2 (the same for Y),
// and the product's rounding sqrt2 gamma_2 |X^||Y^|,
//
//	D = ||P^ - X Y||_2 <= kappa sqrt n (Y_inf ||x||_2 + X_inf ||y||_2)
//	    + sqrt2 gamma_2 X_inf (1 + kappa) sqrt n ||y||_2;
//
// the inverse gives ||z^ - n (x * y)||_2 <= sqrt n D + kappa sqrt n
// (||X Y||_2 + D), ||X Y||_2 <= X_inf sqrt n ||y||_2.
func TestRadix3ConvolutionMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 73))
	for _, n := range []int{6, 12, 96, 384, 3 << 10, 3 << 12} {
		p := NewPlan(n)
		xr, xi, yr, yi := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		for i := range xr {
			xr[i], xi[i] = rng.Int64N(1<<10)-1<<9, rng.Int64N(1<<10)-1<<9
			yr[i], yi[i] = rng.Int64N(1<<10)-1<<9, rng.Int64N(1<<10)-1<<9
		}
		// exact circular convolution: |terms| < 2^20, n < 2^14, so n times
		// each entry is below 2^49 and exact in float64
		cr, ci := make([]int64, n), make([]int64, n)
		for i := range xr {
			for j := range yr {
				k := (i + j) % n
				cr[k] += xr[i]*yr[j] - xi[i]*yi[j]
				ci[k] += xr[i]*yi[j] + xi[i]*yr[j]
			}
		}
		kap, sq := p.Kappa(), math.Sqrt(float64(n))
		// fx returns the transform of a + i b, ||a + i b||_2 and the spectrum's
		// bound X_inf (rounded up for the test's own float64 sums)
		fx := func(a, b []int64) (re, im []float64, l2, inf float64) {
			re, im = make([]float64, n), make([]float64, n)
			for i := range a {
				re[i], im[i] = float64(a[i]), float64(b[i])
				l2 += re[i]*re[i] + im[i]*im[i]
			}
			l2 = math.Sqrt(l2) * (1 + nfU(n))
			p.ForwardBitReversed(re, im)
			for i := range re {
				inf = math.Max(inf, math.Hypot(re[i], im[i]))
			}
			return re, im, l2, (inf + kap*sq*l2) * (1 + 4*unitRoundoff)
		}
		ar, ai, x2, xInf := fx(xr, xi)
		br, bi, y2, yInf := fx(yr, yi)
		for k := range ar {
			ar[k], ai[k] = float64(ar[k]*br[k])-float64(ai[k]*bi[k]), float64(ar[k]*bi[k])+float64(ai[k]*br[k])
		}
		p.InverseBitReversed(ar, ai)
		g2 := 2 * unitRoundoff / (1 - 2*unitRoundoff)
		d := kap*sq*(yInf*x2+xInf*y2) + math.Sqrt2*g2*xInf*(1+kap)*sq*y2
		lim := (sq*d + kap*sq*(xInf*sq*y2+d)) * (1 + 4*nfU(n))
		var e2 float64
		for k := range ar {
			dr := ar[k] - float64(n)*float64(cr[k])
			di := ai[k] - float64(n)*float64(ci[k])
			e2 += dr*dr + di*di
		}
		if e := math.Sqrt(e2); !(e <= lim) {
			t.Errorf("n=%d: convolution off by %.3g, bound %.3g", n, e, lim)
		} else {
			t.Logf("n=%d: convolution off by %.3g = %.3f of the bound", n, e, e/lim)
		}
	}
}

// nfU returns n u, the relative error allowance of the tests' own float64
// sums of n terms.
func nfU(n int) float64 { return float64(n) * unitRoundoff }

// TestRadix3ParallelMatchesSerialBitwise checks that the plans of length
// 3*2^k from parallelMin give bitwise the same transforms on several
// goroutines as on one, for worker counts that do and do not divide the
// number of blocks, in both directions.
func TestRadix3ParallelMatchesSerialBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 83))
	for _, k := range []int{14, 15, 16} {
		n := 3 << k
		one := NewPlan(n)
		one.workers, one.r3.sub.workers = 1, 1
		for _, w := range []int{2, 3, 8} {
			many := NewPlan(n)
			many.workers, many.r3.sub.workers = w, w
			re, im := randomComplex(rng, n)
			r2, i2 := append([]float64(nil), re...), append([]float64(nil), im...)
			one.ForwardBitReversed(re, im)
			many.ForwardBitReversed(r2, i2)
			same := func(what string) {
				for i := range re {
					if math.Float64bits(re[i]) != math.Float64bits(r2[i]) || math.Float64bits(im[i]) != math.Float64bits(i2[i]) {
						t.Fatalf("n=%d workers=%d: %s differs at %d", n, w, what, i)
					}
				}
			}
			same("ForwardBitReversed")
			one.InverseBitReversed(re, im)
			many.InverseBitReversed(r2, i2)
			same("InverseBitReversed")
		}
	}
}

// TestSharedPlan3 checks that Shared keeps one plan per length 3*2^k up
// to 2^sharedMaxLog points (new ones above), bitwise the transforms of a
// new plan.
func TestSharedPlan3(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 97))
	for _, n := range []int{6, 3 << 10, 3 << 15, 3 << (sharedMaxLog - 2)} {
		p := Shared(n)
		if p != Shared(n) || p.Len() != n || p.Kappa() != NewPlan(n).Kappa() {
			t.Fatalf("n=%d: Shared returned different plans, or length %d", n, p.Len())
		}
		q := NewPlan(n)
		re, im := randomComplex(rng, n)
		re2, im2 := append([]float64(nil), re...), append([]float64(nil), im...)
		p.ForwardBitReversed(re, im)
		p.InverseBitReversed(re, im)
		q.ForwardBitReversed(re2, im2)
		q.InverseBitReversed(re2, im2)
		for i := range re {
			if math.Float64bits(re[i]) != math.Float64bits(re2[i]) || math.Float64bits(im[i]) != math.Float64bits(im2[i]) {
				t.Fatalf("n=%d: the shared plan's transform differs at %d", n, i)
			}
		}
	}
	n := 3 << (sharedMaxLog - 1)
	if p1, p2 := Shared(n), Shared(n); p1 == p2 || p1.Len() != n {
		t.Errorf("n=%d: Shared kept a plan above its cap", n)
	}
}

// BenchmarkConvolutionTransforms times what a convolution does per
// operand, ForwardBitReversed and then InverseBitReversed, at the lengths
// 3*2^13..3*2^15 beside 2^14..2^17 (the sub-benchmark names are the
// lengths), and reports the process CPU time per iteration (cpu-us, user
// + system: the goroutines of the parallel stages included, and
// comparable under load). Each iteration starts from the same input (a
// copy, part of the time), so that no value grows to overflow.
func BenchmarkConvolutionTransforms(b *testing.B) {
	for _, n := range []int{1 << 14, 3 << 13, 1 << 15, 3 << 14, 1 << 16, 3 << 15, 1 << 17} {
		p := NewPlan(n)
		re0, im0 := make([]float64, n), make([]float64, n)
		for i := range re0 {
			re0[i] = float64(i%7) / 7
		}
		re, im := make([]float64, n), make([]float64, n)
		b.Run(lengthName(n), func(b *testing.B) {
			c0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				copy(re, re0)
				copy(im, im0)
				p.ForwardBitReversed(re, im)
				p.InverseBitReversed(re, im)
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N)*1e6, "cpu-us")
		})
	}
}

// cpuSeconds returns the process's user + system CPU time in seconds.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// lengthName returns "2^k" or "3*2^k" for n.
func lengthName(n int) string {
	if k, ok := threeTimesPow2(n); ok {
		return "3*2^" + itoa(k)
	}
	return "2^" + itoa(bits.TrailingZeros(uint(n)))
}

func itoa(k int) string {
	if k < 10 {
		return string(rune('0' + k))
	}
	return itoa(k/10) + string(rune('0'+k%10))
}

// TestRadix3ThirdsMatchRadix2Bitwise checks the plans of length 3*2^k
// against their definition, bitwise: ForwardBitReversed is the radix-3
// stage (radix3DIFGo over all m butterflies) followed by the radix-2
// plan of length m on each third alone, InverseBitReversed the radix-2
// inverse on each third followed by radix3DITGo; for thirds longer than
// the blocks (m > blockLen) and lengths that run in parallel.
func TestRadix3ThirdsMatchRadix2Bitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(111, 113))
	for _, k := range []int{1, 2, 3, 5, 12, 13, 14, 16} {
		m := 1 << k
		n := 3 * m
		p, q := NewPlan(n), NewPlan(m)
		r := p.r3
		re, im := randomComplex(rng, n)
		wr, wi := append([]float64(nil), re...), append([]float64(nil), im...)
		p.ForwardBitReversed(re, im)
		radix3DIFGo(wr[:m], wi[:m], wr[m:2*m], wi[m:2*m], wr[2*m:], wi[2*m:], r.w1Re, r.w1Im, r.w2Re, r.w2Im, false)
		for s := 0; s < 3; s++ {
			q.ForwardBitReversed(wr[s*m:(s+1)*m], wi[s*m:(s+1)*m])
		}
		same := func(what string) {
			for i := range re {
				if math.Float64bits(re[i]) != math.Float64bits(wr[i]) || math.Float64bits(im[i]) != math.Float64bits(wi[i]) {
					t.Fatalf("n=%d: %s differs from its definition at %d", n, what, i)
				}
			}
		}
		same("ForwardBitReversed")
		p.InverseBitReversed(re, im)
		for s := 0; s < 3; s++ {
			q.InverseBitReversed(wr[s*m:(s+1)*m], wi[s*m:(s+1)*m])
		}
		radix3DITGo(wr[:m], wi[:m], wr[m:2*m], wi[m:2*m], wr[2*m:], wi[2*m:], r.w1Re, r.w1ImC, r.w2Re, r.w2ImC, true)
		same("InverseBitReversed")
	}
}
