package engine

import (
	"math"
)

// exactGauss is the closed form delta(eps) of the r-fold Gauss pair with
// mu = sqrt(r)*sensitivity/sigma (tails computed with erfc).
func exactGauss(mu, eps float64) float64 {
	Phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	a := Phi(mu/2 - eps/mu)
	b := math.Exp(eps + math.Log(Phi(-mu/2-eps/mu)))
	return a - b
}

// exactRR is delta(eps) of r-fold randomized response with bias p, by the
// binomial sum in log space.
func exactRR(p float64, r int, eps float64) float64 {
	q := 1 - p
	lp, lq := math.Log(p), math.Log(q)
	s := 0.0
	for k := 0; k <= r; k++ {
		lc := lchoose(r, k)
		la := lc + float64(k)*lp + float64(r-k)*lq
		lb := lc + float64(k)*lq + float64(r-k)*lp
		if la > lb+eps {
			s += math.Exp(la) * -math.Expm1(lb+eps-la)
		}
	}
	return s
}

// exactRRRenyi is D_alpha of r-fold randomized response with bias p:
// r/(alpha-1) ln(p^a q^(1-a) + q^a p^(1-a)), q = 1-p.
func exactRRRenyi(p float64, r int, alpha float64) float64 {
	q := 1 - p
	return float64(r) / (alpha - 1) * math.Log(math.Pow(p, alpha)*math.Pow(q, 1-alpha)+math.Pow(q, alpha)*math.Pow(p, 1-alpha))
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// exactDelta returns max over both directions of sum max(0, P - e^eps Q)
// (Lemma 1) for explicit PMFs.
func exactDelta(a, b []float64, eps float64) float64 {
	var d1, d2 float64
	e := math.Exp(eps)
	for i := range a {
		d1 += math.Max(0, a[i]-e*b[i])
		d2 += math.Max(0, b[i]-e*a[i])
	}
	return math.Max(d1, d2)
}
