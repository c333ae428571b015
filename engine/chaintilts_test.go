package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// gaussEpsAt returns the eps at which the exact delta of the Gauss pair
// with mu = sqrt(r)/sigma (exactGaussLarge) equals target, by bisection.
func gaussEpsAt(mu, target float64) float64 {
	lo, hi := 0.0, 200.0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if exactGaussLarge(mu, mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// TestChainFarTailAsAlone checks that every result of a ComposeMany chain
// is as tight in its far tail as the same r composed alone: for the Gauss
// pair (closed form) at the eps where the exact delta is 1e-12, 1e-16 and
// 1e-19, both ends of the chain's bracket are sound and their distance
// from the exact value (ln of the ratio) is at most 1.5 times alone's plus
// ln 1.2. With the chain's tilts only (the largest r's and each level's
// own) r = 1,024 of a chain to 16,384 was 45 times below the exact value at
// 1e-19 (alone 1.2 times).
func TestChainFarTailAsAlone(t *testing.T) {
	t.Parallel()
	const sigma = 282.842712474619
	m, err := Gauss(sigma, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Buckets: 20000}
	rs := []int{4, 16, 64, 256, 1024, 4096, 8192, 16384}
	ctx := context.Background()
	many, err := ComposeMany(ctx, m, rs, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		alone, err := Compose(ctx, m, r, opt)
		if err != nil {
			t.Fatal(err)
		}
		mu := math.Sqrt(float64(r)) / sigma
		for _, target := range []float64{1e-12, 1e-16, 1e-18} {
			eps := gaussEpsAt(mu, target)
			exact := exactGaussLarge(mu, eps)
			c, a := many[i].Delta(eps), alone.Delta(eps)
			name := fmt.Sprintf("r = %d of a chain to %d, e^eps = %.4g (exact %.4g)", r, rs[len(rs)-1], math.Exp(eps), exact)
			t.Logf("%s: chain [%.5g, %.5g], alone [%.5g, %.5g]", name, c.Lower, c.Upper, a.Lower, a.Upper)
			if !(c.Lower <= exact*(1+1e-9) && c.Upper >= exact*(1-1e-9)) {
				t.Errorf("%s: chain [%v, %v] does not contain the exact value", name, c.Lower, c.Upper)
			}
			far := func(chain, alone float64) bool {
				return !(math.Abs(math.Log(chain/exact)) <= 1.5*math.Abs(math.Log(alone/exact))+math.Log(1.2))
			}
			if far(c.Lower, a.Lower) {
				t.Errorf("%s: chain's lower end %.4g is %.3g times below the exact value, alone's %.4g %.3g times", name, c.Lower, exact/c.Lower, a.Lower, exact/a.Lower)
			}
			if far(c.Upper, a.Upper) {
				t.Errorf("%s: chain's upper end %.4g is %.3g times the exact value, alone's %.4g %.3g times", name, c.Upper, c.Upper/exact, a.Upper, a.Upper/exact)
			}
		}
	}
}
