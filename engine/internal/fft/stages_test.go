package fft

import (
	"math"
	"math/rand/v2"
	"testing"
)

// radix2Reference is the plain one-stage-at-a-time transform, kept to check
// that the fused stages give bitwise identical results (so the error bound
// of Higham's Theorem 24.2, derived for this algorithm, applies).
func (p *Plan) radix2Reference(re, im []float64, inverse bool) {
	n := p.n
	for i := 0; i < n; i++ {
		j := int(p.revTable()[i])
		if j > i {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	sign := 1.0
	if inverse {
		sign = -1.0
	}
	for i := 0; i+1 < n; i += 2 {
		ar, ai, br, bi := re[i], im[i], re[i+1], im[i+1]
		re[i], im[i] = ar+br, ai+bi
		re[i+1], im[i+1] = ar-br, ai-bi
	}
	if n >= 4 {
		for i := 0; i+3 < n; i += 4 {
			ar, ai := re[i], im[i]
			br, bi := re[i+2], im[i+2]
			re[i], im[i] = ar+br, ai+bi
			re[i+2], im[i+2] = ar-br, ai-bi
			cr, ci := re[i+1], im[i+1]
			dr, di := re[i+3], im[i+3]
			tr, ti := float64(sign*di), float64(-sign*dr)
			re[i+1], im[i+1] = cr+tr, ci+ti
			re[i+3], im[i+3] = cr-tr, ci-ti
		}
	}
	for size := 8; size <= n; size <<= 1 {
		half := size >> 1
		step := n / size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				wr := p.twRe[k*step]
				wi := sign * p.twIm[k*step]
				xr, xi := re[start+half+k], im[start+half+k]
				tr := float64(wr*xr) - float64(wi*xi)
				ti := float64(wr*xi) + float64(wi*xr)
				ar, ai := re[start+k], im[start+k]
				re[start+k], im[start+k] = ar+tr, ai+ti
				re[start+half+k], im[start+half+k] = ar-tr, ai-ti
			}
		}
	}
}

// difReference is the plain one-stage-at-a-time decimation-in-frequency
// transform (natural order in, bit-reversed order out), to check that the
// blocked and fused dif gives bitwise the same results.
func (p *Plan) difReference(re, im []float64, sign float64) {
	n := p.n
	for size := n; size >= 2; size >>= 1 {
		half := size >> 1
		step := n / size
		for start := 0; start < n; start += size {
			for k := 0; k < half; k++ {
				ar, ai := re[start+k], im[start+k]
				br, bi := re[start+half+k], im[start+half+k]
				re[start+k], im[start+k] = ar+br, ai+bi
				dr, di := ar-br, ai-bi
				switch {
				case k == 0:
					re[start+half+k], im[start+half+k] = dr, di
				case size == 4: // k == 1: w = -i (forward), +i (inverse)
					re[start+half+k], im[start+half+k] = sign*di, -sign*dr
				default:
					wr, wi := p.twRe[k*step], sign*p.twIm[k*step]
					re[start+half+k], im[start+half+k] = float64(wr*dr)-float64(wi*di), float64(wr*di)+float64(wi*dr)
				}
			}
		}
	}
}

func TestFusedStagesMatchRadix2Bitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for logN := 1; logN <= 14; logN++ {
		n := 1 << logN
		p := NewPlan(n)
		for _, inv := range []bool{false, true} {
			re, im := make([]float64, n), make([]float64, n)
			for i := range re {
				re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()*rng.Float64()
			}
			r2, i2 := append([]float64(nil), re...), append([]float64(nil), im...)
			p.transform(re, im, inv)
			p.radix2Reference(r2, i2, inv)
			for i := range re {
				if re[i] != r2[i] || im[i] != i2[i] {
					t.Fatalf("n=%d inverse=%v: entry %d differs: (%v,%v) vs (%v,%v)", n, inv, i, re[i], im[i], r2[i], i2[i])
				}
			}
		}
	}
}

func TestBlockedDIFMatchesReferenceBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for logN := 1; logN <= 15; logN++ {
		n := 1 << logN
		p := NewPlan(n)
		for _, sign := range []float64{1, -1} {
			re, im := randomComplex(rng, n)
			r2, i2 := append([]float64(nil), re...), append([]float64(nil), im...)
			p.dif(re, im, sign)
			p.difReference(r2, i2, sign)
			for i := range re {
				if re[i] != r2[i] || im[i] != i2[i] {
					t.Fatalf("n=%d sign=%v: entry %d differs: (%v,%v) vs (%v,%v)", n, sign, i, re[i], im[i], r2[i], i2[i])
				}
			}
		}
	}
}

// TestParallelBlocksMatchOneGoroutineBitwise checks that transforms whose blocks
// run on several goroutines (Plan.eachBlock, lengths from
// parallelMin) give bitwise the results of one goroutine, forward (dif)
// and inverse (dit), for worker counts that do and do not divide the
// number of blocks.
func TestParallelBlocksMatchOneGoroutineBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, logN := range []int{15, 16, 17} {
		n := 1 << logN
		one := NewPlan(n)
		one.workers = 1
		for _, w := range []int{2, 3, 8} {
			many := NewPlan(n)
			many.workers = w
			for _, sign := range []float64{1, -1} {
				re, im := randomComplex(rng, n)
				r2, i2 := append([]float64(nil), re...), append([]float64(nil), im...)
				one.dif(re, im, sign)
				many.dif(r2, i2, sign)
				one.dit(re, im, -sign)
				many.dit(r2, i2, -sign)
				for i := range re {
					if math.Float64bits(re[i]) != math.Float64bits(r2[i]) || math.Float64bits(im[i]) != math.Float64bits(i2[i]) {
						t.Fatalf("n=%d workers=%d sign=%v: entry %d differs", n, w, sign, i)
					}
				}
			}
		}
	}
}
