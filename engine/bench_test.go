package engine

import (
	"context"
	"math"
	"testing"
)

// BenchmarkGauss65536 is the speed goal: Gauss, r = 2^16, 100,000 buckets,
// both directions, error correction (goal: under 0.5 s).
func BenchmarkGauss65536(b *testing.B) {
	benchGauss(b, 1<<16, 100000, 0)
}

// BenchmarkGauss65536OneTilt is the same with a single tilt (absolute FFT
// error floor, about three times fewer FFTs).
func BenchmarkGauss65536OneTilt(b *testing.B) {
	benchGauss(b, 1<<16, 100000, 1)
}

// BenchmarkGauss262144Million is the large goal: r = 2^18 with 1,000,000
// buckets (goal: under 15 s).
func BenchmarkGauss262144Million(b *testing.B) {
	benchGauss(b, 1<<18, 1000000, 0)
}

// BenchmarkGauss512 is the tightness case of Figure 13 (reports the relative
// gaps to the closed form at e^eps = 1.001, 1.01 and 1.3 and the ratio at
// 2), with the default 100,000 buckets and with more.
func BenchmarkGauss512(b *testing.B) {
	for _, buckets := range []int{100000, 200000, 400000} {
		b.Run(itoa(buckets), func(b *testing.B) {
			m, _ := Gauss(200*math.Sqrt2, 1, 0)
			var res *Result
			for i := 0; i < b.N; i++ {
				var err error
				res, err = Compose(context.Background(), m, 512, Options{Buckets: buckets})
				if err != nil {
					b.Fatal(err)
				}
			}
			mu := math.Sqrt(512) / (200 * math.Sqrt2)
			for _, ee := range []float64{1.001, 1.01, 1.3} {
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

// BenchmarkSGD65536 is the DP-SGD goal: sigma = 4, q = 0.01, r = 2^16,
// delta = 1e-5 (goal: eps_up - eps_low <= 0.02 around 2.681).
func BenchmarkSGD65536(b *testing.B) {
	for _, buckets := range []int{100000, 300000, 500000, 1000000} {
		b.Run(itoa(buckets), func(b *testing.B) {
			m, _ := SGD(4, 0.01)
			var res *Result
			for i := 0; i < b.N; i++ {
				var err error
				res, err = Compose(context.Background(), m, 1<<16, Options{Buckets: buckets})
				if err != nil {
					b.Fatal(err)
				}
			}
			up, lo := res.EpsUpper(1e-5), res.EpsLower(1e-5)
			b.ReportMetric(up, "eps_up")
			b.ReportMetric(lo, "eps_low")
			b.ReportMetric(up-lo, "gap")
		})
	}
}

// BenchmarkSubsampled composes the four subsampled Gaussian pairs (DP-SGD
// with noise multiplier 1.1, rate 0.01, r = 1000, 100,000 buckets) and
// reports the eps bracket at delta = 1e-5.
func BenchmarkSubsampled(b *testing.B) {
	for _, s := range []Sampling{Poisson, FixedSize} {
		for _, r := range []Relation{AddRemove, ReplaceOne} {
			b.Run(s.String()+"/"+r.String(), func(b *testing.B) {
				m, _ := SubsampledGauss(1.1, 1, 0.01, s, r)
				var res *Result
				for i := 0; i < b.N; i++ {
					var err error
					res, err = Compose(context.Background(), m, 1000, Options{})
					if err != nil {
						b.Fatal(err)
					}
				}
				up, lo := res.EpsUpper(1e-5), res.EpsLower(1e-5)
				b.ReportMetric(up, "eps_up")
				b.ReportMetric(lo, "eps_low")
			})
		}
	}
}

func benchGauss(b *testing.B, r, buckets, tilts int) {
	m, _ := Gauss(200*math.Sqrt2, 1, 0)
	for i := 0; i < b.N; i++ {
		if _, err := Compose(context.Background(), m, r, Options{Buckets: buckets, Tilts: tilts}); err != nil {
			b.Fatal(err)
		}
	}
}

func ftoa(v float64) string {
	s := []byte{}
	w := int(v)
	f := int(math.Round((v - float64(w)) * 1000))
	s = append(s, itoa(w)...)
	s = append(s, '.')
	s = append(s, byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
	return string(s)
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var s []byte
	for v > 0 {
		s = append([]byte{byte('0' + v%10)}, s...)
		v /= 10
	}
	return string(s)
}

// BenchmarkEpsQueries measures EpsUpper and EpsLower at delta = 1e-5 on a
// composed DP-SGD state (100,000 buckets, r = 2^12), the queries of a
// sweep; "direct" evaluates delta without the precomputed table.
func BenchmarkEpsQueries(b *testing.B) {
	m, _ := SGD(4, 0.01)
	res, err := Compose(context.Background(), m, 1<<12, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("table", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			res.EpsUpper(1e-5)
			res.EpsLower(1e-5)
		}
	})
	b.Run("direct", func(b *testing.B) {
		up := func(e float64) bool { return res.l.deltaDirect(e, res.b, res.ec).Upper <= 1e-5 }
		lo := func(e float64) bool { return !(res.l.deltaDirect(e, res.b, res.ec).Lower > 1e-5) }
		for i := 0; i < b.N; i++ {
			bisect(up, 0, res.epsRange())
			bisect(lo, 0, res.epsRange())
		}
	})
}

// listsRows are the cases of BenchmarkLists (default settings): three
// DP-SGD eps queries, a very non-private Gauss eps query and the Gauss
// delta queries of Figure 13 at r = 512.
var listsRows = []struct {
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

// BenchmarkLists composes each row of listsRows at the default options
// (both lists), with the grid list alone and with the grouped list alone,
// and answers the row's queries (timed together: a whole computation). It
// reports the eps bracket and its relative width (eps rows) or the
// relative errors against the closed form (Gauss r = 512).
//
//	go test ./engine -run XXX -bench Lists -benchtime 1x -count 5
func BenchmarkLists(b *testing.B) {
	for _, row := range listsRows {
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
