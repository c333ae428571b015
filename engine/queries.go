package engine

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
)

// EpsBound is the answer to an eps(delta) query.
type EpsBound struct {
	Delta float64
	// Upper is an eps found with delta_up(eps) <= Delta (bisection to a
	// relative precision of 1e-12, the bracket's verified end): the
	// mechanism is (Upper, Delta)-DP. +Inf when delta_up stays above Delta
	// at every eps (the distinguishing events or the corner buckets hold
	// more than Delta).
	Upper float64
	// Lower is an eps with delta_low(Lower) > Delta (the bracket's verified
	// end; 0 when delta_low(0) <= Delta): for every eps below it the
	// mechanism is not (eps, Delta)-DP. +Inf when delta_low(+Inf), the
	// lower bound on the distinguishing mass, exceeds Delta. It comes from
	// the lower pair where the composed pair only dominates the mechanism
	// (lowerpair.go), and is 0 with a note when none is known. NaN when
	// error correction is disabled.
	Lower float64
	// Note says why Upper (or Lower) is +Inf, or why Lower is absent;
	// empty otherwise.
	Note string
}

// EpsUpper returns EpsBound.Upper: a sound upper bound on the tight eps for
// delta (the mechanism is (EpsUpper(delta), delta)-DP).
func (r *Result) EpsUpper(delta float64) float64 {
	up, _ := r.epsUpper(delta)
	return up
}

// EpsLower returns EpsBound.Lower: a lower bound on the tight eps for
// delta. NaN when error correction is disabled.
func (r *Result) EpsLower(delta float64) float64 {
	lo, _ := r.epsLower(delta)
	return lo
}

// Eps returns both bounds on the tight eps for delta, with a note when one
// of them is infinite.
//
// Both searches share their evaluations: every evaluation of Delta gives
// both bounds, so the upper bound's search records them and the lower
// bound's search starts from the narrowest bracket they establish (about
// half the evaluations of two separate searches). Each returned end is
// still one where the bound was evaluated and verified.
func (r *Result) Eps(delta float64) EpsBound {
	var m deltaMemo
	up, nu := r.epsUpperMemo(delta, &m)
	lo, nl := r.epsLowerMemo(delta, &m)
	note := nu
	if nl != "" && nu != "" {
		note += "; " + nl
	} else if nl != "" {
		note = nl
	}
	return EpsBound{Delta: delta, Upper: up, Lower: lo, Note: note}
}

// epsRange returns an eps beyond every bucket's log-ratios, (n+u+2)
// lambda: delta_up and delta_low are constant above it except for the
// lower terms of the corners.
func (r *Result) epsRange() float64 {
	e := r.epsMax()
	if !(e < math.MaxFloat64/4) {
		e = math.MaxFloat64 / 4
	}
	return e
}

// epsUpper returns EpsBound.Upper and its note.
func (r *Result) epsUpper(delta float64) (float64, string) {
	return r.epsUpperMemo(delta, nil)
}

// deltaMemo records the evaluations of Delta of one eps query (Eps), so
// that the lower bound's search reuses the upper bound's.
type deltaMemo struct {
	eps, upper, lower []float64
}

// eval returns Delta(e) through the memo m (nil: no memo).
//
// It evaluates r's own lists (deltaOwn): their lower bound is the
// result's only when ownLower, and epsLowerMemo reads the memo only then.
func (r *Result) evalMemo(m *deltaMemo, e float64) (up, low float64) {
	e = math.Max(e, 0)
	if m == nil {
		d := r.deltaOwn(e)
		return d.Upper, d.Lower
	}
	for i, x := range m.eps {
		if x == e {
			return m.upper[i], m.lower[i]
		}
	}
	d := r.deltaOwn(e)
	m.eps = append(m.eps, e)
	m.upper = append(m.upper, d.Upper)
	m.lower = append(m.lower, d.Lower)
	return d.Upper, d.Lower
}

// epsUpperMemo is epsUpper recording its evaluations in m (nil: none).
func (r *Result) epsUpperMemo(delta float64, m *deltaMemo) (float64, string) {
	if math.IsNaN(delta) {
		return math.NaN(), ""
	}
	f := func(e float64) float64 { up, _ := r.evalMemo(m, e); return up }
	// ok is false for NaN, so the search never takes an unverified end.
	okv := func(v float64) bool { return v <= delta }
	f0 := f(0)
	if okv(f0) {
		return 0, ""
	}
	eMax := r.epsRange()
	fMax := f(eMax)
	if !okv(fMax) {
		// Above eMax only the corners and distinguishing events are left,
		// and delta_up counts them in full at every finite eps.
		d := r.deltaOwn(math.Inf(1))
		if d.Upper > delta {
			return math.Inf(1), fmt.Sprintf("eps_up is +Inf for delta below %.3g: the distinguishing events (impossible under the other distribution) hold up to that mass", d.Upper)
		}
		floor := r.deltaOwn(eMax).Upper
		if l := r.cornerList(); l.cornerValue() > delta/2 {
			return math.Inf(1), fmt.Sprintf("eps_up is +Inf for delta below %.3g: the corner buckets (privacy loss beyond the bucket range %.4g) hold mass %.3g; more buckets or a larger factor would help", floor, l.lambda*float64(l.n), l.cornerValue())
		}
		return math.Inf(1), fmt.Sprintf("eps_up is +Inf for delta below %.3g: delta_up does not fall below it at any eps (rounding-error bounds of the composed buckets)", floor)
	}
	_, hi := searchEps(f, okv, delta, 0, eMax, f0, fMax)
	return hi, ""
}

// epsLower returns EpsBound.Lower and its note.
func (r *Result) epsLower(delta float64) (float64, string) {
	return r.epsLowerMemo(delta, nil)
}

// epsLowerMemo is epsLower reusing and recording evaluations in m (nil:
// none): the search starts from the narrowest bracket of evaluated points.
func (r *Result) epsLowerMemo(delta float64, m *deltaMemo) (float64, string) {
	if !r.ec || math.IsNaN(delta) {
		return math.NaN(), ""
	}
	switch {
	case r.lowerAbsent != "": // (lowerpair.go)
		return 0, "eps_low is 0: no lower bound is known for this mechanism (see Result.Notes)"
	case r.hasSlack(): // Delta's lower bound, no memo of the own lists
		return epsLowerSearch(func(e float64) float64 { return r.Delta(e).Lower }, delta, r.epsRange()+math.Max(r.slackA, r.slackC), nil)
	case r.lowerFrom != nil: // the lower pair's
		return r.lowerFrom.epsLowerMemo(delta, nil)
	}
	f := func(e float64) float64 { _, low := r.evalMemo(m, e); return low }
	return epsLowerSearch(f, delta, r.epsRange(), m)
}

// epsLowerSearch returns EpsBound.Lower for the lower bound f on delta,
// constant beyond eRange except for the corners' lower terms; m, if not
// nil, holds evaluations of f (its lower values) that narrow the bracket.
func epsLowerSearch(f func(float64) float64, delta, eRange float64, m *deltaMemo) (float64, string) {
	// above is true only when delta_low(e) > delta is established (false
	// for NaN): the returned end always has it.
	abovev := func(v float64) bool { return v > delta }
	f0 := f(0)
	if !abovev(f0) {
		return 0, ""
	}
	if d := f(math.Inf(1)); d > delta {
		return math.Inf(1), fmt.Sprintf("eps_low is +Inf for delta below %.3g: the distinguishing events hold at least that mass (not (eps, delta)-DP for any finite eps)", d)
	}
	// delta_low(eps) is not constant beyond the bucket range (the corners'
	// lower terms p - e^eps q fall with eps): search outwards.
	lo, hi := 0.0, eRange
	flo, fhi := f0, f(hi)
	for abovev(fhi) {
		lo, flo = hi, fhi
		if hi > math.MaxFloat64/4 {
			return lo, ""
		}
		hi *= 2
		fhi = f(hi)
	}
	if m != nil {
		// every evaluated point inside the bracket narrows it (its value
		// was computed, so the ends stay verified)
		for i, x := range m.eps {
			if !(x > lo && x < hi) {
				continue
			}
			if v := m.lower[i]; abovev(v) {
				lo, flo = x, v
			} else {
				hi, fhi = x, v
			}
		}
	}
	lo, _ = searchEps(f, func(v float64) bool { return !abovev(v) }, delta, lo, hi, flo, fhi)
	return lo, ""
}

// searchEps returns a bracket [lo, hi] of relative width 1e-12 (at most
// 200 evaluations of f) with ok(f(hi)) true and ok(f(lo)) false, given
// both at the start (flo = f(lo), fhi = f(hi)). The ends keep their
// verified values whatever f does, as in bisect; f is a delta bound,
// monotone and smooth in eps, so each point is chosen by the secant
// through the last two evaluations of ln f - ln target (a handful of
// evaluations instead of about 45 halvings), and by halving where that is
// undefined (f = 0 or 1), falls outside the bracket or stops shrinking it.
func searchEps(f func(float64) float64, ok func(float64) bool, target, lo, hi, flo, fhi float64) (float64, float64) {
	g := func(v float64) float64 {
		if !(v > 0) || math.IsInf(v, 0) || !(target > 0) {
			return math.NaN()
		}
		return ln(v) - ln(target)
	}
	x0, g0, x1, g1 := lo, g(flo), hi, g(fhi)
	prevWidth := hi - lo
	halve := false
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		x := lo + (hi-lo)/2
		if !halve {
			if s := x1 - g1*(x1-x0)/(g1-g0); s > lo && s < hi {
				// never within a quarter of the target width of an end
				// (the next step then closes the bracket from the other
				// side)
				tol := 0.25e-12 * hi
				x = math.Min(math.Max(s, lo+tol), hi-tol)
			}
		}
		v := f(x)
		if ok(v) {
			hi = x
		} else {
			lo = x
		}
		x0, g0, x1, g1 = x1, g1, x, g(v)
		// halve when two steps did not halve the bracket
		halve = false
		if i%2 == 1 {
			halve = hi-lo > prevWidth/2 && hi-lo > 1e-9*hi
			prevWidth = hi - lo
		}
	}
	return lo, hi
}

// bisect returns a bracket [lo, hi] of relative width 1e-12 (at most 200
// halvings) with ok(hi) true and ok(lo) false, given ok(hi0) true and
// ok(lo0) false; ok must be monotone for the bracket to be narrow, but the
// returned ends keep their verified values whatever ok does.
func bisect(ok func(float64) bool, lo, hi float64) (float64, float64) {
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		m := lo + (hi-lo)/2
		if ok(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return lo, hi
}

// renyiGrouped returns lower and upper bounds on the Renyi divergence D_alpha
// of the composed pair from the grouped list, maximised over both
// directions, for alpha > 1 (Section
// 5.7: D_alpha = 1/(alpha-1) ln sum_x P_A(x)^alpha P_B(x)^(1-alpha)). Within a
// bucket the lower bound uses Jensen's inequality and the upper bound the
// chord over the bucket's ratio interval. The upper bound is +Inf when the
// infinity corner holds mass (its ratios are unbounded); Estimate gives the
// paper's approximation in that case.
func (r *Result) renyiGrouped(alpha float64) (lower, upper float64) {
	l, b := r.l, r.b
	ul := l.u * l.lambda
	// far: the other corner, whose events have ratio at most f^-n in this
	// direction; it adds at most its mass times f^(-n(alpha-1)).
	u := unitRoundoff
	g := 1 + gamma(2*l.n+8) // the sums over all offsets
	// dir returns ln of the lower bound (in log space: the terms may
	// exceed the float64 range) and the upper bound of one direction.
	dir := func(p, q []float64, ep, eq []float64, sign float64, cornerP, far val, dist val) (float64, float64) {
		var lo logSum
		var hi float64
		for o := 0; o < 2*l.n; o++ { // all offsets: see list.delta
			pl, ph := math.Max(0, p[o]-ep[o]), p[o]+ep[o]
			ql, qh := math.Max(0, q[o]-eq[o]), q[o]+eq[o]
			if pl > 0 && qh > 0 {
				lp, lq := ln(pl), ln(qh)
				// exp of a sum with absolute error of a few u of its parts
				eps := 4 * u * (2 + alpha*(math.Abs(lp)+math.Abs(lq)))
				lo.add(alpha*lp + (1-alpha)*lq + math.Log1p(-eps))
			}
			if ph == 0 {
				continue
			}
			// Ratios of the bucket's events lie in [lLo, lHi] (widened by
			// the rounding of L and u*lambda).
			L := sign * l.loss(o)
			lHi := L + 4*u*math.Abs(L)
			if sign < 0 {
				lHi = L + ul + 4*u*(math.Abs(L)+ul)
			}
			d := ul * (1 + 8*u)
			if ul > 0 {
				d += 8 * u * math.Abs(L)
			}
			a1 := alpha - 1
			// cap: every event has ratio at most e^lHi.
			h1 := math.Exp(a1 * lHi)
			capv := ph * h1 * (1 + 4*u*(2+a1*math.Abs(lHi)))
			if d == 0 {
				hi += capv
				continue
			}
			// chord of y^(1-alpha) on [y1, y2] = [e^-lHi, e^-(lHi-d)] at
			// y = q/p, evaluated with a rigorous allowance for rounding
			// (catastrophic when the interval is narrow; the cap then wins).
			y1 := math.Exp(-lHi)
			den := y1 * math.Expm1(d)
			y2 := y1 + den
			h2 := math.Exp(a1 * (lHi - d))
			c := (h1*(ph*y2-ql) + h2*(ql-ph*y1)) / den
			mag := (h1*(ph*y2+ql) + h2*(ql+ph*y1)) / den
			c += 16 * u * (4 + alpha*math.Abs(lHi) + alpha*d) * mag
			if !(c < capv) { // also NaN (overflowed chord): the cap holds
				c = capv
			}
			hi += math.Max(c, 0)
		}
		if fu := far.upper(); fu > 0 {
			hi += fu * math.Exp(-(alpha-1)*float64(l.n)*l.lambda) * (1 + 4*u*(2+(alpha-1)*float64(l.n)*l.lambda))
		}
		if cornerP.v > 0 || dist.v > 0 || math.IsNaN(hi) {
			hi = math.Inf(1)
		}
		return lo.log() - math.Log1p(g-1)*(1+4*u), hi * g
	}
	lnLoAB, hiAB := dir(l.a, l.c, b.ea, b.ec, 1, l.hiA, l.loA, l.distA)
	lnLoBA, hiBA := dir(l.c, l.a, b.ec, b.ea, -1, l.loC, l.hiC, l.distB)
	// ln is accurate to an ulp of its result; divide, then round outwards.
	lower = math.Max(lnLoAB, lnLoBA) / (alpha - 1)
	upper = ln(math.Max(hiAB, hiBA)) / (alpha - 1)
	lower = math.Nextafter(math.Nextafter(lower, math.Inf(-1)), math.Inf(-1))
	upper = math.Nextafter(math.Nextafter(upper, math.Inf(1)), math.Inf(1))
	return math.Max(lower, 0), upper
}

// logSum accumulates ln sum_k e^(x_k) without overflow, rounded down by a
// few units of roundoff of its magnitude (it serves a lower bound).
type logSum struct {
	m, s float64 // sum = e^m s, s >= 1 once a term was added
	n    int
}

func (ls *logSum) add(x float64) {
	if math.IsInf(x, -1) || math.IsNaN(x) {
		return
	}
	ls.n++
	if ls.n == 1 {
		ls.m, ls.s = x, 1
		return
	}
	if x <= ls.m {
		ls.s += math.Exp(x - ls.m)
	} else {
		ls.s = ls.s*math.Exp(ls.m-x) + 1
		ls.m = x
	}
}

// log returns a lower bound on ln of the sum (-Inf when empty): each
// exponential and addition rounds by at most 2u relatively, and the
// exponents carry absolute errors of a few u of m.
func (ls *logSum) log() float64 {
	if ls.n == 0 {
		return math.Inf(-1)
	}
	v := ls.m + ln(ls.s)
	return v - math.Log1p(gamma(2*ls.n+4)) - 8*unitRoundoff*(math.Abs(ls.m)+math.Abs(v)+1)
}

// RenyiEstimate returns the paper's approximation of D_alpha from the
// buckets (5.7), ignoring the corners, maximised over both directions.
func (r *Result) RenyiEstimate(alpha float64) float64 {
	l := r.l
	if l == nil {
		return r.g.gridRenyiEstimate(alpha)
	}
	var sAB, sBA float64
	for o := l.lo; o <= l.hi; o++ {
		if l.a[o] > 0 && l.c[o] > 0 {
			la, lc := ln(l.a[o]), ln(l.c[o])
			sAB += math.Exp(alpha*la + (1-alpha)*lc)
			sBA += math.Exp(alpha*lc + (1-alpha)*la)
		}
	}
	return ln(math.Max(sAB, sBA)) / (alpha - 1)
}

// EstimateMemory returns an estimate in bytes of the peak live memory of one
// composition with these options (bucket arrays of the stored powers of two,
// error bounds, FFT buffers and tilt weights), for admission control. It
// counts live bytes, not the garbage the collector has yet to reclaim: with
// the default GOGC=100 the heap of a composition reaches up to about twice
// them (measured for Gauss, r = 2^16, 100,000 buckets: estimate 114 MB, peak
// heap growth 172 to 183 MB; with GOGC=20, 122 MB). It depends on the
// options only: the one-time work of a mechanism whose events are computed
// when it is first composed is not included; add EstimateConversationMemory
// or EstimateDialingMemory for the Vuvuzela pairs (the other mechanisms need
// little beyond the bucket lists).
func EstimateMemory(opt Options) int64 {
	o, err := opt.withDefaults()
	if err != nil {
		o.Buckets, o.Tilts = 100000, 3
	}
	n := int64(o.Buckets / 2)
	N := int64(nextPow2(int(3 * n)))
	lists := int64(44)                      // up to 40 stored powers plus working lists
	perList := 2 * 2 * n * 8                // a and c
	errs := 4 * 2 * n * 8                   // error bound arrays of two operands
	fft := 4 * N * 8                        // scratch
	tw := N*8 + N*4 + N*16                  // twiddles, bit reversal, stage twiddles
	wts := 4 * int64(o.Tilts+2) * 2 * n * 8 // weight cache (tilts per level, 4 entries)
	table := 10 * 2 * n * 8                 // bounds and delta table of a queried Result
	one := lists*perList + errs + fft + tw + wts + table
	if o.DisableErrorCorrection || o.Lists == ListsGrouped {
		return one + 1<<20
	}
	// the grid lists are composed at once by a second composer (the same
	// arrays again) and recorded leaf groups; a queried Result keeps the
	// grid table (3 arrays) and bounds; grid squarings 4 arrays of scratch
	grid := lists*perList + errs + fft + tw + wts + (5+4)*2*n*8 + 2*2*n*32
	if o.Lists == ListsGrid {
		return grid + 1<<20
	}
	return one + grid + 1<<20
}

// EstimateConversationMemory returns an estimate in bytes of the memory that
// VuvuzelaConversation(noise, mu, scale) adds to a composition, to be added
// to EstimateMemory: everything its one-time build allocates (the four
// count PMFs and their logs; the ten arrays of the sum's enclosures; the
// FFT plan (twiddles, bit reversal, stage twiddles: 28 bytes per entry) and
// the four FFT buffers (32 bytes per entry) of length N = nextPow2 of the
// sum's length, at most 2^23, so about 0.5 GiB for these two alone; the
// events, bounded as one entry per sum entry and with every capacity the
// appends go through) and the loss ranges the plan derives from the events.
// It is an upper bound on the heap the build reaches even if the collector
// reclaims nothing meanwhile (the FFT buffers are garbage once the events
// are stored); the events and the loss ranges stay for the composition.
// Parameters the constructor refuses get the estimate of their size.
func EstimateConversationMemory(noise Noise, mu, scale float64) int64 {
	t := tailWidth(noise, convTail)
	xa0, xa1 := estCountRange(t, mu, scale)
	xb0, xb1 := estCountRange(t, mu+2, scale)
	ya0, ya1 := estCountRange(t, mu/2, scale/2)
	yb0, yb1 := estCountRange(t, mu/2+1, scale/2)
	n1 := math.Max(xa1, xb1) - math.Min(xa0, xb0) + 1
	n2 := math.Max(ya1, yb1) - math.Min(ya0, yb0) + 1
	nz := n1 + n2 - 1
	N := math.Max(2, math.Exp2(math.Ceil(math.Log2(nz))))
	dists := 8 * (xa1 - xa0 + xb1 - xb0 + ya1 - ya0 + yb1 - yb0 + 4)
	logs := 8 * 2 * (n1 + n2)
	sums := 10 * 8 * nz
	fft := 28*N + 32*N
	return estBytes(dists + logs + sums + fft + estEventsMemory(nz) + 1<<16)
}

// EstimateDialingMemory returns an estimate in bytes of the memory that
// VuvuzelaDialing(noise, mu, scale) adds to a composition, counted as in
// EstimateConversationMemory: its two count PMFs, its events (one per
// count, with every capacity the appends go through) and their loss ranges.
func EstimateDialingMemory(noise Noise, mu, scale float64) int64 {
	t := tailWidth(noise, dialTail)
	a0, a1 := estCountRange(t, mu, scale)
	b0, b1 := estCountRange(t, mu+2, scale)
	n := math.Max(a1, b1) - math.Min(a0, b0) + 1
	dists := 8 * (a1 - a0 + b1 - b0 + 2)
	return estBytes(dists + estEventsMemory(n) + 1<<16)
}

// estCountRange returns the first and last count newCountDist stores for a
// tail width of t standard units (as float64, which does not overflow).
func estCountRange(t, mu, scale float64) (lo, hi float64) {
	return math.Max(0, math.Floor(mu-t*scale)), math.Ceil(mu+t*scale) + 1
}

// estEventsMemory bounds the bytes allocated for n events of a countMech and
// their loss ranges. Each of the four slices is appended to one entry at a
// time: every growth allocates at least 1.25 times the previous capacity,
// so all capacities together are at most 5 times the last, which is at
// most 1.25 n plus 1,216 entries (growth by (c+768)/4, rounded up to an
// 8 KiB page): 50 n + 48,640 bytes per slice. lossRange then allocates 16
// bytes per event for the sort and 16 for the ranges it keeps.
func estEventsMemory(n float64) float64 {
	return 4*(50*n+48640) + 32*n
}

// estBytes converts a byte count to int64, mapping NaN and values beyond
// 2^62 (invalid parameters) to 2^62.
func estBytes(b float64) int64 {
	if !(b < 1<<62) {
		return 1 << 62
	}
	return int64(math.Ceil(b))
}

// resultWire is the serialised form of a Result.
type resultWire struct {
	N                                int
	Lambda, U                        float64
	A, C                             floats // the support Lo..Hi (wirefloats.go)
	Lo, Hi                           int
	RelA, RelC                       float64
	Tau, EnvA, EnvC                  []float64
	L1A, L1C                         float64
	HasL1                            bool      // false in encodings older than the total-error bounds
	TL1A, TL1C                       []float64 // tilted total-error bounds (tl1.go); absent in older encodings
	TL1ZA, TL1ZC                     []float64 // their zeroed parts (list.tl1ZA)
	ZA, ZC                           float64
	HiA, HiC, LoA, LoC, DistA, DistB [2]float64
	Compositions, Squarings          int
	Names                            []string
	Counts                           []int
	EC                               bool
	Info                             Info
	Grid                             *gridWire // the grid list, if any (gridwire.go)
	NoGrouped                        bool      // no grouped list (the grid list alone)
	Swap                             *gridWire // the swapped grid list, if any (gridswap.go)
	Abs                              float64
	Notes                            []string
	Lower                            []byte    // the lower pair's result, if any (lowerpair.go)
	LowerAbsent                      string    // why the lower bounds are absent, if they are
	SlackA, SlackC                   float64   // the lower bounds' rate slack (lowerpair.go)
	MomA, MomB                       []float64 // moment bounds (momentbound.go), absent when none
	MomRest                          [2]float64
}

// MarshalBinary encodes the result (the composed bucket list and how it was
// made) so that it can be cached.
func (r *Result) MarshalBinary() ([]byte, error) {
	l := r.l
	if l == nil { // a grid list alone
		l = &list{}
	}
	w := resultWire{NoGrouped: r.l == nil, N: l.n, Lambda: l.lambda, U: l.u, A: support(l.a, l.lo, l.hi), C: support(l.c, l.lo, l.hi), Lo: l.lo, Hi: l.hi,
		RelA: l.relA, RelC: l.relC, Tau: l.tau, EnvA: l.envA, EnvC: l.envC,
		L1A: l.l1A, L1C: l.l1C, HasL1: true, TL1A: l.tl1A, TL1C: l.tl1C, TL1ZA: l.tl1ZA, TL1ZC: l.tl1ZC, ZA: l.zA, ZC: l.zC,
		HiA: [2]float64{l.hiA.v, l.hiA.e}, HiC: [2]float64{l.hiC.v, l.hiC.e},
		LoA: [2]float64{l.loA.v, l.loA.e}, LoC: [2]float64{l.loC.v, l.loC.e},
		DistA: [2]float64{l.distA.v, l.distA.e}, DistB: [2]float64{l.distB.v, l.distB.e},
		Compositions: l.compositions, Squarings: l.squarings, EC: r.ec, Info: r.info,
		Abs: l.abs, Notes: r.notes, Grid: gridToWire(r.g), Swap: gridToWire(r.s)}
	if mom := r.moments(); mom != nil {
		w.MomA, w.MomB, w.MomRest = mom.ma, mom.mb, [2]float64{mom.restA, mom.restB}
	}
	for _, nc := range l.names {
		w.Names = append(w.Names, nc.name)
		w.Counts = append(w.Counts, nc.count)
	}
	w.LowerAbsent, w.SlackA, w.SlackC = r.lowerAbsent, r.slackA, r.slackC
	if r.lowerFrom != nil {
		b, err := r.lowerFrom.MarshalBinary()
		if err != nil {
			return nil, err
		}
		w.Lower = b
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&w); err != nil {
		return nil, fmt.Errorf("engine: encoding result: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes a result written by MarshalBinary.
func (r *Result) UnmarshalBinary(data []byte) error {
	var w resultWire
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return fmt.Errorf("engine: decoding result: %w", err)
	}
	if w.NoGrouped {
		g, ok := gridFromWire(w.Grid)
		if !ok || g == nil {
			return fmt.Errorf("engine: decoding result: inconsistent grid list")
		}
		*r = Result{ec: true, info: w.Info, notes: w.Notes}
		r.withGrid(g)
		r.setMoments(momentFromWire(&w))
		if err := r.swapFromWire(w.Swap); err != nil {
			return err
		}
		return r.lowerFromWire(&w)
	}
	if w.N < 2 || w.N > 1<<39 || len(w.EnvA) != len(w.Tau) || len(w.EnvC) != len(w.Tau) || len(w.Names) != len(w.Counts) {
		return fmt.Errorf("engine: decoding result: inconsistent sizes")
	}
	a, okA := expand(w.A, w.Lo, w.Hi, 2*w.N)
	c, okC := expand(w.C, w.Lo, w.Hi, 2*w.N)
	if !okA || !okC {
		return fmt.Errorf("engine: decoding result: inconsistent sizes")
	}
	l := &list{n: w.N, lambda: w.Lambda, u: w.U, a: a, c: c, lo: w.Lo, hi: w.Hi,
		relA: w.RelA, relC: w.RelC, tau: w.Tau, envA: w.EnvA, envC: w.EnvC,
		hiA: val{w.HiA[0], w.HiA[1]}, hiC: val{w.HiC[0], w.HiC[1]},
		loA: val{w.LoA[0], w.LoA[1]}, loC: val{w.LoC[0], w.LoC[1]},
		distA: val{w.DistA[0], w.DistA[1]}, distB: val{w.DistB[0], w.DistB[1]},
		compositions: w.Compositions, squarings: w.Squarings, abs: w.Abs}
	l.l1A, l.l1C = math.Inf(1), math.Inf(1) // unknown: pointwise bounds only
	if w.HasL1 {
		l.l1A, l.l1C = w.L1A, w.L1C
	}
	if len(w.TL1A) == len(w.Tau) && len(w.TL1C) == len(w.Tau) {
		l.tl1A, l.tl1C = w.TL1A, w.TL1C
		l.tl1ZA, l.tl1ZC, l.zA, l.zC = w.TL1ZA, w.TL1ZC, w.ZA, w.ZC
	}
	for i := range w.Names {
		l.names = append(l.names, nameCount{w.Names[i], w.Counts[i]})
	}
	g, ok := gridFromWire(w.Grid)
	if !ok {
		return fmt.Errorf("engine: decoding result: inconsistent grid list")
	}
	*r = Result{l: l, b: l.bounds(), ec: w.EC, info: w.Info, notes: w.Notes}
	r.withGrid(g)
	r.setMoments(momentFromWire(&w))
	if err := r.swapFromWire(w.Swap); err != nil {
		return err
	}
	return r.lowerFromWire(&w)
}

// lowerFromWire restores the lower source of an encoded result.
func (r *Result) lowerFromWire(w *resultWire) error {
	if w.Lower != nil && w.LowerAbsent != "" {
		return fmt.Errorf("engine: decoding result: both a lower pair and its absence")
	}
	if !(w.SlackA >= 0 && w.SlackC >= 0) {
		return fmt.Errorf("engine: decoding result: rate slack %v, %v", w.SlackA, w.SlackC)
	}
	r.lowerAbsent, r.slackA, r.slackC = w.LowerAbsent, w.SlackA, w.SlackC
	if w.Lower != nil {
		low := new(Result)
		if err := low.UnmarshalBinary(w.Lower); err != nil {
			return fmt.Errorf("engine: decoding the lower pair's result: %w", err)
		}
		r.lowerFrom = low
	}
	return nil
}
