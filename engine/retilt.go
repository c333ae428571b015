package engine

import "math"

// Tilts per level. The error envelopes of a list (list.go) are exponentials
// exp(-tau L) in the privacy loss L; a tilt helps where it separates the
// tail from the bulk, i.e. when tau is a few inverse standard deviations of
// the list's loss. Tilts chosen for the final composition are far too weak
// for the early levels of a long composition (whose loss is thousands of
// times narrower), and the rounding errors of the bulk then swamp the tails
// and the corners. Each composition therefore uses tilts chosen for its own
// output (plan.tilts), and its inputs' envelopes are re-expressed for them
// (retilt).

// tilts returns the tilts for composing x and y (tiltsFor with the final
// loss's and the composed loss's standard deviations, and in a ComposeMany
// chain the tilts of the results the composition leads to, chaintilts.go).
func (p *plan) tilts(x, y *list) []float64 {
	t := saddleTarget{count: p.total, sd: p.finalSD, tilt: p.saddle}
	rangeL := float64(x.n+1) * x.lambda
	tau := tiltsFor(p.finalSD, math.Sqrt(x.variance+y.variance), t, p.opt.Tilts, rangeL, false)
	tau = p.addChainTilts(tau, x.compositions+y.compositions, rangeL)
	if x.grid {
		tau = gridTilts(tau, rangeL)
	}
	if p.countPair() && !x.grid && len(tau) >= 3 && tau[1] > 0 {
		// Far tails of count pairs: the final tilts reach 3.5
		// standard deviations; +-3 times them (about 10.5, where the
		// Vuvuzela pairs' deltas reach 1e-20) keep the lower ends of
		// the buckets there alive. Capped as the final tilts.
		c := math.Min(farTiltCap, math.Max(tiltCap, tiltCap*rangeL/swapRange))
		F := math.Min(3*tau[1], 2*c/rangeL)
		if F > 1.2*tau[1] && apart(tau, F) {
			tau = append(tau, F, -F)
		}
	}
	return tau
}

// countPair reports whether a leaf of the plan is a pair known event by
// event (countMech: the Vuvuzela dialing and conversation pairs).
func (p *plan) countPair() bool {
	for m := range p.leaves {
		if _, ok := m.(*countMech); ok {
			return true
		}
	}
	return false
}

// tiltsFor returns the tilts of a composition whose operands have the
// range rangeL (nats), for a final loss with standard deviation finalSD and
// a composed loss with standard deviation sd: chooseTilts for finalSD and,
// while the composed loss is narrower (its own tilts more than 1.2 times
// the final ones), +-3.5 of the composed loss's standard deviations as
// well; for a grid list the negative ones shifted (gridTilts). Each change
// of tilts costs accuracy between the old tilts' regions (see retilt), so
// the final tilts are kept throughout and the level's own tilts only
// added. For a right tail heavier than a Gaussian one, the saddle-point
// tilt of t (saddle.go: the final result's) is added as +-T when it is
// below 0.9 times that result's own final tilt (and, for a t other than
// the final result, not within a fifth of a tilt already chosen).
//
// Above swapRange the final tilts are capped at tiltCap/swapRange = 0.1
// until farTiltCap/rangeL is lower (from 3,000 nats), instead of
// tiltCap/rangeL: there the range is thousands of nats wide (squarings
// follow the corners of the far tails), the cap 60/range was far below
// 3.5/sd (DP-SGD sigma 1, q 0.0631, r 2^18: 0.028 against 0.083), and the
// pointwise envelopes of the A||B side set both ends of eps brackets
// beyond 700. The cap is
// non-increasing in the range, so the final tilt never grows from one
// level to the next: raising a tilt costs its envelope e^(dT range) in
// retilt (a cap jumping from 60/range to 300/range at swapRange loosened
// sigma 1, q 0.0398, r 2^18 to [421.2, 444.0] from [428.6, 443.0]). The
// level's own tilts keep tiltCap: raising their cap too loosened the high
// corner. Below swapRange a larger cap loosened a golden histogram
// (coverup, r = 256) and is not used.
func tiltsFor(finalSD, sd float64, t saddleTarget, k int, rangeL float64, grid bool) []float64 {
	// |T| <= tiltCap/rangeL up to swapRange, then tiltCap/swapRange until
	// that reaches farTiltCap/rangeL: non-increasing in the range
	c := math.Min(farTiltCap, math.Max(tiltCap, tiltCap*rangeL/swapRange))
	tau := chooseTiltsCap(finalSD, k, rangeL, c)
	if k >= 3 && len(tau) >= 3 {
		lv := chooseTilts(sd, 3, rangeL)
		// (Replacing the final tilts by the level's while they are weak
		// over the range saved 10% of the transforms but loosened some
		// bounds by up to 10%: the final tilts are kept throughout.)
		if len(lv) == 3 && lv[1] > 1.2*tau[1] {
			tau = append(tau, lv[1], lv[2])
		}
		// the saddle-point tilt of the next result the chain reaches
		// (saddle.go), when well below that result's own final tilt
		if t.tilt > 0 {
			own := tau[1]
			if t.sd != finalSD {
				own = chooseTiltsCap(t.sd, k, rangeL, c)[1]
			}
			if t.tilt < 0.9*own && (t.sd == finalSD || apart(tau, t.tilt)) {
				tau = append(tau, t.tilt, -t.tilt)
			}
		}
	}
	if grid {
		tau = gridTilts(tau, rangeL)
	}
	return tau
}

// farTiltCap bounds |T| rangeL for the final tilts of lists wider than
// swapRange (tiltsFor). The masses of a list sum to at most 1, so a tilted
// sequence has a 1-norm of at most e^300 over the range: its transform's
// entries, the spectral products (at most e^600), the inverse transform's
// sums (at most N e^600 < e^619 for N <= 2^27 points) and the squared
// 2-norms stay finite, and the weights and their reciprocals normal. An
// envelope whose propagated products (envelope times moment) overflow
// becomes +Inf, a trivial but sound bound. (At 400 the squared norms
// overflow and envelopes turn NaN: TestTiltCapBruteForce.)
const farTiltCap = 300

// gridTilts shifts the negative tilts of a grid list by -1. A grid list
// holds A-masses only and derives the B-masses as A e^-L, so the B-side
// errors are the A-side envelopes times e^-L: a tilt tau on the A-masses
// is the tilt tau + 1 on the B-masses, and -(T+1) serves the B-side tail
// as -T serves a grouped list's B-sequence.
//
// The shifted tilt is capped at gridTiltRange/rangeL, so that the weights
// e^(tau L) and their reciprocals stay normal float64 numbers over the
// range (|tau L| <= 660 < 708.4; weights are only ever computed for the
// range of the list the tilts were chosen for: a squaring that doubles it
// is followed by a new choice). The tilted values themselves are no larger
// than with the unshifted tilt: a_o e^((T+1)|L_o|) is the B-mass
// a_o e^-L_o times e^(T|L_o|), at most e^60 by chooseTilts's cap. The cap
// binds only on ranges above swapRange, where the swapped grid list holds
// the B||A side: below it tiltsFor keeps T <= tiltCap/rangeL, so
// (T+1) rangeL <= rangeL + 60 <= gridTiltRange while rangeL <= swapRange
// (above it T <= farTiltCap/rangeL < gridTiltRange/rangeL). (It was
// 600/rangeL: between 540 and 600 nats the B-side tilt fell to about
// -1.04, whose envelope decays only like e^(0.04 L) in B-mass, and the
// error bounds of the B||A side set eps_upper.)
func gridTilts(tau []float64, rangeL float64) []float64 {
	out := make([]float64, len(tau))
	lim := gridTiltRange / rangeL
	for m, t := range tau {
		out[m] = t
		if t < 0 {
			out[m] = -math.Min(-t+1, math.Max(-t, lim))
		}
	}
	return out
}

// gridTiltRange bounds |tau| rangeL for the shifted tilts of a grid list
// (gridTilts): swapRange plus chooseTilts's 60.
const gridTiltRange = swapRange + 60

// equalTau reports whether two tilt sets are identical.
func equalTau(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// retilt returns l with its error envelopes re-expressed for the tilts tau:
// for every offset o the old model bounds the error by
// E(o) = min_m env[m] exp(-tau_m L(o)), and
//
//	env'[k] = max_o E(o) exp(tau'_k L(o))
//
// makes env'[k] exp(-tau'_k L(o)) >= E(o) at every offset, so the new model
// holds wherever the old one did. Everything is computed in log space (no
// overflow) and rounded up. The bucket values are shared with l (lists are
// not modified once built). The tilted total-error bounds are re-expressed
// by Hölder interpolation between the old tilts (retiltTL1).
func (l *list) retilt(tau []float64) *list {
	if equalTau(l.tau, tau) {
		return l
	}
	z := *l
	z.spare = nil // l's own work arrays (list.spare)
	z.tau = append([]float64(nil), tau...)
	z.envA = retiltEnv(l.envA, l.tau, tau, l.n, l.lambda)
	z.envC = retiltEnv(l.envC, l.tau, tau, l.n, l.lambda)
	z.tl1A, z.tl1C = nil, nil // unknown: compose sums the pointwise bounds
	z.tl1ZA, z.tl1ZC, z.zA, z.zC = nil, nil, 0, 0
	if ea, ec := l.tl1Sum(); ea != nil {
		z.tl1A = retiltTL1(ea, l.tau, tau, l.n, l.lambda)
		z.tl1C = retiltTL1(ec, l.tau, tau, l.n, l.lambda)
	}
	return &z
}

// retiltCandidates returns the offsets at which retiltEnv evaluates: the
// ends of the range and the offsets within two of every crossing of two
// finite lines lnEnv[m] - tau_m L(o).
func retiltCandidates(lnEnv, from []float64, n int, lambda float64) []int {
	out := []int{0, 2*n - 1}
	for p := range from {
		for q := p + 1; q < len(from); q++ {
			if math.IsInf(lnEnv[p], 0) || math.IsInf(lnEnv[q], 0) || from[p] == from[q] {
				continue
			}
			c := (lnEnv[p]-lnEnv[q])/((from[p]-from[q])*lambda) + float64(n) - 1
			if !(c > -3 && c < float64(2*n+2)) {
				continue
			}
			f := int(math.Floor(c))
			for o := f - 2; o <= f+3; o++ {
				if o >= 0 && o < 2*n {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

func retiltEnv(env, from, to []float64, n int, lambda float64) []float64 {
	lnEnv := make([]float64, len(env))
	for m, e := range env {
		lnEnv[m] = ln(e) // -Inf for 0
	}
	// E(o) + tau'_k L(o) is concave and piecewise linear in o (a minimum of
	// lines plus a line), with corners only where two of the old lines
	// cross: its maximum over the offsets sits at an end of the range or
	// next to a crossing. Those offsets (with neighbours on each side,
	// against rounding in the crossings) are the only ones evaluated;
	// TestRetiltEnvCandidates checks this against every offset.
	best := retiltMax(lnEnv, from, to, n, lambda, retiltCandidates(lnEnv, from, n, lambda))
	// Absolute error of each exponent: a few units of roundoff of the
	// largest magnitudes involved (the log, L, the products, the sums).
	maxAbs := func(v []float64) float64 {
		m := 0.0
		for _, x := range v {
			if !math.IsInf(x, 0) {
				m = math.Max(m, math.Abs(x))
			}
		}
		return m
	}
	big := maxAbs(lnEnv) + (maxAbs(from)+maxAbs(to))*float64(n+1)*lambda
	slack := math.Exp(8*unitRoundoff*(big+1)) * (1 + 4*unitRoundoff)
	out := make([]float64, len(to))
	for k, v := range best {
		out[k] = math.Exp(v) * slack // exp(-Inf) = 0; +Inf stays +Inf
		if math.IsNaN(out[k]) {
			out[k] = math.Inf(1)
		} else if !math.IsInf(v, -1) && out[k] < minNormal {
			out[k] += 0x1p-1070 // exp(v) underflowed: round up
		}
	}
	return out
}

// retiltMax returns max_o (E(o) + tau'_k L(o)) over the given offsets for
// every new tilt k, E(o) = min_m (lnEnv[m] - tau_m L(o)) (-Inf where E is).
func retiltMax(lnEnv, from, to []float64, n int, lambda float64, offsets []int) []float64 {
	best := make([]float64, len(to))
	for k := range best {
		best[k] = math.Inf(-1)
	}
	for _, o := range offsets {
		L := float64(o-n+1) * lambda
		e := math.Inf(1)
		for m, t := range from {
			if v := lnEnv[m] - t*L; v < e {
				e = v
			}
		}
		if math.IsInf(e, -1) {
			continue // a zero envelope: no error at this offset
		}
		for k, t := range to {
			if v := e + t*L; v > best[k] {
				best[k] = v
			}
		}
	}
	return best
}

// apart reports whether t differs by more than a fifth from every positive
// tilt in tau.
func apart(tau []float64, t float64) bool {
	for _, x := range tau {
		if x > 0 && math.Abs(t-x) <= 0.2*x {
			return false
		}
	}
	return true
}
