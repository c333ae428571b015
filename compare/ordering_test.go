package compare

import (
	"math"
	"math/rand"
	"testing"
)

// Every sound upper bound must lie above the exact curve: checked on
// randomized Gauss and randomized-response parameters, in both directions
// (delta at given eps, eps at given delta).
func TestBoundsAboveExact(t *testing.T) {
	rng := rand.New(rand.NewSource(20240611))
	type named struct {
		name string
		c    Curve
	}
	check := func(label string, exact Curve, bounds []named) {
		t.Helper()
		epsList := []float64{0, 0.01, 0.1, 0.5, 1, 2, 4, 8}
		for _, d := range []float64{0.5, 1e-2, 1e-5, 1e-10, 1e-50} {
			// points where the exact curve is neither 0 nor 1
			if e := exact.Eps(d); !math.IsInf(e, 0) {
				epsList = append(epsList, e)
			}
		}
		for _, b := range bounds {
			for _, eps := range epsList {
				got, want := b.c.Delta(eps), exact.Delta(eps)
				if math.IsNaN(got) || got < want*(1-1e-9)-1e-300 {
					t.Errorf("%s %s: delta(%g) = %.10g below exact %.10g", label, b.name, eps, got, want)
				}
			}
			for _, d := range []float64{0.5, 1e-2, 1e-5, 1e-10} {
				got, want := b.c.Eps(d), exact.Eps(d)
				if math.IsNaN(got) || got < want*(1-1e-9)-1e-12 {
					t.Errorf("%s %s: eps(%g) = %.10g below exact %.10g", label, b.name, d, got, want)
				}
			}
		}
	}
	bounds := func(d0 DeltaFunc, renyi RenyiFunc, r int) []named {
		var out []named
		add := func(n string, c Curve, err error) {
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			out = append(out, named{n, c})
		}
		k, err := KOV(d0, r, KOVOptions{Ratio: 1.05})
		add("kov", k, err)
		a, err := Advanced(d0, r, AdvancedOptions{})
		add("advanced", a, err)
		n, err := Naive(d0, r)
		add("naive", n, err)
		ad, err := Adaptive(d0, r)
		add("adaptive", ad, err)
		rc, err := RDP(renyi, r, Classic, RDPOptions{})
		add("rdp-classic", rc, err)
		ri, err := RDP(renyi, r, Improved, RDPOptions{})
		add("rdp-improved", ri, err)
		cd, err := CDP(renyi, r, CDPOptions{})
		add("cdp", cd, err)
		return out
	}
	// the paper's cases (Figures 11 and 13) first
	{
		sigma := 200 * math.Sqrt2
		ex, _ := ExactGauss(sigma, 1, 512)
		d0, _ := GaussDelta0(sigma, 1)
		ren, _ := GaussRenyi(sigma, 1)
		check("gauss paper", ex, bounds(d0, ren, 512))
		exr, _ := ExactRR(0.51, 512)
		d0r, _ := RRDelta0(0.51)
		renr, _ := RRRenyi(0.51)
		check("rr paper", exr, bounds(d0r, renr, 512))
	}
	for trial := 0; trial < 20; trial++ {
		sigma := math.Exp(rng.Float64()*math.Log(200) - math.Log(2)) // [0.5, 100]
		r := 1 + int(math.Exp(rng.Float64()*math.Log(3000)))
		ex, _ := ExactGauss(sigma, 1, r)
		d0, _ := GaussDelta0(sigma, 1)
		ren, _ := GaussRenyi(sigma, 1)
		check("gauss sigma="+ftoa(sigma)+" r="+itoa(r), ex, bounds(d0, ren, r))

		p := 0.5 + 0.005 + rng.Float64()*0.3
		r = 1 + int(math.Exp(rng.Float64()*math.Log(3000)))
		exr, _ := ExactRR(p, r)
		d0r, _ := RRDelta0(p)
		renr, _ := RRRenyi(p)
		check("rr p="+ftoa(p)+" r="+itoa(r), exr, bounds(d0r, renr, r))
	}
}

func ftoa(x float64) string { return formatG(x) }
func itoa(i int) string     { return formatG(float64(i)) }
