package engine

import "math"

// This file builds the grid lists: two pairs whose atoms sit on
// the bucket grid, one that dominates the mechanism's pair (the upper pair)
// and one that the mechanism's pair dominates (the lower pair).
//
// A grid list stores A-masses only: an atom at offset o has privacy loss
// within a tiny window of L(o) = i*lambda, so its B-mass is its A-mass times
// e^-L(o) up to the window (the pair (A, B) of an atom at loss l is (m,
// m e^-l)). Its delta in both directions is a non-negative combination of the
// A-masses:
//
//	A||B: sum_o a_o (1 - e^(eps - l_o))^+      B||A: sum_o a_o (e^-l_o - e^eps)^+
//
// with l_o in [L(o) - w, L(o) + w], so delta_up uses the upper ends of the
// upper pair's masses and the worst end of the window, delta_low the lower
// ends of the lower pair's. No straddling window of width u ln f arises:
// the windows w come from rounding only (about 1e-14 per leaf) and add up
// over compositions (r w, still tiny). Because B = A e^-L is implied, the
// B-side errors are the A-side errors times e^-L: the B-masses never meet
// an FFT error envelope of their own (the large-eps gap of the grouped list).
//
// In the list struct a grid list (grid = true) keeps the upper pair's
// A-masses in a (with relA, envA, l1A) and the lower pair's in c (relC,
// envC, l1C); one complex FFT convolves both, like the A- and B-masses of a
// grouped list. The corners hiA, hiC, loA, loC, distA, distB are the upper
// pair's (absorbing, counted in full by delta_up, as in a grouped list);
// the lower pair keeps only its distinguishing masses (lowDistA, lowDistB)
// and drops everything else that leaves the range, which a lower bound may.
//
// # Why the pairs bound the mechanism
//
// Dominance is Blackwell's order: a pair X dominates Y if Y is a
// post-processing (garbling) of X. The hockey-stick divergence of both
// directions (and every f-divergence) can only shrink under garbling, and
// products preserve the order, so the r-fold composition of a dominating
// pair bounds the r-fold composition of the mechanism from above (Dong,
// Roth, Su, "Gaussian Differential Privacy", 2019, Section 2; dp_accounting's
// pessimistic connect-the-dots PLD, Doroshenko, Ghazi, Kamath, Kumar,
// Manurangsi, PETS 2022, rests on the same fact). Two more facts are used:
//
//   - Splitting an atom into two atoms on the same grid point, or adding a
//     non-negative atom to a pair (a super-measure), can only increase delta
//     (the terms max(0, P - e^eps Q) of atoms with equal loss add up); dropping
//     atoms or whole outcomes can only decrease it. So an upper pair may carry
//     extra mass and a lower pair may discard mass, and both stay valid
//     through composition (every term of the product is non-negative).
//   - Events whose losses lie in [l1, l2] are a garbling of the two atoms at
//     l1 and l2 that carry the same A-mass and B-mass (a mean-preserving
//     spread of y = P_B/P_A under P_A); merging atoms is a garbling.
//
// # Leaf, upper pair (spread)
//
// A group of events with A-mass p, B-mass q and losses in [lossLo, lossHi]
// lies in [j lambda, i lambda] (j, i the grid points around it). Its exact
// spread onto j and i has
//
//	a_hi* = (p - q e^(j lambda)) / (1 - e^-W),   a_lo* = p - a_hi*,   W = (i-j) lambda,
//
// and a_hi* = E_P[G(l)] with G(l) = (1 - e^-(l - j lambda)) / (1 - e^-W) in
// [0, 1]. p and q are known to a relative error r only, and the difference
// cancels for narrow buckets (an error of about r p / lambda), so the exact
// spread cannot be computed. Instead one atom gets an upper bound of its
// exact mass and the other absorbs the rest: with H >= a_hi* the pair
//
//	hi: A-mass H at i lambda,   lo: A-mass p - H, B-mass q - H e^-(i lambda)
//
// dominates the group (the lo atom's ratio is at most e^(j lambda), below
// every event's), and the lo atom's loss lies in [j lambda - w, j lambda]
// with w <= (H - a_hi*) (1 - e^-W) / (p - H): about r, not r / lambda, when
// the absorbing atom is the larger one (the orientation is chosen so). Its
// stored mass p^ - H has relative error r p / (p - H) <= 2r. Groups where
// this fails (tiny or inconsistent masses) store upper bounds of both
// exact spread masses instead (a super-measure, no window). Events within a
// tiny window of a grid point (randomized response on its borders) become
// atoms there without a spread.
//
// # Leaf, lower pair (merging)
//
// A continuous mechanism cuts its events at every half cell for a grid
// leaf built on its own (leafBuilder.grid: the grid lists alone, the power
// path), so each group lies in one half cell. The groups are then summed
// per half cell ((k-1) lambda, (k-1/2) lambda] and ((k-1/2) lambda,
// k lambda] (by their mean loss; merging is a garbling wherever a group
// goes); otherwise per cell (groups of mechanisms not cut at borders, and
// the default lists, whose grid leaf shares the grouped leaf's cuts:
// cutting twice as often cost 10-20% of the CPU for lower bounds the
// grouped list still sets). They are swept in loss order: a carry below
// its target point g takes whole half cells while they lie below g, and of
// the next one above g the fraction beta that puts the merged atom exactly
// on g (up to rounding: its loss is known from its masses to about 2r,
// which becomes its window); the rest of that half cell carries on to the
// next target.
// What cannot be placed (the last carry) is discarded. Where a carry
// starts a quarter cell below its point, the atom holds the half cells on
// both sides of it, the events within half a cell of the point: it loses
// about lambda^2/12 of the loss variance (per unit of mass), against
// lambda^2/3 when whole cells are merged across a point (the sweep over
// whole cells) and lambda^2/6 that the upper pair's spread adds. A sweep
// keeps that phase where the density falls with the loss (the fraction of
// the next half cell is then near 1, and a small fraction of the half cell
// beyond); where it rises, a fraction just below 1 leaves a sliver three
// quarters below the next point, and the atoms alternate between about 1.6
// and 2.4 half cells (Gauss leaf: lambda^2/7.5); a carry that starts three
// quarters below its point keeps atoms of two whole cells around every
// other point. So the sweep runs up from the upper half of the cell of the
// largest A-mass and, below it, down: the same sweep on the mirrored pair
// (B, A) with negated losses, whose atoms are the lower pair's with the
// masses exchanged (Gauss leaf: lambda^2/12). Where that keeps less mass
// than one upward sweep over everything (a density largest at its lowest
// loss, DP-SGD: the downward sweep's last carry has no partner), and for
// groups summed per cell, the single upward sweep is used.
//
// Why every atom is a garbling of the events: summing groups into a half
// cell is a deterministic relabelling of events; taking the fraction beta
// of a half cell labels each of its events independently of its content
// with probability beta (a Markov kernel that does not depend on the pair,
// so both masses scale by beta), rounded down so that the fractions of a
// half cell never sum above 1; an atom is the union of such labelled parts
// (a relabelling again), and what is discarded leaves a sub-measure, whose
// deltas are smaller. The mirrored sweep is the same construction on the
// pair (B, A), and a garbling of (B, A) is the same garbling of (A, B).
// The atom's loss is not assumed to be its point: emit computes it from the
// atom's own masses, with their error bounds, and keeps the atom only
// within the window cap of its point, with that window (delta_low then
// takes the worst end). So any choice of fractions, of the half cell a
// group goes to, of the sweep and its direction is sound; the choices only
// decide tightness.
// TestGridLowerSweepDominated checks it by brute force and that merges
// taking too much of a partner are caught; TestGridLowerGaussClosedForm
// against the closed form through the chain.
//
// Squaring (gridsquare.go) spreads the odd atoms of the upper pair onto their
// even neighbours with constant weights and merges the odd atoms of the lower
// pair with partners on the other side of an even point; composition adds
// indices exactly, so the windows add and nothing else changes.

// leafGroup is a group of atomic events as given to leafBuilder.add: A-mass
// pa and B-mass pb (each with the mechanism's relative error) and an
// interval [lossLo, lossHi] holding the privacy loss of every event.
type leafGroup struct {
	pa, pb, lossLo, lossHi float64
	// tiny: a mass may have underflowed (leafBuilder.add): its true value
	// is known only to tinyMass absolutely
	tiny bool
}

// gridWindowCap: a leaf atom whose window would exceed it is stored without
// a window (upper pair: both exact spread masses rounded up; lower pair:
// discarded). Windows add over compositions, so they must stay tiny.
const gridWindowCap = 1e-11

// gridFloor returns the largest j with j*lambda <= loss, exactly.
func gridFloor(loss, lambda float64) float64 { return -bucketOf(-loss, lambda) }

// gridBuilder accumulates the two pairs of a grid leaf.
type gridBuilder struct {
	l            *list
	r            float64 // relative error of the groups' masses
	addsA, addsC []int32 // contributions per offset (rounding of the sums)
	relA, relC   float64 // largest relative error of one contribution
	wUp, wLo     float64
	// lowCap, if positive, replaces gridWindowCap for the lower chain's
	// atoms (separate lower groups whose masses carry a larger relative
	// error, allocation_pairs.go; any window is sound, the cap only keeps
	// windows small)
	lowCap float64
	// overshoot is a mutation for tests (zero in the engine): the lower
	// sweep takes the fraction beta (1 + overshoot) of the next half cell
	// and keeps the atom on its point whatever its loss (a merge too
	// aggressive to be a garbling, which the brute-force test must catch)
	overshoot float64
	// allSweeps runs every sweep of lowerChain, also the one a bound
	// shows cannot be chosen (tests compare the atoms)
	allSweeps bool
	// groups of the upper pair that leave the range (lower atom below -n+1,
	// upper atom above n)
	loA, loC, hiA, hiC float64
}

// addUp adds the A-mass v (relative error rel) at point i of the upper
// pair; addLow of the lower pair.
func (g *gridBuilder) addUp(i int, v, rel float64) { addAt(g.l.a, g.addsA, &g.relA, i+g.l.n-1, v, rel) }
func (g *gridBuilder) addLow(i int, v, rel float64) {
	addAt(g.l.c, g.addsC, &g.relC, i+g.l.n-1, v, rel)
}

func addAt(vals []float64, adds []int32, maxRel *float64, o int, v, rel float64) {
	if v <= 0 {
		return
	}
	vals[o] += v
	adds[o]++
	*maxRel = max(*maxRel, rel)
}

// finishGrid returns the grid leaf of the groups recorded by add (see
// leafBuilder.grid); rel bounds the relative error of every mass passed to
// add, as in finish.
func (b *leafBuilder) finishGrid(rel float64, name string) *list {
	n, lam := b.l.n, b.l.lambda
	l := newList(n, lam, b.l.tau)
	l.grid = true
	u := unitRoundoff
	r := rel * (1 + 4*u)
	g := &gridBuilder{l: l, r: r, addsA: make([]int32, 2*n), addsC: make([]int32, 2*n)}
	// per-cell sums of the separate lower groups (lowerOnly), if any
	var cellP, cellQ []float64
	var cellN []int32
	if b.lowGroups != nil {
		cellP, cellQ, cellN = make([]float64, 2*n), make([]float64, 2*n), make([]int32, 2*n)
	}
	halfP := make([]float64, 4*n)
	halfQ := make([]float64, 4*n)
	halfN := make([]int32, 4*n)
	// ln of a half cell's masses when it holds one group (0 + p = p
	// exactly: its logarithms are the group's, computed below anyway);
	// NaN where not known (lowerChain computes them)
	var halfLP, halfLQ []float64
	if b.halfCuts {
		halfLP, halfLQ = make([]float64, 4*n), make([]float64, 4*n)
	}
	var tinyLoA, tinyLoC, tinyHiA, tinyHiC, tinyErr float64
	// separate lower groups (leafBuilder.lowGroups): the loop below builds
	// the upper pair only
	lowSep := b.lowGroups != nil
	if lowSep {
		g.lowCap = allocLowCap
	}
	var spc spreadCache
	for _, e := range b.groups {
		if e.tiny {
			// an underflowed mass: the upper pair keeps the group in a
			// corner with the allowance (counted in full), the lower pair
			// drops it
			if e.lossHi <= 0 {
				tinyLoA += e.pa
				tinyLoC += e.pb
			} else {
				tinyHiA += e.pa
				tinyHiC += e.pb
			}
			tinyErr += tinyMass
			continue
		}
		// (far losses are compared before bucketOf, which needs
		// moderate quotients)
		fi := float64(n + 1)
		if e.lossHi <= float64(n+1)*lam {
			fi = bucketOf(e.lossHi, lam)
		}
		fj := float64(-n - 1)
		if e.lossLo > -float64(n+2)*lam {
			fj = max(fj, gridFloor(e.lossLo, lam))
		}
		if fi > float64(n) {
			// the upper atom would leave the range (a swapped leaf's
			// group, swappedBuilder): the upper pair keeps the group in
			// its high corner; the lower pair drops it
			g.hiA += e.pa
			g.hiC += e.pb
			continue
		}
		i := int(fi)
		j := int(fj)
		// loss bounds a rounding error beyond a grid point (spreadUpper)
		loGrid, hiGrid := true, true
		if j < i-1 && math.FMA(float64(j+1), lam, -e.lossLo) <= gridWindowCap {
			j, loGrid = j+1, false
		}
		if j < i-1 && math.FMA(-float64(i-1), lam, e.lossHi) <= gridWindowCap {
			i, hiGrid = i-1, false
		}
		if j < -n+1 {
			// the lower atom would leave the range: the upper pair keeps
			// the group in its low corner; the lower pair drops it
			g.loA += e.pa
			g.loC += e.pb
			continue
		}
		// an atom within a tiny window of a grid point stays there
		if k, w, ok := nearGrid(e.lossLo, e.lossHi, lam); ok && k > -n && k <= n {
			g.addUp(k, e.pa, r)
			g.wUp = max(g.wUp, w)
			if !lowSep {
				g.addLow(k, e.pa, r)
				g.wLo = max(g.wLo, w)
			}
			continue
		}
		lnq := ln(e.pb)
		s := spc.spread(e.pa, e.pb, lnq, r, j, i, lam, e.lossLo, e.lossHi, loGrid, hiGrid)
		if lowAtomUnderflows(s) {
			// the upper atom an upper bound of its exact mass, the lower
			// one in the low corner with both masses bounded (a
			// super-measure; the corner counts in full, its A-mass below
			// the allowance tinyMass)
			g.addUp(i, s.hiBound, 0)
			g.wUp = max(g.wUp, s.wHi)
			g.loA += math.Exp(ln(s.bLo) + s.x0 + 4*unitRoundoff*(math.Abs(s.x0)+math.Abs(ln(s.bLo))+4))
			g.loC += s.bLo
			tinyErr += tinyMass
		} else {
			g.addUp(j, s.lo, s.relLo)
			g.addUp(i, s.hi, s.relHi)
			g.wUp = max(g.wUp, s.w)
		}
		if lowSep {
			continue
		}
		// lower pair: sum per half cell (the half of its mean loss); a
		// group spanning several cells goes to the cell of its mean loss
		// (merging is a garbling wherever it goes)
		lnp := ln(e.pa)
		mean := lnp - lnq
		k := i
		if i-j > 1 {
			k = int(max(float64(j+1), min(float64(i), math.Ceil(mean/lam))))
		}
		h := 2*(k+n-1) + 1
		if b.halfCuts && mean <= (float64(k)-0.5)*lam {
			h--
		}
		halfP[h] += e.pa
		halfQ[h] += e.pb
		halfN[h]++
		if halfLP != nil {
			halfLP[h], halfLQ[h] = lnp, lnq
		}
	}
	for _, e := range b.lowGroups {
		g.lowerOnly(e, cellP, cellQ, cellN)
	}
	// groups given per cell (lowerOnly) count as upper halves: the sweep
	// then merges them as whole cells
	for o, c := range cellN {
		if c > 0 {
			halfP[2*o+1] += cellP[o]
			halfQ[2*o+1] += cellQ[o]
			halfN[2*o+1] += c
			if halfLP != nil {
				halfLP[2*o+1] = math.NaN()
			}
		}
	}
	g.lowerChain(halfP, halfQ, halfN, halfLP, halfLQ, b.halfCuts)

	// relative errors: the largest of one contribution plus the sums'
	// rounding (a bucket is the sum of its own contributions only)
	var maxA, maxC int32
	for o := range g.addsA {
		maxA = max(maxA, g.addsA[o])
		maxC = max(maxC, g.addsC[o])
	}
	l.relA = (g.relA + gamma(int(maxA)+2)) * (1 + 2*u)
	l.relC = (g.relC + gamma(int(maxC)+2)) * (1 + 2*u)
	l.wUp = g.wUp * (1 + 4*u)
	l.wLo = g.wLo * (1 + 4*u)

	// corners of the upper pair: those of the grouped leaf (the same
	// events), and the groups that left the range at the bottom
	rc := (rel + gamma(b.events+2)) * (1 + 2*u)
	mk := func(v float64) val { return val{v, rc * v} }
	bHiA, bHiC, bLoA, bLoC := b.hiA, b.hiC, b.loA, b.loC
	bHiAErr, bHiCErr, bLoAErr, bLoCErr := b.hiAErr, b.hiCErr, b.loAErr, b.loCErr
	if lowSep {
		// groups is a complete dominating pair of its own: the corners
		// the grouped leaf's events left in b are not its events
		bHiA, bHiC, bLoA, bLoC = 0, 0, 0, 0
		bHiAErr, bHiCErr, bLoAErr, bLoCErr = 0, 0, 0, 0
	}
	l.hiA, l.hiC = mk(bHiA+g.hiA+tinyHiA), mk(bHiC+g.hiC+tinyHiC)
	l.loA, l.loC = mk(bLoA+g.loA+tinyLoA), mk(bLoC+g.loC+tinyLoC)
	l.hiA.e += bHiAErr*(1+4*u) + tinyErr
	l.hiC.e += bHiCErr*(1+4*u) + tinyErr
	l.loA.e += bLoAErr + tinyErr
	l.loC.e += bLoCErr + tinyErr
	l.distA, l.distB = mk(b.distA), mk(b.distB)
	l.distA.e += b.distAErr
	l.distB.e += b.distBErr
	// the lower pair's distinguishing masses: lower ends count
	l.lowDistA, l.lowDistB = mk(b.distA), mk(b.distB)
	l.lowDistA.e += b.distAErr
	l.lowDistB.e += b.distBErr

	l.compositions = 1
	l.names = []nameCount{{name, 1}}
	l.lo, l.hi = 0, 2*n-1
	l.trim()
	// masses or spread products below 2^-1022 carry an absolute error of
	// a few 2^-1074 (list.abs)
	if !(l.minPositive() >= minNormal) {
		l.abs = 0x1p-1068
	}
	sa, sc := l.regularMass()
	l.l1A, l.l1C = l.relA*sa*(1+4*u), l.relC*sc*(1+4*u)
	l.l1A += float64(2*n) * l.abs
	l.l1C += float64(2*n) * l.abs
	return l
}

// nearGrid reports whether [lossLo, lossHi] lies within gridWindowCap of a
// grid point k*lambda (and within lambda/4 of it), with the window.
//
// An interval wider than 4 gridWindowCap is refused at once: a window w <=
// gridWindowCap puts both ends within w (1 + u) of k lambda (w rounds up
// max(d1, d2), each d the distance rounded once), so the width is at most
// 2 gridWindowCap (1 + u)^3 as computed; the answer is the same (NaN and
// infinite ends fail either test).
func nearGrid(lossLo, lossHi, lam float64) (k int, w float64, ok bool) {
	if !(lossHi-lossLo <= 4*gridWindowCap) {
		return 0, 0, false
	}
	kf := math.Round((lossLo + lossHi) / 2 / lam)
	if math.IsNaN(kf) || math.Abs(kf) > 1<<40 {
		return 0, 0, false
	}
	// exact differences to the grid point (one rounding each)
	d1 := math.Abs(math.FMA(-kf, lam, lossLo))
	d2 := math.Abs(math.FMA(-kf, lam, lossHi))
	w = max(d1, d2) * (1 + 2*unitRoundoff)
	if w > gridWindowCap || w > lam/4 {
		return 0, 0, false
	}
	return int(kf), w, true
}

// spreadParts is the upper pair of one group: A-masses lo at j*lambda and hi
// at i*lambda, each with a bound on its relative error (0: the stored number
// is the atom's mass), and the window of the pair (both atoms' losses lie
// within w of their grid points).
type spreadParts struct {
	lo, hi       float64
	relLo, relHi float64
	w            float64
	// absorb says which atom absorbs the rest (for tests): 0 none (both
	// masses are upper bounds of the exact spread onto x0, x1), 1 the lower
	// (hi exact), 2 the upper (lo exact)
	absorb int
	x0, x1 float64
	// hiBound is an upper bound of the exact upper mass a_hi* (hi itself
	// unless the upper atom absorbs the rest), wHi the window of an atom
	// stored at i for x1, and bLo an upper bound of the exact lower atom's
	// B-mass a_lo* e^-x0 = (q - p e^-x1)/(1 - e^-W): finishGrid keeps the
	// lower atom in the low corner when its A-mass is not representable
	// (lowAtomUnderflows).
	hiBound, wHi, bLo float64
}

// lowAtomUnderflows reports whether the lower atom of a spread, at loss
// x0 with B-mass at most bLo, has an A-mass (bLo e^x0 at most) that may
// fall below the normal float64 range while its B-mass does not vanish: a
// grid list stores A-masses only (B = A e^-L is implied), so such an atom
// would lose its B-mass, and with it its share of delta B||A (few buckets
// over a wide range put x0 hundreds of nats below the group's losses:
// SubsampledGauss sigma 0.014, q 9.6e-8, fixed_size, 8 buckets had
// delta_up B||A(0) = 7e-319 for an exact 9.6e-8).
func lowAtomUnderflows(s spreadParts) bool {
	if s.bLo >= 1e-280 && s.x0 >= -20 {
		// ln(bLo) + x0 >= -664.7 > ln(minNormal) + 40 = -668.4: the
		// answer below without the logarithms
		return false
	}
	return s.bLo > 0 && ln(s.bLo)+s.x0 < ln(minNormal)+40
}

// spreadUpper returns the upper pair of a group with A-mass p and B-mass q
// (relative error r each) and losses in [lossLo, lossHi], spread onto two
// points x0 <= lossLo and x1 >= lossHi and stored at the grid points j < i
// (see the file comment). x0 is j lambda (loGrid) or lossLo itself when that
// lies a rounding error below j lambda; x1 is i lambda (hiGrid) or lossHi
// when that lies a rounding error above i lambda. (The loss bounds of a
// continuous bucket overlap its borders by their rounding errors; spreading
// onto the next grid points would spread it over three buckets.) An atom
// stored off its point gets the distance as window.
func spreadUpper(p, q, r float64, j, i int, lam, lossLo, lossHi float64, loGrid, hiGrid bool) spreadParts {
	var c spreadCache
	return c.spread(p, q, ln(q), r, j, i, lam, lossLo, lossHi, loGrid, hiGrid)
}

// spreadCache holds 1 - e^-W and e^W - 1 for the last width W that
// spreadCache.spread met, in two slots: widths between two grid points,
// W = (i-j) lambda, and widths with an end off the grid (a group whose
// loss bound lies a rounding error beyond a grid point). The groups of a
// leaf cut at half cells alternate between the two (one whole cell, then
// one cell plus a rounding error), so one slot would miss at every group;
// the grid slot then always hits. The values are those computed for W, so
// a spread is bit for bit spreadUpper's.
type spreadCache struct {
	grid, off widthExps
	// full computes every enclosure of spread (tests compare the two)
	full bool
}

// widthExps is one slot of spreadCache: -expm1(-w) and expm1(w).
type widthExps struct {
	w, den, em1 float64
	set         bool
}

// widths returns -expm1(-W) and expm1(W); onGrid says which slot W uses.
func (c *spreadCache) widths(W float64, onGrid bool) (den, em1 float64) {
	s := &c.off
	if onGrid {
		s = &c.grid
	}
	if !s.set || math.Float64bits(W) != math.Float64bits(s.w) {
		s.w, s.den, s.em1, s.set = W, -math.Expm1(-W), math.Expm1(W), true
	}
	return s.den, s.em1
}

// spread is spreadUpper with lnq = ln(q) given (finishGrid needs it too)
// and the widths' exponentials kept in c.
func (c *spreadCache) spread(p, q, lnq, r float64, j, i int, lam, lossLo, lossHi float64, loGrid, hiGrid bool) spreadParts {
	u := unitRoundoff
	jf, ifl := float64(j), float64(i)
	var W, x0, x1, shift0, shift1 float64
	s := func(l float64) float64 { // l - x0 >= 0
		if loGrid {
			return max(0, math.FMA(-jf, lam, l))
		}
		return max(0, l-lossLo)
	}
	t := func(l float64) float64 { // x1 - l >= 0
		if hiGrid {
			return max(0, math.FMA(ifl, lam, -l))
		}
		return max(0, lossHi-l)
	}
	switch {
	case loGrid && hiGrid:
		W = float64(i-j) * lam
	case hiGrid:
		W = math.FMA(ifl, lam, -lossLo)
	case loGrid:
		W = math.FMA(-jf, lam, lossHi)
	default:
		W = lossHi - lossLo
	}
	x0, x1 = jf*lam, ifl*lam
	if !loGrid {
		x0 = lossLo
		shift0 = math.FMA(jf, lam, -lossLo) * (1 + 2*u)
	}
	if !hiGrid {
		x1 = lossHi
		shift1 = math.FMA(-ifl, lam, lossHi) * (1 + 2*u)
	}
	sLo, sHi := s(lossLo), s(lossHi)
	tLo, tHi := t(lossHi), t(lossLo)
	den, em1 := c.widths(W, loGrid && hiGrid) // 1 - e^-W (relative error <= 2u), e^W - 1
	pLo := p * (1 - r) * (1 - 2*u)
	pHi := p * (1 + r) * (1 + 2*u)

	// Enclosures from the masses: a_hi* = (p - q e^x0)/den, a_lo* =
	// (q e^(i lambda) - p)/em1; q e^x by logarithms (no overflow), with x
	// computed with relative error u.
	scaled := func(x float64) (v, e float64) {
		v = math.Exp(lnq + x)
		e = r + 4*u*(math.Abs(x)+math.Abs(lnq)+4)
		return v, e
	}
	hM0, hM1 := 0.0, math.Inf(1)
	oM0, oM1 := 0.0, math.Inf(1)
	if qj, e := scaled(x0); !math.IsInf(qj, 0) && !math.IsNaN(qj) && e < 0.5 {
		if num := pLo - qj*(1+e)*(1+2*u); num > 0 {
			hM0 = num * (1 - 2*u) / den * (1 - 4*u)
		}
		num := pHi - qj*(1-e)*(1-2*u)
		hM1 = max(0, num*(1+2*u)/den*(1+4*u))
	}
	if qi, e := scaled(x1); !math.IsInf(qi, 0) && !math.IsNaN(qi) && e < 0.5 {
		if num := qi*(1-e)*(1-2*u) - pHi; num > 0 {
			oM0 = num * (1 - 2*u) / em1 * (1 - 4*u)
		}
		num := qi*(1+e)*(1+2*u) - pLo
		oM1 = max(0, num*(1+2*u)/em1*(1+4*u))
	}

	// Enclosures from the losses: a_hi* = E_P[G(l)], G increasing;
	// a_lo* = E_P[1 - G(l)] with 1 - G(l) = e^-s (1 - e^-t)/den, s = l - x0,
	// t = x1 - l (computed with one rounding). Each is computed only when
	// it can be the tighter one: with the same expression on a bound of
	// its exponentials (negExpm1Upper, negExpm1Lower; every operation is
	// monotone in them), a lower end that cannot exceed the masses' and an
	// upper end that cannot fall below them are skipped. The enclosures are
	// then bit for bit those of computing all four (the maximum or minimum
	// of equal or ordered numbers), at a third of the exponentials: on a
	// fine grid the masses' enclosures are the tighter by far (about r/W
	// wide against the group's share of the cell).
	h0 := hM0
	if ub := pLo * (negExpm1Upper(sLo) / den) * (1 - 8*u); c.full || !(ub <= hM0) {
		hL0 := pLo * (-math.Expm1(-sLo) / den) * (1 - 8*u)
		h0 = max(hL0, hM0)
	}
	h1 := hM1
	if lb := pHi * min(1, negExpm1Lower(sHi)/den*(1+8*u)) * (1 + 2*u); c.full || !(lb >= hM1) {
		hL1 := pHi * min(1, -math.Expm1(-sHi)/den*(1+8*u)) * (1 + 2*u)
		h1 = min(hL1, hM1)
	}
	o0 := oM0
	// e^-sHi <= 1 (+4u: exp's rounding) is inside negExpm1Upper's margin
	if ub := pLo * (negExpm1Upper(tLo) / den) * (1 - 12*u); c.full || !(ub <= oM0) {
		oL0 := pLo * (math.Exp(-sHi) * -math.Expm1(-tLo) / den) * (1 - 12*u)
		o0 = max(oL0, oM0)
	}
	o1 := oM1
	// e^-sLo >= 1 - sLo (-4u: exp's rounding, inside negExpm1Lower's margin)
	if lb := pHi * min(1, (1-sLo)*negExpm1Lower(tHi)/den*(1+12*u)) * (1 + 2*u); c.full || !(lb >= oM1) {
		oL1 := pHi * min(1, math.Exp(-sLo)*-math.Expm1(-tHi)/den*(1+12*u)) * (1 + 2*u)
		o1 = min(oL1, oM1)
	}
	h0 = max(0, h0)
	h1 = min(pHi, h1)
	o0 = max(0, o0)
	o1 = min(pHi, o1)
	// a_hi* + a_lo* = p
	h0 = max(h0, (pLo-o1)*(1-2*u))
	h1 = min(h1, (pHi-o0)*(1+2*u))
	o0 = max(o0, (pLo-h1)*(1-2*u))
	o1 = min(o1, (pHi-h0)*(1+2*u))
	if !(h0 <= h1 && o0 <= o1) { // only through a bug or NaN: the trivial enclosure
		h0, h1, o0, o1 = 0, pHi, 0, pHi
	}
	// the lower atom's B-mass (q - p e^-x1)/den, from above (e^-x1 by
	// logarithms: p e^-x1 <= q). It serves lowAtomUnderflows only, which
	// is false whatever upper bound it gets once the lower atom's A-mass
	// is at least o0 >= 1e-250 (ln(bLo) + x0 >= ln(o0) = -575.6, far above
	// its threshold): then q (1+r) (1+2u), the cheaper bound, is kept.
	bLo := q * (1 + r) * (1 + 2*u)
	if pLo > 0 && (c.full || !(o0 >= 1e-250)) {
		lp := ln(pLo)
		pe := math.Exp(lp-x1-4*u*(math.Abs(lp)+math.Abs(x1)+4)) * (1 - 2*u)
		if v := (bLo - pe) * (1 + 2*u) / den * (1 + 4*u); v < bLo {
			bLo = max(0, v)
		}
	}
	// (built only where a group needs it)
	fallback := func() spreadParts {
		return spreadParts{lo: o1, hi: h1, w: max(shift0, shift1), x0: x0, x1: x1, hiBound: h1, wHi: shift1, bLo: bLo}
	}
	relCap := 4*r + 16*u
	if h1 <= o1 {
		// hi exact (H = h1 >= a_hi*), lo absorbs p - H
		rest := p - h1
		if !(pLo-h1 > 0) || !(rest > 0) {
			return fallback()
		}
		w := (h1 - h0) * den / ((pLo - h1) * (1 - 2*u)) * (1 + 8*u)
		rel := r*p*(1+2*u)/rest*(1+2*u) + 2*u
		if !(w <= gridWindowCap) || !(rel <= relCap) {
			return fallback()
		}
		return spreadParts{lo: rest, hi: h1, relLo: rel, w: max(w+shift0, shift1) * (1 + 2*u), absorb: 1, x0: x0, x1: x1, hiBound: h1, wHi: shift1, bLo: bLo}
	}
	// lo exact (Lm = o1 >= a_lo*), hi absorbs p - Lm; its B-mass
	// q - Lm e^-x0 must stay positive
	rest := p - o1
	den2 := (pLo-o1)*(1-2*u) - (o1-o0)*em1*(1+4*u)
	if !(den2 > 0) || !(rest > 0) {
		return fallback()
	}
	w := (o1 - o0) * em1 * (1 + 4*u) / den2 * (1 + 8*u)
	rel := r*p*(1+2*u)/rest*(1+2*u) + 2*u
	if !(w <= gridWindowCap) || !(rel <= relCap) {
		return fallback()
	}
	return spreadParts{lo: o1, hi: rest, relHi: rel, w: max(shift0, w+shift1) * (1 + 2*u), absorb: 2, x0: x0, x1: x1, hiBound: h1, wHi: shift1, bLo: bLo}
}

// negExpm1Upper returns a number at least the computed -expm1(-s) for
// s >= 0 (Expm1 is accurate to 1 ulp, and 1 - e^-s <= s): s (1 + 32u),
// whose margin also covers a factor e^-s' <= 1 (+4u) and one more
// rounding; +Inf where s is not a normal number or 0 (no claim).
func negExpm1Upper(s float64) float64 {
	if s == 0 {
		return 0
	}
	if !(s >= 0x1p-1000) {
		return math.Inf(1)
	}
	return s * (1 + 32*unitRoundoff)
}

// negExpm1Lower returns a number at most the computed -expm1(-s): (s -
// s^2/2)(1 - 32u) for 0x1p-1000 <= s <= 1 (1 - e^-s >= s - s^2/2, which
// is at least s^2/2 there, so the roundings of the expression lose at most
// 3u relative; the margin also covers a factor 1 - s' <= e^-s' (-4u) and
// two more roundings), else 0 (-expm1(-s) >= 0), NaN for NaN.
func negExpm1Lower(s float64) float64 {
	if math.IsNaN(s) {
		return s
	}
	if !(s >= 0x1p-1000 && s <= 1) {
		return 0
	}
	return (s - s*s*0.5) * (1 - 32*unitRoundoff)
}

// lowerChain builds the lower pair's atoms from the per-half-cell sums
// (entries 2o and 2o+1 hold the events of cell offset o, with loss in
// ((i-1) lambda, (i-1/2) lambda] and ((i-1/2) lambda, i lambda], i its
// index; the split is for tightness only), by one of two sweeps (see the
// file comment): from low to high loss over all half cells; or from the
// half cell of the largest A-mass up, and below it from high to low loss
// (the same sweep on the mirrored pair), which keeps each carry on the
// side of its point where the density falls. The second is taken when the
// half cells were cut (halves) unless it keeps less mass (its lowest carry
// has nothing to merge with).
//
// lnP and lnQ, when not nil (with halves only), hold ln cellP[h] and ln
// cellQ[h] where cellN[h] = 1 and lnP[h] is not NaN; lowerChain fills in
// the others.
func (g *gridBuilder) lowerChain(cellP, cellQ []float64, cellN []int32, lnP, lnQ []float64, halves bool) {
	l := g.l
	u := unitRoundoff
	valid := func(h int) bool { return cellN[h] > 0 && cellP[h] > 0 && cellQ[h] > 0 }
	rel := func(h int) float64 { return (g.r + gamma(int(cellN[h])+2)) * (1 + 2*u) }
	mode, best := 0, 0.0
	for h := range cellP {
		if valid(h) && cellP[h] > best {
			mode, best = h, cellP[h]
		}
	}
	// start the upward sweep at the upper half of the mode's cell, so that
	// its carries begin a quarter cell below their points (a sweep whose
	// carries begin three quarters below keeps merging whole cells around
	// every other point, which loses four times as much)
	mode |= 1
	// the logarithms of the half cells' masses, computed once for all
	// sweeps (with halves; one sweep otherwise)
	if halves && lnP == nil {
		lnP, lnQ = make([]float64, len(cellP)), make([]float64, len(cellP))
		for h := range lnP {
			lnP[h] = math.NaN()
		}
	}
	// (each sweep emits at most one atom per grid point: capacities)
	all := lowerSweep{g: g, atoms: make([]lowAtom, 0, len(cellP)/2+2)}
	for h := range cellP {
		if !valid(h) {
			continue
		}
		var lp, lq float64
		if halves && cellN[h] == 1 && !math.IsNaN(lnP[h]) {
			lp, lq = lnP[h], lnQ[h]
		} else {
			lp, lq = ln(cellP[h]), ln(cellQ[h])
			if halves {
				lnP[h], lnQ[h] = lp, lq
			}
		}
		all.push(cellP[h], cellQ[h], lp, lq, rel(h), l.index(h/2))
	}
	if !halves {
		all.apply()
		return
	}
	// below the mode: the mirrored pair (A and B exchanged, losses
	// negated), whose half cell of index k lies below the point -k+1
	down := lowerSweep{g: g, mirror: true, atoms: make([]lowAtom, 0, min(mode, len(cellP))/2+2)}
	for h := min(mode, len(cellP)) - 1; h >= 0; h-- {
		if valid(h) {
			down.push(cellQ[h], cellP[h], lnQ[h], lnP[h], rel(h), 1-l.index(h/2))
		}
	}
	// the last carry of each sweep has no partner beyond it: discarded.
	// The upward sweep from the mode keeps at most the A-mass pushed into
	// it: every half cell's fractions sum to at most 1 + 2u, and each sum
	// of the sweep (carries, atoms, kept) rounds up by at most a factor
	// 1 + u, along at most 2 len(cellP) + 8 additions in all; when even
	// that bound loses to the single sweep, the comparison below would
	// choose it, and the sweep from the mode is not run (same leaf, bit
	// for bit).
	pushed := 0.0
	for h := mode; h < len(cellP); h++ {
		if valid(h) {
			pushed += cellP[h]
		}
	}
	bound := pushed * (1 + 2*gamma(4*len(cellP)+16))
	if !g.allSweeps && down.kept+bound < all.kept*(1-1e-12) {
		all.apply()
		return
	}
	split := lowerSweep{g: g, atoms: make([]lowAtom, 0, max(0, len(cellP)-mode)/2+2)}
	for h := mode; h < len(cellP); h++ {
		if valid(h) {
			split.push(cellP[h], cellQ[h], lnP[h], lnQ[h], rel(h), l.index(h/2))
		}
	}
	if split.kept+down.kept >= all.kept*(1-1e-12) {
		split.apply()
		down.apply()
	} else {
		all.apply()
	}
}

// lowerSweep merges a sequence of half cells, in order of increasing loss,
// into atoms on grid points (see the file comment): a carry below its
// target point k lambda takes whole half cells until the next lies above
// the point, and of that one the fraction beta that puts the merged atom on
// the point; the rest carries on to the next target. With mirror, the
// masses and losses are those of the mirrored pair (B, A): the atoms go to
// the lower pair at the negated points with the masses exchanged.
type lowerSweep struct {
	g        *gridBuilder
	mirror   bool
	P, Q, rc float64 // carry and its relative error
	have     bool
	tgt      int       // index of the target point
	atoms    []lowAtom // the atoms emitted
	kept     float64   // their A-mass
	// lP, lQ: ln P and ln Q of the carry when it is a half cell as pushed
	// (lnOK), so that its logarithms are not computed twice
	lP, lQ float64
	lnOK   bool
}

// lowAtom is an atom of the lower pair: A-mass a (relative error rel) at
// point k, within w of it.
type lowAtom struct {
	k         int
	a, rel, w float64
}

// apply adds the sweep's atoms to the lower pair.
func (s *lowerSweep) apply() {
	for _, at := range s.atoms {
		s.g.addLow(at.k, at.a, at.rel)
		s.g.wLo = max(s.g.wLo, at.w)
	}
}

// emit adds the atom of masses (A, B) (relative error rA) at point k, or
// discards it when its loss is not within the window cap of the point.
func (s *lowerSweep) emit(k int, A, B, rA float64) {
	s.emitLn(k, A, B, ln(A), ln(B), rA)
}

// emitLn is emit with la = ln(A) and lb = ln(B) given.
func (s *lowerSweep) emitLn(k int, A, B, la, lb, rA float64) {
	g := s.g
	u := unitRoundoff
	if s.mirror {
		k, A, B, la, lb = -k, B, A, lb, la
	}
	gk := float64(k) * g.l.lambda
	rho := la - lb - gk
	w := math.Abs(rho) + 2*rA + 4*u*(math.Abs(la)+math.Abs(lb)+math.Abs(gk)+4)
	w *= 1 + 1e-9
	if g.overshoot != 0 {
		w = 0
	}
	if !(w <= gridWindowCap || w <= g.lowCap) || !(A > 0) {
		return // discarded
	}
	s.atoms = append(s.atoms, lowAtom{k, A, rA, w})
	s.kept += A
}

// push adds the next half cell: masses pN, qN (relative error rN) with
// logarithms lpN = ln(pN), lqN = ln(qN), lying below the point k lambda
// (k its cell's index).
func (s *lowerSweep) push(pN, qN, lpN, lqN, rN float64, k int) {
	u := unitRoundoff
	lam := s.g.l.lambda
	if !s.have {
		s.P, s.Q, s.rc, s.tgt, s.have = pN, qN, rN, k, true
		s.lP, s.lQ, s.lnOK = lpN, lqN, true
		return
	}
	gk := float64(s.tgt) * lam
	lP, lQ := s.lP, s.lQ
	if !s.lnOK {
		lP, lQ = ln(s.P), ln(s.Q)
	}
	rhoC := lP - lQ - gk
	rhoN := lpN - lqN - gk
	if rhoC >= 0 {
		// the carry reached its target (up to rounding)
		s.emitLn(s.tgt, s.P, s.Q, lP, lQ, s.rc)
		s.P, s.Q, s.rc, s.tgt = pN, qN, rN, k
		s.lP, s.lQ, s.lnOK = lpN, lqN, true
		return
	}
	s.lnOK = false
	if rhoN <= 0 {
		// the next half cell is not above the target: merge it whole
		s.P, s.Q, s.rc = s.P+pN, s.Q+qN, max(s.rc, rN)+2*u
		return
	}
	dC := s.P * -math.Expm1(-rhoC) // < 0
	dN := pN * -math.Expm1(-rhoN)  // > 0
	beta := -dC / dN * (1 + s.g.overshoot)
	if !(beta < 1) {
		s.P, s.Q, s.rc = s.P+pN, s.Q+qN, max(s.rc, rN)+2*u
		return
	}
	s.emit(s.tgt, s.P+beta*pN, s.Q+beta*qN, max(s.rc, rN)+4*u)
	// the rest carries on: a fraction at most 1 - beta (rounded down, so
	// that the fractions used never exceed 1)
	f := (1 - beta) * (1 - 2*u)
	s.P, s.Q, s.rc, s.tgt = f*pN, f*qN, rN+2*u, k
}
