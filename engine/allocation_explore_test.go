package engine

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestAllocExplore(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	for _, c := range []struct {
		sigma float64
		t, E  int
	}{{1, 1, 1}, {1, 2, 1}, {1, 10, 1}, {1, 100, 1}, {1, 1000, 1}, {0.7, 10, 50}, {1, 1000, 50}, {1, 10000, 1}} {
		m, err := RandomAllocationGauss(c.sigma, 1, c.t, 1, AddRemove)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if err := prepare(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		am := m.(*allocMech)
		tp := time.Since(t0)
		res, err := Compose(context.Background(), m, c.E, Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := res.Eps(1e-5)
		fmt.Printf("sigma=%v t=%d E=%d groups=%d rel=%.2g unk=%.2g prep=%v total=%v eps=[%.6g, %.6g] width=%.3g%%\n", c.sigma, c.t, c.E, len(am.pa), am.rel, am.unknownA+am.unknownB, tp, time.Since(t0), e.Lower, e.Upper, 100*(e.Upper-e.Lower)/e.Upper)
		if c.t == 1 {
			mu := 1 / c.sigma
			fmt.Printf("  exact delta(1) = %.8g, ours [%.8g, %.8g]\n", exactGauss(mu, 1), res.DeltaLower(1), res.DeltaUpper(1))
		}
	}
}
