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

// BenchmarkEpsQuery measures Result.Eps at the row's delta: "first" on a
// freshly composed result (the query's CPU only, its delta tables and
// guide included, as in a one-liner), "again" on a result already queried
// (as in a session that asks several questions of one result). cpu-s is
// the query's CPU per op, evals the number of evaluations of delta per
// query.
func BenchmarkEpsQuery(b *testing.B) {
	for _, q := range queryBenchRows {
		var row peersRow
		for _, r := range peersRows {
			if r.name == q.row {
				row = r
			}
		}
		compose := func(b *testing.B) *Result {
			m, err := row.mech()
			if err != nil {
				b.Fatal(err)
			}
			res, err := Compose(context.Background(), m, row.r, Options{Buckets: q.buckets, power: q.power})
			if err != nil {
				b.Fatal(err)
			}
			return res
		}
		report := func(b *testing.B, res *Result, cpu float64, e EpsBound) {
			b.ReportMetric(cpu/float64(b.N), "cpu-s")
			var memo deltaMemo
			res.epsUpperMemo(row.delta, &memo)
			res.epsLowerMemo(row.delta, &memo)
			b.ReportMetric(float64(len(memo.eps)), "evals")
			b.ReportMetric(e.Upper, "eps_up")
			b.ReportMetric(e.Lower, "eps_low")
		}
		b.Run(q.name+"/first", func(b *testing.B) {
			var cpu float64
			var e EpsBound
			var res *Result
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				res = compose(b)
				b.StartTimer()
				c0 := cpuSeconds()
				e = res.Eps(row.delta)
				cpu += cpuSeconds() - c0
			}
			report(b, res, cpu, e)
		})
		b.Run(q.name+"/again", func(b *testing.B) {
			res := compose(b)
			res.Eps(row.delta)
			b.ResetTimer()
			c0 := cpuSeconds()
			var e EpsBound
			for i := 0; i < b.N; i++ {
				e = res.Eps(row.delta)
			}
			report(b, res, cpuSeconds()-c0, e)
		})
	}
}
