package engine

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// atomsOfInsertion is atomsOf as an insertion into a sorted list (the
// definition the heap must reproduce: the maxAtoms largest a+c, ties to the
// lower offset, summed in descending order).
func atomsOfInsertion(l *list) atomSet {
	if l.lo > l.hi {
		return atomSet{}
	}
	var top []atomEntry
	var n2a, n2c float64
	for o := l.lo; o <= l.hi; o++ {
		a, c := l.a[o], l.c[o]
		n2a += a * a
		n2c += c * c
		v := a + c
		if len(top) < maxAtoms || v > top[len(top)-1].v {
			i := sort.Search(len(top), func(i int) bool { return top[i].v < v })
			top = slices.Insert(top, i, atomEntry{o, v})
			if len(top) > maxAtoms {
				top = top[:maxAtoms]
			}
		}
	}
	var sa, sc float64
	for _, t := range top {
		sa += l.a[t.o] * l.a[t.o]
		sc += l.c[t.o] * l.c[t.o]
	}
	if !(sa >= atomShare*n2a && n2a > 0) && !(sc >= atomShare*n2c && n2c > 0) {
		return atomSet{}
	}
	s := atomSet{}
	for _, t := range top {
		if t.v > 0 {
			s.idx = append(s.idx, t.o)
		}
	}
	sort.Ints(s.idx)
	return s
}

// TestAtomsOfHeap compares atomsOf with the insertion definition on random
// lists: rising and falling runs, many ties (values from a small set),
// fewer entries than maxAtoms, spikes that are atoms and flat lists that
// are not.
func TestAtomsOfHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for trial := range 3000 {
		n := 1 + rng.IntN(400)
		l := newList(n, 0.01, []float64{0})
		lo := rng.IntN(2 * n)
		hi := lo + rng.IntN(2*n-lo)
		l.lo, l.hi = lo, hi
		levels := []float64{0, 1e-300, 0.125, 0.25, 0.5, 1}
		kind := trial % 4
		for o := lo; o <= hi; o++ {
			switch kind {
			case 0: // ties
				l.a[o] = levels[rng.IntN(len(levels))]
				l.c[o] = levels[rng.IntN(len(levels))]
			case 1: // rising then falling, with spikes
				x := float64(o - lo)
				l.a[o] = x * float64(hi-o+1)
				l.c[o] = l.a[o] / 2
				if rng.IntN(50) == 0 {
					l.a[o] *= 1e6
				}
			case 2: // continuous
				l.a[o], l.c[o] = rng.Float64(), rng.Float64()*1e-3
			default: // sparse atoms
				if rng.IntN(10) == 0 {
					l.a[o] = rng.Float64()
				}
			}
		}
		got, want := atomsOf(l), atomsOfInsertion(l)
		if !slices.Equal(got.idx, want.idx) {
			t.Fatalf("trial %d (kind %d, %d..%d): heap %v, insertion %v", trial, kind, lo, hi, got.idx, want.idx)
		}
	}
}
