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
	for _, steps := range []int{10, 10000} {
		m, _ := RandomAllocationGauss(0.5, 1, steps, 1, AddRemove)
		am := m.(*allocMech)
		t0 := time.Now()
		am.ensure()
		fmt.Printf("t=%d prep %v nUp=%d nLow=%d nHull=%d\n", steps, time.Since(t0), len(am.upGroups), len(am.lowGrps), len(am.pa))
		t1 := time.Now()
		res, _ := Compose(context.Background(), m, 50, Options{})
		e := res.Eps(1e-5)
		fmt.Printf("  compose+eps %v eps [%.6g %.6g]\n", time.Since(t1), e.Lower, e.Upper)
	}
}
