package engine

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestGaussClosedAlignedExact composes random untruncated Gauss
// compositions in closed form with Options.AlignEps at a random eps (delta
// 1e-12 to 0.1 on the Gaussian curve) and random bucket counts: the
// delta(eps) bracket holds the 256-bit closed form, and, where the spacing
// was aligned (eps at least 4 spacings) and mu is at most 8, it is exact up
// to rounding
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
		if _, ok := alignedSpacing(eps, p.lambda); !ok || mu > 8 {
			// mu above 8 (eps(1e-12) beyond about 40): the loss range the
			// leaf covers is capped (maxRange) and its corners set the
			// bracket, which must still hold the exact value
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

// TestGaussClosedAlignedEdges checks that Options.AlignEps keeps the closed
// form's delta(eps) bracket around the 256-bit value at the edges of its
// input space: few buckets, eps within 4 spacings of 0 (not aligned), eps
// far in the tail (losses past 709, delta below 1e-300), grid or grouped
// lists alone, no error correction, and an explicit factor (which it
// leaves as it is: the bracket equals the one without AlignEps).
func TestGaussClosedAlignedEdges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		sigma       float64
		r, buckets  int
		eps         float64
		opt         Options
		sameAsPlain bool
	}{
		{"8 buckets", 2, 16, 8, 0.7, Options{}, false},
		{"64 buckets", 2, 16, 64, 1.3, Options{}, false},
		{"eps within 4 spacings", 3, 100, 4096, 1e-4, Options{}, false},
		{"eps 800", 0.05, 1, 4096, 800, Options{}, false},
		{"eps 30 at mu 2", 5, 100, 20000, 30, Options{}, false},
		{"grid lists alone", 2, 16, 4096, 0.9, Options{Lists: ListsGrid}, false},
		{"grouped list alone", 2, 16, 4096, 0.9, Options{Lists: ListsGrouped}, false},
		{"no error correction", 2, 16, 4096, 0.9, Options{DisableErrorCorrection: true}, false},
		{"explicit factor", 2, 16, 4096, 0.9, Options{Factor: 1.001}, true},
	} {
		m, err := Gauss(c.sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		o := c.opt
		o.Buckets, o.AlignEps = c.buckets, c.eps
		res, err := Compose(context.Background(), m, c.r, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := res.Delta(c.eps)
		exact := bigGaussDelta(bigMu(c.sigma, 1, c.r), c.eps)
		if bigF(got.Upper).Cmp(exact) < 0 || (!math.IsNaN(got.Lower) && bigF(got.Lower).Cmp(exact) > 0) {
			t.Errorf("%s: [%.17g, %.17g] does not hold %s", c.name, got.Lower, got.Upper, bigStr(exact))
		}
		if c.sameAsPlain {
			o.AlignEps = 0
			plain, err := Compose(context.Background(), m, c.r, o)
			if err != nil {
				t.Fatal(err)
			}
			if p := plain.Delta(c.eps); p != got {
				t.Errorf("%s: %+v with AlignEps, %+v without", c.name, got, p)
			}
		}
	}
	for _, bad := range []float64{-1, math.Inf(1), math.NaN()} {
		m, _ := Gauss(2, 1, 0)
		if _, err := Compose(context.Background(), m, 16, Options{Buckets: 4096, AlignEps: bad}); err == nil {
			t.Errorf("AlignEps %v: no error", bad)
		}
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
