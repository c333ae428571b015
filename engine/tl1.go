package engine

import "math"

// Tilted total-error bounds.
//
// Beside the pointwise model (rel*value + min_m env_m e^(-tau_m L(o))) and
// the untilted total error l1 (list.l1A), every list carries, per tilt
// tau_m of its tilt set, a bound on the error summed in the tilted measure:
//
//	E_m = tl1A[m] >= sum_o |a_true[o] - a[o]| e^(tau_m L(o))     (regular o)
//
// and likewise tl1C for c, with L(o) = (o-n+1) lambda in real arithmetic.
// Delta sums the errors of the buckets beyond eps: over a set S of offsets
// with L(o) >= Ls and tau_m >= 0, sum_S |err| <= e^(-tau_m Ls) E_m (the
// mirror for L(o) <= Ls and tau_m <= 0). The pointwise envelopes summed
// over the buckets beyond eps grow like sqrt(buckets) (each shrinks only
// 2x per 4x buckets while 4x as many are summed); the FFT part of E_m is
// bounded by Cauchy-Schwarz (sqrt(N) times a 2-norm bound, as for l1), so
// E_m does not grow with the buckets summed.
//
// Propagation (each step is a sound upper bound; nothing is estimated):
//
//   - Composition z = x × y. Indices add, so L(j) + L(k) = L(j+k) and
//     e^(tau L) is multiplicative. With dx = x_true - x, z_true - x*y =
//     dx*y_true + x*dy, and Young's inequality in the tilted measure gives
//     sum_o |dz_o| e^(tau L(o)) <= E_x (M_y + E_y) + M_x E_y, M the tilted
//     moments sum_o x_o e^(tau L(o)) of the computed (non-negative) values,
//     rounded up for the weights' error and the summation (tl1Moments). The
//     computed values differ from x*y by the relative rounding drel of the
//     products (at most drel M_x M_y/(1-drel) in total), by the FFT
//     rounding of the tilt m each entry took (fftTL1: by Cauchy-Schwarz,
//     the entries S_m that took tilt m contribute at most
//     fft_m sqrt(sum_{S_m} (e^((tau_k - tau_m) L(o)))^2) to E_k, fft_m
//     the 2-norm bound of tilt m's error vector), by the entries zeroed as
//     noise (their values, tilted) and by the underflow allowance of every
//     offset (absTilted); clamping at 0 only brings values closer to the
//     non-negative truth. Only the part of the convolution that lands on
//     regular offsets is summed (the rest belongs to the corners).
//   - Squaring of a grouped list: new bucket i collects old 2i-1 and 2i,
//     whose losses are 2i lambda - lambda and 2i lambda: the tilted error
//     grows by at most max(1, e^(tau lambda)), plus the addition's rounding
//     (u times the new tilted moment).
//   - Grid squaring: the spread moves an odd atom's error onto its two
//     neighbours with weights cUp, cDn (sum 1): factor max(1, cUp
//     e^(tau lambda) + cDn e^(-tau lambda)). The merge bounds the error of
//     each merged atom by its inputs' errors times coefficients k f (amp in
//     mergeSquare); an input whose merges move it by d old buckets
//     contributes at most amp e^(tau d lambda), so E grows by the largest
//     such factor over the inputs (mergeSquare's ampT).
//   - Re-tilting: ln sum_o |d_o| e^(t L(o)) is convex in t (log-sum-exp),
//     so between two known tilts a < t < b Hölder's inequality gives
//     E_t <= E_a^theta E_b^(1-theta), t = theta a + (1-theta) b; beyond the
//     known tilts the range factor e^((t - tau) L) at the range end
//     (L(2n-1) = n lambda above, L(0) = -(n-1) lambda below) bounds it.
//   - Leaves (and lists whose bounds are unknown): the pointwise bounds
//     summed with the weights (tl1Pointwise), exact for leaves, whose error
//     is rel*value + abs.
//
// Everything is rounded up; an unknown bound is +Inf (NaN never enters:
// products of a zero and an infinite bound are 0, NaN results become +Inf),
// and quantities that could leave float64 are formed in log space.

// hasTL1 reports whether l carries tilted total-error bounds for its tilts.
func (l *list) hasTL1() bool {
	return len(l.tau) > 0 && len(l.tl1A) == len(l.tau) && len(l.tl1C) == len(l.tau)
}

// tl1Sum returns the whole tilted error bounds of l, tl1 + tl1Z (nil when
// unknown; list.tl1ZA), rounded up.
func (l *list) tl1Sum() (ea, ec []float64) {
	if !l.hasTL1() {
		return nil, nil
	}
	if len(l.tl1ZA) != len(l.tau) || len(l.tl1ZC) != len(l.tau) {
		return l.tl1A, l.tl1C
	}
	ea, ec = make([]float64, len(l.tau)), make([]float64, len(l.tau))
	for m := range ea {
		ea[m] = upInf((l.tl1A[m] + l.tl1ZA[m]) * (1 + 2*unitRoundoff))
		ec[m] = upInf((l.tl1C[m] + l.tl1ZC[m]) * (1 + 2*unitRoundoff))
	}
	return ea, ec
}

// absTilted returns an upper bound on abs * sum_{o=0}^{2n-1} e^(tau L(o)):
// the tilted total of an absolute allowance abs at every offset (at most
// 2n abs e^(|tau| n lambda), formed in log space).
func absTilted(abs float64, n int, lambda, tau float64) float64 {
	if !(abs > 0) {
		return 0
	}
	a := math.Abs(tau) * float64(n) * lambda
	return mulExp(abs*float64(2*n)*(1+2*unitRoundoff), a, 4*unitRoundoff*(a+1), true)
}

// tiltedSum returns an upper bound on sum_{o=lo}^{hi} v[o] e^(tau L(o))
// for v >= 0, +Inf where it leaves float64. The weights are formed relative
// to their largest value e^c over [lo, hi] (so they do not overflow), by
// blocks of 32 as weightsInto does, and the sum is scaled by e^c in log
// space. Weights and products below 2^-1022 lose at most 2^-1074 per
// operation, amplified by at most 32 multiplications by e^(tau lambda).
func tiltedSum(v []float64, lo, hi, n int, lambda, tau float64) float64 {
	lo, hi = max(lo, 0), min(hi, len(v)-1)
	if lo > hi {
		return 0
	}
	if tau == 0 {
		s := 0.0
		for o := lo; o <= hi; o++ {
			s += v[o]
		}
		return s*(1+gamma(hi-lo+2)) + float64(hi-lo+1)*0x1p-1074
	}
	xl := tau * (float64(lo-n+1) * lambda)
	xh := tau * (float64(hi-n+1) * lambda)
	c := math.Max(xl, xh)
	g := math.Exp(tau * lambda)
	s, sv, xmax := 0.0, 0.0, 0.0
	for o := lo; o <= hi; o += 32 {
		x := tau*(float64(o-n+1)*lambda) - c
		xmax = math.Max(xmax, math.Abs(x))
		w := math.Exp(x)
		end := min(o+32, hi+1)
		for p := o; p < end; p++ {
			s += v[p] * w
			sv += v[p]
			w *= g
		}
	}
	tl := math.Abs(tau * lambda)
	rel := unitRoundoff * (4*(math.Abs(c)+xmax) + 8 + 31*(3+2*tl))
	tiny := sv*64*0x1p-1074*math.Exp(32*tl) + float64(hi-lo+1)*0x1p-1074
	s = s*(1+rel)*(1+gamma(hi-lo+2)) + tiny
	return upInf(mulExp(s, c, 4*unitRoundoff*(math.Abs(c)+1), true))
}

// tiltedSums returns tiltedSum of v1 and of v2 over [lo, hi] for every
// tilt of tau, in one pass (the tilts' weight recurrences interleaved),
// with the same rounding allowances per tilt.
func tiltedSums(v1, v2 []float64, lo, hi, n int, lambda float64, tau []float64) (s1, s2 []float64) {
	K := len(tau)
	s1, s2 = make([]float64, K), make([]float64, K)
	lo, hi = max(lo, 0), min(hi, len(v1)-1)
	if lo > hi || K == 0 {
		return s1, s2
	}
	if K > 8 {
		for k, t := range tau {
			s1[k] = tiltedSum(v1, lo, hi, n, lambda, t)
			s2[k] = tiltedSum(v2, lo, hi, n, lambda, t)
		}
		return s1, s2
	}
	var c, g, w, xmax, a1, a2 [8]float64
	for k, t := range tau {
		xl := t * (float64(lo-n+1) * lambda)
		xh := t * (float64(hi-n+1) * lambda)
		c[k] = math.Max(xl, xh)
		g[k] = math.Exp(t * lambda)
	}
	var sv1, sv2 float64
	for o := lo; o <= hi; o += 32 {
		for k, t := range tau {
			x := t*(float64(o-n+1)*lambda) - c[k]
			xmax[k] = math.Max(xmax[k], math.Abs(x))
			w[k] = math.Exp(x)
		}
		end := min(o+32, hi+1)
		for p := o; p < end; p++ {
			x1, x2 := v1[p], v2[p]
			sv1 += x1
			sv2 += x2
			for k := 0; k < K; k++ {
				a1[k] += x1 * w[k]
				a2[k] += x2 * w[k]
				w[k] *= g[k]
			}
		}
	}
	cnt := float64(hi - lo + 1)
	for k, t := range tau {
		if t == 0 {
			// exactly the sums (weights 1)
			s1[k] = sv1*(1+gamma(hi-lo+2)) + cnt*0x1p-1074
			s2[k] = sv2*(1+gamma(hi-lo+2)) + cnt*0x1p-1074
			continue
		}
		tl := math.Abs(t * lambda)
		rel := unitRoundoff * (4*(math.Abs(c[k])+xmax[k]) + 8 + 31*(3+2*tl))
		tiny := 64 * 0x1p-1074 * math.Exp(32*tl)
		for i, pr := range [2]struct {
			a, sv float64
			out   *float64
		}{{a1[k], sv1, &s1[k]}, {a2[k], sv2, &s2[k]}} {
			_ = i
			v := pr.a*(1+rel)*(1+gamma(hi-lo+2)) + pr.sv*tiny + cnt*0x1p-1074
			*pr.out = upInf(mulExp(v, c[k], 4*unitRoundoff*(math.Abs(c[k])+1), true))
		}
	}
	return s1, s2
}

// tl1Moments returns upper bounds on the real tilted moments of the
// computed values, sum_o v[o] e^(tau_m L(o)), from the composer's moments
// (computed with weights of relative error rel, summed in float64).
func tl1Moments(m []float64, rel float64, n int) []float64 {
	out := make([]float64, len(m))
	g := (1 + gamma(2*n+2)) * (1 + rel) * (1 + 4*unitRoundoff)
	for k, v := range m {
		out[k] = upInf(v * g)
	}
	return out
}

// tl1Of returns the tilted total-error bounds of x for its tilts (tw their
// weights, mA, mC its tilted moments, tl1Moments): its own, or, when it
// carries none (leaves, decoded lists of older encodings), its pointwise
// bounds summed with the weights; without envelopes (leaves) those are
// rel*value + abs at every offset, so rel (1+2u) M + absTilted(abs).
func tl1Of(x *list, tw *tiltWeights, mA, mC []float64) (ea, ec []float64) {
	if x.hasTL1() {
		return x.tl1Sum()
	}
	if anyPositive(x.envA) || anyPositive(x.envC) {
		return tl1Pointwise(x, tw)
	}
	K := len(x.tau)
	ea, ec = make([]float64, K), make([]float64, K)
	ra, rc := x.relA*(1+2*unitRoundoff), x.relC*(1+2*unitRoundoff)
	for m, t := range x.tau {
		abs := absTilted(x.abs, x.n, x.lambda, t)
		ea[m] = upInf((mulNN(ra, mA[m]) + abs) * (1 + 4*unitRoundoff))
		ec[m] = upInf((mulNN(rc, mC[m]) + abs) * (1 + 4*unitRoundoff))
	}
	return ea, ec
}

// tl1Pointwise returns sum_o bound(o) e^(tau_m L(o)) over all regular
// offsets for the pointwise error bounds of l (errBoundsInto: relative
// part, envelopes, underflow allowances), rounded up.
func tl1Pointwise(l *list, tw *tiltWeights) (ea, ec []float64) {
	ba, bc := l.errBoundsW(tw)
	K := len(tw.w)
	ea, ec = make([]float64, K), make([]float64, K)
	g := (1 + gamma(2*l.n+2)) * (1 + tw.rel) * (1 + 4*unitRoundoff)
	for m, w := range tw.w {
		var sa, sc float64
		for o, x := range w {
			sa += ba[o] * x
			sc += bc[o] * x
		}
		uf := float64(2*l.n) * 0x1p-1074
		ea[m] = upInf(sa*g + uf)
		ec[m] = upInf(sc*g + uf)
	}
	return ea, ec
}

// tl1Compose returns the tilted total-error bound of one side of x × y for
// one tilt (see the top of this file): ex, ey the operands' bounds, mx, my
// their tilted moments (tl1Moments), drel the relative rounding of the
// products, sumF the FFT part (fftTL1), zeroed the tilted mass zeroed as
// noise (rounded up), absT the tilted underflow allowance added.
func tl1Compose(ex, ey, mx, my, drel, sumF, zeroed, absT float64, n int) float64 {
	v := mulNN(ex, my+ey) + mulNN(mx, ey) + drel*mulNN(mx, my)/(1-drel) + sumF + zeroed
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return upInf(v*(1+gamma(2*n+16))*(1+1e-12) + absT)
}

// fftTL1 returns, for every tilt k, an upper bound on the FFT rounding
// errors of the entries on [w0, w1] summed in the tilted measure of tilt k:
// an entry o that took tilt m = ch[o] has error |e_m[o]| inv_m[o], and by
// Cauchy-Schwarz the entries S_m of tilt m contribute at most
// fft_m sqrt(sum_{S_m} (inv_m[o] w_k[o])^2) (fftL1 is the case w_k = 1).
// acc is scratch of at least K*K entries.
//
// The entries take their tilts in runs (the best tilt is the lowest of K
// lines in log space, so it changes at a few crossings): over a run
// [o0, o1] of tilt m the sum of e^(2 (tau_k - tau_m) L(o)) is a geometric
// series, formed in closed form in log space (fftTL1Runs); with many runs
// (ties that alternate) the entries are summed one by one (fftTL1Direct).
func fftTL1(ch []uint8, outs []tiltOut, tw *tiltWeights, tau []float64, n int, lambda float64, w0, w1 int, aSide bool, acc []float64) []float64 {
	if out, ok := fftTL1Runs(ch, outs, tau, n, lambda, w0, w1, aSide, acc); ok {
		return out
	}
	return fftTL1Direct(ch, outs, tw, w0, w1, aSide, acc)
}

// fftTL1Runs is fftTL1 by runs; ok is false when there are more than
// (w1-w0+1)/64 + 8 runs (then fftTL1Direct is cheaper). Per run of tilt m,
// length N from o0 and tilt k, with d = 2 (tau_k - tau_m), a = d lambda:
//
//	sum_{j<N} e^(d L(o0+j)) = e^(d L(o0)) e^(max(a,0) (N-1)) (1 - e^(-|a| N)) / (1 - e^(-|a|))
//
// (N for a = 0), whose logarithm is accumulated per (m, k) by log-sum-exp;
// each exponent carries an absolute error of a few u of the magnitudes
// involved, added in the safe direction.
func fftTL1Runs(ch []uint8, outs []tiltOut, tau []float64, n int, lambda float64, w0, w1 int, aSide bool, acc []float64) ([]float64, bool) {
	K := len(outs)
	out := make([]float64, K)
	lacc := acc[:K*K]
	for i := range lacc {
		lacc[i] = math.Inf(-1)
	}
	maxRuns := (w1-w0+1)/64 + 8
	runs := 0
	u := unitRoundoff
	for o := w0; o <= w1; {
		m := ch[o]
		if m == noTilt {
			for k := range out {
				out[k] = math.Inf(1)
			}
			return out, true
		}
		e := o
		for e < w1 && ch[e+1] == m {
			e++
		}
		if runs++; runs > maxRuns {
			return nil, false
		}
		N := float64(e - o + 1)
		L0 := float64(o-n+1) * lambda
		for k := 0; k < K; k++ {
			d := 2 * (tau[k] - tau[m])
			var lnS, mag float64
			if d == 0 {
				lnS = math.Log(N)
				mag = lnS
			} else {
				a := d * lambda
				b := math.Abs(a)
				lnS = math.Max(a, 0)*(N-1) + math.Log(-math.Expm1(-b*N)) - math.Log(-math.Expm1(-b)) + d*L0
				mag = b*N + math.Abs(d*L0) + math.Abs(math.Log(-math.Expm1(-b))) + math.Abs(lnS)
			}
			lnS += 16*u*(mag+4) + 4e-15 // the exponents' rounding, expm1's and log's
			i := int(m)*K + k
			lacc[i] = logAddUp(lacc[i], lnS)
		}
		o = e + 1
	}
	g := (1 + 4*unitRoundoff) * (1 + gamma(K+2)) * (1 + 1e-12)
	for m := 0; m < K; m++ {
		f, ok := fftPart(outs[m], aSide, out)
		if !ok {
			continue
		}
		for k := 0; k < K; k++ {
			la := lacc[m*K+k]
			if math.IsInf(la, -1) {
				continue
			}
			out[k] += mulExp(f, la/2, 8*u*(math.Abs(la)+1), true) * g
		}
	}
	for k := range out {
		out[k] = upInf(out[k])
	}
	return out, true
}

// fftPart returns the FFT error bound of one tilt's convolution for the A-
// or the C-side and whether it contributes (> 0); a NaN bound makes every
// entry of out +Inf (unknown).
func fftPart(o tiltOut, aSide bool, out []float64) (float64, bool) {
	f := o.fftA
	if !aSide {
		f = o.fftC
	}
	if math.IsNaN(f) {
		for k := range out {
			out[k] = math.Inf(1)
		}
	}
	return f, f > 0
}

// logAddUp returns an upper bound on ln(e^x + e^y) (x, y may be -Inf).
func logAddUp(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(y, -1) {
		return x
	}
	v := x + math.Log1p(math.Exp(y-x))
	return v + 8*unitRoundoff*(math.Abs(v)+1)
}

// fftTL1Direct is fftTL1 summed entry by entry with the computed weights.
func fftTL1Direct(ch []uint8, outs []tiltOut, tw *tiltWeights, w0, w1 int, aSide bool, acc []float64) []float64 {
	K := len(outs)
	out := make([]float64, K)
	acc = acc[:K*K]
	for i := range acc {
		acc[i] = 0
	}
	for o := w0; o <= w1; o++ {
		m := ch[o]
		if m == noTilt {
			for k := range out {
				out[k] = math.Inf(1)
			}
			return out
		}
		im := tw.inv[m][o]
		row := acc[int(m)*K : int(m)*K+K]
		for k := range row {
			v := im * tw.w[k][o]
			row[k] += v * v
		}
	}
	g := (1 + tw.rel) * (1 + tw.rel) * (1 + tw.rel) * (1 + 4*unitRoundoff) * (1 + gamma(K+2))
	gs := 1 + gamma(w1-w0+2)
	for m := 0; m < K; m++ {
		f, ok := fftPart(outs[m], aSide, out)
		if !ok {
			continue
		}
		for k := 0; k < K; k++ {
			a := acc[m*K+k]
			if a == 0 {
				continue
			}
			out[k] += f * math.Sqrt(a*gs) * g
		}
	}
	for k := range out {
		out[k] = upInf(out[k])
	}
	return out
}

// retiltTL1 returns tilted total-error bounds for the tilts to from those
// for the tilts from (nil when unknown): per new tilt the smallest of the
// Hölder interpolations between two known tilts around it, the known
// tilt itself and the extrapolations from each known tilt with the range
// factor (see the top of this file), in log space, rounded up.
func retiltTL1(E, from, to []float64, n int, lambda float64) []float64 {
	if len(E) != len(from) || len(from) == 0 {
		return nil
	}
	lnE := make([]float64, len(E))
	big := 1.0
	for m, e := range E {
		lnE[m] = ln(upInf(e)) // -Inf for 0, +Inf for +Inf
		if !math.IsInf(lnE[m], 0) {
			big = math.Max(big, math.Abs(lnE[m]))
		}
	}
	Lhi := float64(n) * lambda    // L(2n-1)
	Llo := -float64(n-1) * lambda // L(0)
	for _, t := range from {
		big = math.Max(big, math.Abs(t)*Lhi)
	}
	for _, t := range to {
		big = math.Max(big, math.Abs(t)*Lhi)
	}
	// each exponent is formed from a few terms of magnitude at most 2 big
	slack := 16 * unitRoundoff * (4*big + 4)
	out := make([]float64, len(to))
	for k, t := range to {
		best := math.Inf(1)
		for m, a := range from {
			if math.IsInf(lnE[m], 1) {
				continue
			}
			if math.IsInf(lnE[m], -1) {
				// no error at all: zero in every tilt
				best = math.Inf(-1)
				break
			}
			var v float64
			switch {
			case t == a:
				v = lnE[m]
			case t > a:
				v = lnE[m] + (t-a)*Lhi
			default:
				v = lnE[m] + (t-a)*Llo
			}
			best = math.Min(best, v)
			for q, b := range from {
				if !(a < t && t < b) || math.IsInf(lnE[q], 0) {
					continue
				}
				th := (b - t) / (b - a)
				best = math.Min(best, th*lnE[m]+(1-th)*lnE[q])
			}
		}
		switch {
		case math.IsInf(best, -1):
			out[k] = 0
		case math.IsInf(best, 1) || math.IsNaN(best):
			out[k] = math.Inf(1)
		default:
			out[k] = upInf(math.Exp(best+slack) * (1 + 4*unitRoundoff))
			if out[k] < minNormal {
				out[k] += 0x1p-1070
			}
		}
	}
	return out
}

// tailTL1 returns an upper bound on the error summed over the offsets with
// L(o) >= L(oS) (dir > 0) or L(o) <= L(oS) (dir < 0), from the total error
// l1 and the tilted bounds E (tilts tau, nil: none) with the zeroed part
// z apart (list.tl1ZA): min of l1 and of e^(-tau_m L(oS)) E_m + z over the
// tilts with dir*tau_m >= 0. oS < 0: l1.
func (l *list) tailTL1(l1 float64, E []float64, z float64, oS, dir int) float64 {
	best := l1
	if oS < 0 || len(E) != len(l.tau) {
		return best
	}
	L := l.loss(oS)
	for m, t := range l.tau {
		if float64(dir)*t < 0 || !(E[m] < math.Inf(1)) {
			continue
		}
		a := -t * L
		v := (mulExp(E[m], a, 4*unitRoundoff*(math.Abs(a)+1), true) + z) * (1 + 2*unitRoundoff)
		if v < best {
			best = v
		}
	}
	return best
}

// lnGStar returns ln max_{x >= 0} (1 - e^-x) e^(-s x) for s >= 0: the
// maximum sits at x = ln(1 + 1/s), where it is (1/(1+s)) (s/(1+s))^s
// (1 at s = 0, the supremum as x grows). Rounded up.
func lnGStar(s float64) float64 {
	if !(s > 0) {
		return 0
	}
	v := -math.Log1p(s) - s*math.Log1p(1/s)
	return v + 8*unitRoundoff*(math.Abs(v)+1)
}

// gridTailTL1 returns an upper bound on the error terms of a grid list's
// delta sum from the tilted bounds E of one pair's masses (nil: +Inf).
// Side AB (ba false): sum_o |d_o| F(o) with F(o) <= (1 - e^(e0 - L(o)))^+;
// side BA: sum_o |d_o| e^-L(o) F(o) with F(o) <= (1 - e^(e0 + L(o)))^+
// (the derived B-mass d e^-L). With s_m = tau_m (AB) or -(1 + tau_m) (BA)
// and s_m >= 0, each term is |d_o| e^(tau_m L(o)) times at most
// e^(-s_m e0) max_{x>=0} (1 - e^-x) e^(-s_m x) (x = L - e0, resp.
// -L - e0), so the sum is at most E_m e^(-s_m e0 + lnGStar(s_m)). The
// exponent's rounding (s_m itself carries one rounding for BA, which
// |x| <= |e0| + n lambda bounds) is added in the safe direction.
func (l *list) gridTailTL1(E []float64, e0 float64, ba bool) float64 {
	best := math.Inf(1)
	if len(E) != len(l.tau) {
		return best
	}
	for m, t := range l.tau {
		s := t
		if ba {
			s = -(1 + t)
		}
		if !(s >= 0) || !(E[m] < math.Inf(1)) {
			continue
		}
		a := -s*e0 + lnGStar(s)
		errA := 4*unitRoundoff*(math.Abs(s*e0)+math.Abs(a)+1) + 4*unitRoundoff*math.Abs(s)*(math.Abs(e0)+float64(l.n)*l.lambda+1)
		v := mulExp(E[m], a, errA, true)
		if v < best {
			best = v
		}
	}
	return best
}
