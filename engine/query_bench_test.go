package engine

import (
	"context"
	"testing"
)

// queryBenchRows are the composed results of BenchmarkEpsQuery: the DP-SGD
// rows of peersRows on the power path (at PB_BUCKETS, default 131,072) and
// on the default chain (100,000 buckets).
var queryBenchRows = []struct {
	name    string
	row     string
	buckets int
	power   powerMode
}{
	{"sgd1/power", "sgd1", 131072, powerOn},
	{"sgd1k/power", "sgd1k", 131072, powerOn},
	{"sgd1/chain", "sgd1", 100000, powerOff},
}

// BenchmarkEpsQuery measures Result.Eps at the row's delta on a result
// composed once (its delta tables built by a first query, as in a
// session that asks several questions of one result); evals/op is the
// number of evaluations of delta per query.
func BenchmarkEpsQuery(b *testing.B) {
	for _, q := range queryBenchRows {
		b.Run(q.name, func(b *testing.B) {
			var row peersRow
			for _, r := range peersRows {
				if r.name == q.row {
					row = r
				}
			}
			m, err := row.mech()
			if err != nil {
				b.Fatal(err)
			}
			res, err := Compose(context.Background(), m, row.r, Options{Buckets: q.buckets, power: q.power})
			if err != nil {
				b.Fatal(err)
			}
			res.Eps(row.delta)
			b.ResetTimer()
			c0 := cpuSeconds()
			var e EpsBound
			for i := 0; i < b.N; i++ {
				e = res.Eps(row.delta)
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s")
			var memo deltaMemo
			res.epsUpperMemo(row.delta, &memo)
			res.epsLowerMemo(row.delta, &memo)
			b.ReportMetric(float64(len(memo.eps)), "evals")
			b.ReportMetric(e.Upper, "eps_up")
			b.ReportMetric(e.Lower, "eps_low")
		})
	}
}
