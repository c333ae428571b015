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
	m, _ := RandomAllocationGauss(0.7, 1, 10, 1, AddRemove)
	am := m.(*allocMech)
	for _, E := range []int{1, 2, 5, 50} {
		for _, L := range []Lists{ListsGrid, ListsGrouped} {
			t0 := time.Now()
			res, err := Compose(context.Background(), m, E, Options{Lists: L})
			if err != nil {
				t.Fatal(err)
			}
			e := res.Eps(1e-5)
			fmt.Printf("E=%d lists=%v time=%v eps=[%.6g, %.6g] width=%.3g%% info %+v\n", E, L, time.Since(t0), e.Lower, e.Upper, 100*(e.Upper-e.Lower)/e.Upper, res.Info())
		}
	}
	// widest groups by mass
	var wmax float64
	var sumW, sumM float64
	for i := range am.pa {
		w := am.lossHi[i] - am.lossLo[i]
		if w < 1e300 && w > wmax && am.pa[i] > 1e-30 {
			wmax = w
		}
		if w < 1e300 {
			sumW += w * am.pa[i]
			sumM += am.pa[i]
		}
	}
	fmt.Printf("max width (pa>1e-30) %.3g, mean A-weighted %.3g\n", wmax, sumW/sumM)
}
