package compare_test

import (
	"fmt"
	"math"

	"github.com/pbuckets/pbuckets/compare"
)

// Compare the bounds of the paper's evaluation on the Gauss mechanism of
// Figure 13 (sigma = 200*sqrt 2, sensitivity 1, r = 512) at delta = 1e-5.
func Example() {
	const sigma, sens, r = 200 * math.Sqrt2, 1.0, 512

	exact, err := compare.ExactGauss(sigma, sens, r)
	if err != nil {
		panic(err)
	}
	// single-round tight curve and Renyi curve of the same mechanism
	delta0, _ := compare.GaussDelta0(sigma, sens)
	renyi, _ := compare.GaussRenyi(sigma, sens)

	kov, _ := compare.KOV(delta0, r, compare.KOVOptions{})
	adv, _ := compare.Advanced(delta0, r, compare.AdvancedOptions{})
	rdp, _ := compare.RDP(renyi, r, compare.Classic, compare.RDPOptions{})
	rdpImp, _ := compare.RDP(renyi, r, compare.Improved, compare.RDPOptions{})
	cdp, err := compare.CDP(renyi, r, compare.CDPOptions{})
	if err != nil {
		panic(err)
	}

	for _, b := range []struct {
		name string
		c    compare.Curve
	}{{"exact", exact}, {"kov", kov}, {"advanced", adv}, {"rdp " + rdp.Conversion().String(), rdp},
		{"rdp " + rdpImp.Conversion().String(), rdpImp}, {"cdp", cdp}} {
		fmt.Printf("%-13s eps(1e-5) = %.4f\n", b.name, b.c.Eps(1e-5))
	}
	// Output:
	// exact         eps(1e-5) = 0.2672
	// kov           eps(1e-5) = 1.3583
	// advanced      eps(1e-5) = 1.7764
	// rdp classic   eps(1e-5) = 0.3871
	// rdp improved  eps(1e-5) = 0.2949
	// cdp           eps(1e-5) = 0.3871
}

// The DP-SGD moments accountant (Abadi et al.; paper Section 5.4).
func ExampleSampledGaussianRenyi() {
	renyi, _ := compare.SampledGaussianRenyi(4, 0.01)
	for _, conv := range []compare.Conversion{compare.Classic, compare.Improved} {
		c, _ := compare.RDP(renyi, 1<<16, conv, compare.RDPOptions{})
		eps, order := c.EpsOrder(1e-5)
		fmt.Printf("%s: eps = %.3f at order %.1f\n", c.Conversion(), eps, order)
	}
	// Output:
	// classic: eps = 3.338 at order 8.4
	// improved: eps = 2.908 at order 7.6
}
