package engine

import (
	"context"
	"testing"
)

func TestPowerDebug(t *testing.T) {
	m, _ := SGD(1, 0.001)
	res, err := Compose(context.Background(), m, 250000, Options{Buckets: 262144, power: powerOn})
	if err != nil {
		t.Fatal(err)
	}
	g := res.g
	t.Logf("n=%d lambda=%g R=%g tau=%v", g.n, g.lambda, float64(g.n)*g.lambda, g.tau)
	t.Logf("relA=%g relC=%g envA=%v envC=%v", g.relA, g.relC, g.envA, g.envC)
	t.Logf("tl1A=%v tl1C=%v l1A=%g l1C=%g abs=%g", g.tl1A, g.tl1C, g.l1A, g.l1C, g.abs)
	t.Logf("corners hiA=%v loA=%v hiC=%v loC=%v w=%g %g", g.hiA, g.loA, g.hiC, g.loC, g.wUp, g.wLo)
	for _, e := range []float64{2, 3.06, 4} {
		t.Logf("eps=%v %+v", e, res.Delta(e))
	}
}


func TestPowerDebugRange(t *testing.T) {
	m, _ := SGD(1, 0.001)
	for _, b := range []int{8192, 100000} {
		o := Options{Buckets: b}
		o, _ = o.withDefaults()
		p, err := newPlan([]Part{{m, 250000}}, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("b=%d t=%g R=%g var=%g saddle=%g", b, float64(p.n)*p.gridLambda, p.powerRange(m, 250000), p.leaves[m].variance, p.saddle)
	}
}
