package compare

import (
	"math"
	"strconv"
	"testing"
)

// relErr returns |got-want|/|want| (absolute error if want == 0).
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func checkRel(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || relErr(got, want) > tol {
		t.Errorf("%s = %.17g, want %.17g (rel err %.3g > %.3g)", name, got, want, relErr(got, want), tol)
	}
}

// simpson integrates f over [lo, hi] with n (even) intervals by Simpson's
// rule.
func simpson(f func(float64) float64, lo, hi float64, n int) float64 {
	h := (hi - lo) / float64(n)
	s := f(lo) + f(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(lo+float64(i)*h)
	}
	return s * h / 3
}

// logSimpson integrates exp(f) over [lo, hi] with n (even) intervals by
// Simpson's rule, in log space.
func logSimpson(f func(float64) float64, lo, hi float64, n int) float64 {
	h := (hi - lo) / float64(n)
	vals := make([]float64, n+1)
	for i := range vals {
		w := 2.0
		switch {
		case i == 0 || i == n:
			w = 1
		case i%2 == 1:
			w = 4
		}
		vals[i] = f(lo+float64(i)*h) + math.Log(w/3)
	}
	return math.Log(h) + logSumExp(vals)
}

// bruteDelta computes Lemma 1 (both directions) on finite distributions.
func bruteDelta(pa, pb []float64, eps float64) float64 {
	var dab, dba float64
	for i := range pa {
		dab += math.Max(0, pa[i]-math.Exp(eps)*pb[i])
		dba += math.Max(0, pb[i]-math.Exp(eps)*pa[i])
	}
	return math.Max(dab, dba)
}

// product returns the r-fold product distribution of a finite distribution.
func product(p []float64, r int) []float64 {
	out := []float64{1}
	for k := 0; k < r; k++ {
		next := make([]float64, 0, len(out)*len(p))
		for _, x := range out {
			for _, y := range p {
				next = append(next, x*y)
			}
		}
		out = next
	}
	return out
}

func formatG(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
