package engine

// squareWork is what the grid squarings of one composition share (the two
// stages' coarsenings, powerstage.go): work arrays of 2n entries from an
// arena (the first stage's dead transform and work arrays, then each
// squaring's own and its input's once it is done; beyond them, the
// composition's stageSlab), the merges' index arrays and their record of
// moves, kept from one squaring to the next of lists with the same n
// instead of allocated and zeroed per squaring. Every user writes or
// clears what it reads, so the results are bitwise those of fresh arrays
// (TestStageWorkReuseBitwise). One composition's squarings run one after
// another, and of the two halves of a squaring only the merges use it: a
// squareWork is never used by two goroutines at once.
type squareWork struct {
	ar       *arena
	sl       *stageSlab // where arrays come from when ar has none (nil: new ones)
	dHi, dLo []int32    // mergeSquare's farthest moves per input
	nz       []int      // mergeSquare's atoms left for the far merges
	big      []int      // stageCoarsen's inputs with large coefficients
	bw       []float64
	// moves records, when record is set, every merge's and kept atom's
	// input shares (stageCoarsen) in the order mergeSquare makes them
	record bool
	moves  []mergeMove
}

// mergeMove is one input's share of a merge or of a kept even atom
// (mergeSquare): input offset o, its coefficient c = k x / c_o (the merge's
// coefficient k times the amount x taken over the stored value c_o; 1 for
// a kept atom) enlarged by 1+4u for its rounding, and its move d = 2k' - m
// in old spacings (old index m, new index k'). (Offsets and moves are below
// 2n in magnitude: int32 holds them for any list whose arrays fit in
// memory.)
type mergeMove struct {
	o, d int32
	c    float64
}

// newSquareWork returns the work of squarings of lists with n points per
// side, its arrays first from free (arrays of length at least 2n; the
// caller gives up every one).
func newSquareWork(n int, free [][]float64) *squareWork {
	return &squareWork{ar: &arena{m: 2 * n, free: free}}
}

// get returns an array of length m with arbitrary contents: for m = 2n a
// spare one or one from sl, else a new one.
func (w *squareWork) get(m int) []float64 {
	if m != w.ar.m {
		return make([]float64, m)
	}
	if len(w.ar.free) == 0 {
		return w.sl.take(m)
	}
	return w.ar.get()
}

// zeros returns an array of 2n zeros: a spare one cleared, or one from sl.
func (w *squareWork) zeros() []float64 {
	if len(w.ar.free) == 0 {
		return w.sl.zeros(w.ar.m)
	}
	v := w.ar.get()
	clear(v)
	return v
}

// put returns the arrays vs (no longer used) for reuse.
func (w *squareWork) put(vs ...[]float64) {
	for _, v := range vs {
		w.ar.put(v)
	}
}

// int32s returns dHi and dLo, of 2n zeros each.
func (w *squareWork) int32s() (dHi, dLo []int32) {
	m := w.ar.m
	if cap(w.dHi) < m {
		w.dHi, w.dLo = make([]int32, m), make([]int32, m)
	} else {
		w.dHi, w.dLo = w.dHi[:m], w.dLo[:m]
		clear(w.dHi)
		clear(w.dLo)
	}
	return w.dHi, w.dLo
}

// move records input o's share c (k x / c_o, before its rounding
// allowance) of a merge at the new offset ok of a list with n points per
// side; shares of 0 are left out.
func (w *squareWork) move(o, ok, n int, c float64) {
	if c > 0 {
		if w.moves == nil {
			// about one share per offset of the support (0.85-1.2 on the
			// DP-SGD rows): room for 1.5 per offset of the whole list
			w.moves = make([]mergeMove, 0, 3*n+64)
		}
		w.moves = append(w.moves, mergeMove{o: int32(o), d: int32(2*ok - o - n + 1), c: c * (1 + 4*unitRoundoff)})
	}
}

// stageSlab hands out arrays carved from a few chunks of memory (two
// stages, composeStages): the first stage's and the coarsenings', and,
// once they are all dead (the second stage has tilted its input), the
// second stage's list and work array, a chunk each, which would otherwise
// be new allocations of the same size (each its own chunk, so none keeps
// another alive). Arrays are cut with their capacity at their length, so
// no append reaches a neighbour; an array that fits in no chunk is new. A
// nil *stageSlab returns new arrays.
type stageSlab struct {
	size, max int // entries per chunk, chunks at most
	chunks    [][]float64
	ci, off   int   // the chunk being carved and its next free entry
	used      []int // per chunk: entries below it were handed out before a reset
}

// newStageSlab returns a slab of up to max chunks of size entries (each
// allocated when first needed).
func newStageSlab(size, max int) *stageSlab {
	return &stageSlab{size: size, max: max}
}

// carve returns an array of m entries and whether it may hold earlier
// contents (handed out before a reset; otherwise zeros).
func (s *stageSlab) carve(m int) (v []float64, dirty bool) {
	if s == nil || m > s.size {
		return make([]float64, m), false
	}
	for {
		if s.ci < len(s.chunks) {
			if s.off+m <= s.size {
				v = s.chunks[s.ci][s.off : s.off+m : s.off+m]
				dirty = s.off < s.used[s.ci]
				s.off += m
				return v, dirty
			}
			// the rest of this chunk is too short: the next one
			s.used[s.ci] = s.size
			s.ci, s.off = s.ci+1, 0
			continue
		}
		if len(s.chunks) == s.max {
			return make([]float64, m), false
		}
		s.chunks = append(s.chunks, make([]float64, s.size))
		s.used = append(s.used, 0)
	}
}

// take returns an array of m entries with arbitrary contents.
func (s *stageSlab) take(m int) []float64 {
	v, _ := s.carve(m)
	return v
}

// zeros returns an array of m zeros.
func (s *stageSlab) zeros(m int) []float64 {
	v, dirty := s.carve(m)
	if dirty {
		clear(v)
	}
	return v
}

// reset makes every entry free again: the caller holds none of the arrays
// handed out before.
func (s *stageSlab) reset() {
	if s == nil {
		return
	}
	if s.ci < len(s.chunks) {
		s.used[s.ci] = max(s.used[s.ci], s.off)
	}
	s.ci, s.off = 0, 0
}
