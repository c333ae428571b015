package engine

import "math"

// square returns the squared list (Definition 4 and 7): the factor becomes
// f^2 and the new bucket i collects the old buckets 2i-1 and 2i, for negative
// i as well as positive ones (merging 2i-2 and 2i-1 instead would round the
// privacy loss down, which is unsound). The corners are unchanged.
//
// The counter becomes u' = (u+1)/2: an event with index j and ratio at least
// f^(j-u) gets index ceil(j/2) <= (j+1)/2, so its ratio is at least
// (f^2)^(ceil(j/2) - (u+1)/2). This is at most the paper's ceil(u/2)+1.
func (l *list) square() *list {
	if l.grid {
		return l.gridSquare()
	}
	n := l.n
	z := newList(n, 2*l.lambda, l.tau)
	z.u = (l.u + 1) / 2
	z.compositions, z.squarings = l.compositions, l.squarings+1
	z.variance = l.variance
	z.tailMA, z.tailMC = l.tailMA, l.tailMC
	if z.tailMA != nil {
		z.tails = &tailCache{}
	}
	z.raw, z.hasWatch = l.raw, l.hasWatch
	z.names = append([]nameCount(nil), l.names...)
	z.hiA, z.hiC, z.loA, z.loC, z.distA, z.distB = l.hiA, l.hiC, l.loA, l.loC, l.distA, l.distB
	u := unitRoundoff
	z.abs = 2 * l.abs // each new entry sums two old ones (exactly when subnormal)
	z.relA = (l.relA + u) * (1 + 2*u)
	z.relC = (l.relC + u) * (1 + 2*u)
	for m, t := range l.tau {
		g := (1 + math.Exp(t*l.lambda)) * (1 + 8*u*(1+math.Abs(t*l.lambda)))
		z.envA[m] = l.envA[m] * g
		z.envC[m] = l.envC[m] * g
	}
	// New index i in [-n/2+1, n/2] collects old indices 2i-1 and 2i.
	for i := -n/2 + 1; i <= n/2; i++ {
		o := i + n - 1
		o1, o2 := 2*i-1+n-1, 2*i+n-1
		z.a[o] = l.a[o1] + l.a[o2]
		z.c[o] = l.c[o1] + l.c[o2]
	}
	z.lo, z.hi = n/2, n+n/2-1
	z.trim()
	// Every new entry is the rounded sum of two old ones: the total error
	// grows by the rounding only (u per entry), unlike the pointwise
	// envelopes, which double.
	sa, sc := l.regularMass()
	g := 1 + 4*unitRoundoff
	z.l1A = (l.l1A + u*sa) * g
	z.l1C = (l.l1C + u*sc) * g
	// Tilted (tl1.go): bucket 2i-1 moves up by the old lambda, 2i stays,
	// so the tilted error grows by at most max(1, e^(tau lambda)), plus
	// the addition's rounding (u per new entry, tilted: u times the new
	// tilted moment).
	if ea, ec := l.tl1Sum(); ea != nil {
		z.tl1A, z.tl1C = make([]float64, len(l.tau)), make([]float64, len(l.tau))
		ma, mc := tiltedSums(z.a, z.c, z.lo, z.hi, n, z.lambda, l.tau)
		for m, t := range l.tau {
			f := math.Max(1, math.Exp(t*l.lambda)) * (1 + 8*u*(1+math.Abs(t*l.lambda)))
			z.tl1A[m] = upInf((mulNN(ea[m], f) + u*ma[m]) * g)
			z.tl1C[m] = upInf((mulNN(ec[m], f) + u*mc[m]) * g)
		}
	}
	return z
}
