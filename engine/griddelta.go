package engine

import "math"

// gridTable holds the eps-independent per-offset quantities of a grid
// list's delta: the upper ends of the upper pair's masses, the lower ends of
// the lower pair's, and e^-L(o) (0 or +Inf where it leaves float64) with its
// relative error.
type gridTable struct {
	up, low []float64
	t       []float64
	trel    float64
	// sums are the prefix and suffix sums of the masses (griddeltasums.go;
	// nil where e^-L leaves float64): delta sums the atoms far from eps
	// from them, and the eps searches' guide is made of them
	sums *gridSums
}

// gridTable returns the table of l with the error bounds b, in b's work
// arrays where it has them (bounds.table; every entry is written).
func (l *list) gridTable(b bounds) *gridTable {
	m := 2 * l.n
	t := &gridTable{}
	if len(b.table) == 3 {
		t.up, t.low, t.t = b.table[0][:m], b.table[1][:m], b.table[2][:m]
		t.trel = weightsInto(t.t, l.n, l.lambda, -1)
	} else {
		t.up, t.low = make([]float64, m), make([]float64, m)
		t.t, t.trel = weights(l.n, l.lambda, -1)
	}
	for o := 0; o < m; o++ {
		t.up[o] = (l.a[o] + b.ea[o]) * (1 + 2*unitRoundoff)
		t.low[o] = math.Max(0, l.c[o]-b.ec[o]) * (1 - 2*unitRoundoff)
	}
	t.sums = newGridSums(l, t)
	return t
}

// gridDelta evaluates delta at eps for both directions from a grid list
// (grid.go): the upper bounds from the upper pair, the lower bounds from the
// lower pair, each atom at its window's worst end. The corners of the upper
// pair count in full; the lower pair's distinguishing masses count. Where
// the table has its sums (gridTable.sums), the atoms two spacings or more
// beyond eps (A||B) and -eps (B||A), from a block boundary on, are summed
// in closed form (griddeltasums.go), the rest atom by atom: an evaluation
// then costs a few blocks of atoms, not 2n.
func (l *list) gridDelta(eps float64, t *gridTable) DeltaBound {
	return l.gridDeltaWith(eps, t, errAll)
}

// gridDeltaWith is gridDelta with the error bounds of mode (delta.go).
func (l *list) gridDeltaWith(eps float64, t *gridTable, mode errMode) DeltaBound {
	res := DeltaBound{Eps: eps, Corners: l.corners()}
	n := l.n
	u := unitRoundoff
	if math.IsInf(eps, 1) {
		res.UpperAB, res.UpperBA = l.distA.upper(), l.distB.upper()
		res.LowerAB, res.LowerBA = l.lowDistA.lower(), l.lowDistB.lower()
	} else {
		wU, wL := l.wUp, l.wLo
		// A||B: an atom at loss l contributes a (1 - e^(eps-l))^+. The
		// exponent eps - L -+ w is computed with an absolute error of at
		// most d = 4u (eps + |L| + w), taken in the safe direction.
		var upAB, upABv, loAB, loABv float64
		start := max(0, int(math.Floor((eps-wU)/l.lambda))+n-3)
		// the atoms two spacings beyond eps and its windows, from the
		// first block boundary on, in closed form (griddeltasums.go)
		gs := t.sums
		if !(eps >= 0 && eps <= 500) {
			gs = nil
		}
		wm := math.Max(wU, wL)
		aEnd := 2 * n
		if gs != nil {
			k := max(start, l.firstAboveLoss(eps+wm+2*l.lambda))
			if k = (k + guideBlock - 1) / guideBlock * guideBlock; k < 2*n {
				aEnd = k
				upAB, upABv, loAB, loABv = gs.closedAB(k, eps, wU, wL, t.trel)
			}
		}
		walk := newExpWalk(-l.lambda)
		for o := start; o < aEnd; o++ {
			L := l.loss(o)
			d := 4 * u * (eps + math.Abs(L) + wU + wL)
			fU, fL, okU, okL := walk.factors(eps-L, wU+d, wL+d)
			if okU {
				upAB += t.up[o] * fU
				upABv += l.a[o] * fU
			}
			if okL {
				loAB += t.low[o] * fL
				loABv += l.c[o] * fL
			}
		}
		// B||A: an atom at loss l contributes a (e^-l - e^eps)^+ =
		// a e^-l (1 - e^(eps+l))^+.
		var upBA, loBA, upBAv, loBAv float64
		end := min(2*n-1, int(math.Ceil((wU-eps)/l.lambda))+n+1)
		ewU := math.Exp(wU) * (1 + 2*u)
		ewL := math.Exp(-wL) * (1 - 2*u)
		gt := (1 + t.trel) * (1 + 4*u)
		// the atoms two spacings below -eps and the windows, up to the
		// last block boundary, in closed form
		bStart := 0
		if gs != nil {
			if k := min(l.firstAboveLoss(-eps-wm-2*l.lambda), end+1) / guideBlock * guideBlock; k > 0 {
				bStart = k
				upBA, upBAv, loBA, loBAv = gs.closedBA(k, eps, wU, wL, t.trel)
			}
		}
		walk = newExpWalk(l.lambda)
		for o := bStart; o <= end; o++ {
			L := l.loss(o)
			d := 4 * u * (eps + math.Abs(L) + wU + wL)
			up, low := t.up[o], t.low[o]
			// (the same terms from the computed values alone, upBAv and
			// loBAv, for the tilted total-error bounds below)
			fU, fL, okU, okL := walk.factors(eps+L, wU+d, wL+d)
			if okU && up > 0 {
				f := fU
				if e := t.t[o]; e > 0 && !math.IsInf(e, 0) {
					upBA += up * e * gt * ewU * f
					upBAv += l.a[o] * e * gt * ewU * f
				} else {
					s := 8 * u * (math.Abs(L) + math.Abs(ln(up)) + wU + 4)
					upBA += math.Exp(ln(up)-L+wU+s) * f
					if v := l.a[o]; v > 0 {
						s := 8 * u * (math.Abs(L) + math.Abs(ln(v)) + wU + 4)
						upBAv += math.Exp(ln(v)-L+wU+s) * f
					}
				}
			}
			if okL && low > 0 {
				f := fL
				if e := t.t[o]; e > 0 && !math.IsInf(e, 0) {
					loBA += low * e / gt * ewL * f
					loBAv += l.c[o] * e / gt * ewL * f
				} else {
					s := 8 * u * (math.Abs(L) + math.Abs(ln(low)) + wL + 4)
					loBA += math.Exp(ln(low)-L-wL-s) * f
					if v := l.c[o]; v > 0 {
						s := 8 * u * (math.Abs(L) + math.Abs(ln(v)) + wL + 4)
						loBAv += math.Exp(ln(v)-L-wL-s) * f
					}
				}
			} else if okL && l.c[o] > 0 {
				// the lower end is 0 here, the computed value is not: its
				// term (a lower bound only after subtracting the error
				// bound below) still belongs to loBAv
				f := fL
				if e := t.t[o]; e > 0 && !math.IsInf(e, 0) {
					loBAv += l.c[o] * e / gt * ewL * f
				} else {
					v := l.c[o]
					s := 8 * u * (math.Abs(L) + math.Abs(ln(v)) + wL + 4)
					loBAv += math.Exp(ln(v)-L-wL-s) * f
				}
			}
		}
		g := 1 + gamma(2*n+16)
		// the total errors bound the A||B sums of the atoms above eps too
		// (every factor f is at most 1): sum (a + d) f <= sum a f + l1
		if mode == errAll {
			upAB = math.Min(upAB, upABv+l.l1A)
			loAB = math.Max(loAB, loABv-l.l1C*g)
		}
		// Tilted total errors (tl1.go, gridTailTL1): the errors of the
		// atoms above eps summed with their factors f, which vanish at
		// eps: sum |d| f <= E_m e^(-tau_m e0) max (1-e^-x) e^(-tau_m x),
		// e0 = eps - wU for the upper pair (f <= 1 - e^(eps - wU - L)),
		// eps for the lower (f <= 1 - e^(eps - L)); in B||A the terms carry
		// e^-L (and e^wU, resp. e^-wL <= 1) and the shifted tilts.
		// The entries zeroed as noise (list.tl1ZA) hold a true mass >=
		// their stored 0: upper bounds add their values (A||B: zA, since
		// f <= 1; B||A: the whole tilted bounds, tl1Sum), lower bounds
		// need only the errors of the other entries (tl1C).
		tAB := upABv + (l.gridTailTL1(l.tl1A, eps-wU, false)+l.zA)*(1+2*u)
		tlAB := loABv - l.gridTailTL1(l.tl1C, eps, false)*g
		sa, _ := l.tl1Sum()
		tBA := math.Inf(1)
		if eb := l.gridTailTL1(sa, eps-wU, true); eb < math.Inf(1) {
			tBA = upBAv + mulExp(eb, wU, 4*u*(wU+1), true)
		}
		tlBA := loBAv - l.gridTailTL1(l.tl1C, eps, true)*g
		switch mode {
		case errAll:
			upAB, loAB = math.Min(upAB, tAB), math.Max(loAB, tlAB)
			upBA, loBA = math.Min(upBA, tBA), math.Max(loBA, tlBA)
		case errTilted:
			upAB, loAB, upBA, loBA = tAB, tlAB, tBA, tlBA
		}
		// terms that underflowed to 0 lose at most 2^-1074 each
		uf := float64(2*n) * 0x1p-1074
		res.UpperAB = (upAB+l.distA.upper()+l.hiA.upper()+l.loA.upper())*g + uf
		res.UpperBA = (upBA+l.distB.upper()+l.loC.upper()+l.hiC.upper())*g + uf
		res.LowerAB = math.Max(0, loAB+l.lowDistA.lower()) / g
		res.LowerBA = math.Max(0, loBA+l.lowDistB.lower()) / g
	}
	// an infinite error times a vanishing factor is the only way to NaN:
	// the bound is then unknown (finishDelta clamps it to the trivial
	// bound and, as for a grouped list, says why a trivial upper bound
	// arose). The grid's lower pair is a lower bound whether or not error
	// correction is enabled.
	finishDelta(&res, true, l.cornerValue())
	return res
}

// combineDelta returns the tighter of two sound bounds, direction by
// direction: the smaller upper and the larger lower bound.
func combineDelta(x, y DeltaBound) DeltaBound {
	z := x
	z.UpperAB = math.Min(x.UpperAB, y.UpperAB)
	z.UpperBA = math.Min(x.UpperBA, y.UpperBA)
	z.LowerAB = maxNaN(x.LowerAB, y.LowerAB)
	z.LowerBA = maxNaN(x.LowerBA, y.LowerBA)
	z.Upper = math.Max(z.UpperAB, z.UpperBA)
	z.Lower = math.Max(z.LowerAB, z.LowerBA)
	if z.Upper < 1 {
		z.Note = "" // the notes explain a trivial upper bound
	} else if z.Note == "" {
		z.Note = y.Note
	}
	return z
}

// maxNaN is the maximum, ignoring a NaN operand (a lower bound that was not
// computed).
func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	if math.IsNaN(b) {
		return a
	}
	return math.Max(a, b)
}
