package engine

import (
	"math"
	"slices"
	"sort"
)

// This file splits a bucket list into atoms (its largest entries) and the
// rest for composition. Mechanisms with atoms of privacy loss (Laplace,
// randomized response, histograms, Vuvuzela counts) put a large share of
// their mass into few buckets; the rigorous error bound of an FFT
// convolution is proportional to the 2-norms of its inputs, so those
// buckets alone would set an absolute error floor that then grows with
// every composition. Atoms x anything is therefore convolved directly: a
// sum of non-negative products, whose rounding error is relative and is
// covered by the list's relative error; only rest x rest goes through the
// tilted FFT. The split is exact (x = atoms + rest), so nothing else in the
// error model changes.

// maxAtoms bounds the number of entries convolved directly per operand.
const maxAtoms = 48

// atomShare: the atoms are used when they hold at least this share of the
// squared 2-norm of the A- or B-masses.
const atomShare = 0.25

// atomSet lists the offsets of the atoms of a list, ascending.
type atomSet struct{ idx []int }

// atomsOf returns the largest entries of l (by A-mass plus B-mass), at most
// maxAtoms, if they hold at least atomShare of the squared 2-norm of the
// A- or B-masses; otherwise none.
func atomsOf(l *list) atomSet {
	if l.lo > l.hi {
		return atomSet{}
	}
	// The maxAtoms largest a+c, ties to the lower offset: a min-heap on
	// (v, -o) (its root the entry to drop next), then sorted by v
	// descending, ties by offset ascending, the order the sums below take.
	top := make([]atomEntry, 0, maxAtoms)
	var n2a, n2c float64
	for o := l.lo; o <= l.hi; o++ {
		a, c := l.a[o], l.c[o]
		n2a += a * a
		n2c += c * c
		v := a + c
		switch {
		case len(top) < maxAtoms:
			top = append(top, atomEntry{o, v})
			atomSiftUp(top, len(top)-1)
		case v > top[0].v: // a later offset never displaces an equal value
			top[0] = atomEntry{o, v}
			atomSiftDown(top, 0)
		}
	}
	slices.SortFunc(top, func(x, y atomEntry) int {
		if x.v != y.v {
			if x.v > y.v {
				return -1
			}
			return 1
		}
		return x.o - y.o
	})
	var sa, sc float64
	for _, t := range top {
		sa += l.a[t.o] * l.a[t.o]
		sc += l.c[t.o] * l.c[t.o]
	}
	if !(sa >= atomShare*n2a && n2a > 0) && !(sc >= atomShare*n2c && n2c > 0) {
		return atomSet{}
	}
	s := atomSet{idx: make([]int, 0, len(top))}
	for _, t := range top {
		if t.v > 0 {
			s.idx = append(s.idx, t.o)
		}
	}
	sort.Ints(s.idx)
	return s
}

// atomEntry is a candidate atom of atomsOf: offset o, a+c there v.
type atomEntry struct {
	o int
	v float64
}

// atomLess orders atomsOf's heap: the smaller value first, and of equal
// values the higher offset (the one the insertion order would drop).
func atomLess(x, y atomEntry) bool {
	if x.v != y.v {
		return x.v < y.v
	}
	return x.o > y.o
}

func atomSiftUp(h []atomEntry, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !atomLess(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func atomSiftDown(h []atomEntry, i int) {
	for {
		m := i
		if l := 2*i + 1; l < len(h) && atomLess(h[l], h[m]) {
			m = l
		}
		if r := 2*i + 2; r < len(h) && atomLess(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// without returns a copy of l (values only) with the atoms set to 0.
func (l *list) without(s atomSet) *list {
	z := *l
	z.a = append([]float64(nil), l.a...)
	z.c = append([]float64(nil), l.c...)
	for _, o := range s.idx {
		z.a[o], z.c[o] = 0, 0
	}
	return &z
}

// directPart holds the directly convolved part of a composition on the
// output offsets [lo, lo+len(a)).
type directPart struct {
	lo   int
	a, c []float64
}

func (d directPart) at(v []float64, o int) float64 {
	if i := o - d.lo; i >= 0 && i < len(v) {
		return v[i]
	}
	return 0
}

// directConv returns atoms(x) * y + rest(x) * atoms(y) on the regular
// output offsets (pairs leaving -n+1..n belong to the corners, which are
// computed from the whole lists). fx is x without its atoms.
func directConv(x, y, fx *list, sx, sy atomSet) directPart {
	n := x.n
	if x.lo > x.hi || y.lo > y.hi {
		return directPart{}
	}
	lo := max(0, x.lo+y.lo-(n-1))
	hi := min(2*n-1, x.hi+y.hi-(n-1))
	if lo > hi {
		return directPart{}
	}
	d := directPart{lo: lo, a: make([]float64, hi-lo+1), c: make([]float64, hi-lo+1)}
	add := func(o int, va, vc float64, other *list) {
		// o is an atom offset; other is convolved with the point mass.
		for j := other.lo; j <= other.hi; j++ {
			t := o + j - (n - 1)
			if t < lo || t > hi {
				continue
			}
			d.a[t-lo] += va * other.a[j]
			d.c[t-lo] += vc * other.c[j]
		}
	}
	for _, o := range sx.idx {
		add(o, x.a[o], x.c[o], y)
	}
	for _, o := range sy.idx {
		add(o, y.a[o], y.c[o], fx)
	}
	for i := range d.a {
		if math.IsNaN(d.a[i]) || math.IsNaN(d.c[i]) {
			panic("engine: NaN in direct convolution")
		}
	}
	return d
}
