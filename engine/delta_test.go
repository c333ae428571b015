package engine

import (
	"context"
	"math"
	"testing"
)

// TestDeltaTableIdentical checks that delta with the precomputed table
// gives bitwise the same pointwise bounds as the direct evaluation.
func TestDeltaTableIdentical(t *testing.T) {
	g, _ := Gauss(30, 1, 0)
	rr, _ := RandomizedResponse(0.55)
	sgd, _ := SGD(2, 0.05)
	lap, _ := Laplace(10, 1, 60)
	for _, m := range []Mechanism{g, rr, sgd, lap} {
		for _, ec := range []bool{true, false} {
			res, err := Compose(context.Background(), m, 300, Options{Buckets: 8000, DisableErrorCorrection: !ec})
			if err != nil {
				t.Fatal(err)
			}
			tab := res.l.deltaTable(res.b)
			for i := 0; i <= 200; i++ {
				eps := float64(i) * 0.02
				a := res.l.deltaDirect(eps, res.b, res.ec)
				b := res.l.deltaWith(eps, res.b, res.ec, tab, errPointwise)
				same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
				if !same(a.Upper, b.Upper) || !same(a.Lower, b.Lower) || !same(a.UpperAB, b.UpperAB) || !same(a.UpperBA, b.UpperBA) || !same(a.LowerAB, b.LowerAB) || !same(a.LowerBA, b.LowerBA) {
					t.Fatalf("%v ec=%v eps=%v: table %+v, direct %+v", m, ec, eps, b, a)
				}
			}
		}
	}
}
