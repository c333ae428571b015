package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSubsampledValidation(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		scale, sens, q float64
		s              Sampling
		r              Relation
		want           string
	}{
		{0, 1, 0.1, Poisson, AddRemove, "sigma must be positive"},
		{-1, 1, 0.1, Poisson, AddRemove, "sigma must be positive"},
		{inf, 1, 0.1, Poisson, AddRemove, "sigma must be positive and finite"},
		{nan, 1, 0.1, Poisson, AddRemove, "sigma must be positive"},
		{1, 0, 0.1, Poisson, AddRemove, "sensitivity must be positive"},
		{1, nan, 0.1, FixedSize, ReplaceOne, "sensitivity must be positive"},
		{1, 1, 0, Poisson, AddRemove, "q must be in (0, 1]"},
		{1, 1, 1.5, FixedSize, AddRemove, "q must be in (0, 1]"},
		{1, 1, nan, Poisson, ReplaceOne, "q must be in (0, 1]"},
		{1, 1, 0.1, Sampling(7), AddRemove, "unknown sampling"},
		{1, 1, 0.1, Poisson, Relation(-1), "unknown relation"},
		{1e-200, 1, 0.1, Poisson, AddRemove, "outside [1e-100, 1e100]"},
		{1e200, 1, 0.1, Poisson, AddRemove, "outside [1e-100, 1e100]"},
	}
	for _, c := range cases {
		_, err := SubsampledGauss(c.scale, c.sens, c.q, c.s, c.r)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "sgd: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SubsampledGauss%+v: got %v, want ErrInvalid with %q", c, err, c.want)
		}
		want := strings.Replace(c.want, "sigma", "scale", 1)
		_, err = SubsampledLaplace(c.scale, c.sens, c.q, c.s, c.r)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "laplace: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("SubsampledLaplace%+v: got %v, want ErrInvalid with %q", c, err, want)
		}
	}
}

func TestSubsampledString(t *testing.T) {
	cases := []struct {
		m    func() (Mechanism, error)
		want string
	}{
		{func() (Mechanism, error) { return SGD(1.1, 0.01) }, "sgd(sigma=1.1000000000000001, q=0.01)"},
		{func() (Mechanism, error) { return SubsampledGauss(1.1, 1, 0.01, Poisson, AddRemove) }, "sgd(sigma=1.1000000000000001, q=0.01)"},
		{func() (Mechanism, error) { return SubsampledGauss(2, 0.5, 0.25, Poisson, ReplaceOne) }, "sgd(sigma=2, q=0.25, sensitivity=0.5, relation=replace_one)"},
		{func() (Mechanism, error) { return SubsampledGauss(2, 1, 0.25, FixedSize, AddRemove) }, "sgd(sigma=2, q=0.25, sampling=fixed_size)"},
		{func() (Mechanism, error) { return SubsampledGauss(2, 1, 0.25, FixedSize, ReplaceOne) }, "sgd(sigma=2, q=0.25, sampling=fixed_size, relation=replace_one)"},
		{func() (Mechanism, error) { return SubsampledLaplace(3, 1, 0.5, Poisson, AddRemove) }, "laplace(scale=3, sensitivity=1, q=0.5)"},
		{func() (Mechanism, error) { return SubsampledLaplace(3, 2, 0.5, FixedSize, ReplaceOne) }, "laplace(scale=3, sensitivity=2, q=0.5, sampling=fixed_size, relation=replace_one)"},
	}
	for _, c := range cases {
		m, err := c.m()
		if err != nil {
			t.Fatal(err)
		}
		if m.String() != c.want {
			t.Errorf("got %q, want %q", m.String(), c.want)
		}
	}
}

func TestParseSamplingRelation(t *testing.T) {
	for _, s := range []Sampling{Poisson, FixedSize} {
		got, err := ParseSampling(s.String())
		if err != nil || got != s {
			t.Errorf("%v: %v %v", s, got, err)
		}
	}
	for _, r := range []Relation{AddRemove, ReplaceOne} {
		got, err := ParseRelation(r.String())
		if err != nil || got != r {
			t.Errorf("%v: %v %v", r, got, err)
		}
	}
	for _, bad := range []string{"", "Poisson", "fixed", "shuffle"} {
		if _, err := ParseSampling(bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"poisson" or "fixed_size"`) {
			t.Errorf("ParseSampling(%q): %v", bad, err)
		}
	}
	for _, bad := range []string{"", "add-remove", "substitution"} {
		if _, err := ParseRelation(bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"add_remove" or "replace_one"`) {
			t.Errorf("ParseRelation(%q): %v", bad, err)
		}
	}
}

// TestFixedSizeRate checks that b/n is never rounded down (q n >= b
// exactly) and at most one ulp above, that FixedSizeRates' lower rate is
// the float at or below b/n, and the refusals.
func TestFixedSizeRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < 100000; i++ {
		n := 1 + rng.IntN(1<<rng.IntN(40))
		b := 1 + rng.IntN(n)
		q, err := FixedSizeRate(b, n)
		if err != nil {
			t.Fatal(err)
		}
		if math.FMA(q, float64(n), -float64(b)) < 0 || q > 1 {
			t.Fatalf("FixedSizeRate(%d, %d) = %v is below b/n or above 1", b, n, q)
		}
		if lower := math.Nextafter(q, 0); q != 1 && math.FMA(lower, float64(n), -float64(b)) >= 0 {
			t.Fatalf("FixedSizeRate(%d, %d) = %v: the float below is also >= b/n", b, n, q)
		}
		lo, hi, err := FixedSizeRates(b, n)
		if err != nil || hi != q {
			t.Fatalf("FixedSizeRates(%d, %d) = (%v, %v, %v), want hi = FixedSizeRate's %v", b, n, lo, hi, err, q)
		}
		if math.FMA(lo, float64(n), -float64(b)) > 0 || (lo != hi && math.FMA(math.Nextafter(lo, 1), float64(n), -float64(b)) <= 0) {
			t.Fatalf("FixedSizeRates(%d, %d): lo %v is above b/n or not the float below it", b, n, lo)
		}
	}
	for _, c := range [][2]int{{0, 10}, {11, 10}, {1, 0}, {-1, 5}, {1, 1<<53 + 2}} {
		if _, err := FixedSizeRate(c[0], c[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("FixedSizeRate(%d, %d): %v", c[0], c[1], err)
		}
	}
}

// TestSubsampledSpecialCases checks the pairs at q = 1 against the closed
// form of the Gauss mechanism (Poisson add/remove: shift m; replace-one and
// fixed-size: shift 2m) and the nesting of the Poisson replace-one pair
// inside the symmetrised fixed-size replace-one pair (the latter dominates
// every replace-one step, TestSubsampledPairsEnumeration, so it is larger).
func TestSubsampledSpecialCases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := Options{Buckets: 20000}
	for _, c := range []struct {
		s     Sampling
		r     Relation
		shift float64
	}{{Poisson, AddRemove, 1}, {Poisson, ReplaceOne, 2}, {FixedSize, AddRemove, 2}, {FixedSize, ReplaceOne, 2}} {
		m, _ := SubsampledGauss(3, 1, 1, c.s, c.r)
		res, err := ComposeMany(ctx, m, []int{1, 10}, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range []int{1, 10} {
			for _, eps := range []float64{0, 0.1, 0.5, 1} {
				ex := exactGauss(math.Sqrt(float64(r))*c.shift/3, eps)
				d := res[i].Delta(eps)
				if d.Upper < ex*(1-1e-12) || d.Lower > ex*(1+1e-12) {
					t.Errorf("%v q=1 r=%d eps=%v: [%.12g, %.12g] vs Gauss %.12g", m, r, eps, d.Lower, d.Upper, ex)
				}
			}
		}
	}
	for _, q := range []float64{0.001, 0.05, 0.5} {
		p, _ := SubsampledGauss(1.2, 1, q, Poisson, ReplaceOne)
		s, _ := SubsampledGauss(1.2, 1, q, FixedSize, ReplaceOne)
		rp, err := Compose(ctx, p, 50, o)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := Compose(ctx, s, 50, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.1, 0.5, 1, 2} {
			if lp, us := rp.Delta(eps).Lower, rs.Delta(eps).Upper; lp > us {
				t.Errorf("q=%v eps=%v: Poisson replace-one lower %.12g above the symmetrised upper %.12g", q, eps, lp, us)
			}
		}
	}
}

// FuzzSubsampled feeds arbitrary parameters to the subsampled constructors:
// refused with ErrInvalid, or composed (r = 3, few buckets) into bounds
// with 0 <= lower <= upper <= 1.
func FuzzSubsampled(f *testing.F) {
	f.Add(1.1, 1.0, 0.01, uint8(0), uint8(0), false)
	f.Add(0.3, 2.0, 0.9, uint8(1), uint8(1), true)
	f.Add(50.0, 1.0, 1.0, uint8(1), uint8(0), false)
	f.Fuzz(func(t *testing.T, scale, sens, q float64, s, r uint8, lap bool) {
		mk := SubsampledGauss
		if lap {
			mk = SubsampledLaplace
		}
		m, err := mk(scale, sens, q, Sampling(s%3), Relation(r%3))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		res, err := Compose(context.Background(), m, 3, Options{Buckets: 400})
		if err != nil {
			if errors.Is(err, ErrInvalid) {
				return
			}
			t.Fatalf("%v: %v", m, err)
		}
		for _, eps := range []float64{0, 0.3, 3} {
			d := res.Delta(eps)
			if !(d.Upper >= 0 && d.Upper <= 1 && d.Lower >= 0 && d.Lower <= d.Upper*(1+1e-9)) {
				t.Fatalf("%v eps=%v: [%v, %v]", m, eps, d.Lower, d.Upper)
			}
		}
	})
}
