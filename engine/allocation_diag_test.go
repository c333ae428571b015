package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"testing"
)

func TestAllocDiag(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	mu := math.Sqrt(20) / 0.1
	eps := mu*mu/2 + 2*mu
	fmt.Printf("exact %.10g\n", exactGauss(mu, eps))
	g, _ := Gauss(0.1, 1, 0)
	a, _ := RandomAllocationGauss(0.1, 1, 1, 1, AddRemove)
	for _, m := range []Mechanism{g, a} {
		for _, L := range []Lists{ListsBoth, ListsGrid, ListsGrouped} {
			res, _ := Compose(context.Background(), m, 20, Options{Buckets: 20000, Lists: L})
			d := res.Delta(eps)
			fmt.Printf("%s lists=%v: [%.10g, %.10g] AB [%.10g %.10g] BA [%.10g %.10g] swap=%v note=%q\n", m, L, d.Lower, d.Upper, d.LowerAB, d.UpperAB, d.LowerBA, d.UpperBA, res.s != nil, d.Note)
		}
	}
}
