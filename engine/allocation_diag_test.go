package engine

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestAllocDiag(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	for _, steps := range []int{10, 1000, 10000} {
		m, _ := RandomAllocationGauss(1, 1, steps, 1, AddRemove)
		am := m.(*allocMech)
		t0 := time.Now()
		am.ensure()
		tp := time.Since(t0)
		for _, L := range []Lists{ListsGrid, ListsGrouped} {
			t1 := time.Now()
			res, _ := Compose(context.Background(), m, 1, Options{Lists: L})
			e := res.Eps(1e-5)
			fmt.Printf("t=%d prep=%v lists=%v compose=%v eps=[%.6g, %.6g] rel=%.3g relPairs=%.3g nUp=%d nLow=%d nHull=%d\n", steps, tp, L, time.Since(t1), e.Lower, e.Upper, am.rel, am.relPairs, len(am.upGroups), len(am.lowGrps), len(am.pa))
		}
	}
}
