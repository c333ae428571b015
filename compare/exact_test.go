package compare

import (
	"math"
	"testing"
)

// Rows of /work/shared/reference/exact-cases.csv (closed forms computed
// independently of this package).
var csvCases = []struct {
	mech  string
	r     int
	eEps  float64 // e^eps
	delta float64
}{
	{"gauss", 512, 1.001, 0.031425317260542546},
	{"gauss", 512, 1.01, 0.027313990546101686},
	{"gauss", 512, 1.05, 0.0136004329052209},
	{"gauss", 512, 1.1, 0.004788543586100238},
	{"gauss", 512, 1.2, 0.00034093628273304817},
	{"gauss", 512, 1.3, 1.2535101901372931e-5},
	{"gauss", 512, 1.5, 3.6209547468612376e-9},
	{"gauss", 512, 2, 2.8885647679093009e-20},
	{"gauss", 65536, 1.001, 0.34880075662953709},
	{"gauss", 65536, 1.01, 0.34589141931782184},
	{"gauss", 65536, 1.05, 0.33333930908572798},
	{"gauss", 65536, 1.1, 0.3184762485792366},
	{"gauss", 65536, 1.2, 0.29126323529158604},
	{"gauss", 65536, 1.3, 0.26702210677337419},
	{"gauss", 65536, 1.5, 0.22594313466885543},
	{"gauss", 65536, 2, 0.15395310898144578},
	{"rr", 512, 1, 0.34899947006044516},
	{"rr", 512, 1.1, 0.31854862939653823},
	{"rr", 512, 1.2, 0.29139913879577604},
	{"rr", 512, 1.3, 0.26715792832102525},
	{"rr", 512, 1.5, 0.22587907830285403},
	{"rr", 512, 2, 0.15408905831584484},
}

func TestExactReferenceCSV(t *testing.T) {
	const sigma = 200 * math.Sqrt2
	for _, c := range csvCases {
		var cur Curve
		var err error
		if c.mech == "gauss" {
			cur, err = ExactGauss(sigma, 1, c.r)
		} else {
			cur, err = ExactRR(0.51, c.r)
		}
		if err != nil {
			t.Fatal(err)
		}
		eps := math.Log(c.eEps)
		checkRel(t, c.mech+" delta", cur.Delta(eps), c.delta, 1e-12)
		// and the inverse
		checkRel(t, c.mech+" eps", cur.Eps(c.delta), eps, 1e-9)
	}
}

// The Gauss closed form must be accurate far into the tail: compare with an
// independent numerical integral over the privacy loss L ~ N(mu^2/2, mu^2):
// delta = int_{eps}^{inf} (1 - e^{eps-l}) pdf_L(l) dl.
func TestExactGaussTail(t *testing.T) {
	for _, mu := range []float64{0.02, 0.08, 1, 5, 30} {
		for _, z := range []float64{-3, 0, 2, 8, 15, 25, 36} { // eps = mean + z sd of L
			eps := mu*mu/2 + z*mu
			if eps < 0 {
				continue
			}
			m, s := mu*mu/2, mu
			f := func(l float64) float64 {
				if l <= eps {
					return math.Inf(-1)
				}
				return math.Log(-math.Expm1(eps-l)) + logNormPDF((l-m)/s) - math.Log(s)
			}
			hi := eps + 80*s/math.Max(z, 1) + 40*s
			if z < 0 {
				hi += 40
			}
			want := math.Exp(logSimpson(f, eps, hi, 400000))
			c, err := ExactGauss(1/mu, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Delta(eps)
			if want < 1e-300 {
				continue
			}
			if relErr(got, want) > 1e-9 {
				t.Errorf("mu=%g eps=%g: delta %.15g, integral %.15g (rel %.3g)", mu, eps, got, want, relErr(got, want))
			}
		}
	}
	// deep tail reaches 1e-300 without underflow
	c, _ := ExactGauss(1, 1, 1)
	if d := c.Delta(36.5); !(d > 0 && d < 1e-280) {
		t.Errorf("Gauss mu=1 delta(36.5) = %g, want about 1.1e-285", d)
	}
}

// Randomized response against brute-force enumeration of all 2^r outcomes
// (Lemma 1 on the product distributions).
func TestExactRRBruteForce(t *testing.T) {
	for _, p := range []float64{0.51, 0.6, 0.75, 0.3} {
		for r := 1; r <= 10; r++ {
			c, err := ExactRR(p, r)
			if err != nil {
				t.Fatal(err)
			}
			pa, pb := product([]float64{p, 1 - p}, r), product([]float64{1 - p, p}, r)
			for _, eps := range []float64{0, 0.01, 0.1, 0.5, 1, 2, 5} {
				want := bruteDelta(pa, pb, eps)
				if got := c.Delta(eps); math.Abs(got-want) > 1e-14*math.Max(1, want) && relErr(got, want) > 1e-12 {
					t.Errorf("RR p=%g r=%d eps=%g: %.17g, brute force %.17g", p, r, eps, got, want)
				}
			}
		}
	}
	// hand-checked: r = 1, eps = 0: delta = TV = 2p - 1
	c, _ := ExactRR(0.51, 1)
	checkRel(t, "RR r=1 delta(0)", c.Delta(0), 0.02, 1e-13)
}

func TestExactRRLarge(t *testing.T) {
	// r = 2^20 must work; monotone and consistent with the inverse.
	c, err := ExactRR(0.51, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	prev := 2.0
	// privacy loss ~ N(838, 41^2) here
	for _, e := range []float64{0, 700, 800, 838, 900, 1000, 1200} {
		d := c.Delta(e)
		if !(d >= 0 && d <= 1) || d > prev {
			t.Fatalf("delta(%g) = %g not monotone in [0,1] (prev %g)", e, d, prev)
		}
		prev = d
	}
	if d := c.Delta(838); !(d > 0.2 && d < 0.8) {
		t.Errorf("delta(838) = %g, want about 0.4 (normal approximation)", d)
	}
	checkRel(t, "Eps(Delta(900))", c.Eps(c.Delta(900)), 900, 1e-9)
}

// Single-round curves against direct numerical integration of
// max(0, pA - e^eps pB) (both directions) on a fine grid.
func TestDelta0Integration(t *testing.T) {
	lap := func(mu, b float64) func(float64) float64 {
		return func(x float64) float64 { return math.Exp(-math.Abs(x-mu)/b) / (2 * b) }
	}
	gau := func(mu, s float64) func(float64) float64 {
		return func(x float64) float64 { return math.Exp(logNormPDF((x-mu)/s)) / s }
	}
	trunc := func(f func(float64) float64, lo, hi, z float64) func(float64) float64 {
		return func(x float64) float64 {
			if x < lo || x > hi {
				return 0
			}
			return f(x) / z
		}
	}
	integ := func(pa, pb func(float64) float64, eps, lo, hi float64) float64 {
		// midpoint rule; h divides the truncation points exactly
		const h = 1e-5
		n := int(math.Round((hi - lo) / h))
		var ab, ba float64
		for i := 0; i < n; i++ {
			x := lo + (float64(i)+0.5)*h
			a, b := pa(x), pb(x)
			ab += math.Max(0, a-math.Exp(eps)*b)
			ba += math.Max(0, b-math.Exp(eps)*a)
		}
		return math.Max(ab, ba) * h
	}
	lapD, _ := LaplaceDelta0(2, 1)
	gD, _ := GaussDelta0(1.5, 1)
	tlD, _ := TruncatedLaplaceDelta0(2, 1, 5)
	tgD, _ := TruncatedGaussDelta0(1.5, 1, 3)
	zl := 1 - math.Exp(-5.0/2)
	zg := normCDF(2) - normCDF(-2)
	cases := []struct {
		name   string
		d      DeltaFunc
		pa, pb func(float64) float64
		lo, hi float64
	}{
		{"laplace", lapD, lap(0, 2), lap(1, 2), -40, 40},
		{"gauss", gD, gau(0, 1.5), gau(1, 1.5), -15, 15},
		{"trunc laplace", tlD, trunc(lap(0, 2), -5, 5, zl), trunc(lap(1, 2), -4, 6, zl), -5, 6},
		{"trunc gauss", tgD, trunc(gau(0, 1.5), -3, 3, zg), trunc(gau(1, 1.5), -2, 4, zg), -3, 4},
	}
	for _, c := range cases {
		for _, eps := range []float64{0, 0.2, 0.45, 1.5} {
			want := integ(c.pa, c.pb, eps, c.lo, c.hi)
			got := c.d(eps)
			if math.Abs(got-want) > 1e-7 {
				t.Errorf("%s eps=%g: %.12g, integral %.12g", c.name, eps, got, want)
			}
		}
	}
	// truncation far out equals the untruncated curve
	tl, _ := TruncatedLaplaceDelta0(200, 1, 2500)
	ul, _ := LaplaceDelta0(200, 1)
	for _, eps := range []float64{0, 0.001, 0.004, 0.01} {
		if math.Abs(tl(eps)-ul(eps)) > 1e-5*ul(0) {
			t.Errorf("trunc Laplace T=2500 eps=%g: %g vs untruncated %g", eps, tl(eps), ul(eps))
		}
	}
	// beyond eps0 only the B(inf) mass is left: P_A([-T, sens-T)) / Z
	want := (0.5*math.Exp(-2499.0/200) - 0.5*math.Exp(-2500.0/200)) / (1 - math.Exp(-2500.0/200))
	checkRel(t, "trunc Laplace delta(1)", tl(1), want, 1e-9)
}

func TestEpsDeltaPairBrute(t *testing.T) {
	for _, c := range []struct{ e, d float64 }{{0.5, 0}, {1, 1e-3}, {0.1, 0.2}} {
		f, err := EpsDeltaDelta0(c.e, c.d)
		if err != nil {
			t.Fatal(err)
		}
		ee := math.Exp(c.e)
		pa := []float64{c.d, (1 - c.d) * ee / (1 + ee), (1 - c.d) / (1 + ee), 0}
		pb := []float64{0, (1 - c.d) / (1 + ee), (1 - c.d) * ee / (1 + ee), c.d}
		for _, x := range []float64{0, 0.05, 0.3, 0.5, 1, 2} {
			if got, want := f(x), bruteDelta(pa, pb, x); math.Abs(got-want) > 1e-15 {
				t.Errorf("M_{%g,%g} delta(%g) = %g, brute %g", c.e, c.d, x, got, want)
			}
		}
	}
	rr, _ := RRDelta0(0.6)
	for _, x := range []float64{0, 0.2, 1} {
		if got, want := rr(x), bruteDelta([]float64{0.6, 0.4}, []float64{0.4, 0.6}, x); math.Abs(got-want) > 1e-15 {
			t.Errorf("RR delta0(%g) = %g, brute %g", x, got, want)
		}
	}
}

func TestExactLaplace(t *testing.T) {
	c, err := ExactLaplace(200, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkRel(t, "Laplace delta(0)", c.Delta(0), -math.Expm1(-0.0025), 1e-14)
	if c.Delta(0.005) != 0 {
		t.Errorf("Laplace delta(eps0) = %g, want 0", c.Delta(0.005))
	}
	checkRel(t, "Laplace Eps(Delta(0.002))", c.Eps(c.Delta(0.002)), 0.002, 1e-9)
}

func TestBadInputs(t *testing.T) {
	nan := math.NaN()
	errs := []error{}
	add := func(_ any, err error) { errs = append(errs, err) }
	add(ExactGauss(0, 1, 1))
	add(ExactGauss(1, nan, 1))
	add(ExactGauss(1, 1, 0))
	add(ExactRR(1, 5))
	add(ExactRR(0.5, -1))
	add(ExactLaplace(-1, 1))
	add(GaussDelta0(math.Inf(1), 1))
	add(LaplaceDelta0(1, 0))
	add(TruncatedGaussDelta0(1, 1, 0))
	add(TruncatedLaplaceDelta0(1, 1, nan))
	add(RRDelta0(0))
	add(EpsDeltaDelta0(-1, 0))
	add(EpsDeltaDelta0(1, 2))
	add(KOV(nil, 5, KOVOptions{}))
	add(KOV(func(float64) float64 { return nan }, 5, KOVOptions{}))
	add(KOV(func(float64) float64 { return 0 }, 0, KOVOptions{}))
	add(KOV(func(float64) float64 { return 0 }, 5, KOVOptions{Eps0: []float64{-1}}))
	add(KOV(func(float64) float64 { return 0 }, 5, KOVOptions{Ratio: 0.5}))
	add(Advanced(nil, 5, AdvancedOptions{}))
	add(Naive(nil, 5))
	add(Adaptive(func(float64) float64 { return 0 }, 0))
	add(ComposeNaive(nil))
	add(ComposeAdaptive([]Point{{-1, 0}}))
	add(RDP(nil, 1, Classic, RDPOptions{}))
	add(RDP(func(float64) float64 { return 1 }, 1, Conversion(7), RDPOptions{}))
	add(RDP(func(float64) float64 { return 1 }, 1, Classic, RDPOptions{Orders: []float64{0.5}}))
	add(RDP(func(float64) float64 { return nan }, 1, Classic, RDPOptions{}))
	add(GaussRenyi(0, 1))
	add(LaplaceRenyi(1, -1))
	add(RRRenyi(2))
	add(SampledGaussianRenyi(1, 1.5))
	add(CDP(nil, 1, CDPOptions{}))
	add(GeometricGrid(0, 1, 2))
	for i, err := range errs {
		if err == nil {
			t.Errorf("bad input case %d: no error", i)
		}
	}
}
