package engine

// composeCorners sets the corner masses of z = x × y (Definition 4's -n and
// infinity cases, with absorbing corners; see list.go) and their error
// bounds. ex, ecx, ey, ecy are the per-offset error bounds of x and y.
//
// Precedence of the destination of a pair of events: an A-distinguishing
// component makes the pair A-distinguishing, a B-distinguishing one makes it
// B-distinguishing, otherwise a component in the low corner puts the pair in
// the low corner, one in the high corner in the high corner, and two regular
// events go to bucket j+k, or to a corner when j+k leaves -n+1..n.
func (cp *composer) composeCorners(x, y, z *list, ex, ecx, ey, ecy []float64) {
	n := x.n
	rxA, rxC := x.regularSums(ex, ecx)
	ryA, ryC := ry(x, y, rxA, rxC, ey, ecy)
	hiA, loA := overflow(x.a, y.a, ex, ey, n)
	hiC, loC := overflow(x.c, y.c, ecx, ecy, n)

	z.distA, z.loA, z.hiA = cornerMix(rxA, x.hiA, x.loA, x.distA, ryA, y.hiA, y.loA, y.distA, hiA, loA)
	z.distB, z.loC, z.hiC = cornerMix(rxC, x.hiC, x.loC, x.distB, ryC, y.hiC, y.loC, y.distB, hiC, loC)
}

func ry(x, y *list, rxA, rxC val, ey, ecy []float64) (val, val) {
	if x == y {
		return rxA, rxC
	}
	return y.regularSums(ey, ecy)
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
// j+k <= -n (low), sum x[j] y[k], with error bounds from ex and ey.
func overflow(x, y, ex, ey []float64, n int) (hi, lo val) {
	m := 2 * n
	// Suffix sums of y and ey: suf[k] = sum_{o >= k}.
	suf := make([]float64, m+1)
	sufE := make([]float64, m+1)
	for o := m - 1; o >= 0; o-- {
		suf[o] = suf[o+1] + y[o]
		sufE[o] = sufE[o+1] + ey[o]
	}
	var hv, he float64
	for ox := n; ox < m; ox++ { // partner offsets oy >= 3n-1-ox
		k := 3*n - 1 - ox
		hv += x[ox] * suf[k]
		he += ex[ox]*(suf[k]+sufE[k]) + x[ox]*sufE[k]
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
		le += ex[ox]*(pre+preE) + x[ox]*preE
	}
	g := gamma(4*n + 4)
	hi = val{hv, he*(1+g) + g*hv}
	lo = val{lv, le*(1+g) + g*lv}
	return hi, lo
}
