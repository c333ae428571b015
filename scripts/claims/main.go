// Command claims prints the numbers behind the paper claims that
// REPRODUCTION.md checks, read from the results of `make figures`
// (results/fig-N/*.parquet). Every number it prints is a lookup in those
// files; nothing is computed here except ratios and interpolation-free
// comparisons.
//
// Usage:
//
//	go run ./scripts/claims [-results results] [-figures fig-19,fig-20]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pbuckets/pbuckets/plots"
)

var dir = flag.String("results", "results", "results folder of make figures")

var only = flag.String("figures", "", "comma-separated figure folders to read (e.g. fig-20 after make fig-20); the others' numbers print as NaN and their verdicts as unknown (default: all)")

var cache = map[string]*plots.Results{}

func load(fig string) *plots.Results {
	if r, ok := cache[fig]; ok {
		return r
	}
	if *only != "" && !slices.Contains(strings.Split(*only, ","), fig) {
		cache[fig] = &plots.Results{}
		return cache[fig]
	}
	r, err := plots.Load(filepath.Join(*dir, fig))
	if err != nil {
		fmt.Fprintln(os.Stderr, "claims:", err)
		os.Exit(1)
	}
	cache[fig] = r
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// eps returns e^eps upper and lower at delta.
func eps(fig, mech, method string, r int, delta float64) (up, lo float64) {
	u, l := epsBounds(fig, mech, method, r, delta)
	return math.Exp(u), math.Exp(l)
}

// epsBounds returns eps upper and lower at delta, not exponentiated (e^eps
// overflows float64 beyond eps 709.78: CDP's 2355 for DP-SGD).
func epsBounds(fig, mech, method string, r int, delta float64) (up, lo float64) {
	for _, row := range load(fig).Eps {
		if row.Mechanism == mech && row.Method == method && row.R == r && near(row.At, delta) {
			return row.Upper, row.Lower
		}
	}
	return math.NaN(), math.NaN()
}

// delta returns delta upper and lower at e^eps (a grid value).
func delta(fig, mech, method string, r int, eEps float64) (up, lo float64) {
	for _, row := range load(fig).Delta {
		if row.Mechanism == mech && row.Method == method && row.R == r && near(math.Exp(row.At), eEps) {
			return row.Upper, row.Lower
		}
	}
	return math.NaN(), math.NaN()
}

// deltaAtMost returns the upper bound at the largest grid e^eps <= eEps:
// delta_up is non-increasing in eps, so it bounds delta at eEps.
func deltaAtMost(fig, mech, method string, r int, eEps float64) (float64, float64) {
	best, bestE := math.NaN(), 0.0
	for _, row := range load(fig).Delta {
		e := math.Exp(row.At)
		if row.Mechanism == mech && row.Method == method && row.R == r && e <= eEps*(1+1e-12) && e > bestE {
			best, bestE = row.Upper, e
		}
	}
	return best, bestE
}

func p(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// verdict says whether e^eps <= 2 at delta = 1e-4 is established by the
// bracket [lo, up] of e^eps: "yes" when the upper bound meets it, "no" when
// the lower bound exceeds 2, "undecided" when the bracket straddles 2, and
// "unknown" when a bound is missing.
func verdict(up, lo float64) string {
	switch {
	case math.IsNaN(up) || math.IsNaN(lo):
		return "unknown (bound missing)"
	case up <= 2:
		return "yes"
	case lo > 2:
		return "no (proved by the lower bound)"
	default:
		return "undecided (the bracket straddles 2)"
	}
}

// tightTo returns the smallest delta_up reached, scanning the delta grid of
// one curve by increasing e^eps, before the bracket first gets wider than
// ratio (delta_up > ratio * delta_low, or delta_low = 0), and the e^eps there.
func tightTo(fig, mech string, r int, ratio float64) (delta, eEps float64) {
	type pt struct{ e, up, lo float64 }
	var pts []pt
	for _, row := range load(fig).Delta {
		if row.Mechanism == mech && row.Method == "buckets" && row.R == r {
			pts = append(pts, pt{math.Exp(row.At), row.Upper, row.Lower})
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].e < pts[j].e })
	delta, eEps = math.NaN(), math.NaN()
	for _, q := range pts {
		if !(q.lo > 0) || q.up > ratio*q.lo {
			break
		}
		delta, eEps = q.up, q.e
	}
	return delta, eEps
}

func main() {
	flag.Parse()
	p("## Measured numbers (go run ./scripts/claims)\n")

	p("### Figure 1 (truncated Gauss, r = 1)")
	{
		u, l := eps("fig-1", "gauss", "buckets", 1, 1e-4)
		p("- delta = 1e-4: eps in [%.7f, %.7f]", math.Log(l), math.Log(u))
	}

	p("\n### Figure 2")
	for _, r := range []int{1, 8, 64, 512} {
		gu, gl := eps("fig-2", "gauss", "buckets", r, 1e-4)
		mu, ml := eps("fig-2", "m", "buckets", r, 1e-4)
		p("- r = %d, delta = 1e-4: truncated Gauss e^eps in [%.5f, %.5f]; M_{eps,0} e^eps in [%.5f, %.5f]", r, gl, gu, ml, mu)
	}

	p("\n### Figure 11 (randomized response p = 0.51, r = 512, delta = 1e-4)")
	for _, m := range []string{"buckets", "exact", "kov", "cdp", "rdp"} {
		u, l := eps("fig-11", "rr", m, 512, 1e-4)
		p("- %s: e^eps upper %.4f, lower %.4f", m, u, l)
	}

	p("\n### Figure 12 (r = 512; SGD r = 2^16)")
	for _, mech := range []string{"laplace", "gauss", "coverup"} {
		for _, e := range []float64{1.1, 1.5, 2.0} {
			bu, bl := delta("fig-12", mech, "buckets", 512, e)
			ku, _ := delta("fig-12", mech, "kov", 512, e)
			p("- %s, e^eps = %.1f: buckets delta in [%.4g, %.4g], KOV %.4g (KOV / buckets upper = %.3g)", mech, e, bl, bu, ku, ku/bu)
		}
	}
	for _, mech := range []string{"laplace", "gauss"} {
		for _, e := range []float64{1.1, 1.3, 1.5, 1.8, 2.0} {
			ku, _ := delta("fig-12", mech, "kov", 512, e)
			ru, _ := delta("fig-12", mech+"-u", "rdp", 512, e)
			cu, _ := delta("fig-12", mech+"-u", "cdp", 512, e)
			p("- %s, e^eps = %.1f: KOV (truncated) %.4g, RDP (untruncated) %.4g, CDP (untruncated) %.4g", mech, e, ku, ru, cu)
		}
	}
	for _, m := range []string{"buckets", "kov", "rdp", "cdp"} {
		u, l := epsBounds("fig-12", "sgd", m, 65536, 1e-5)
		p("- sgd, delta = 1e-5, r = 2^16, %s: eps upper %.6f, lower %.6f", m, u, l)
	}
	for _, e := range []float64{1.1, 2.0, 5.0, 10.0, 20.0} {
		var vals []any
		var at float64
		for _, m := range []string{"buckets", "kov", "rdp", "cdp"} {
			u, atE := deltaAtMost("fig-12", "sgd", m, 65536, e)
			vals, at = append(vals, u), atE
		}
		p("- sgd, e^eps = %.4g (grid point): delta upper buckets %.4g, KOV %.4g, RDP %.4g, CDP %.4g", append([]any{at}, vals...)...)
	}

	p("\n### Figure 13 (Gauss sigma = 200*sqrt 2)")
	for _, e := range []float64{1.1, 1.3, 1.5} {
		var vals []any
		for _, m := range []string{"buckets", "exact", "kov", "rdp", "cdp"} {
			u, _ := delta("fig-13", "gauss", m, 512, e)
			vals = append(vals, u)
		}
		bl, _ := func() (float64, float64) { _, l := delta("fig-13", "gauss", "buckets", 512, e); return l, 0 }()
		p("- r = 512, e^eps = %.1f: delta buckets upper %.4g (lower %.4g), exact %.4g, KOV %.4g, RDP %.4g, CDP %.4g", append([]any{e, vals[0], bl}, vals[1:]...)...)
	}
	for _, r := range []int{1, 64, 512, 4096, 65536} {
		var vals []any
		for _, m := range []string{"buckets", "exact", "kov", "rdp", "cdp"} {
			u, _ := eps("fig-13", "gauss", m, r, 1e-5)
			vals = append(vals, u)
		}
		p("- r = %d, delta = 1e-5: e^eps buckets %.4f, exact %.4f, KOV %.4f, RDP %.4f, CDP %.4f", append([]any{r}, vals...)...)
	}

	p("\n### Figure 14 (truncated, r = 512)")
	for _, d := range []float64{1e-2, 1e-3, 1e-4} {
		lu, ll := eps("fig-14", "laplace", "buckets", 512, d)
		su, sl := eps("fig-14", "gauss-same", "buckets", 512, d)
		hu, hl := eps("fig-14", "gauss-half", "buckets", 512, d)
		p("- delta = %g: e^eps LP(0,200) [%.4f, %.4f], GS same variance [%.4f, %.4f], GS half variance [%.4f, %.4f]", d, ll, lu, sl, su, hl, hu)
	}
	for _, r := range []int{1, 8, 64, 512} {
		lu, _ := eps("fig-14", "laplace", "buckets", r, 1e-3)
		hu, _ := eps("fig-14", "gauss-half", "buckets", r, 1e-3)
		p("- r = %d, delta = 1e-3: e^eps LP %.5f vs GS half variance %.5f (ratio of eps %.3f)", r, lu, hu, math.Log(lu)/math.Log(hu))
	}
	for _, e := range []float64{1.3, 1.6} {
		lu, _ := delta("fig-14", "laplace", "buckets", 512, e)
		su, _ := delta("fig-14", "gauss-same", "buckets", 512, e)
		hu, _ := delta("fig-14", "gauss-half", "buckets", 512, e)
		p("- e^eps = %.1f: delta upper LP %.4g, GS same variance %.4g, GS half variance %.4g", e, lu, su, hu)
	}

	p("\n### Figure 15 (dialing, delta = 1e-4)")
	for _, r := range []int{1024, 4096, 8192, 16384} {
		gu, gl := eps("fig-15", "gs4k", "buckets", r, 1e-4)
		var adv []any
		for _, m := range []string{"lp8k", "lp13k", "lp20k"} {
			u, _ := eps("fig-15", m, "advanced", r, 1e-4)
			adv = append(adv, u)
		}
		p("- r = %d: GS(4.1k, 833) e^eps [%.4f, %.4f]; advanced composition LP(8k,500) %.4f, LP(13k,770) %.4f, LP(20k,1130) %.4f", append([]any{r, gl, gu}, adv...)...)
	}

	vuvuzela := func(fig string, r, origR int, orig string, mechs ...string) {
		pe, _ := eps(fig, orig, "advanced", origR, 1e-4)
		p("- r = %d: original analysis recomputed (advanced composition, %s at %d observations): e^eps = %.4f at delta = 1e-4", r, orig, origR, pe)
		for _, m := range mechs {
			u, l := eps(fig, m, "buckets", r, 1e-4)
			du, dl := delta(fig, m, "buckets", r, 2.0)
			at, atE := deltaAtMost(fig, m, "buckets", r, pe)
			meets := verdict(u, l)
			p("  - %s: e^eps at delta = 1e-4 in [%.4f, %.4f]; delta at e^eps = 2 in [%.3g, %.3g]; meets e^eps <= 2, delta <= 1e-4: %s; delta_up at e^eps = %.3f (grid point <= the original's %.4f): %.3g (%.2g orders below 1e-4)", m, l, u, dl, du, meets, atE, pe, at, math.Log10(1e-4/at))
		}
	}
	p("\n### Figure 16 (dialing)")
	vuvuzela("fig-16", 1024, 1024, "orig8k", "gs1600", "lp8k", "gs8k")
	vuvuzela("fig-16", 8192, 8192, "orig20k", "gs4k", "lp20k", "gs20k")
	for _, m := range []string{"gs4k", "lp20k", "gs20k"} {
		d, e := tightTo("fig-16", m, 8192, 1.1)
		p("  - %s, r = 8192: bracket within 10%% (upper <= 1.1 lower) from e^eps = 1 down to delta_up %.3g (e^eps = %.2f)", m, d, e)
	}
	p("\n### Figure 21 (dialing, reduced Laplace)")
	vuvuzela("fig-21", 1024, 1024, "orig8k", "lp4k", "lp8k", "gs8k")
	vuvuzela("fig-21", 8192, 8192, "orig20k", "lp10k", "lp20k", "gs20k")
	p("\n### Figure 3")
	vuvuzela("fig-3", 65536, 131072, "orig150k", "lp150k", "gs15k")
	vuvuzela("fig-3", 524288, 1048576, "orig450k", "lp450k", "gs45k")
	p("\n### Figure 19 (conversation)")
	vuvuzela("fig-19", 65536, 131072, "orig150k", "gs15k", "lp150k", "gs150k", "gs45k")
	vuvuzela("fig-19", 524288, 1048576, "orig450k", "gs45k", "lp450k", "gs450k", "gs15k")
	p("\n### Figure 19 check: continuous Gaussian model (method exact, delta = 1e-4)")
	for _, c := range []struct {
		mech, what string
		r          int
	}{
		{"new1-notes", "GS-new1, pair noise sigma/2, 65,536 rounds", 131072},
		{"new2-notes", "GS-new2, pair noise sigma/2, 524,288 rounds", 1048576},
		{"new2-pairs-sigma", "GS-new2, pair noise sigma, 524,288 rounds", 524288},
	} {
		u, _ := eps("fig-19-continuous", c.mech, "exact", c.r, 1e-4)
		p("- %s (%d observations): e^eps = %.4f", c.what, c.r, u)
	}

	p("\n### Figure 20 (conversation, reduced Laplace)")
	vuvuzela("fig-20", 65536, 131072, "orig150k", "lp37k", "lp150k", "gs150k")
	vuvuzela("fig-20", 524288, 1048576, "orig450k", "lp112k", "lp450k", "gs450k")

	p("\n### Figure 18 (conversation over r, delta = 1e-4)")
	for _, r := range []int{65536, 262144, 524288, 1048576} {
		gu, gl := eps("fig-18", "gs45k", "buckets", r, 1e-4)
		var adv []any
		for _, m := range []string{"orig150k", "orig300k", "orig450k"} {
			u, _ := eps("fig-18", m, "advanced", 2*r, 1e-4)
			adv = append(adv, u)
		}
		p("- r = %d rounds: GS-new2 e^eps [%.4f, %.4f]; advanced composition LP(150k) %.4f, LP(300k) %.4f, LP(450k) %.4f", append([]any{r, gl, gu}, adv...)...)
	}

	p("\n### Figure 22 (DP-SGD Renyi divergence)")
	for _, row := range load("fig-22").Renyi {
		in := row.Lower <= row.Analytic*(1+1e-9) && row.Analytic <= row.Upper*(1+1e-9)
		p("- r = %d, alpha = %g: buckets [%.5g, %.5g], estimate %.5g, analytic %.5g, analytic within the bracket: %v, estimate/analytic - 1 = %.2g", row.R, row.At, row.Lower, row.Upper, row.Estimate, row.Analytic, in, row.Estimate/row.Analytic-1)
	}
}
