package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// Exact references for the Vuvuzela pairs with Laplace noise (integer
// counts ceil(max(0, mu + b Z))), independent of the engine's count code:
// masses from lapMass on the counts' intervals, sums by double-double
// convolution, r-fold products by enumerating multisets (multisetDelta).

// countRef is a reference pair: events with A- and B-masses
// enclosed by [aLo, aHi], [bLo, bHi], rest the mass of the events left out
// (counted in full by the upper references), lossHi and lossLo the largest
// and the smallest loss of an event kept.
type countRef struct {
	aLo, aHi, bLo, bHi []float64
	restA, restB       float64
	lossHi, lossLo     float64
}

// refRel is the relative error allowed each reference mass (lapMass and
// the double-double sums are accurate to a few units in the last place;
// the arguments (k - mu)/b to about |t| units), refAbs the absolute
// allowance for masses below 2^-1022 (up to a thousand subnormal products
// of 2^-1075 each).
const (
	refRel = 1e-12
	refAbs = 0x1p-1060
)

func (p *countRef) add(a, b, drop float64) {
	if a == 0 || b == 0 || (a < drop && b < drop) {
		p.restA += a*(1+refRel) + refAbs
		p.restB += b*(1+refRel) + refAbs
		return
	}
	lo := func(v float64) float64 { return math.Max(0, v*(1-refRel)-refAbs) }
	hi := func(v float64) float64 { return v*(1+refRel) + refAbs }
	p.aLo, p.aHi = append(p.aLo, lo(a)), append(p.aHi, hi(a))
	p.bLo, p.bHi = append(p.bLo, lo(b)), append(p.bHi, hi(b))
	l := ln(a) - ln(b)
	p.lossHi, p.lossLo = math.Max(p.lossHi, l), math.Min(p.lossLo, l)
}

// dialingLaplaceRef is the dialing pair (means mu and mu + 2, scale b)
// with each geometric side merged into one atom of loss +-2/b (events of
// equal loss may be merged: the r-fold products' delta depends on the
// losses' law only), so nothing is left out: the counts 0..floor(mu) are
// {X <= floor(mu)} on both sides, the counts above mu + 3 are
// {X > ceil(mu + 2)}, and the counts between are single events.
func dialingLaplaceRef(mu, b float64) *countRef {
	p := &countRef{}
	kL := math.Floor(mu)
	kR := math.Ceil(mu+2) + 1 // first count with k - 1 >= mu + 2
	// left atom: P(X <= kL) = e^((kL - mean)/b)/2 (kL <= both means)
	p.add(math.Exp((kL-mu)/b)/2, math.Exp((kL-mu-2)/b)/2, 0)
	for k := kL + 1; k < kR; k++ {
		p.add(lapMass((k-1-mu)/b, (k-mu)/b), lapMass((k-3-mu)/b, (k-2-mu)/b), 0)
	}
	// right atom: P(X > kR - 1) = e^(-(kR - 1 - mean)/b)/2
	p.add(math.Exp(-(kR-1-mu)/b)/2, math.Exp(-(kR-3-mu)/b)/2, 0)
	return p
}

// conversationLaplaceRef is the conversation pair (singles: means mu and
// mu + 2, scale b; pairs: mu/2 and mu/2 + 1, scale b/2), the sums by
// direct convolution, events below drop (both masses) left out.
func conversationLaplaceRef(mu, b, drop float64) *countRef {
	K := int(mu + 720*b + 4)
	count := func(mean, scale float64) []float64 {
		p := make([]float64, K+1)
		p[0] = math.Exp(-mean/scale) / 2 // P(X <= 0)
		for k := 1; k <= K; k++ {
			p[k] = lapMass((float64(k-1)-mean)/scale, (float64(k)-mean)/scale)
		}
		return p
	}
	za := ddConvolve(count(mu, b), count(mu/2, b/2))
	zb := ddConvolve(count(mu+2, b), count(mu/2+1, b/2))
	p := &countRef{}
	for k := range za {
		p.add(za[k], zb[k], drop)
	}
	// the counts above K: P(X > K) per count, each below 1e-300
	p.restA += 2 * math.Exp(-(float64(K)-mu)/b)
	p.restB += 2 * math.Exp(-(float64(K)-mu-2)/b)
	return p
}

// deltaQueries returns eps values from 0 to past both ends of the r-fold
// loss range, dense near them: the conversation pair's negative losses
// approach their end only in the counts' far tails, where delta B||A
// falls to about 1e-300.
func deltaQueries(p *countRef, r int) []float64 {
	e := []float64{0, 0.05, 0.2, 0.5, 1}
	for _, top := range []float64{p.lossHi * float64(r), -p.lossLo * float64(r)} {
		for _, f := range []float64{0.1, 0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999, 0.99999, 0.999999, 1, 1.01, 1.5} {
			e = append(e, top*f)
		}
	}
	return e
}

// tightBelow is the eps below which checkAgainstRef checks tightness: the
// last 0.1% of the loss range, where delta falls to 0 over a fraction of a
// bucket, is checked for soundness only.
func tightBelow(p *countRef, r int) float64 {
	return 0.999 * float64(r) * math.Min(p.lossHi, -p.lossLo)
}

// checkAgainstRef composes m for the counts rs and checks delta_up and
// delta_low in each direction against the references at every query:
// sound (upper at least the exact's lower end, lower at most its upper
// end) and, where the exact is at least tightFrom (and eps below
// tightBelow), within the factor within (0: not checked). It returns the failures and the smallest
// positive exact delta checked.
func checkAgainstRef(m Mechanism, rs []int, refs []*countRef, opt Options, tightFrom, within float64, logf func(string, ...any)) (fails []string, smallest float64) {
	res, err := ComposeMany(context.Background(), m, rs, opt)
	if err != nil {
		return []string{err.Error()}, 0
	}
	return checkResultsAgainstRef(m, res, rs, refs, tightFrom, within, false, logf)
}

// checkResultsAgainstRef is checkAgainstRef on results composed for the
// counts rs; with upperOnly the tightness check is on the upper end only.
func checkResultsAgainstRef(m Mechanism, res []*Result, rs []int, refs []*countRef, tightFrom, within float64, upperOnly bool, logf func(string, ...any)) (fails []string, smallest float64) {
	smallest = 1
	for ri, r := range rs {
		ref := refs[ri]
		eps := deltaQueries(ref, r)
		abLo, abHi, baLo, baHi := multisetDelta(ref.aLo, ref.aHi, ref.bLo, ref.bHi, ref.restA, ref.restB, r, eps)
		for i, e := range eps {
			d := res[ri].Delta(e)
			for _, s := range []struct {
				dir            string
				lo, up, ex, eh float64
			}{{"A||B", d.LowerAB, d.UpperAB, abLo[i], abHi[i]}, {"B||A", d.LowerBA, d.UpperBA, baLo[i], baHi[i]}} {
				where := fmt.Sprintf("%s r=%d eps=%.6g %s: [%.4g, %.4g], exact [%.4g, %.4g]", m, r, e, s.dir, s.lo, s.up, s.ex, s.eh)
				if logf != nil {
					logf("%s", where)
				}
				if s.ex > 0 {
					smallest = math.Min(smallest, s.ex)
				}
				if !(s.up >= s.ex) || !(s.lo <= s.eh) {
					fails = append(fails, "misses the exact: "+where)
					continue
				}
				if within <= 0 || e >= tightBelow(ref, r) {
					continue
				}
				if upperOnly {
					if s.eh >= tightFrom && s.up > within*s.eh {
						fails = append(fails, fmt.Sprintf("upper end not within %vx: %s r=%d eps=%.6g %s: %.4g, exact at most %.4g", within, m, r, e, s.dir, s.up, s.eh))
					}
				} else if s.ex >= tightFrom && (s.up > within*s.eh || s.lo*within < s.ex) {
					fails = append(fails, fmt.Sprintf("not within %vx: %s", within, where))
				}
			}
		}
	}
	return fails, smallest
}

// TestDialingLaplaceEnumerated: the dialing pair with Laplace noise against
// its exact r-fold product (two atoms of loss +-2/b and the few counts
// between), r = 1..6, integer and non-integer means, at the default and at
// 4,000 buckets, means below 1 (the atom of loss 2/b then holds about
// e^(-mu/b): delta down to 1e-188): sound everywhere, and at the default
// buckets within 10x where the exact delta is at least 1e-12 (both ends;
// the grid lists alone: the upper end, which was 1 while the atom -2/b lay
// below the grid's points). At 4,000 buckets the loss range's last 1e-5
// is up to 40x loose.
func TestDialingLaplaceEnumerated(t *testing.T) {
	t.Parallel()
	rs := []int{1, 2, 3, 4, 5, 6}
	for _, c := range []struct {
		mu, b   float64
		buckets int
		lists   Lists
	}{{3, 1, 0, ListsBoth}, {3, 1, 0, ListsGrid}, {2.5, 0.4, 0, ListsBoth}, {2.5, 0.4, 0, ListsGrid},
		{7.3, 2.5, 4000, ListsBoth}, {0.6, 0.7, 4000, ListsBoth}, {0.3, 0.01, 0, ListsBoth}, {0.3, 0.01, 0, ListsGrid}} {
		m, err := VuvuzelaDialing(NoiseLaplace, c.mu, c.b)
		if err != nil {
			t.Fatal(err)
		}
		ref := dialingLaplaceRef(c.mu, c.b)
		refs := make([]*countRef, len(rs))
		for i := range refs {
			refs[i] = ref
		}
		opt := Options{Buckets: c.buckets, Lists: c.lists}
		within := 10.0
		if c.buckets != 0 {
			within = 0
		}
		var fails []string
		var smallest float64
		if c.lists == ListsGrid {
			// the grid's lower pair loses the atoms' mass at squarings:
			// its lower bounds are only checked for soundness
			fails, smallest = checkAgainstRefUpper(m, rs, refs, opt, 1e-12, 10)
		} else {
			fails, smallest = checkAgainstRef(m, rs, refs, opt, 1e-12, within, nil)
		}
		for _, f := range fails {
			t.Error(f)
		}
		t.Logf("%s, lists %d: exact deltas down to %.3g checked", m, c.lists, smallest)
	}
}

// TestConversationLaplaceEnumerated: the conversation pair with Laplace
// noise against the exact r-fold product of its directly convolved counts,
// r = 1..6, at eps out to where delta is about 1e-300 (the loss reaches
// the end of its range only in the counts' far tails): sound everywhere.
// Events below drop are left out of the reference (counted in full by its
// upper end), so the larger r check less of the far tail: by default
// events below 1e-30 at r = 3, 4 and 1e-11 at r = 5, 6 (1.3e7 multisets),
// with PB_LONG below 1e-40 and 1e-13 (3e7 multisets).
func TestConversationLaplaceEnumerated(t *testing.T) {
	t.Parallel()
	drop34, drop56 := 1e-30, 1e-11
	if longTests() {
		drop34, drop56 = 1e-40, 1e-13
	}
	for _, c := range []struct {
		mu, b float64
		rs    []int
		drop  float64
	}{
		{4, 1.2, []int{1, 2}, 1e-300},
		{4, 1.2, []int{3, 4}, drop34},
		{4, 1.2, []int{5, 6}, drop56},
		{5.5, 0.6, []int{1, 2}, 1e-300},
		{5.5, 0.6, []int{3}, 1e-60},
		// means below 1, small scales: the atom of loss 4/b holds about
		// e^(-1.5 mu/b), so delta reaches 1e-300 and below
		{0.3, 0.005, []int{1, 2, 3, 4, 5, 6}, 1e-300},
		{0.7, 0.02, []int{1, 2, 3, 4, 5, 6}, 1e-300},
	} {
		m, err := VuvuzelaConversation(NoiseLaplace, c.mu, c.b)
		if err != nil {
			t.Fatal(err)
		}
		ref := conversationLaplaceRef(c.mu, c.b, c.drop)
		refs := make([]*countRef, len(c.rs))
		for i := range refs {
			refs[i] = ref
		}
		fails, smallest := checkAgainstRef(m, c.rs, refs, Options{}, 0, 0, nil)
		for _, f := range fails {
			t.Error(f)
		}
		t.Logf("%s: exact deltas down to %.3g checked", m, smallest)
	}
}

// checkAgainstRefUpper is checkAgainstRef with the tightness check on the
// upper end only (the lower end still checked for soundness).
func checkAgainstRefUpper(m Mechanism, rs []int, refs []*countRef, opt Options, tightFrom, within float64) ([]string, float64) {
	res, err := ComposeMany(context.Background(), m, rs, opt)
	if err != nil {
		return []string{err.Error()}, 0
	}
	return checkResultsAgainstRef(m, res, rs, refs, tightFrom, within, true, nil)
}

// TestConversationLeafRounding: the leaf of a Laplace conversation pair
// keeps the relative error of its masses (about 1.3e-13) in every bucket,
// grouped list and grid list: its events are summed per bucket with
// compensation (countgroup.go). Summed one by one, the bucket with the most
// events (about 1e5 at the ends of the range) set 1.2e-10 for all.
func TestConversationLeafRounding(t *testing.T) {
	t.Parallel()
	m, err := VuvuzelaConversation(NoiseLaplace, 37500, 2300)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(context.Background(), m, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rel := m.(*countMech).relErr()
	for _, c := range []struct {
		name string
		l    *list
	}{{"grouped", res.l}, {"grid", res.g}} {
		if c.l == nil {
			t.Fatalf("%s list missing", c.name)
		}
		if got := math.Max(c.l.relA, c.l.relC); !(got <= 4*rel+1e-14) {
			t.Errorf("%s leaf: relative error %.3g, want at most about the masses' %.3g", c.name, got, rel)
		}
	}
}
