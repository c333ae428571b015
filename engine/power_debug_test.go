package engine

import (
	"context"
	"testing"
)

func TestPowerDebug(t *testing.T) {
	m, _ := SGD(4, 0.01)
	res, err := Compose(context.Background(), m, 65536, Options{Buckets: 16384, power: powerOn})
	if err != nil {
		t.Fatal(err)
	}
	g := res.g
	t.Logf("n=%d lambda=%g R=%g tau=%v", g.n, g.lambda, float64(g.n)*g.lambda, g.tau)
	t.Logf("relA=%g relC=%g envA=%v envC=%v", g.relA, g.relC, g.envA, g.envC)
	t.Logf("tl1A=%v tl1C=%v l1A=%g l1C=%g abs=%g", g.tl1A, g.tl1C, g.l1A, g.l1C, g.abs)
	t.Logf("corners hiA=%v loA=%v hiC=%v loC=%v w=%g %g", g.hiA, g.loA, g.hiC, g.loC, g.wUp, g.wLo)
	for _, e := range []float64{1, 2, 2.68, 3} {
		t.Logf("eps=%v %+v", e, res.Delta(e))
	}
}

