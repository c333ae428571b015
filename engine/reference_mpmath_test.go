package engine

import (
	"fmt"
	"math"
	"testing"
)

// TestReferencesAgainstMpmath checks the log-space references of the
// soundness tests against 60-digit values from mpmath
// (testdata/mpmath_refs.py, whose output is testdata/mpmath_refs.txt):
// Gauss to eps = 5e7 and delta = e^-1255, randomized response with p up to
// 1 - 1e-12, M_{eps,delta} with eps0 = 800, Laplace r = 1 (closed form)
// and r = 2 (mpmath quadrature of the loss distribution).
func TestReferencesAgainstMpmath(t *testing.T) {
	n := 0
	worst := 0.0
	for _, r := range readRefFile(t, "testdata/mpmath_refs.txt") {
		v := append(r.in, r.want)
		line := fmt.Sprint(r.kind, " ", r.in)
		want := v[len(v)-1]
		eps := v[len(v)-2]
		var got, unc float64
		switch r.kind {
		case "gauss":
			got, unc = refGauss(v[0], eps)
		case "rr":
			got, unc = refRR(v[0], int(v[1]), eps)
		case "epsdelta":
			got, unc = refEpsDelta(v[0], v[1], int(v[2]), eps)
		case "laplace1":
			got, unc = refLaplace(v[0], 1, eps)
		case "laplace2":
			got, unc = refLaplace(v[0], 2, eps)
		default:
			t.Fatalf("unknown kind %q", r.kind)
		}
		tol := unc + 1e-13*(1+math.Abs(want))
		if math.IsInf(want, -1) != math.IsInf(got, -1) || !math.IsInf(want, -1) && math.Abs(got-want) > tol {
			t.Errorf("%s: ln delta = %.17g, mpmath %.17g (diff %.3g)", line, got, want, got-want)
		}
		if !math.IsInf(want, -1) {
			worst = math.Max(worst, math.Abs(got-want)/(1+math.Abs(want)))
			if unc > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s: uncertainty %.3g is too large for a reference", line, unc)
			}
		}
		n++
	}
	t.Logf("%d values, largest |ln difference|/(1+|ln delta|): %.2g", n, worst)
	if n < 30 {
		t.Fatalf("only %d reference values", n)
	}
}
