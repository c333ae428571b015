package engine

import (
	"context"
	"fmt"
	"os"
	"testing"
)

func TestAllocDiag(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	for _, steps := range []int{1000, 10000} {
		m, _ := RandomAllocationGauss(2, 1, steps, 1, AddRemove)
		am := m.(*allocMech)
		am.ensure()
		for _, eps := range []float64{0.0135, 0.03, 0.05} {
			uab, uba := allocPairDelta(am.upGroups, eps)
			lab, lba := allocPairDelta(am.lowGrps, eps)
			fmt.Printf("t=%d eps=%v U=(%.4g,%.4g) L=(%.4g,%.4g) upD=%.3g\n", steps, eps, uab, uba, lab, lba, am.upGroups[len(am.upGroups)-1].pa)
		}
		for _, L := range []Lists{ListsGrid, ListsGrouped} {
			res, _ := Compose(context.Background(), m, 1, Options{Lists: L})
			e := res.Eps(1e-5)
			fmt.Printf("t=%d lists=%v eps=[%.6g, %.6g] info %+v rel=%.3g\n", steps, L, e.Lower, e.Upper, res.Info(), am.rel)
			d := res.Delta(0.0135)
			fmt.Printf("   delta(0.0135) %+v\n", d)
		}
	}
}
