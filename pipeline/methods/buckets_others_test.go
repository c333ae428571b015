package methods

import (
	"context"
	"errors"
	"github.com/pbuckets/pbuckets/internal/bigref"
	"math/big"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/compare"
	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// TestBucketsTakesOtherBounds checks issue 20 item 3's intersection: with
// few buckets the buckets bracket of DP-SGD (Poisson, add/remove) is loose,
// and the method reports RDP's upper bound (padded) and the sum test's
// lower bound instead, each named in the note; a fixed-size pair (no RDP
// curve, no sum test) keeps the buckets bracket. The RDP bound is the
// certified one (compare.SampledGaussianRenyiUpper, outward conversion),
// with no pad.
func TestBucketsTakesOtherBounds(t *testing.T) {
	const sigma, q, r, delta, eps = 2.0, 0.01, 1000, 1e-5, 1.0
	spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": sigma, "q": q},
		Engine: manifest.EngineOptions{Buckets: 16, ErrorCorrection: true}}
	job := Job{Instance: &manifest.Instance{Label: "sgd", Spec: spec}, Compositions: []int{r}, Eps: []float64{eps}, Delta: []float64{delta}}
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Memory: states.NewBudget(1 << 40)}}
	outs, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	rf, _ := compare.SampledGaussianRenyiUpper(sigma, q)
	rdp, _ := compare.RDP(rf, r, compare.Classic, compare.RDPOptions{Outward: true})
	st, _ := compare.NewSumTest(sigma, q, r)
	o := outs[0]
	if e := o.Eps[0]; e.Upper != rdp.Eps(delta) || e.Lower != st.EpsLower(delta) {
		t.Errorf("eps bracket [%v, %v], want RDP's %v and the sum test's %v", e.Lower, e.Upper, rdp.Eps(delta), st.EpsLower(delta))
	}
	if d := o.Delta[0]; d.Upper != rdp.Delta(eps) || d.Lower != st.DeltaLower(eps) {
		t.Errorf("delta bracket [%v, %v], want RDP's %v and the sum test's %v", d.Lower, d.Upper, rdp.Delta(eps), st.DeltaLower(eps))
	}
	for _, s := range []string{"eps_upper at delta 1e-05 from Renyi DP", "eps_lower at delta 1e-05 from the sum-of-outputs test", "delta_upper at eps 1 from Renyi DP", "delta_lower at eps 1 from the sum-of-outputs test"} {
		if !strings.Contains(o.Note, s) {
			t.Errorf("note %q does not say %q", o.Note, s)
		}
	}
	// fixed-size sampling: neither applies
	spec.Sampling = manifest.SamplingFixedSize
	job.Instance = &manifest.Instance{Label: "sgd", Spec: spec}
	outs, err = bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(outs[0].Note, "Renyi DP") || strings.Contains(outs[0].Note, "sum-of-outputs") {
		t.Errorf("fixed-size sampling: note %q names another method", outs[0].Note)
	}
}

// TestOtherBoundsRenyiCertified checks that the Renyi curve behind the
// buckets method's RDP cap is a certified upper bound: at every integer
// order, (alpha-1) times it is at least ln A_alpha computed in math/big
// (A_alpha is the exact E_Q[(P/Q)^alpha] of DP-SGD). The former curve
// (compare.SampledGaussianRenyi, rounded to nearest, the 1e-6 pad applied
// only after the conversion) was below it at about half the orders.
func TestOtherBoundsRenyiCertified(t *testing.T) {
	for _, c := range [][2]float64{{5, 1e-4}, {31.48, 0.01}, {4, 0.01}, {1.1, 0.01}, {0.8, 1e-4}} {
		spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": c[0], "q": c[1]},
			Engine: manifest.EngineOptions{ErrorCorrection: true}}
		ob := newOtherBounds(spec)
		if ob == nil || ob.renyi == nil {
			t.Fatalf("sigma %g q %g: no RDP cap", c[0], c[1])
		}
		below := 0
		for a := 2; a <= 40; a++ {
			x := new(big.Float).Mul(bigref.F(float64(a-1)), bigref.F(ob.renyi(float64(a))))
			if bigref.Exp(x).Cmp(bigref.A(a, c[0], c[1])) < 0 {
				below++
			}
		}
		if below > 0 {
			t.Errorf("sigma %g q %g: the cap's Renyi curve is below the exact D_alpha(P||Q) at %d of 39 integer orders", c[0], c[1], below)
		}
	}
}

// TestRDPCapAboveBucketsLower checks on DP-SGD cases (issue 20's and the
// golden set's sgd rows) that the certified RDP cap is never below the
// buckets method's own sound lower bounds (values measured with 100,000
// buckets, engine .27.6: the golden set results/golden/golden-kinds, and
// pbuckets eps for the r = 2^25 cases), nor below the sum-of-outputs test.
func TestRDPCapAboveBucketsLower(t *testing.T) {
	type row struct {
		sigma, q float64
		r        int
		delta    float64 // eps query (delta > 0) ...
		eps      float64 // ... or delta query (delta == 0)
		lower    float64 // the buckets lower bound
	}
	rows := []row{
		{5, 1e-4, 1 << 25, 1e-5, 0, 0.40421096151175384},
		{31.48, 0.01, 1 << 25, 1e-5, 0, 9.023764102036328},
		{4, 0.01, 1, 1e-6, 0, 0.011603166911373463},
		{4, 0.01, 16, 1e-3, 0, 0.009703060941749995},
		{4, 0.01, 16, 1e-6, 0, 0.038532650980962424},
		{4, 0.01, 256, 1e-3, 0, 0.06559499538702718},
		{4, 0.01, 256, 1e-6, 0, 0.15644470532502877},
		{4, 0.01, 1, 0, 0, 0.000994764496590565},
		{4, 0.01, 1, 0, 0.009950330853168092, 2.9294313352594573e-06},
		{4, 0.01, 1, 0, 0.09531017980432493, 3.644002413711964e-25},
		{4, 0.01, 16, 0, 0.009950330853168092, 0.0009590160488948806},
		{4, 0.01, 16, 0, 0.09531017980432493, 1.904631454379142e-16},
		{4, 0.01, 256, 0, 0, 0.016199251680122564},
		{4, 0.01, 256, 0, 0.009950330853168092, 0.011797494185291553},
		{4, 0.01, 256, 0, 0.09531017980432493, 0.00015699787810495312},
		{4, 0.01, 256, 0, 0.4054651081081644, 5.709883513257056e-23},
	}
	for _, w := range rows {
		spec := manifest.MechanismSpec{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": w.sigma, "q": w.q},
			Engine: manifest.EngineOptions{ErrorCorrection: true}}
		ob := newOtherBounds(spec)
		c, err := compare.RDP(ob.renyi, w.r, compare.Classic, compare.RDPOptions{Outward: true})
		if err != nil {
			t.Fatal(err)
		}
		st, _ := compare.NewSumTest(w.sigma, w.q, w.r)
		if w.delta > 0 {
			if u, sl := c.Eps(w.delta), st.EpsLower(w.delta); u < w.lower || u < sl {
				t.Errorf("sigma %g q %g r %d delta %g: RDP cap eps %.17g below the buckets' lower bound %.17g or the sum test's %.17g", w.sigma, w.q, w.r, w.delta, u, w.lower, sl)
			}
		} else if u, sl := c.Delta(w.eps), st.DeltaLower(w.eps); u < w.lower || u < sl {
			t.Errorf("sigma %g q %g r %d eps %g: RDP cap delta %.17g below the buckets' lower bound %.17g or the sum test's %.17g", w.sigma, w.q, w.r, w.eps, u, w.lower, sl)
		}
	}
}

// TestSoundRenyiCurveKinds checks the certified curves of the cap kind by
// kind: at least the closed forms of renyiCurve (rounded to nearest) and
// within rounding of them (Gauss, Laplace, randomized response, a sequence
// of Gauss mechanisms, DP-SGD), and not applicable where renyiCurve is not
// (truncation, fixed-size sampling).
func TestSoundRenyiCurveKinds(t *testing.T) {
	dir := t.TempDir()
	sched := sequenceJob(t, dir, testfig.Sequence, "sched", 1)
	specs := []manifest.MechanismSpec{
		{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 3, "sensitivity": 1.5}},
		{Kind: manifest.KindLaplace, Params: map[string]float64{"scale": 10, "sensitivity": 1}},
		{Kind: manifest.KindLaplace, Params: map[string]float64{"scale": 1e6, "sensitivity": 1}},
		{Kind: manifest.KindRandomizedResponse, Params: map[string]float64{"p": 0.6}},
		{Kind: manifest.KindRandomizedResponse, Params: map[string]float64{"p": 0.5 + 1e-7}},
		{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 2, "q": 0.01, "sensitivity": 2}},
		sched.Instance.Spec,
	}
	for _, spec := range specs {
		want, err := renyiCurve(spec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := soundRenyiCurve(spec)
		if err != nil {
			t.Fatalf("%s %v: %v", spec.Kind, spec.Params, err)
		}
		for _, a := range []float64{2, 3, 8, 32, 128} {
			g, w := got(a), want(a)
			if g < w || g > w*(1+1e-9)+1e-13 {
				t.Errorf("%s %v alpha %g: certified %.17g, closed form %.17g", spec.Kind, spec.Params, a, g, w)
			}
		}
	}
	for _, spec := range []manifest.MechanismSpec{
		{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 3, "sensitivity": 1, "truncate": 50}},
		{Kind: manifest.KindSGD, Params: map[string]float64{"sigma": 2, "q": 0.01}, Sampling: manifest.SamplingFixedSize},
	} {
		if _, err := soundRenyiCurve(spec); !errors.Is(err, ErrNotApplicable) {
			t.Errorf("%s %v: error %v, want ErrNotApplicable", spec.Kind, spec.Params, err)
		}
	}
}
