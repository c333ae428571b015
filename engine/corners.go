package engine

import "math"

// cornerSet holds the corner masses of a composition and their error
// bounds.
type cornerSet struct {
	distA, loA, hiA, distB, loC, hiC val
	lowDistA, lowDistB               val // grid lists: the lower pair's (gridCorners)
	// raw are the computed corner values before the Chernoff caps
	// (cornertail.go; list.rawCorners), when hasWatch
	raw      [6]float64
	hasWatch bool
}

// value is the corner mass that the squaring rule watches (list.cornerValue).
func (cs cornerSet) value() float64 {
	if r := cs.raw; cs.hasWatch {
		return math.Max(r[0]+r[2]+r[1], r[4]+r[5]+r[3])
	}
	return math.Max(cs.hiA.v+cs.distA.v+cs.loA.v, cs.loC.v+cs.distB.v+cs.hiC.v)
}

func (cs cornerSet) apply(z *list) {
	z.distA, z.loA, z.hiA = cs.distA, cs.loA, cs.hiA
	z.distB, z.loC, z.hiC = cs.distB, cs.loC, cs.hiC
	z.lowDistA, z.lowDistB = cs.lowDistA, cs.lowDistB
	z.raw, z.hasWatch = cs.raw, cs.hasWatch
}

// corners returns the corner masses of x × y (see composeCorners).
func (cp *composer) corners(x, y *list) cornerSet {
	if x.grid {
		return cp.gridCorners(x, y)
	}
	twx := cp.weights.get(x.lambda, x.tau)
	twy := twx
	if y.lambda != x.lambda || !equalTau(y.tau, x.tau) {
		twy = cp.weights.get(y.lambda, y.tau)
	}
	ex, ecx, ey, ecy := cp.errBounds(x, y, twx, twy)
	return cp.composeCorners(x, y, ex, ecx, ey, ecy)
}

// composeCorners returns the corner masses of z = x × y (Definition 4's -n
// and infinity cases, with absorbing corners; see list.go) and their error
// bounds. ex, ecx, ey, ecy are the per-offset error bounds of x and y.
//
// Precedence of the destination of a pair of events: an A-distinguishing
// component makes the pair A-distinguishing, a B-distinguishing one makes it
// B-distinguishing, otherwise a component in the low corner puts the pair in
// the low corner, one in the high corner in the high corner, and two regular
// events go to bucket j+k, or to a corner when j+k leaves -n+1..n.
func (cp *composer) composeCorners(x, y *list, ex, ecx, ey, ecy []float64) cornerSet {
	n := x.n
	var mxA, mxC, myA, myC []float64
	tight := equalTau(x.tau, y.tau)
	if tight {
		tw := cp.weights.get(x.lambda, x.tau)
		mxA, mxC = cp.moments(x, tw)
		myA, myC = cp.moments(y, tw)
	}
	// The A-side and the B-side sums are independent: they run at once
	// (each in the order of one goroutine, so the results are the same).
	var rxA, rxC, ryA, ryC, hiA, loA, hiC, loC val
	concurrently(func() {
		rxA, ryA, hiA, loA = sideCorners(x, y, true, ex, ey, mxA, myA)
	}, func() {
		rxC, ryC, hiC, loC = sideCorners(x, y, false, ecx, ecy, mxC, myC)
	})
	// Products below 2^-1022 (possible only when the smallest positive
	// entries multiply below it) lose up to 2^-1075 each: at most 2n
	// products per sum.
	if !(x.minPositive()*y.minPositive() >= minNormal) {
		uf := float64(2*n) * 0x1p-1074
		hiA.e += uf
		loA.e += uf
		hiC.e += uf
		loC.e += uf
	}
	var cs cornerSet
	if x.tailMA != nil && y.tailMA != nil && x.tailMC != nil && y.tailMC != nil {
		// Chernoff caps on the overflow (cornertail.go); the squaring
		// rule keeps watching the computed values
		cs.raw = rawMix(x, y, rxA, ryA, hiA, loA, rxC, ryC, hiC, loC)
		cs.hasWatch = true
		concurrently(func() {
			hu, lu := overflowTail(x, y, x.a, y.a, ex, ey, x.tailMA, y.tailMA, ryA.upper())
			hiA, loA = capCorner(hiA, hu), capCorner(loA, lu)
		}, func() {
			hu, lu := overflowTail(x, y, x.c, y.c, ecx, ecy, x.tailMC, y.tailMC, ryC.upper())
			hiC, loC = capCorner(hiC, hu), capCorner(loC, lu)
		})
	}
	cs.distA, cs.loA, cs.hiA = cornerMix(rxA, x.hiA, x.loA, x.distA, ryA, y.hiA, y.loA, y.distA, hiA, loA)
	cs.distB, cs.loC, cs.hiC = cornerMix(rxC, x.hiC, x.loC, x.distB, ryC, y.hiC, y.loC, y.distB, hiC, loC)
	return cs
}

// sideCorners returns, for the A-masses (aSide) or the B-masses of x and y
// (per-offset error bounds ex, ey), the regular sums of x and y and the
// masses of the regular pairs overflowing into the high and low corners;
// with the moments mx, my of a shared tilt set (nil otherwise) the
// overflow's errors are tightened (tightenOverflow).
func sideCorners(x, y *list, aSide bool, ex, ey, mx, my []float64) (rx, ry, hi, lo val) {
	vx, vy := x.c, y.c
	relX, relY, envX, envY := x.relC, y.relC, x.envC, y.envC
	if aSide {
		vx, vy = x.a, y.a
		relX, relY, envX, envY = x.relA, y.relA, x.envA, y.envA
	}
	rx, ry = regularSide(x, y, vx, vy, ex, ey)
	hi, lo = overflow(vx, vy, ex, ey, x.n)
	if mx != nil {
		tightenOverflow(&hi, &lo, x, relX, relY, envX, envY, mx, my, x.abs, y.abs, x.regularMassSide(aSide))
	}
	return rx, ry, hi, lo
}

// regularSide returns the regular sums of one kind of mass of x and y
// (values vx, vy with per-offset error bounds ex, ey), as regularSums.
func regularSide(x, y *list, vx, vy, ex, ey []float64) (rx, ry val) {
	rx = sumVal(vx, ex, x.n)
	if x == y {
		return rx, rx
	}
	return rx, sumVal(vy, ey, y.n)
}

// concurrently runs f on this goroutine and g on another and returns when
// both are done. f and g must not share mutable state.
func concurrently(f, g func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		g()
	}()
	f()
	<-done
}

// sequentially runs f, then g: concurrently's stand-in where f and g share
// state.
func sequentially(f, g func()) {
	f()
	g()
}

// cornerMix applies the precedence rules for one kind of mass (A or B):
// r = regular mass, h = high corner, l = low corner, d = distinguishing mass
// of this kind, ovH/ovL = regular pairs overflowing into the corners.
func cornerMix(rx, hx, lx, dx, ry, hy, ly, dy, ovH, ovL val) (d, lo, hi val) {
	tx := rx.add(hx).add(lx).add(dx)
	ty := ry.add(hy).add(ly).add(dy)
	d = dx.mul(ty).add(tx.sub(dx).mul(dy))
	lo = lx.mul(ry.add(hy).add(ly)).add(rx.add(hx).mul(ly)).add(ovL)
	hi = hx.mul(ry.add(hy)).add(rx.mul(hy)).add(ovH)
	return d, lo, hi
}

// overflow returns the masses of regular pairs (j, k) with j+k > n (high) and
// j+k <= -n (low), sum x[j] y[k], with error bounds from ex and ey. The
// partners' suffix and prefix sums are accumulated while walking x's
// offsets (each sum in the order of a suffix array filled from the top:
// the same values), so nothing is stored.
func overflow(x, y, ex, ey []float64, n int) (hi, lo val) {
	m := 2 * n
	// High: for ox >= n the partners are oy >= k = 3n-1-ox, suf = sum_{o >=
	// k}; k runs down from 2n-1 as ox runs up from n.
	var hv, he, suf, sufE float64
	for ox := n; ox < m; ox++ {
		k := 3*n - 1 - ox
		suf += y[k]
		sufE += ey[k]
		hv += x[ox] * suf
		he += mulUp(ex[ox], suf+sufE) + mulUp(x[ox], sufE)
	}
	// Prefix sums: pre[k] = sum_{o <= k} = total - suf[k+1].
	var lv, le float64
	pre, preE := 0.0, 0.0
	// Low: oy <= n-2-ox, for ox <= n-2. Walk ox downwards while growing the
	// prefix upwards.
	k := -1
	for ox := n - 2; ox >= 0; ox-- {
		for k < n-2-ox {
			k++
			pre += y[k]
			preE += ey[k]
		}
		lv += x[ox] * pre
		le += mulUp(ex[ox], pre+preE) + mulUp(x[ox], preE)
	}
	g := gamma(4*n + 4)
	hi = val{hv, he*(1+g) + g*hv}
	lo = val{lv, le*(1+g) + g*lv}
	return hi, lo
}

// tightenOverflow replaces the error bounds of the overflow sums by a
// Chernoff-style bound through the tilted envelopes when that is smaller.
// With E_x(j) = env_x[m] exp(-tau_m L_j), the pairs (j, k) of the high
// overflow have L_j + L_k >= (n+1) lambda, so for tau_m >= 0
//
//	sum_hi E_x(j) y_k <= env_x[m] exp(-tau_m (n+1) lambda) 2n M_y(tau_m),
//
// M_y(tau) = sum_k y_k exp(tau L_k) (momX, momY: the moments of x and y,
// composer.moments), and likewise for x_j E_y(k) and
// E_x(j) E_y(k) (with (2n)^2 terms); the low overflow (L_j + L_k <= -n
// lambda) takes tau_m <= 0. The relative parts of the errors give
// (r_x + r_y + r_x r_y) times the overflow itself. Summing per-entry bounds
// instead, as overflow does, counts the tilt-0 envelope of every bucket and
// dominated the corners.
//
// The underflow allowances absX, absY of the entries (list.abs) add at
// most 2n (absX + absY (1+rx) |x|_1) (each of the 2n offsets j of x pairs
// with a part of y of true mass at most 1; massX is an upper bound on
// |x|_1); the moments include the allowances for the cross terms. A
// product of an exactly zero envelope or moment is 0, whatever the other
// factor; an envelope term that underflows is rounded up.
func tightenOverflow(hi, lo *val, x *list, rx, ry float64, envX, envY, momX, momY []float64, absX, absY, massX float64) {
	n := x.n
	n2 := float64(2 * n)
	g := (1 + gamma(4*n+8)) * (1 + 1e-12)
	bestHi, bestLo := math.Inf(1), math.Inf(1)
	for m, tau := range x.tau {
		mx, my := momX[m]*g, momY[m]*g
		core := (mulUp(envX[m], n2*my) + mulUp(envY[m], n2*mx) + mulUp(envX[m], envY[m])*n2*n2) * (1 + rx + ry) * g
		if math.IsNaN(core) {
			continue
		}
		if core > 0 {
			core += 0x1p-1070
		}
		if tau >= 0 {
			// by logarithms where e^x alone leaves float64 (the tilts of
			// grid lists may reach |tau L| of several hundred)
			a := -tau * float64(n+1) * x.lambda
			b := mulExp(core, a, 4*unitRoundoff*math.Abs(a), true)
			if core > 0 {
				b += 0x1p-1070
			}
			bestHi = math.Min(bestHi, b)
		}
		if tau <= 0 {
			a := tau * float64(n) * x.lambda
			b := mulExp(core, a, 4*unitRoundoff*math.Abs(a), true)
			if core > 0 {
				b += 0x1p-1070
			}
			bestLo = math.Min(bestLo, b)
		}
	}
	rel := (rx + ry + rx*ry) * g
	abs := n2 * (absX + absY*(1+rx)*massX) * g
	if e := rel*hi.v + bestHi + abs; e < hi.e {
		hi.e = e
	}
	if e := rel*lo.v + bestLo + abs; e < lo.e {
		lo.e = e
	}
}
