package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestAllocTable prints ours against Poisson subsampling with q = 1/t
// (SubsampledGauss composed t*E times) at delta = 1e-5. Not a check: run
// with ALLOC_EXPLORE=1.
func TestAllocTable(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	sigmas := []float64{0.5, 0.8, 1, 2}
	if s := os.Getenv("ALLOC_SIGMA"); s != "" {
		v, _ := strconv.ParseFloat(s, 64)
		sigmas = []float64{v}
	}
	for _, sigma := range sigmas {
		for _, steps := range []int{10, 100, 1000, 10000} {
			for _, E := range []int{1, 50} {
				m, err := RandomAllocationGauss(sigma, 1, steps, 1, AddRemove)
				if err != nil {
					t.Fatal(err)
				}
				t0 := time.Now()
				res, err := Compose(context.Background(), m, E, Options{})
				if err != nil {
					t.Fatal(err)
				}
				e := res.Eps(1e-5)
				dt := time.Since(t0)
				p, _ := SubsampledGauss(sigma, 1, 1/float64(steps), Poisson, AddRemove)
				t1 := time.Now()
				rp, err := Compose(context.Background(), p, steps*E, Options{})
				if err != nil {
					t.Fatal(err)
				}
				ep := rp.Eps(1e-5)
				fmt.Printf("| %g | %d | %d | [%.5g, %.5g] | %.3g%% | %.2fs | [%.5g, %.5g] | %.2fs |\n", sigma, steps, E, e.Lower, e.Upper, 100*(e.Upper-e.Lower)/e.Upper, dt.Seconds(), ep.Lower, ep.Upper, time.Since(t1).Seconds())
			}
		}
	}
}

// TestAllocQuery runs one query, ALLOC_Q="sigma,t,epochs" (for time and
// memory measurements of a whole process).
func TestAllocQuery(t *testing.T) {
	q := os.Getenv("ALLOC_Q")
	if q == "" {
		t.Skip("set ALLOC_Q=sigma,t,epochs")
	}
	var sigma float64
	var steps, E int
	fmt.Sscanf(q, "%g,%d,%d", &sigma, &steps, &E)
	m, err := RandomAllocationGauss(sigma, 1, steps, 1, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	res, err := Compose(context.Background(), m, E, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Eps(1e-5)
	fmt.Printf("query sigma=%g t=%d E=%d eps=[%.6g, %.6g] width=%.3g%% wall=%v\n", sigma, steps, E, e.Lower, e.Upper, 100*(e.Upper-e.Lower)/e.Upper, time.Since(t0))
}

// TestAllocRefTable prints ours against the t = 1 closed form and the t =
// 2, 3 quadrature (report rows; ALLOC_EXPLORE=1).
func TestAllocRefTable(t *testing.T) {
	if os.Getenv("ALLOC_EXPLORE") == "" {
		t.Skip("set ALLOC_EXPLORE=1")
	}
	for _, c := range []struct {
		sigma float64
		t     int
	}{{1, 1}, {0.8, 1}, {1, 2}, {0.6, 2}, {1, 3}, {2, 3}} {
		res := allocCompose(t, c.sigma, c.t, 1)
		for _, eps := range []float64{0.5, 1, 2} {
			var ab, ba, e float64
			if c.t == 1 {
				l, dl := refGauss(1/c.sigma, eps)
				ab, ba, e = math.Exp(l), math.Exp(l), math.Expm1(dl)*math.Exp(l)
			} else {
				ab, ba = sumQuad{1 / c.sigma, 0.5}.dirs(c.t, eps)
				ab2, ba2 := sumQuad{1 / c.sigma, 1}.dirs(c.t, eps)
				e = math.Max(math.Abs(ab-ab2), math.Abs(ba-ba2))
			}
			d := res.Delta(eps)
			fmt.Printf("| %g | %d | %g | %.9g | [%.9g, %.9g] | %.9g | [%.9g, %.9g] | %.1e |\n", c.sigma, c.t, eps, ab, d.LowerAB, d.UpperAB, ba, d.LowerBA, d.UpperBA, e)
		}
	}
}
