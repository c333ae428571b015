package engine

import (
	"math"
	"testing"
)

// BenchmarkPowerLeaf builds the grid leaf of the power path (as
// powerPrepare does: half-cell cuts, embedding and finishGrid) for the
// DP-SGD rows of BenchmarkPowerPeers at PB_BUCKETS points (default 65,536
// and 131,072), and reports the process CPU per leaf (cpu-s; the embedding
// runs on all cores).
//
//	go test -run '^$' -bench PowerLeaf -count 5 ./engine
func BenchmarkPowerLeaf(b *testing.B) {
	for _, row := range peersRows {
		if row.delta == 0 || row.name == "vuvuzela" {
			continue
		}
		for _, N := range envInts("PB_BUCKETS", []int{65536, 131072}) {
			b.Run(row.name+"/"+itoa(N), func(b *testing.B) {
				m, err := row.mech()
				if err != nil {
					b.Fatal(err)
				}
				o, err := Options{Buckets: N, power: powerOn}.withDefaults()
				if err != nil {
					b.Fatal(err)
				}
				o = o.withTailBudget([]Part{{Mechanism: m, Count: row.r}})
				p, err := newPowerPlan(m, row.r, o)
				if err != nil || p == nil {
					b.Fatalf("no power plan: %v", err)
				}
				R := p.powerRange(m, row.r)
				n := p.powerN / 2
				lambda := R / float64(n)
				nl := n
				if t := float64(p.n) * p.gridLambda; t < R {
					nl = min(n, 2*int(math.Ceil(t/lambda/2))+2)
				}
				c0 := cpuSeconds()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					lb := newLeafBuilder(nl, lambda, nil)
					lb.recordGroups = true
					lb.groups = make([]leafGroup, 0, 2*nl+16)
					lb.inexact = true
					if err := m.embed(lb); err != nil {
						b.Fatal(err)
					}
					gl := lb.rel(m)
					lb.finishGrid(gl.relErrIn, m.String())
				}
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s")
			})
		}
	}
}
