package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestAutoPath checks which options leave the path to the engine: the
// default bucket count, factor, lists and error correction only (an
// explicit bucket count keeps the squaring chain at that count).
func TestAutoPath(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		want bool
	}{
		{"zero options", Options{}, true},
		{"tilts and budgets", Options{Tilts: 5, TailBudget: 1e-30, SquaringThreshold: 3}, true},
		{"explicit buckets", Options{Buckets: 100000}, false},
		{"explicit factor", Options{Factor: 1.0001}, false},
		{"grid lists", Options{Lists: ListsGrid}, false},
		{"grouped list", Options{Lists: ListsGrouped}, false},
		{"no error correction", Options{DisableErrorCorrection: true}, false},
		{"power path forced", Options{power: powerOn}, false},
		{"choice at a bucket count", Options{Buckets: 4000, power: powerAuto}, true},
		{"chain path", Options{Path: PathChain}, false},
		{"power path", Options{Path: PathPower}, false},
	} {
		if got := autoPath(c.o); got != c.want {
			t.Errorf("%s: autoPath = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestChoosePath checks the choice on rows whose widths were measured at
// both paths (BenchmarkPowerPeers; the report of the calibration is in
// powerchoice.go): the power path where it is tighter than the default
// chain and cheaper, the chain where the power path would need more than
// 2^20 points or cost more, and the chain for mechanisms the power path
// leaves to it.
func TestChoosePath(t *testing.T) {
	sgd := func(sigma, q float64) Mechanism {
		m, err := SGD(sigma, q)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	gauss := func(sigma float64) Mechanism {
		m, err := Gauss(sigma, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	rr, err := RandomizedResponse(0.75)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		m     Mechanism
		rs    []int
		power bool
		n     int
	}{
		// measured: 2^19 points 5.8e-6 (0.54 s) against the chain's
		// 1.1e-5 (1.2 s)
		{"DP-SGD 1.1/0.01/10^4", sgd(1.1, 0.01), []int{10000}, true, 1 << 19},
		// 2^19: 1.3e-4 (0.53 s) against 7.1e-4 (1.6 s); taken at 3·2^17
		// (1.2e-4 since the first stage's 3·2^j lengths)
		{"DP-SGD 1/0.001/250,000", sgd(1, 0.001), []int{250000}, true, 3 << 17},
		// 2^20: 8.3e-6 against 4.7e-7
		{"DP-SGD 4/0.01/65,536", sgd(4, 0.01), []int{65536}, false, 0},
		// 2^19: 2.2e-6 against 4.3e-7
		{"Gauss sigma 2, r 1,000", gauss(2), []int{1000}, false, 0},
		// tighter at 2^21 only (4e-7 against 3.0e-6)
		{"Gauss sigma 200 sqrt2, r 512", gauss(200 * math.Sqrt2), []int{512}, false, 0},
		{"randomized response (atoms)", rr, []int{1000}, false, 0},
		// a sweep whose shaping counts are {10^4}: the choice of 10^4 alone
		{"DP-SGD sweep", sgd(1.1, 0.01), []int{5000, 10000, 7000}, true, 1 << 19},
	} {
		o, err := Options{}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		got, err := choosePath(c.m, c.rs, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.power != c.power || got.n != c.n && c.power {
			t.Errorf("%s: power %v at %d points (%s), want %v at %d (gaps %.3g, %.3g; costs %.3g, %.3g)",
				c.name, got.power, got.n, got.why, c.power, c.n, got.gapPower, got.gapChain, got.costPower, got.costChain)
		}
	}
}

// TestChoosePathDependsOnChainCounts checks that the choice depends on the
// shaping counts of the numbers of compositions (ChainCounts), which the
// pipeline's cache keys hold, and not on the others.
func TestChoosePathDependsOnChainCounts(t *testing.T) {
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := Options{}.withDefaults()
	for _, rs := range [][]int{{10000, 9000}, {200, 10000, 5000, 9999}, {100, 400, 1600, 6400, 25600}} {
		counts := ChainCounts(rs)
		base, err := choosePath(m, counts, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := choosePath(m, rs, o)
		if err != nil {
			t.Fatal(err)
		}
		if got.power != base.power || got.n != base.n {
			t.Errorf("rs %v: power %v at %d, want %v at %d as for its shaping counts %v", rs, got.power, got.n, base.power, base.n, counts)
		}
	}
}

// TestChainGap checks the chain's predicted gap on a loss whose estimated
// range is the same for every count: no squaring while the leaf's range
// covers it (r lambda0^2), else one squaring per doubling of the spacing at
// the first count, each adding powerSquareWeight lambda^2 r/c.
func TestChainGap(t *testing.T) {
	const r, n = 1000, 100
	cr := chainRange{s: []float64{1}, lnHi: []float64{0}, lnLo: []float64{0}, lnTB: -30}
	for _, c := range []struct {
		name    string
		lambda0 float64
		want    float64
	}{
		{"range covered", 1, r},
		{"two squarings at count 2", 30.0 / 4 / (n + 1), r * (1 + 0.5*powerSquareWeight*(1+4))},
	} {
		l0 := c.lambda0
		got := chainGap(cr, l0, n, r)
		if want := c.want * l0 * l0; math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s: chainGap = %.6g, want %.6g", c.name, got, want)
		}
	}
}

// TestComposeAutoPower checks a default composition that the choice gives
// to the power path: it is the power path's list (no grouped list, no
// squaring) at the chosen length, and its eps brackets are at least as
// narrow as the chain's at 100,000 buckets from delta 1e-3 to 1e-10.
func TestComposeAutoPower(t *testing.T) {
	if testing.Short() {
		t.Skip("composes at 2^19 points and 100,000 buckets")
	}
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	auto, err := Compose(ctx, m, 10000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if auto.l != nil || auto.g == nil || auto.g.squarings != 0 || auto.g.n != 1<<18 {
		t.Fatalf("the default composition did not take the power path at 2^19 points")
	}
	chain, err := Compose(ctx, m, 10000, Options{Buckets: defaultBuckets})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []float64{1e-3, 1e-5, 1e-8, 1e-10} {
		a, c := auto.Eps(d), chain.Eps(d)
		wa, wc := relWidth(a.Upper, a.Lower), relWidth(c.Upper, c.Lower)
		if !(wa <= wc) {
			t.Errorf("eps(%g): default [%.9g, %.9g] (width %.3g) wider than the chain's [%.9g, %.9g] (%.3g)", d, a.Lower, a.Upper, wa, c.Lower, c.Upper, wc)
		}
	}
}

// TestComposeAutoPowerWithFloor checks that a question's floor (the
// pipeline sets Options.DeltaFloor from the deltas asked), which cuts the
// power path's range at the floor's budget, does not make the tail probe
// reject the power path: the probe stops at the floor (probeFloor).
func TestComposeAutoPowerWithFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("composes at 2^19 points")
	}
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 10000, Options{DeltaFloor: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	if res.l != nil || res.g == nil || res.g.squarings != 0 {
		t.Fatalf("with DeltaFloor 1e-5 the default composition left the power path")
	}
	if e := res.Eps(1e-5); !(e.Upper-e.Lower <= 1e-4*e.Upper) {
		t.Errorf("eps(1e-5) = [%.9g, %.9g]: wider than 1e-4 relative", e.Lower, e.Upper)
	}
}

// TestComposeAutoProbeFallsBack checks that a power path whose tails are
// wider than the chain's (DP-SGD sigma 0.8, q 0.01, r 1,000 at 2^18
// points: eps(1e-8) 30 times the chain's width) gives way to the chain.
func TestComposeAutoProbeFallsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("composes at 2^18 points and 100,000 buckets")
	}
	m, err := SGD(0.8, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := Options{}.withDefaults()
	c, err := choosePath(m, []int{1000}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.power {
		t.Fatalf("the predictor no longer chooses the power path (%s): the probe is not exercised", c.why)
	}
	res, err := Compose(context.Background(), m, 1000, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.l == nil {
		t.Errorf("the default composition kept the power path's result")
	}
}

// BenchmarkDefaultPath compares the default options (the engine's choice
// of path, powerchoice.go) with the squaring chain at 100,000 buckets on
// BenchmarkPeers' rows: ROW/default and ROW/chain report cpu-s and relw as
// BenchmarkPeers, and default also the transform length of the power path
// the predictor chose (chosen-points, 0 for the chain; the tail probe may
// still give way to the chain). Run with -benchtime 1x -count 5 and take
// medians.
func BenchmarkDefaultPath(b *testing.B) {
	for _, row := range peersRows {
		b.Run(row.name, func(b *testing.B) {
			for _, mode := range []struct {
				name string
				o    Options
			}{{"default", Options{}}, {"chain", Options{Buckets: defaultBuckets}}} {
				b.Run(mode.name, func(b *testing.B) {
					var a peersAnswer
					for i := 0; i < b.N; i++ {
						a = row.answerWith(b, mode.o)
					}
					a.report(b, row)
					if mode.o.Buckets == 0 {
						m, err := row.mech()
						if err != nil {
							b.Fatal(err)
						}
						o, _ := mode.o.withDefaults()
						c, err := choosePath(m, []int{row.r}, o)
						if err != nil {
							b.Fatal(err)
						}
						b.ReportMetric(float64(c.n), "chosen-points")
					}
				})
			}
		})
	}
}

// TestDefaultPathAtLeastAsTightAsChain checks that the default options (the
// engine's choice of path) give eps brackets at least as narrow as the
// squaring chain at 100,000 buckets, at delta 1e-3 to 1e-13, on the
// 30-query DP-SGD sweep (sigma x q, each with r 10^4 and 10^5 in one call,
// scripts/bench/sweep30.toml), the peers' rows and a heavy right tail
// (DP-SGD sigma 0.6, q 0.001, r 10^4, where the chain's final tilts alias
// on the power path's range), and single sweep queries whose power path
// is looser than the chain near delta 1e-13 only (a tail probe that stops
// above 1e-13 keeps them). A call the choice gives to the chain composes
// exactly the chain's lists, so only calls it keeps on the power path are
// compared.
func TestDefaultPathAtLeastAsTightAsChain(t *testing.T) {
	if testing.Short() {
		t.Skip("composes the DP-SGD sweep at up to 2^20 points and 100,000 buckets")
	}
	t.Parallel()
	type call struct {
		name string
		m    func() (Mechanism, error)
		rs   []int
	}
	sgd := func(sigma, q float64) func() (Mechanism, error) {
		return func() (Mechanism, error) { return SGD(sigma, q) }
	}
	calls := []call{
		{"DP-SGD 0.6/0.001/10^4", sgd(0.6, 0.001), []int{10000}},
		{"DP-SGD 1.1/0.01/10^4", sgd(1.1, 0.01), []int{10000}},
		{"DP-SGD 4/0.01/65,536", sgd(4, 0.01), []int{65536}},
		{"DP-SGD 1/0.001/250,000", sgd(1, 0.001), []int{250000}},
		{"Gauss sigma 200 sqrt2, r 512", func() (Mechanism, error) { return Gauss(200*math.Sqrt2, 1, 0) }, []int{512}},
		// single sweep queries whose power path is looser than the chain
		// near delta 1e-13 only
		{"DP-SGD 0.8/0.004/10^4", sgd(0.8, 0.004), []int{10000}},
		{"DP-SGD 0.6/0.001/10^5", sgd(0.6, 0.001), []int{100000}},
	}
	for _, sigma := range []float64{0.6, 0.8, 1.0, 1.2, 1.5} {
		for _, q := range []float64{0.001, 0.004, 0.016} {
			calls = append(calls, call{fmt.Sprintf("sweep DP-SGD %g/%g", sigma, q), sgd(sigma, q), []int{10000, 100000}})
		}
	}
	ctx := context.Background()
	for _, c := range calls {
		m, err := c.m()
		if err != nil {
			t.Fatal(err)
		}
		auto, err := ComposeMany(ctx, m, c.rs, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if auto[0].l != nil {
			continue // the chain's lists
		}
		chain, err := ComposeMany(ctx, m, c.rs, Options{Buckets: defaultBuckets})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, r := range c.rs {
			for _, d := range []float64{1e-3, 1e-5, 1e-8, 1e-10, 1e-13} {
				a, ch := auto[i].Eps(d), chain[i].Eps(d)
				wa, wc := relWidth(a.Upper, a.Lower), relWidth(ch.Upper, ch.Lower)
				if !(wa <= wc) {
					t.Errorf("%s, r %d, eps(%g): default [%.9g, %.9g] (width %.3g) wider than the chain's [%.9g, %.9g] (%.3g)",
						c.name, r, d, a.Lower, a.Upper, wa, ch.Lower, ch.Upper, wc)
				}
			}
		}
	}
}

// TestPathOption checks what Options.Path composes: the power path's list
// (no grouped list, no squaring, the transform length asked) where the
// mechanism qualifies, the squaring chain at the same count where it does
// not (a count pair) and for PathChain at any count, and the options it
// refuses.
func TestPathOption(t *testing.T) {
	ctx := context.Background()
	// DP-SGD: the untruncated Gauss pair is composed in closed form on
	// every path (TestComposesInClosedForm)
	sgd, err := SGD(1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	dial, err := VuvuzelaDialing(NoiseGauss, 3, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		m         Mechanism
		o         Options
		power     bool // the power path's list
		qualifies bool // PowerQualifies
		n         int  // points per side of the result's grid list
	}{
		{"power path", sgd, Options{Path: PathPower, Buckets: 1 << 12}, true, true, 1 << 11},
		{"chain path at the same count", sgd, Options{Path: PathChain, Buckets: 1 << 12}, false, true, 1 << 11},
		{"default path at an explicit count", sgd, Options{Buckets: 1 << 12}, false, true, 1 << 11},
		{"power path falls back for a count pair", dial, Options{Path: PathPower, Buckets: 1 << 12}, false, false, 1 << 11},
		{"power path with a factor", sgd, Options{Path: PathPower, Buckets: 1 << 12, Factor: 1.001}, false, false, 1 << 11},
	} {
		q, err := PowerQualifies(ctx, c.m, 64, c.o)
		if err != nil {
			t.Fatalf("%s: PowerQualifies: %v", c.name, err)
		}
		if q != c.qualifies {
			t.Errorf("%s: PowerQualifies = %v, want %v", c.name, q, c.qualifies)
		}
		res, err := Compose(ctx, c.m, 64, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		power := res.l == nil && res.g != nil && res.g.squarings == 0
		if power != c.power {
			t.Errorf("%s: power path's list %v, want %v", c.name, power, c.power)
		}
		if c.power && res.g.n != c.n {
			t.Errorf("%s: %d points per side, want %d", c.name, res.g.n, c.n)
		}
		if !c.power && res.Info().Buckets != 2*c.n {
			t.Errorf("%s: chain at %d buckets, want %d", c.name, res.Info().Buckets, 2*c.n)
		}
	}
	for _, o := range []Options{
		{Path: PathPower, Buckets: 100000},
		{Path: PathPower, Buckets: 1 << 9},
		{Path: PathPower + 1},
	} {
		if err := o.Check(); err == nil {
			t.Errorf("Options{Path: %v, Buckets: %d}: no error", o.Path, o.Buckets)
		}
	}
	if err := (Options{Path: PathPower}).Check(); err != nil {
		t.Errorf("the power path at the default length: %v", err)
	}
}

// TestEstimatePowerMemory checks that the power path's memory estimate
// grows with its length and stays below the chain's at the same count
// (the refinement reserves it per round), with room for a first stage of
// N/4 points (160 bytes a point).
func TestEstimatePowerMemory(t *testing.T) {
	prev := int64(0)
	for _, n := range []int{1 << 14, 1 << 17, 1 << 20} {
		p := EstimateMemory(Options{Path: PathPower, Buckets: n})
		c := EstimateMemory(Options{Path: PathChain, Buckets: n})
		if !(p > prev && p < c && p >= 160*int64(n)) {
			t.Errorf("%d points: estimate %d (chain %d, previous %d)", n, p, c, prev)
		}
		prev = p
	}
}
