package engine

import (
	"math"
	"runtime"
	"sync"
)

// gridSquare returns the squared grid list (see grid.go): the factor
// becomes f^2 and the atom at old index m goes to new index m/2 for even
// m; the odd atoms are spread (upper pair) or merged (lower pair) onto the
// even points. Corners and windows are unchanged.
func (l *list) gridSquare() *list { return l.gridSquareRec(nil) }

// mergeLog records the merges of a grid squaring (tests): per merged or
// kept part, the input offsets, the new offset and the amounts taken.
type mergeLog struct {
	parts []mergePart
}

// mergePart: amounts x of o1 and y of o2 (o2 < 0: an even atom kept, y
// unused) went to the new offset ok with coefficients k1 = 1 + y/x and
// k2 = 1 + x/y.
type mergePart struct {
	o1, o2, ok   int
	x, y, k1, k2 float64
}

// gridSquareRec is gridSquare, recording the merges in rec (nil: none).
func (l *list) gridSquareRec(rec *mergeLog) *list {
	return l.gridSquareWith(rec, newSquareWork(l.n, nil))
}

// gridSquareWith is gridSquareRec with its arrays (the squared list's and
// the merges' work) from w (squareWork).
func (l *list) gridSquareWith(rec *mergeLog, w *squareWork) *list {
	n := l.n
	z := newListOn(n, 2*l.lambda, l.tau, w.zeros(), w.zeros())
	z.grid = true
	z.wUp, z.wLo = l.wUp, l.wLo
	z.compositions, z.squarings = l.compositions, l.squarings+1
	z.variance = l.variance
	z.names = append([]nameCount(nil), l.names...)
	z.hiA, z.hiC, z.loA, z.loC, z.distA, z.distB = l.hiA, l.hiC, l.loA, l.loC, l.distA, l.distB
	z.lowDistA, z.lowDistB = l.lowDistA, l.lowDistB
	if l.lo <= l.hi {
		// the pairs are independent (z.a and z.c): at once
		var absLow float64
		var ampT []float64
		concurrently(func() {
			absLow, ampT = l.mergeSquare(z, rec, w)
		}, func() {
			l.spreadSquare(z)
		})
		// Underflow allowance (list.abs, shared by both pairs): the
		// spread's weights sum to 2 at most per new entry, the merges'
		// realised factor is absLow; the products (at most 4 per entry)
		// below 2^-1022 lose 2^-1075 each.
		z.abs = math.Max(2*l.abs, absLow*l.abs)*(1+4*unitRoundoff) + 0x1p-1070
		z.l1A += float64(2*n) * 0x1p-1070
		z.l1C += float64(2*n) * 0x1p-1070
		z.lo = max(0, l.index(l.lo)/2-2+n-1)
		z.hi = min(2*n-1, l.index(l.hi)/2+2+n-1)
		z.trim()
		l.gridSquareTL1(z, ampT)
	} else {
		// The upper pair's envelopes carry over even when no value is
		// stored: its true atoms may hide under them (entries zeroed as
		// noise), and the spread maps them like any other (an empty list
		// squared with zero envelopes lost that mass: Gauss sigma 7.74,
		// r = 495,473,837, 4,604 buckets, factor 1.1867 gave delta_up(0) =
		// 1e-8 for an exact 1). The lower pair may drop what it does not
		// hold. (The tilted total errors stay unknown, nil: the next
		// composition sums the pointwise bounds, tl1Of.)
		l.spreadSquare(z)
		z.abs = 2 * l.abs * (1 + 4*unitRoundoff)
	}
	return z
}

// gridSquareTL1 sets the tilted total-error bounds of the squared grid list
// z (tl1.go): the spread moves an odd atom's error onto its neighbours with
// weights cUp, cDn (sum 1), at most the factor max(1, cUp e^(tau lambda) +
// cDn e^(-tau lambda)) in the tilted measure; the merges amplify by ampT
// (mergeSquare); the roundings are relative to the new entries (tilted: the
// new tilted moments, with the factors of spreadSquare and mergeSquare),
// and every entry gains the allowance 2^-1070 (gridSquare).
func (l *list) gridSquareTL1(z *list, ampT []float64) {
	ea, ec := l.tl1Sum()
	if ea == nil {
		return
	}
	n, lam := l.n, l.lambda
	u := unitRoundoff
	t := math.Exp(-lam)
	cUp := 1 / (1 + t)
	cDn := t * cUp
	K := len(l.tau)
	z.tl1A, z.tl1C = make([]float64, K), make([]float64, K)
	ma, mc := tiltedSums(z.a, z.c, z.lo, z.hi, n, z.lambda, l.tau)
	for m, tau := range l.tau {
		x := tau * lam
		g := math.Max(1, (cUp*math.Exp(x)+cDn*math.Exp(-x))*(1+16*u*(1+math.Abs(x))))
		absT := absTilted(0x1p-1070, n, z.lambda, tau)
		ra := (8*u + gamma(3)) * ma[m] * (1 + 16*u)
		z.tl1A[m] = upInf((mulNN(ea[m], g)+ra)*(1+4*u) + absT)
		rc := (8*u + gamma(4)) * 2 * mc[m] * (1 + 16*u)
		z.tl1C[m] = upInf((mulNN(ec[m], ampT[m])+rc)*(1+4*u) + absT)
	}
}

// halfIndex returns m/2 for even m and the two even neighbours (m-1)/2,
// (m+1)/2 for odd m (exact for negative m too).
func halfIndex(m int) (dn, up int) {
	if m%2 == 0 {
		return m / 2, m / 2
	}
	return (m - 1) / 2, (m + 1) / 2
}

// spreadSquare writes the upper pair of the squared list into z.a: the odd
// atom at (2k-1) lambda splits into A-mass t/(1+t) at (2k-2) lambda and
// 1/(1+t) at 2k lambda, t = e^-lambda, which keeps its A-mass and its
// B-mass (for an atom at loss (2k-1) lambda + d, |d| <= wUp, the B-mass
// splits in the same proportions and both parts keep the offset d, so the
// window stays): a mean-preserving spread, which dominates the atom.
func (l *list) spreadSquare(z *list) {
	n, lam := l.n, l.lambda
	u := unitRoundoff
	t := math.Exp(-lam)
	cUp := 1 / (1 + t) // relative error <= 4u
	cDn := t * cUp     // <= 7u
	for o := l.lo; o <= l.hi; o++ {
		v := l.a[o]
		if v == 0 {
			continue
		}
		m := l.index(o)
		dn, up := halfIndex(m)
		if dn == up {
			z.a[dn+n-1] += v
			continue
		}
		z.a[up+n-1] += cUp * v
		z.a[dn+n-1] += cDn * v
	}
	// each new entry: at most 3 products (constant error <= 7u, product u)
	// summed (gamma_2)
	z.relA = (l.relA + 8*u + gamma(3)) * (1 + 2*u)
	for m, tau := range l.tau {
		g := (1 + cUp*math.Exp(tau*lam) + cDn*math.Exp(-tau*lam)) * (1 + 16*u*(1+math.Abs(tau*lam)))
		z.envA[m] = l.envA[m] * g
	}
	// the weights of each old entry sum to 1: the total error grows by the
	// rounding only
	sa, _ := l.regularMass()
	z.l1A = (l.l1A + (8*u+gamma(3))*sa) * (1 + 4*u)
}

// envAbs returns an upper bound on min_m env[m] exp(-tau[m] L) (the
// envelope part of a list's error bound at loss L) and a lower bound.
func envAbs(lnEnv, tau []float64, L float64) (hi, lo float64) {
	e, big := envMinLn(lnEnv, tau, L)
	if math.IsInf(e, 0) {
		return math.Exp(e), math.Exp(e)
	}
	s := 8 * unitRoundoff * (big + 2)
	return math.Exp(e + s), math.Exp(e - s)
}

// envMinLn returns the computed min_m (lnEnv[m] - tau[m] L) and the
// magnitude of its terms (|lnEnv[m]| + |tau[m] L| of the smallest), whose
// rounding envAbs and envAbsHi allow for.
func envMinLn(lnEnv, tau []float64, L float64) (e, big float64) {
	e = math.Inf(1)
	for m, t := range tau {
		v := lnEnv[m] - t*L
		if v < e {
			e = v
			big = math.Abs(lnEnv[m]) + math.Abs(t*L)
		}
	}
	return e, big
}

// mergeSquare writes the lower pair of the squared list into z.c. Even
// atoms stay. Odd atoms are merged with partners on the other side of an
// even point, in the proportion that puts the merged atom exactly on it:
// odd atoms 2k-1 and 2k+1 in A-masses x and x e^lambda (merged at 2k); a
// leftover odd atom 2k-1 with an even atom 2k+2 in x and x kb, kb =
// e^(2 lambda)/(e^lambda + 1), or 2k+1 with 2k-2 in x and x kc, kc =
// e^-lambda/(e^lambda + 1) (merged at 2k). What is left is discarded.
//
// The amounts are chosen from the stored values; the lower pair they
// define takes the same fractions phi = x/c of the true atoms and, of the
// two, only what balances exactly (min(phi_1 A_1 (1+k), phi_2 A_2 (1+1/k))
// in A-mass, the surplus discarded), so every merged atom sits exactly on
// its point and the windows stay. Its error is at most the larger of the two
// sides' errors times (1+k) resp. (1+1/k): relative errors are kept, the
// envelope grows by the realised factor F (computed below, at most the
// crude factor of each tilt), the total error by the largest amplification.
//
// It returns the realised factor of the underflow allowance: the largest
// sum over one new entry of its contributions' coefficients, and per tilt
// tau_m the amplification of the tilted total error (tl1.go): an input
// whose errors reach the outputs with coefficients summing to amp and
// moved by at most dHi and at least dLo old buckets contributes at most
// amp e^(tau_m lambda d) (d = dHi for tau_m > 0, dLo for tau_m < 0) times
// its tilted error; ampT[m] is the largest such factor (at least 1).
//
// Its work arrays come from w, and with w.record it appends every input's
// share of each merge and kept atom to w.moves (mergeMove).
func (l *list) mergeSquare(z *list, rec *mergeLog, w *squareWork) (float64, []float64) {
	n, lam := l.n, l.lambda
	u := unitRoundoff
	c := l.c
	E := math.Exp(lam)
	t := math.Exp(-lam)
	kb := math.Exp(2*lam) / (E + 1)
	kc := t / (E + 1)
	lnEnv := make([]float64, len(l.envC))
	zeroEnv := true
	for m, v := range l.envC {
		lnEnv[m] = ln(v)
		if v != 0 {
			zeroEnv = false
		}
	}
	lo, hi := l.lo, l.hi
	avail := w.get(w.ar.m) // read within [lo, hi] only
	copy(avail[lo:hi+1], c[lo:hi+1])
	amp := w.zeros()       // total error amplification per input
	dHi, dLo := w.int32s() // the farthest move up and down per input (old buckets; 0 included)
	babs := w.zeros()
	aabs := w.zeros() // coefficients of the allowance per output
	defer w.put(avail, amp, babs, aabs)
	// the envelope part of each input's error bound, computed once per
	// offset (on all cores: a pure function of the offset)
	var eoTab []float64
	if !zeroEnv {
		eoTab = w.get(w.ar.m)[:hi-lo+1]
		defer w.put(eoTab)
		parallelRange(len(eoTab), runtime.GOMAXPROCS(0), func(i0, i1 int) {
			for i := i0; i < i1; i++ {
				eoTab[i], _ = envAbs(lnEnv, l.tau, l.loss(lo+i))
			}
		})
	}
	eo := func(o int) float64 {
		if zeroEnv {
			return 0
		}
		return eoTab[o-lo]
	}
	// merge x of atom o1 with y of atom o2 at new index k, coefficients
	// k1 = 1 + y/x and k2 = 1 + x/y
	merge := func(o1, o2, k int, x, y, k1, k2 float64) {
		if !(x > 0 && y > 0) {
			return
		}
		ok := k + n - 1
		z.c[ok] += x + y
		if rec != nil {
			rec.parts = append(rec.parts, mergePart{o1, o2, ok, x, y, k1, k2})
		}
		if w.record {
			w.move(o1, ok, n, k1*x/c[o1])
			w.move(o2, ok, n, k2*y/c[o2])
		}
		f1, f2 := x/c[o1], y/c[o2]
		babs[ok] += math.Max(k1*f1*eo(o1), k2*f2*eo(o2))
		aabs[ok] += math.Max(k1*f1, k2*f2)
		amp[o1] += k1 * f1
		amp[o2] += k2 * f2
		for _, p := range [2]int{o1, o2} {
			d := int32(2*k - l.index(p))
			dHi[p] = max(dHi[p], d)
			dLo[p] = min(dLo[p], d)
		}
		// never use more than the stored values (rounding down)
		avail[o1] = math.Max(0, (avail[o1]-x)*(1-2*u))
		avail[o2] = math.Max(0, (avail[o2]-y)*(1-2*u))
	}
	odd := func(o int) bool { return l.index(o)%2 != 0 }
	// odd with odd, from the bottom
	for o := lo; o+2 <= hi; o++ {
		if !odd(o) || avail[o] == 0 || avail[o+2] == 0 {
			continue
		}
		x := math.Min(avail[o], avail[o+2]*t*(1-2*u))
		y := math.Min(x*E, avail[o+2])
		merge(o, o+2, (l.index(o)+1)/2, x, y, 1+E, 1+t)
	}
	// leftovers with even atoms
	for o := lo; o <= hi; o++ {
		if !odd(o) || avail[o] == 0 {
			continue
		}
		if p := o + 3; p <= hi && avail[p] > 0 {
			x := math.Min(avail[o], avail[p]/kb*(1-2*u))
			y := math.Min(x*kb, avail[p])
			merge(o, p, (l.index(o)+1)/2, x, y, 1+kb, 1+1/kb)
		}
		if p := o - 3; p >= lo && avail[o] > 0 && avail[p] > 0 {
			x := math.Min(avail[o], avail[p]/kc*(1-2*u))
			y := math.Min(x*kc, avail[p])
			merge(o, p, (l.index(o)-1)/2, x, y, 1+kc, 1+1/kc)
		}
	}
	// leftovers with any atom further away on the other side of the even
	// neighbour (sparse lists: atoms of randomized response, histograms).
	// An atom D points beyond the target needs a share kappa of the odd
	// atom's mass, kappa = (e^lambda - 1)/(1 - e^(-D lambda)) above and
	// (1 - e^-lambda)/(e^(D lambda) - 1) below; the amount is limited so that
	// neither side's error contribution exceeds 4 times the envelope at the
	// target (which keeps the realised factor F moderate).
	// Each far merge leaves 1/farReserve of the odd atom for the slivers
	// that later atoms may need from it (two lone odd atoms serve each
	// other).
	const farReserve = 1024
	far := false
	farMerge := func(o, p, k int, kappa float64) {
		x := math.Min(avail[o]*(1-1.0/farReserve), avail[p]/kappa*(1-2*u))
		if !(x > 0) {
			return
		}
		k1, k2 := 1+kappa, 1+1/kappa
		// the far partner's share times k2 is (x + y)/c[p]: at most 4 (the
		// coefficient of its allowance and relative error)
		if m := x * (1 + kappa) / c[p]; m > 4 {
			x *= 4 / m * (1 - 1e-9)
		}
		if !zeroEnv {
			_, et := envAbs(lnEnv, l.tau, z.loss(k+n-1))
			c1 := k1 * x / c[o] * eo(o)
			c2 := k2 * x * kappa / c[p] * eo(p)
			if m := math.Max(c1, c2); m > 4*et {
				if !(et > 0) {
					return
				}
				x *= 4 * et / m * (1 - 1e-9)
			}
		}
		y := math.Min(x*kappa, avail[p])
		far = true
		merge(o, p, k, x, y, k1, k2)
	}
	// the atoms left, in order; each odd one tries up to farScan of them
	// on each side (beyond its immediate neighbours)
	const farScan = 16
	nnz := 0
	for o := lo; o <= hi; o++ {
		if avail[o] > 0 {
			nnz++
		}
	}
	if cap(w.nz) < nnz {
		w.nz = make([]int, 0, nnz)
	}
	nz := w.nz[:0]
	for o := lo; o <= hi; o++ {
		if avail[o] > 0 {
			nz = append(nz, o)
		}
	}
	for k, o := range nz {
		if !odd(o) || avail[o] == 0 {
			continue
		}
		m := l.index(o)
		for j, s := k+1, 0; j < len(nz) && s < farScan && avail[o] > 0; j, s = j+1, s+1 {
			if p := nz[j]; p >= o+2 && avail[p] > 0 {
				D := float64(p - o - 1)
				farMerge(o, p, (m+1)/2, math.Expm1(lam)/-math.Expm1(-D*lam))
			}
		}
		for j, s := k-1, 0; j >= 0 && s < farScan && avail[o] > 0; j, s = j-1, s+1 {
			if p := nz[j]; p <= o-2 && avail[p] > 0 {
				D := float64(o - 1 - p)
				farMerge(o, p, (m-1)/2, -math.Expm1(-lam)/math.Expm1(D*lam))
			}
		}
	}
	// even remainders
	for o := lo; o <= hi; o++ {
		if odd(o) || avail[o] == 0 {
			continue
		}
		ok := l.index(o)/2 + n - 1
		f := avail[o] / c[o]
		z.c[ok] += avail[o]
		if rec != nil {
			rec.parts = append(rec.parts, mergePart{o, -1, ok, avail[o], 0, 1, 0})
		}
		if w.record {
			w.move(o, ok, n, f)
		}
		babs[ok] += f * eo(o)
		aabs[ok] += f
		amp[o] += f
	}
	// relative errors are kept by the merges (up to the balance of the two
	// sides, 4u, and the rounding of x + y); each new entry sums at most 4
	// contributions
	z.relC = (l.relC*(1+4*u) + 8*u + gamma(4)) * (1 + 2*u)
	// realised envelope factor F: babs[k] <= F min_m env_m e^(-tau_m L'(k))
	F := 0.0
	if !zeroEnv {
		// a maximum: the same in any order, so on all cores in parts
		var mu sync.Mutex
		parallelRange(len(babs), runtime.GOMAXPROCS(0), func(i0, i1 int) {
			f := 0.0
			for ok := i0; ok < i1; ok++ {
				b := babs[ok]
				if b == 0 {
					continue
				}
				_, e := envAbs(lnEnv, l.tau, z.loss(ok))
				f = math.Max(f, b/e)
			}
			mu.Lock()
			F = math.Max(F, f)
			mu.Unlock()
		})
		F *= 1 + 1e-12
	}
	for m, tau := range l.tau {
		x := tau * lam
		crude := 1 + math.Max((1+E)*math.Exp(x), (1+t)*math.Exp(-x)) +
			math.Max((1+kb)*math.Exp(x), (1+1/kb)*math.Exp(-2*x)) +
			math.Max((1+kc)*math.Exp(-x), (1+1/kc)*math.Exp(2*x))
		crude *= 1 + 32*u*(1+math.Abs(x))
		if far {
			crude = math.Inf(1) // the crude factor covers neighbours only
		}
		f := crude
		if F < crude {
			f = F
		}
		if math.IsNaN(F) {
			f = crude
		}
		z.envC[m] = l.envC[m] * f
		if l.envC[m] == 0 {
			z.envC[m] = 0
		}
	}
	A := 1.0
	for _, v := range amp {
		A = math.Max(A, v)
	}
	_, sc := l.regularMass()
	z.l1C = (A*(1+1e-12)*l.l1C + (8*u+gamma(4))*sc*2) * (1 + 4*u)
	fa := 0.0
	for _, v := range aabs {
		fa = math.Max(fa, v)
	}
	ampT := make([]float64, len(l.tau))
	for m, tau := range l.tau {
		x := tau * lam
		var exps [129]float64 // e^(x d) for |d| <= 64 (0: not yet)
		A, dm := 1.0, int32(0)
		for o, v := range amp {
			if !(v > 0) {
				continue
			}
			d := dHi[o]
			if tau < 0 {
				d = dLo[o]
			}
			var e float64
			if d >= -64 && d <= 64 {
				if e = exps[d+64]; e == 0 {
					e = math.Exp(x * float64(d))
					exps[d+64] = e
				}
			} else {
				e = math.Exp(x * float64(d))
			}
			if p := v * e; p > A { // v > 0, so never NaN
				A = p
			}
			dm = max(dm, d, -d)
		}
		ampT[m] = upInf(A * (1 + 1e-12) * (1 + 16*u*(1+math.Abs(x)*float64(dm))))
	}
	return fa * (1 + 1e-12), ampT
}
