package engine

import (
	"context"
	"math"
	"testing"
)

type zzRow struct {
	name string
	m    func() (Mechanism, error)
	r    int
}

func TestZZProbe(t *testing.T) {
	rows := []zzRow{
		{"sgd1", func() (Mechanism, error) { return SGD(1.1, 0.01) }, 10000},
		{"sgd1k", func() (Mechanism, error) { return SGD(1, 0.001) }, 250000},
		{"sgd.8/.01/1000", func() (Mechanism, error) { return SGD(0.8, 0.01) }, 1000},
		{"sgd.6/.016/1e4", func() (Mechanism, error) { return SGD(0.6, 0.016) }, 10000},
		{"sgd1/.1/100", func() (Mechanism, error) { return SGD(1, 0.1) }, 100},
		{"gauss512", func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }, 512},
		{"gauss10/100", func() (Mechanism, error) { return Gauss(10, 1, 0) }, 100},
	}
	for _, row := range rows {
		m, _ := row.m()
		o, _ := Options{}.withDefaults()
		c, _ := choosePath(m, []int{row.r}, o)
		N := c.n
		if N == 0 {
			N = 1 << 20
		}
		p, _ := newPowerPlan(m, row.r, o)
		p.powerN = N
		out, _, err := p.composePowerMany(context.Background(), m, []int{row.r})
		if err != nil || out == nil {
			t.Fatal(err)
		}
		c1 := cpuSeconds()
		cr := newChainRange(p.leaves[m], o.TailBudget)
		lp := p.powerRange(m, row.r) / float64(N/2)
		edge := math.Max(1, c.gapChain/(float64(row.r)*lp*lp)/powerChainEdge)
		ok, why := probeTails(out[0], cr, row.r, edge)
		c2 := cpuSeconds()
		t.Logf("%s N=%d chosen=%v edge %.3g probe ok=%v %s  probe %.3f", row.name, N, c.power, edge, ok, why, c2-c1)
	}
}
