package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dd is a double-double number (hi + lo), for reference convolutions
// accurate to about 1e-32 relative.
type dd struct{ hi, lo float64 }

func (x dd) addProd(a, b float64) dd {
	p := a * b
	pe := math.FMA(a, b, -p)
	s, e := twoSum(x.hi, p)
	e += x.lo + pe
	hi, lo := twoSum(s, e)
	return dd{hi, lo}
}

func (x dd) add(a float64) dd {
	s, e := twoSum(x.hi, a)
	e += x.lo
	hi, lo := twoSum(s, e)
	return dd{hi, lo}
}

// randomL1List returns a list with exact values (no errors): a bulk of
// comparable entries and tails falling to 1e-250, so that the FFT's absolute
// rounding is visible against the tails.
func randomL1List(rng *rand.Rand, n int, lambda float64, tau []float64) *list {
	l := newList(n, lambda, tau)
	c := rng.IntN(2 * n)
	w := float64(n) * (0.02 + 0.3*rng.Float64())
	for o := 0; o < 2*n; o++ {
		d := (float64(o) - float64(c)) / w
		v := math.Exp(-d * d / 2)
		if v < 1e-250 {
			continue
		}
		l.a[o] = v * (0.5 + rng.Float64())
		l.c[o] = l.a[o] * math.Exp(-math.Max(-30, math.Min(30, l.loss(o)))) * rng.Float64()
	}
	var sa, sc float64
	for o := range l.a {
		sa += l.a[o]
		sc += l.c[o]
	}
	for o := range l.a {
		l.a[o] /= 2 * sa
		l.c[o] /= 2 * math.Max(sc, 1)
	}
	l.lo, l.hi = 0, 2*n-1
	l.trim()
	l.relA, l.relC, l.l1A, l.l1C = 0, 0, 0, 0
	l.variance = l.lossVariance()
	l.compositions = 1
	return l
}

// TestL1BoundCompose checks the total-error bound (list.l1A) of a
// composition against a double-double reference convolution of the inputs
// (exact inputs: their own bounds are 0), and of the squared result
// against the reference merged the same way.
func TestL1BoundCompose(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	worst := 0.0
	for trial := 0; trial < 24; trial++ {
		n := 1 << (7 + rng.IntN(4))
		lambda := math.Exp(-1 - 4*rng.Float64())
		x0 := randomL1List(rng, n, lambda, []float64{0})
		sd := math.Sqrt(2 * x0.variance)
		tau := chooseTilts(sd, 1+rng.IntN(5), float64(n+1)*lambda)
		x := randomL1List(rng, n, lambda, tau)
		y := x
		if trial%2 == 1 {
			y = randomL1List(rng, n, lambda, tau)
		}
		cp := newComposer(n)
		z := cp.compose(x, y, nil)
		// reference: regular outputs i = j + k in -n+1..n (offsets o)
		refA := make([]dd, 2*n)
		refC := make([]dd, 2*n)
		for j := 0; j < 2*n; j++ {
			for k := 0; k < 2*n; k++ {
				o := j + k - (n - 1)
				if o < 0 || o >= 2*n {
					continue
				}
				refA[o] = refA[o].addProd(x.a[j], y.a[k])
				refC[o] = refC[o].addProd(x.c[j], y.c[k])
			}
		}
		check := func(name string, l *list, ra, rc []dd) {
			var ea, ec float64
			for o := range ra {
				ea += math.Abs(ra[o].hi - l.a[o] + ra[o].lo)
				ec += math.Abs(rc[o].hi - l.c[o] + rc[o].lo)
			}
			if ea > l.l1A || ec > l.l1C {
				t.Fatalf("trial %d %s (n=%d, %d tilts): total errors %.3g, %.3g exceed the bounds %.3g, %.3g", trial, name, n, len(tau), ea, ec, l.l1A, l.l1C)
			}
			if l.l1A > 0 {
				worst = math.Max(worst, ea/l.l1A)
			}
		}
		check("compose", z, refA, refC)
		// squaring: new i collects old 2i-1 and 2i
		s := z.square()
		sqA := make([]dd, 2*n)
		sqC := make([]dd, 2*n)
		for i := -n/2 + 1; i <= n/2; i++ {
			o, o1, o2 := i+n-1, 2*i-1+n-1, 2*i+n-1
			sqA[o] = refA[o1].add(refA[o2].hi).add(refA[o2].lo)
			sqC[o] = refC[o1].add(refC[o2].hi).add(refC[o2].lo)
		}
		check("square", s, sqA, sqC)
	}
	t.Logf("largest total error / bound: %.3g", worst)
}
