package engine

import "math"

// gridCorners returns the corner masses of the grid composition x × y (see
// grid.go): the upper pair's as composeCorners computes them for a grouped
// list, with the B-masses of its regular atoms derived from their A-masses
// (B = A e^-L up to the window), and the lower pair's distinguishing
// masses (its other corner mass is dropped).
func (cp *composer) gridCorners(x, y *list) cornerSet {
	n := x.n
	twx := cp.weights.get(x.lambda, x.tau)
	twy := twx
	if y.lambda != x.lambda || !equalTau(y.tau, x.tau) {
		twy = cp.weights.get(y.lambda, y.tau)
	}
	ex, elx, ey, ely := cp.errBounds(x, y, twx, twy)
	tight := equalTau(x.tau, y.tau)
	var mxA, myA []float64
	if tight {
		tw := cp.weights.get(x.lambda, x.tau)
		mxA, _ = cp.moments(x, tw)
		myA, _ = cp.moments(y, tw)
	}
	cp.bBufs(n)
	// The upper pair's A-side, its derived B-side and the lower pair are
	// independent: two goroutines (each sum in its usual order, so the
	// results are the same as one after the other). derivedB reads the
	// cached e^-L, prepared here for both operands' lambda.
	run := concurrently
	if x.lambda == y.lambda {
		cp.negExp(n, x.lambda)
	} else {
		run = sequentially
	}
	var rxA, ryA, rxL, ryL, rxB, ryB, rxLB, ryLB, hiA, loA, hiC, loC val
	run(func() {
		rxA, ryA, hiA, loA = sideCorners(x, y, true, ex, ey, mxA, myA)
		// the lower pair's regular A- and B-masses
		rxL, ryL = regularSide(x, y, x.c, y.c, elx, ely)
		rxLB = cp.derivedBSum(x, x.c, elx, -x.wLo)
		ryLB = rxLB
		if y != x {
			ryLB = cp.derivedBSum(y, y.c, ely, -y.wLo)
		}
	}, func() {
		// B-masses of the upper pair
		bx, ebx := cp.derivedB(x, x.a, ex, x.wUp, 0)
		by, eby := bx, ebx
		if y != x {
			by, eby = cp.derivedB(y, y.a, ey, y.wUp, 1)
		}
		rxB, ryB = sumVal(bx, ebx, n), sumVal(by, eby, n)
		hiC, loC = overflow(bx, by, ebx, eby, n)
	})
	// Products below 2^-1022 lose up to 2^-1075 each (at most 2n per sum;
	// the derived B-masses may be subnormal whatever the A-masses are).
	uf := float64(2*n) * 0x1p-1074
	hiC.e += uf
	loC.e += uf
	if !(x.minPositive()*y.minPositive() >= minNormal) {
		hiA.e += uf
		loA.e += uf
	}

	var cs cornerSet
	cs.distA, cs.loA, cs.hiA = cornerMix(rxA, x.hiA, x.loA, x.distA, ryA, y.hiA, y.loA, y.distA, hiA, loA)
	cs.distB, cs.loC, cs.hiC = cornerMix(rxB, x.hiC, x.loC, x.distB, ryB, y.hiC, y.loC, y.distB, hiC, loC)

	// lower pair: A-distinguishing events of the product are an
	// A-distinguishing event with a regular or A-distinguishing one (a
	// B-distinguishing partner has A-mass 0); the discarded corners only
	// make the masses smaller, which a lower bound may.
	cs.lowDistA = x.lowDistA.mul(ryL.add(y.lowDistA)).add(rxL.mul(y.lowDistA))
	cs.lowDistB = x.lowDistB.mul(ryLB.add(y.lowDistB)).add(rxLB.mul(y.lowDistB))
	// B-masses derived beyond the range of float64 (e^-L overflowing)
	// give infinite error bounds, and 0 times them NaN: such a mass is
	// unknown, {0, +Inf} (upper bounds count it in full, lower bounds not)
	for _, v := range []*val{&cs.distA, &cs.loA, &cs.hiA, &cs.distB, &cs.loC, &cs.hiC, &cs.lowDistA, &cs.lowDistB} {
		if math.IsNaN(v.v) || math.IsNaN(v.e) || math.IsInf(v.v, 0) {
			*v = val{0, math.Inf(1)}
		}
	}
	return cs
}

// sumVal returns the sum of v with the error bound of the sum (errors e
// per entry, rounding of 2n+2 additions).
func sumVal(v, e []float64, n int) val {
	var s, se float64
	for o := range v {
		s += v[o]
		se += e[o]
	}
	g := gamma(2*n + 2)
	return val{s, se*(1+g) + g*s}
}

// derivedB returns the B-masses a[o] e^-L(o) of grid atoms with A-masses a
// (error bounds ea) and window w (w > 0: the upper pair's, whose B-masses
// lie in [a e^(-L-w), a e^(-L+w)]; w < 0: the lower pair's, |w| its window),
// with error bounds: |B_true - B| <= (ea e^|w| + a (e^|w| - 1)) e^-L. The
// slices are scratch space of the composer (slot 0 or 1), valid until the
// next call with the same slot. Calls with different slots (and
// derivedBSum) may run at once once bBufs and negExp have been called for n
// and l.lambda.
func (cp *composer) derivedB(l *list, a, ea []float64, w float64, slot int) (b, eb []float64) {
	n := l.n
	cp.bBufs(n)
	b, eb = cp.bBuf[2*slot][:2*n], cp.bBuf[2*slot+1][:2*n]
	d := cp.derivation(l, w)
	for o := range b {
		b[o], eb[o] = d.at(l, o, a[o], ea[o])
	}
	return b, eb
}

// derivedBSum returns sumVal of derivedB's values and error bounds without
// storing them (the same entries summed in the same order).
func (cp *composer) derivedBSum(l *list, a, ea []float64, w float64) val {
	d := cp.derivation(l, w)
	var s, se float64
	for o := range 2 * l.n {
		bv, be := d.at(l, o, a[o], ea[o])
		s += bv
		se += be
	}
	g := gamma(2*l.n + 2)
	return val{s, se*(1+g) + g*s}
}

// bDerivation holds what derivedB needs per entry: e^-L per offset (t,
// relative error rel) and the window's factors.
type bDerivation struct {
	t           []float64
	rel, ew, em float64
	g           float64
}

func (cp *composer) derivation(l *list, w float64) bDerivation {
	t, rel := cp.negExp(l.n, l.lambda)
	u := unitRoundoff
	w = math.Abs(w)
	return bDerivation{
		t:   t,
		rel: rel,
		ew:  math.Exp(w) * (1 + 2*u),
		em:  math.Expm1(w) * (1 + 2*u),
		g:   (1 + rel) * (1 + 4*u),
	}
}

// at returns the derived B-mass of offset o of l with A-mass av (error
// bound ae) and its error bound (see derivedB).
func (d bDerivation) at(l *list, o int, av, ae float64) (bv, be float64) {
	if av == 0 && ae == 0 {
		return 0, 0
	}
	u := unitRoundoff
	f := d.t[o]
	if f == 0 || math.IsInf(f, 0) {
		// e^-L beyond the range of float64: by logarithms (each exponent
		// has an absolute error of a few u of its parts' magnitudes, s)
		L := l.loss(o)
		if av > 0 {
			la := ln(av)
			bv = math.Exp(la - L)
			be = bv * 8 * u * (math.Abs(L) + math.Abs(la) + 4)
		}
		if x := ae*d.ew + av*d.em; x > 0 {
			lx := ln(x)
			be += math.Exp(lx - L + 8*u*(math.Abs(L)+math.Abs(lx)+4))
		}
		return bv, be * (1 + 4*u)
	}
	bv = av * f
	return bv, ((ae*d.ew+av*d.em)*f + bv*d.rel) * d.g
}

// bBufs makes sure the scratch slices of derivedB hold 2n entries.
func (cp *composer) bBufs(n int) {
	for k := range cp.bBuf {
		if len(cp.bBuf[k]) < 2*n {
			cp.bBuf[k] = make([]float64, 2*n)
		}
	}
}

// negExp returns e^-L(o) for every offset of a list with n and lambda (0 or
// +Inf where it leaves float64) and its relative error bound, cached.
func (cp *composer) negExp(n int, lambda float64) ([]float64, float64) {
	if cp.negExpLambda == lambda && len(cp.negExpTab) == 2*n {
		return cp.negExpTab, cp.negExpRel
	}
	cp.negExpTab, cp.negExpRel = weights(n, lambda, -1)
	cp.negExpLambda = lambda
	return cp.negExpTab, cp.negExpRel
}
