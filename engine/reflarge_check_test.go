package engine

import (
	"fmt"
	"math"
	"testing"
)

// TestLargeRBoundsExact checks the large-r bounds of reflarge_test.go:
// the Renyi integrals against closed forms (Gauss, the remove pair's
// binomial expansion at integer orders, Laplace), the linear-statistic
// lower bound against the exact Gauss delta at q = 1 (where the statistic
// is sufficient), and both bounds against the small-r grid bracket for r
// = 2..16 on both sides (linLower <= the bracket's upper end, rdpUpper >=
// its lower end), the subsampled Laplace pairs' Renyi bound too.
func TestLargeRBoundsExact(t *testing.T) {
	t.Parallel()
	// Renyi integrals
	type rc struct {
		name string
		rp   rpPair
		want func(al float64) float64 // ln E_alpha
		ints bool                     // integer orders only
	}
	var rcs []rc
	for _, a := range []float64{0.05, 0.5, 1, 3} {
		rcs = append(rcs, rc{fmt.Sprintf("gauss a=%v", a), rpPair{rpRemove(1, a)},
			func(al float64) float64 { return al * (al - 1) * a * a / 2 }, false})
		for _, q := range []float64{1e-4, 0.01, 0.3} {
			rcs = append(rcs, rc{fmt.Sprintf("remove q=%v a=%v", q, a), rpPair{rpRemove(q, a)},
				func(al float64) float64 {
					n := int(al)
					s := newLogSumUnc()
					for k := 0; k <= n; k++ {
						s.add(lchooseRef(n, k)+float64(n-k)*math.Log1p(-q)+float64(k)*math.Log(q)+a*a*float64(k*(k-1))/2, 0)
					}
					return s.s
				}, true})
		}
		lapE := func(al float64) float64 {
			return logAddExp(math.Log(al/(2*al-1))+(al-1)*a, math.Log((al-1)/(2*al-1))-al*a)
		}
		rcs = append(rcs, rc{fmt.Sprintf("laplace mu=%v", a), rpLaplaceTrunc(a, math.Inf(1)), lapE, false})
		rcs = append(rcs, rc{fmt.Sprintf("lapremove q=1 mu=%v", a), rpLapRemove(1, a), lapE, false})
	}
	worst := 0.0
	for _, c := range rcs {
		for _, al := range rdpAlphas {
			if c.ints && al != math.Trunc(al) || al > 200 || al*al*0.5 > 600 && c.name[:5] == "gauss" {
				continue
			}
			want := c.want(al)
			if math.IsInf(want, 0) || want > 700 {
				continue
			}
			got := lnRenyiIntegral(c.rp, al)
			d := math.Abs(got-want) / math.Max(1, math.Abs(want))
			worst = math.Max(worst, d)
			if d > 1e-12 {
				t.Errorf("%s alpha=%v: ln E = %.17g, want %.17g", c.name, al, got, want)
			}
		}
	}
	t.Logf("Renyi integrals: largest relative error %.2g", worst)
	// the linear statistic at q = 1 is the Gauss pair's exact delta
	for _, a := range []float64{0.01, 0.3, 2} {
		for _, r := range []int{1, 7, 1000, 1 << 20} {
			ls := largeShape{shapeRemove, 1, a}
			mu := a * math.Sqrt(float64(r))
			lb := newLargeBracket(ls, rpPair{rpRemove(1, a)})
			for _, eps := range []float64{0, 0.5, 3, 30} {
				ex, _ := refGauss(mu, eps)
				got := ls.linLower(r, eps)
				if ex < -700 {
					continue
				}
				if got > ex+1e-9*(1+math.Abs(ex)) || got < ex-1e-6*(1+math.Abs(ex)) {
					t.Errorf("gauss a=%v r=%d eps=%v: linear bound %.12g, exact %.12g", a, r, eps, math.Exp(got), math.Exp(ex))
				}
				// and the Renyi bound is above it
				if _, hi := lb.bracket(r, eps); hi < ex-1e-9*(1+math.Abs(ex)) {
					t.Errorf("gauss a=%v r=%d eps=%v: Renyi bound %.12g below exact %.12g", a, r, eps, math.Exp(hi), math.Exp(ex))
				}
			}
		}
	}
	// against the grid bracket, every shape
	n := 0
	for _, sh := range []shape{shapeRemove, shapeAntipodal, shapeSymmetric} {
		for _, q := range []float64{0.005, 0.1, 0.6} {
			for _, a := range []float64{0.3, 1.5} {
				var rp rpPair
				switch sh {
				case shapeRemove:
					rp = rpPair{rpRemove(q, a)}
				case shapeAntipodal:
					rp = rpPair{rpAntipodal(q, a)}
				default:
					rp = rpSymmetrise(rpPair{rpRemove(q, a)}, q, a, false)
				}
				lb := newLargeBracket(largeShape{sh, q, a}, rp)
				for _, r := range []int{2, 5, 16} {
					mb := newMultiBracket(rp, r, 500, sh != shapeRemove)
					for _, eps := range []float64{0, 0.2, 1, 3, 8} {
						glo, ghi := mb.bracket(eps)
						llo, lhi := lb.bracket(r, eps)
						n++
						if llo > ghi+1e-9*(1+math.Abs(ghi)) {
							t.Errorf("%v q=%v a=%v r=%d eps=%v: linear lower bound %.10g above the grid bracket's upper end %.10g", sh, q, a, r, eps, math.Exp(llo), math.Exp(ghi))
						}
						if lhi < glo-1e-9*(1+math.Abs(glo)) {
							t.Errorf("%v q=%v a=%v r=%d eps=%v: Renyi upper bound %.10g below the grid bracket's lower end %.10g", sh, q, a, r, eps, math.Exp(lhi), math.Exp(glo))
						}
					}
				}
			}
		}
	}
	// the subsampled Laplace pairs: the Renyi bound above the grid
	// bracket's lower end
	for _, s := range []Sampling{Poisson, FixedSize} {
		for _, rel := range []Relation{AddRemove, ReplaceOne} {
			for _, q := range []float64{0.01, 0.3} {
				m := 0.8
				rp := rpLaplacePair(s, rel, q, m)
				lb := newLargeBracket(largeShape{shapeLaplace, q, m}, rp)
				for _, r := range []int{2, 5, 16} {
					mb := newMultiBracket(rp, r, 500, false)
					for _, eps := range []float64{0, 0.2, 1, 3} {
						glo, _ := mb.bracket(eps)
						llo, lhi := lb.bracket(r, eps)
						n++
						if !math.IsInf(llo, -1) {
							t.Errorf("laplace %v %v: a lower bound %v where none is claimed", s, rel, llo)
						}
						if lhi < glo-1e-9*(1+math.Abs(glo)) {
							t.Errorf("laplace %v %v q=%v r=%d eps=%v: Renyi upper bound %.10g below the grid bracket's lower end %.10g", s, rel, q, r, eps, math.Exp(lhi), math.Exp(glo))
						}
					}
				}
			}
		}
	}
	t.Logf("%d comparisons with the grid bracket", n)
}
