package engine

import (
	"context"
	"math"
	"testing"
)

// issue12Rows are the cases of issue 12 (default settings): three DP-SGD
// eps queries, a very non-private Gauss eps query and the Gauss delta
// queries of Figure 13 at r = 512.
var issue12Rows = []struct {
	name      string
	mech      func() Mechanism
	r         int
	delta     float64 // eps query when > 0
	truth     float64 // eps
	sigmaGaus float64 // delta queries (Gauss closed form) when > 0
}{
	{"sgd-1.1-0.01-r10000", func() Mechanism { m, _ := SGD(1.1, 0.01); return m }, 10000, 1e-5, 5.1926, 0},
	{"sgd-4-0.01-r65536", func() Mechanism { m, _ := SGD(4, 0.01); return m }, 65536, 1e-5, 2.6811, 0},
	{"sgd-1-0.001-r250000", func() Mechanism { m, _ := SGD(1, 0.001); return m }, 250000, 1e-6, 3.066, 0},
	{"gauss-2-r1000", func() Mechanism { m, _ := Gauss(2, 1, 0); return m }, 1000, 1e-6, 199.28457, 0},
	{"gauss-283-r512", func() Mechanism { m, _ := Gauss(200*math.Sqrt2, 1, 0); return m }, 512, 0, 0, 200 * math.Sqrt2},
}

// BenchmarkIssue12 composes each row of issue 12 at the default options
// (both lists), with the grid list alone and with the grouped list alone,
// and answers the row's queries (timed together: a whole computation). It
// reports the eps bracket and its relative width (eps rows) or the
// relative errors against the closed form (Gauss r = 512).
//
//	go test ./engine -run XXX -bench Issue12 -benchtime 1x -count 5
func BenchmarkIssue12(b *testing.B) {
	for _, row := range issue12Rows {
		for _, v := range []struct {
			name  string
			lists Lists
		}{{"default", ListsBoth}, {"grid", ListsGrid}, {"grouped", ListsGrouped}} {
			b.Run(row.name+"/"+v.name, func(b *testing.B) {
				var res *Result
				var up, lo float64
				for i := 0; i < b.N; i++ {
					var err error
					res, err = Compose(context.Background(), row.mech(), row.r, Options{Lists: v.lists})
					if err != nil {
						b.Fatal(err)
					}
					if row.delta > 0 {
						up, lo = res.EpsUpper(row.delta), res.EpsLower(row.delta)
					} else {
						for _, ee := range []float64{1.001, 1.01, 1.1, 1.3, 1.5, 2} {
							res.Delta(math.Log(ee))
						}
					}
				}
				if row.delta > 0 {
					b.ReportMetric(up, "eps_up")
					b.ReportMetric(lo, "eps_low")
					b.ReportMetric((up-lo)/row.truth, "gap/eps")
					return
				}
				mu := math.Sqrt(float64(row.r)) / row.sigmaGaus
				for _, ee := range []float64{1.001, 1.5} {
					ex := exactGauss(mu, math.Log(ee))
					d := res.Delta(math.Log(ee))
					b.ReportMetric(d.Upper/ex-1, "up-rel@"+ftoa(ee))
					b.ReportMetric(1-d.Lower/ex, "low-rel@"+ftoa(ee))
				}
				ex := exactGauss(mu, math.Log(2))
				b.ReportMetric(res.DeltaUpper(math.Log(2))/ex, "up/exact@2")
			})
		}
	}
}
