package engine

import "math"

// Grouping a count pair's events per bucket before the leaf builder sees
// them. The builder bounds a bucket's rounding by gamma(k+2) for the k
// masses summed into it, one bound for the whole list (the largest k). The
// Vuvuzela conversation pair with Laplace noise puts hundreds of thousands
// of events into the buckets at the ends of its range (its losses pile up
// towards their limits), so that bound was about 1.2e-10 for every bucket
// where its masses are known to 1.3e-13, and it grows about r-fold over a
// composition (6.5e-5 at r = 2^19, the grouped list's error floor for
// Figure 20's LP(112.5k, 6.9k)). Summed here with compensated (Neumaier)
// summation, a bucket's sum has an error of at most (2u + 4 k u^2) times
// its value (Higham, "Accuracy and Stability of Numerical Algorithms",
// Section 4.3), inside the 64u that countMech.relErr allows beyond the
// events' own relative error, and the builder adds one group per bucket.

// compSum is a Neumaier compensated sum of non-negative terms.
type compSum struct{ s, c float64 }

func (k *compSum) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k compSum) value() float64 { return k.s + k.c }

// countGroup is the events of one bucket: their masses' sums and the hull
// of their loss intervals.
type countGroup struct {
	a, b         compSum
	lossLo, loHi float64
	n            int
}

// embedGrouped passes the events k with masses pa[k], pb[k] and loss
// intervals loss(k) to b, those of one regular bucket of b as one group
// (their sums and the hull of their losses: the same bucket, the same
// misplacement, and for the grid lists the same spread, which is linear in
// the masses). Events with a mass below 2^-1022 (the builder's underflow
// allowance is per event), a loss outside the regular buckets or not
// finite are passed one by one.
func embedGrouped(b *leafBuilder, ks []int, pa, pb []float64, loss func(k int) (float64, float64)) {
	n, lam := b.l.n, b.l.lambda
	groups := map[int]*countGroup{}
	var order []int
	for _, k := range ks {
		lo, hi := loss(k)
		regular := pa[k] >= minNormal && pb[k] >= minNormal &&
			!math.IsInf(lo, 0) && !math.IsNaN(lo) && !math.IsNaN(hi) &&
			hi <= float64(n)*lam && hi >= -float64(n-1)*lam
		if !regular {
			b.add(pa[k], pb[k], lo, hi)
			continue
		}
		i := int(bucketOf(hi, lam))
		if i <= -n || i > n {
			b.add(pa[k], pb[k], lo, hi)
			continue
		}
		g := groups[i]
		if g == nil {
			g = &countGroup{lossLo: lo, loHi: hi}
			groups[i] = g
			order = append(order, i)
		}
		g.a.add(pa[k])
		g.b.add(pb[k])
		g.lossLo, g.loHi = math.Min(g.lossLo, lo), math.Max(g.loHi, hi)
		g.n++
	}
	for _, i := range order {
		g := groups[i]
		b.add(g.a.value(), g.b.value(), g.lossLo, g.loHi)
	}
}
