package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestGDPCurve checks the Gaussian curve behind the width model: gdpEps
// inverts gdpLnDelta, gdpLnDelta matches the direct formula where it does
// not cancel, lnPhiBar is continuous where it changes method, and the
// sensitivities are the central differences of the curve.
func TestGDPCurve(t *testing.T) {
	for _, mu := range []float64{0.05, 0.3, 1, 2.5, 8} {
		for _, d := range []float64{0.3, 1e-3, 1e-5, 1e-10, 1e-30} {
			e := gdpEps(mu, math.Log(d))
			if e == 0 {
				if gdpLnDelta(mu, 0) > math.Log(d) {
					t.Errorf("mu %g delta %g: eps 0 but delta_mu(0) = %g", mu, d, math.Exp(gdpLnDelta(mu, 0)))
				}
				continue
			}
			if got := gdpLnDelta(mu, e); math.Abs(got-math.Log(d)) > 1e-9*math.Max(1, -math.Log(d)) {
				t.Errorf("mu %g delta %g: ln delta_mu(eps %g) = %g, want %g", mu, d, e, got, math.Log(d))
			}
			direct := phiC(mu/2-e/mu) - math.Exp(e)*phiC(-mu/2-e/mu)
			if d >= 1e-10 && math.Abs(direct-d) > 1e-6*d {
				t.Errorf("mu %g: delta_mu(%g) direct %g, want %g", mu, e, direct, d)
			}
			// sensitivities against central differences in mu^2
			h := 1e-4 * mu * mu
			up, dn := math.Sqrt(mu*mu+h), math.Sqrt(mu*mu-h)
			wantEps := (gdpEps(up, math.Log(d)) - gdpEps(dn, math.Log(d))) / (2 * h) / e
			if got := gdpSensitivity(mu, nil, []float64{d}); math.Abs(got-wantEps) > 1e-4*wantEps {
				t.Errorf("mu %g delta %g: eps sensitivity %g, central difference %g", mu, d, got, wantEps)
			}
			wantDelta := (math.Exp(gdpLnDelta(up, e)) - math.Exp(gdpLnDelta(dn, e))) / (2 * h) / d
			if got := gdpSensitivity(mu, []float64{e}, nil); math.Abs(got-wantDelta) > 1e-4*wantDelta {
				t.Errorf("mu %g eps %g: delta sensitivity %g, central difference %g", mu, e, got, wantDelta)
			}
		}
	}
	for _, x := range []float64{19.999, 20, 20.001} {
		exact := math.Log(0.5 * math.Erfc(x/math.Sqrt2))
		y := 1 / (x * x)
		series := -x*x/2 - math.Log(x) - 0.5*math.Log(2*math.Pi) + math.Log1p(-y+3*y*y-15*y*y*y)
		if math.Abs(exact-series) > 1e-9*math.Abs(exact) || math.Abs(lnPhiBar(x)-exact) > 1e-9*math.Abs(exact) {
			t.Errorf("lnPhiBar(%g) = %g, erfc %g, series %g", x, lnPhiBar(x), exact, series)
		}
	}
	for _, c := range []struct{ g, z, want float64 }{
		{0.25, 4.75, 0.25 * (4.75*4.75 - 1) / 6}, {-0.25, 4.75, 0.25 * (4.75*4.75 - 1) / 6}, {2, 0.9, 0}, {0, 10, 0},
	} {
		if got := cornishFisher(c.g, c.z); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("cornishFisher(%g, %g) = %g, want %g", c.g, c.z, got, c.want)
		}
	}
	if mu := 1.5; math.Abs(gdpQuantile(mu, []float64{2}, nil)-(2-mu*mu/2)/mu) > 1e-15 {
		t.Errorf("gdpQuantile at eps 2: %g", gdpQuantile(mu, []float64{2}, nil))
	}
	if mu, d := 0.8, 1e-6; math.Abs(gdpQuantile(mu, nil, []float64{d})-(gdpEps(mu, math.Log(d))-mu*mu/2)/mu) > 1e-12 {
		t.Errorf("gdpQuantile at delta 1e-6: %g", gdpQuantile(mu, nil, []float64{d}))
	}
	if got := gdpSensitivity(1, nil, []float64{0.9}); got != 0 {
		t.Errorf("delta 0.9 above delta_mu(0): sensitivity %g, want 0 (no prediction)", got)
	}
	if got := gdpSensitivity(1, []float64{200}, nil); got != 0 {
		t.Errorf("delta(200) below 1e-300: sensitivity %g, want 0", got)
	}
}

// TestPowerLengthForMeetsTarget composes near-Gaussian DP-SGD questions at
// the length PowerLengthFor predicts for their targets: the bracket there
// meets the target, and the length is no more than one step longer than
// needed (the length before it misses, or is the shortest asked).
func TestPowerLengthForMeetsTarget(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name         string
		sigma, q     float64
		r            int
		eps, deltas  []float64
		target       float64
		minN, wantAt int // wantAt: the predicted length (0: none up to 2^16)
	}{
		{"sgd4 eps 1.45e-4", 4, 0.01, 65536, nil, []float64{1e-5}, 1.45e-4, 1 << 14, 3 << 14},
		{"sgd4 eps 1e-3", 4, 0.01, 65536, nil, []float64{1e-5}, 1e-3, 1 << 12, 1 << 14},
		{"sgd1.5 eps 2e-4", 1.5, 0.004, 10000, nil, []float64{1e-5}, 2e-4, 1 << 14, 3 << 14},
		{"sgd1.5 delta 3e-3", 1.5, 0.016, 10000, []float64{3}, nil, 3e-3, 1 << 14, 3 << 14},
		{"sgd4 eps 1e-5", 4, 0.01, 65536, nil, []float64{1e-5}, 1e-5, 1 << 14, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := SGD(c.sigma, c.q)
			if err != nil {
				t.Fatal(err)
			}
			floor, err := DeltaFloorFor(ctx, m, c.r, c.eps, c.deltas)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{DeltaFloor: floor}
			n, err := PowerLengthFor(ctx, m, c.r, c.eps, c.deltas, c.target, c.minN, 1<<16, opt)
			if err != nil {
				t.Fatal(err)
			}
			if n != c.wantAt {
				t.Fatalf("predicted length %d, want %d", n, c.wantAt)
			}
			if n == 0 {
				return
			}
			width := func(N int) float64 {
				o := opt
				o.Path, o.Buckets = PathPower, N
				res, err := Compose(ctx, m, c.r, o)
				if err != nil {
					t.Fatal(err)
				}
				w := 0.0
				for _, d := range c.deltas {
					e := res.Eps(d)
					w = math.Max(w, relWidth(e.Upper, e.Lower))
				}
				for _, e := range c.eps {
					d := res.Delta(e)
					w = math.Max(w, relWidth(d.Upper, d.Lower))
				}
				return w
			}
			if w := width(n); !(w <= c.target) {
				t.Errorf("at the predicted %d points the width is %.3g, above the target %.3g", n, w, c.target)
			}
			if prev := shorterLength(n); prev >= c.minN {
				if w := width(prev); w <= c.target {
					t.Errorf("%d points, one step shorter, already meet the target (%.3g): the prediction overshoots", prev, w)
				}
			}
		})
	}
}

// TestPowerLengthForInputs checks PowerLengthFor's errors and the cases
// without a prediction.
func TestPowerLengthForInputs(t *testing.T) {
	ctx := context.Background()
	sgd, _ := SGD(1, 0.01)
	gauss, _ := Gauss(2, 1, 0)
	for _, c := range []struct {
		name        string
		m           Mechanism
		r           int
		eps, deltas []float64
		target      float64
		minN, maxN  int
		wantErr     bool
	}{
		{"nil mechanism", nil, 10, nil, []float64{1e-5}, 1e-4, 1 << 14, 1 << 16, true},
		{"r 0", sgd, 0, nil, []float64{1e-5}, 1e-4, 1 << 14, 1 << 16, true},
		{"target 0", sgd, 10, nil, []float64{1e-5}, 0, 1 << 14, 1 << 16, true},
		{"target 1", sgd, 10, nil, []float64{1e-5}, 1, 1 << 14, 1 << 16, true},
		{"target NaN", sgd, 10, nil, []float64{1e-5}, math.NaN(), 1 << 14, 1 << 16, true},
		{"maxN below minN", sgd, 10, nil, []float64{1e-5}, 1e-4, 1 << 16, 1 << 14, true},
		{"delta 1", sgd, 10, nil, []float64{1}, 1e-4, 1 << 14, 1 << 16, true},
		{"eps -1", sgd, 10, []float64{-1}, nil, 1e-4, 1 << 14, 1 << 16, true},
		{"eps NaN", sgd, 10, []float64{math.NaN()}, nil, 1e-4, 1 << 14, 1 << 16, true},
		{"no query", sgd, 1000, nil, nil, 1e-4, 1 << 14, 1 << 16, false},
		{"closed form", gauss, 1000, nil, []float64{1e-5}, 1e-4, 1 << 14, 1 << 16, false},
		{"eps 0 at delta 0.9", sgd, 1000, nil, []float64{0.9}, 1e-4, 1 << 14, 1 << 16, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := PowerLengthFor(ctx, c.m, c.r, c.eps, c.deltas, c.target, c.minN, c.maxN, Options{})
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want an error: %v", err, c.wantErr)
			}
			if n != 0 {
				t.Errorf("length %d, want 0", n)
			}
		})
	}
}

// TestPowerLengthForAgainstComposed composes DP-SGD questions (sigma 0.6
// to 4, q 0.001 to 0.016, r 10^3 to 10^5, eps(1e-5) at targets 1e-3 and
// 1e-4 with the question's floor) at the length PowerLengthFor predicts
// up to 2^16 points: the bracket there is at most 1.5 times the target (a
// first round that misses is followed by a jump; one far off would waste
// a round), the length two steps shorter misses the target (the
// prediction overshoots by at most one step), and most predictions land
// on the shortest length that meets it.
func TestPowerLengthForAgainstComposed(t *testing.T) {
	ctx := context.Background()
	predicted, exact := 0, 0
	for _, sigma := range []float64{0.6, 0.8, 1.0, 1.2, 1.5, 2, 4} {
		for _, q := range []float64{0.001, 0.004, 0.016} {
			for _, r := range []int{1000, 10000, 100000} {
				m, err := SGD(sigma, q)
				if err != nil {
					t.Fatal(err)
				}
				deltas := []float64{1e-5}
				floor, err := DeltaFloorFor(ctx, m, r, nil, deltas)
				if err != nil {
					t.Fatal(err)
				}
				opt := Options{DeltaFloor: floor}
				width := func(N int) float64 {
					o := opt
					o.Path, o.Buckets = PathPower, N
					res, err := Compose(ctx, m, r, o)
					if err != nil {
						t.Fatal(err)
					}
					e := res.Eps(1e-5)
					return relWidth(e.Upper, e.Lower)
				}
				for _, target := range []float64{1e-3, 1e-4} {
					n, err := PowerLengthFor(ctx, m, r, nil, deltas, target, 1<<14, 1<<16, opt)
					if err != nil {
						t.Fatal(err)
					}
					if n == 0 {
						continue
					}
					predicted++
					name := fmt.Sprintf("sigma %g q %g r %d target %g: %d points", sigma, q, r, target, n)
					w := width(n)
					if !(w <= 1.5*target) {
						t.Errorf("%s: width %.3g, more than 1.5 times the target", name, w)
					}
					if p := shorterLength(shorterLength(n)); p >= 1<<14 {
						if wp := width(p); wp <= target {
							t.Errorf("%s: %d points, two steps shorter, meet the target (%.3g)", name, p, wp)
						}
					}
					if p := shorterLength(n); w <= target && (p < 1<<14 || width(p) > target) {
						exact++
					}
				}
			}
		}
	}
	t.Logf("%d predictions, %d at the shortest length that meets the target", predicted, exact)
	if predicted < 60 || exact < predicted*2/3 {
		t.Errorf("%d predictions, %d exact: want at least 60, two thirds exact", predicted, exact)
	}
}

// TestSkewness checks the composed loss's skewness on Bernoulli losses
// ((1 - 2p)/sqrt(p (1 - p)) over sqrt(r)) and a symmetric one (0).
func TestSkewness(t *testing.T) {
	for _, c := range []struct {
		loss, mass []float64
		r          int
		want       float64
	}{
		{[]float64{0, 1}, []float64{0.9, 0.1}, 1, 0.8 / 0.3},
		{[]float64{0, 1}, []float64{0.9, 0.1}, 4, 0.4 / 0.3},
		{[]float64{0, 1}, []float64{0.2, 0.8}, 9, -0.6 / 0.4 / 3},
		{[]float64{-1, 0, 1}, []float64{0.25, 0.5, 0.25}, 7, 0},
	} {
		if got := skewness(leafMeans{loss: c.loss, mass: c.mass}, c.r); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("skewness(%v at %v, r %d) = %g, want %g", c.loss, c.mass, c.r, got, c.want)
		}
	}
}

// TestPowerLengthForGates checks that PowerLengthFor predicts nothing, with
// the question's floor as the pipeline asks, where the composition is far
// from the Gaussian curve although the model alone would predict a length:
// a heavy right tail whose skewness moves the query's quantile by 0.9
// standard deviations (DP-SGD 0.61/0.00071, r 30,000 at delta 1e-6: the
// model put 1e-5 at 2^20 points, which reach 1.05e-4).
func TestPowerLengthForGates(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		sigma, q float64
		r        int
		delta    float64
		target   float64
		maxN     int
	}{
		{"heavy tail", 0.61, 0.00071, 30000, 1e-6, 1e-5, 1 << 20},
	} {
		m, err := SGD(c.sigma, c.q)
		if err != nil {
			t.Fatal(err)
		}
		floor, err := DeltaFloorFor(ctx, m, c.r, nil, []float64{c.delta})
		if err != nil {
			t.Fatal(err)
		}
		n, err := PowerLengthFor(ctx, m, c.r, nil, []float64{c.delta}, c.target, 1<<14, c.maxN, Options{DeltaFloor: floor})
		if err != nil || n != 0 {
			t.Errorf("%s: length %d (%v), want 0", c.name, n, err)
		}
	}
}

// shorterLength returns the transform length one step below n (2^k or
// 3·2^k): 2^(k+1) below 3·2^k, 3·2^(k-2) below 2^k.
func shorterLength(n int) int {
	if n%3 == 0 {
		return n / 3 * 2
	}
	return n / 4 * 3
}
