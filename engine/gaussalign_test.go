package engine

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestGaussClosedAlignedExact composes random untruncated Gauss
// compositions in closed form (mu up to 8) with Options.AlignEps at a
// random eps (delta 1e-12 to 0.1 on the Gaussian curve) and random bucket
// counts: the
// delta(eps) bracket holds the 256-bit closed form, and, where the spacing
// was aligned (eps at least 4 spacings), it is exact up to rounding
// (relative width at most 1e-9; without the alignment 1e-7 to 1e-3).
func TestGaussClosedAlignedExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 17))
	aligned := 0
	var widest float64
	for i := 0; i < 80; i++ {
		sigma := math.Exp(rng.Float64()*5 - 1)
		r := 1 + rng.IntN(1<<rng.IntN(17))
		m, err := Gauss(sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		mu := math.Sqrt(float64(r)) / sigma
		if mu > 8 {
			// eps(1e-12) beyond about 40: the loss range the leaf covers
			// is capped (maxRange) and its corners set the bracket
			continue
		}
		d := math.Pow(10, -1-11*rng.Float64())
		eps := gdpEps(mu, math.Log(d))
		if !(eps > 0) {
			continue
		}
		n := (1000 + rng.IntN(19000)) / 4 * 4
		res, err := Compose(context.Background(), m, r, Options{Buckets: n, AlignEps: eps})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Delta(eps)
		exact := bigGaussDelta(bigMu(sigma, 1, r), eps)
		if bigF(got.Lower).Cmp(exact) > 0 || bigF(got.Upper).Cmp(exact) < 0 {
			t.Errorf("sigma %v r %d eps %v (%d buckets): [%.17g, %.17g] does not hold %s", sigma, r, eps, n, got.Lower, got.Upper, bigStr(exact))
		}
		// the spacing the leaf took before aligning
		o, err := Options{Buckets: n}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		p := &plan{opt: o.withTailBudget([]Part{{Mechanism: &gaussMech{sigma: 1, sens: mu}, Count: 1}}), n: n / 2, total: 1}
		if err := p.chooseFactor([]Part{{Mechanism: &gaussMech{sigma: 1, sens: mu}, Count: 1}}, 1); err != nil {
			t.Fatal(err)
		}
		if _, ok := alignedSpacing(eps, p.lambda); !ok {
			continue
		}
		aligned++
		w := (got.Upper - got.Lower) / got.Upper
		widest = math.Max(widest, w)
		if !(w <= 1e-9) {
			t.Errorf("sigma %v r %d eps %v delta %.3g (%d buckets): relative width %.3g with the spacing aligned", sigma, r, eps, d, n, w)
		}
	}
	t.Logf("%d cases aligned, widest relative bracket %.3g", aligned, widest)
	if aligned < 20 {
		t.Errorf("only %d cases aligned: the test does not exercise the alignment", aligned)
	}
}

// TestAlignedSpacing checks that eps lies on point k of the aligned
// spacing (k lambda' >= eps, by less than k ulps of lambda'), which is at
// least lambda and
// at most alignMaxCoarsen times it, and that eps below 4 spacings is left.
func TestAlignedSpacing(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	for i := 0; i < 1000; i++ {
		lambda := math.Exp(rng.Float64()*20 - 15)
		eps := lambda * math.Exp(rng.Float64()*12)
		l, ok := alignedSpacing(eps, lambda)
		k := math.Floor(eps / lambda)
		if !ok {
			if k >= 4 {
				t.Errorf("eps %v, lambda %v: not aligned at %v spacings", eps, lambda, k)
			}
			continue
		}
		if l < lambda || l > alignMaxCoarsen*lambda {
			t.Errorf("eps %v, lambda %v: spacing %v", eps, lambda, l)
		}
		// point kk at or just above eps: by less than kk ulps of the spacing
		kk := math.Round(eps / l)
		prod := new(big.Float).SetPrec(200).Mul(big.NewFloat(kk), big.NewFloat(l))
		over := new(big.Float).SetPrec(200).Sub(prod, big.NewFloat(eps))
		step := new(big.Float).SetPrec(200).Mul(big.NewFloat(kk), big.NewFloat(math.Nextafter(l, math.Inf(1))-l))
		if over.Sign() < 0 || over.Cmp(step) > 0 {
			t.Errorf("eps %v: %v x %v = %s", eps, kk, l, prod.Text('g', 20))
		}
	}
	if _, ok := alignedSpacing(3.9, 1); ok {
		t.Error("eps 3.9 spacings: aligned")
	}
}
