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
	m, _ := RandomAllocationGauss(3, 1, 100, 1, AddRemove)
	a := m.(*allocMech)
	a.ensure()
	p := 1e-22 / 100
	fmt.Printf("lossRange(hull) %v\n", a.lossRange(p))
	// from the upper groups
	var hi float64
	tail := 0.0
	for i := len(a.upGroups) - 1; i >= 0; i-- {
		g := a.upGroups[i]
		tail += g.pa + g.pb
		if tail > p && math.Abs(g.lossHi) < 1e6 {
			hi = g.lossHi
			break
		}
	}
	fmt.Printf("upper-pair top loss beyond tail p: %v, lowest %v\n", hi, a.upGroups[1].lossLo)
	for _, L := range []Lists{ListsGrid, ListsGrouped} {
		for _, B := range []int{100000, 400000} {
			res, _ := Compose(context.Background(), m, 50, Options{Lists: L, Buckets: B})
			e := res.Eps(1e-5)
			fmt.Printf("lists=%v buckets=%d eps=[%.6g, %.6g] width %.3g%% loglam %.3g\n", L, B, e.Lower, e.Upper, 100*(e.Upper-e.Lower)/e.Upper, res.Info().LogLeafFactor)
		}
	}
}
