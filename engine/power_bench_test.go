package engine

import (
	"context"
	"math"
	"os"
	"testing"
	"time"
)

// answerWith is peersRow.answer with the options given.
func (row peersRow) answerWith(tb testing.TB, opt Options) peersAnswer {
	m, err := row.mech()
	if err != nil {
		tb.Fatal(err)
	}
	c0, w0 := cpuSeconds(), time.Now()
	res, err := Compose(context.Background(), m, row.r, opt)
	if err != nil {
		tb.Fatal(err)
	}
	var a peersAnswer
	if row.delta > 0 {
		a.eps = res.Eps(row.delta)
		a.relw = relWidth(a.eps.Upper, a.eps.Lower)
	}
	for _, ee := range row.eEps {
		d := res.Delta(math.Log(ee))
		a.dlt = append(a.dlt, d)
		if d.Upper >= 1 {
			a.relw = math.Inf(1)
		} else {
			a.relw = max(a.relw, relWidth(d.Upper, d.Lower))
		}
	}
	a.cpu, a.wall = cpuSeconds()-c0, time.Since(w0).Seconds()
	return a
}

// BenchmarkPowerPeers compares the power path (power.go) with the squaring
// chain on BenchmarkPeers' rows (not Vuvuzela: a count pair, which the power
// path leaves to the chain) at the bucket counts PB_BUCKETS (default
// 16384, 65536): ROW/MODE/BUCKETS reports cpu-s (the mean over b.N
// compositions) and relw as BenchmarkPeers. With PB_FLOOR=1 each row composes with its question's
// floor (Options.DeltaFloor = DeltaFloorFor of its deltas, as the
// pipeline sets it). Run with -benchtime 1x -count 5 and take medians.
func BenchmarkPowerPeers(b *testing.B) {
	for _, row := range peersRows {
		if row.name == "vuvuzela" {
			continue
		}
		b.Run(row.name, func(b *testing.B) {
			for _, mode := range []struct {
				name string
				p    powerMode
			}{{"chain", powerOff}, {"power", powerOn}} {
				b.Run(mode.name, func(b *testing.B) {
					for _, n := range envInts("PB_BUCKETS", []int{16384, 65536}) {
						b.Run(itoa(n), func(b *testing.B) {
							var a peersAnswer
							var cpu float64
							floor := row.floor(b)
							for i := 0; i < b.N; i++ {
								a = row.answerWith(b, Options{Buckets: n, power: mode.p, DeltaFloor: floor})
								cpu += a.cpu
							}
							a.cpu = cpu / float64(b.N)
							a.report(b, row)
						})
					}
				})
			}
		})
	}
}

// floor returns the row's question's floor when PB_FLOOR is set (0
// otherwise): DeltaFloorFor of its delta and e^eps.
func (row peersRow) floor(tb testing.TB) float64 {
	if os.Getenv("PB_FLOOR") == "" {
		return 0
	}
	m, err := row.mech()
	if err != nil {
		tb.Fatal(err)
	}
	var eps, deltas []float64
	if row.delta > 0 {
		deltas = []float64{row.delta}
	}
	for _, e := range row.eEps {
		eps = append(eps, math.Log(e))
	}
	f, err := DeltaFloorFor(context.Background(), m, row.r, eps, deltas)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
