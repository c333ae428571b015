package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// composedBits hashes every number of a composed list: its entries, error
// bounds (relative, envelopes, tilted and untilted totals, allowance),
// windows, corners and support.
func composedBits(l *list) string {
	h := sha256.New()
	hashList(h, l)
	for _, v := range [][]float64{l.envA, l.envC, l.tl1A, l.tl1C, l.tl1ZA, l.tl1ZC, l.tau} {
		binary.Write(h, binary.LittleEndian, int64(len(v)))
		for _, x := range v {
			binary.Write(h, binary.LittleEndian, math.Float64bits(x))
		}
	}
	binary.Write(h, binary.LittleEndian, [2]int64{int64(l.compositions), int64(l.squarings)})
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// nanArrays returns k arrays of length m filled with NaN (an entry read
// before it is written shows in the results).
func nanArrays(k, m int) [][]float64 {
	out := make([][]float64, k)
	for i := range out {
		out[i] = make([]float64, m)
		for j := range out[i] {
			out[i][j] = math.NaN()
		}
	}
	return out
}

// stageSetup returns the two-stage plan of the power path for r
// observations of m on transforms of length N (the test fails where the
// power path composes in one stage), its setup and the plan.
func stageSetup(t *testing.T, m Mechanism, r, N int) (*plan, *powerSetup, powerStages, *fft.Plan) {
	t.Helper()
	ctx := context.Background()
	p := testPowerPlan(t, m, r, N)
	fp := fft.Shared(p.powerN)
	lm := p.leaves[m].leafMeans()
	ps, why, err := p.powerPrepare(ctx, m, r, fp, lm)
	if err != nil || ps == nil {
		t.Fatalf("%s: no setup: %s %v", m, why, err)
	}
	st, ok := p.powerStagesMemo(m, r, fp.Len(), ps.leaf.lambda, nil, &lm)
	if !ok {
		t.Fatalf("%s r=%d N=%d: one stage", m, r, N)
	}
	return p, ps, st, fp
}

// TestStageWorkReuseBitwise checks that the two stages' shared work
// (squareWork: arrays handed from the first stage to the coarsenings and
// from one coarsening to the next, the second stage's tilt weights in
// them; stageSlab: the second stage's list and work array in the first
// stage's memory) gives bitwise the lists of fresh arrays: a squaring and
// two coarsenings in a row on one work whose arrays are filled with NaN
// and whose index arrays and record hold garbage against those on new
// arrays each, and whole two-stage compositions repeated on one plan
// against one with a trace (which keeps the coarsenings' inputs: no
// recycled arrays, no slab).
func TestStageWorkReuseBitwise(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		sigma, q float64
		r, N     int
	}{{4, 0.01, 65536, 1 << 14}, {4, 0.01, 65536, 1 << 16}, {8, 0.02, 16384, 1 << 14}}
	for _, c := range cases {
		m, err := SGD(c.sigma, c.q)
		if err != nil {
			t.Fatal(err)
		}
		p, ps, st, fp := stageSetup(t, m, c.r, c.N)
		sd1 := math.Sqrt(float64(st.m) * ps.gl.lossVariance())
		lam1 := ps.leaf.lambda / float64(st.k)
		nl := st.n1
		if v := float64(p.n) * p.gridLambda; v < st.rm {
			nl = min(st.n1, 2*int(math.Ceil(v/lam1/2))+2)
		}
		_, leaf1, err := powerGridLeaf(m, nl, lam1)
		if err != nil {
			t.Fatal(err)
		}
		var tr stageTrace
		zt, _, err := p.composeStages(ctx, leaf1, st, ps.tau, sd1, ps.sd, fp, &tr)
		if err != nil || zt == nil {
			t.Fatalf("%s: no two-stage composition (%v)", m, err)
		}
		want := composedBits(zt)
		for i := range 2 {
			z, _, err := p.composeStages(ctx, leaf1, st, ps.tau, sd1, ps.sd, fp, nil)
			if err != nil || z == nil {
				t.Fatalf("%s: no two-stage composition (%v)", m, err)
			}
			if got := composedBits(z); got != want {
				t.Errorf("%s N=%d: composition %d %s, with a trace %s", m, c.N, i, got, want)
			}
		}
		// the squarings and coarsenings alone: fresh arrays against one
		// poisoned work
		in := tr.inputs[0]
		n := in.n
		poisoned := func() *squareWork {
			w := newSquareWork(n, nanArrays(12, 2*n))
			w.dHi, w.dLo = make([]int32, 2*n), make([]int32, 2*n)
			for i := range w.dHi {
				w.dHi[i], w.dLo[i] = 1<<20, -1<<20
			}
			w.moves = make([]mergeMove, 7, 3*n)
			w.nz = []int{3, 1, 4}
			return w
		}
		g1 := in.gridSquare()
		gw := in.gridSquareWith(nil, poisoned())
		if a, b := composedBits(g1), composedBits(gw); a != b {
			t.Errorf("%s N=%d: squaring on reused work %s, on new arrays %s", m, c.N, b, a)
		}
		f1 := in.stageCoarsen(nil)
		f2 := f1.stageCoarsen(nil)
		w := poisoned()
		w1 := in.stageCoarsenWith(nil, w)
		w.put(nanArrays(2, 2*n)...)
		w2 := w1.stageCoarsenWith(nil, w)
		for i, pair := range [][2]*list{{f1, w1}, {f2, w2}} {
			if a, b := composedBits(pair[0]), composedBits(pair[1]); a != b {
				t.Errorf("%s N=%d: coarsening %d on reused work %s, on new arrays %s", m, c.N, i+1, b, a)
			}
		}
	}
}

// TestStageSlab checks the slab's arrays: cut at their length (an append
// does not reach the next), carved chunk by chunk (an array that does not
// fit in the rest of a chunk starts the next), zeros where asked for after
// a reset, new arrays once the chunks are used up or for arrays longer
// than a chunk, and a nil slab's new arrays.
func TestStageSlab(t *testing.T) {
	s := newStageSlab(10, 2)
	a := s.zeros(4)
	b := s.take(4)
	if len(a) != 4 || cap(a) != 4 || len(b) != 4 || cap(b) != 4 {
		t.Fatalf("lengths %d/%d and %d/%d, want 4/4", len(a), cap(a), len(b), cap(b))
	}
	for i := range a {
		a[i], b[i] = 1, 2
	}
	_ = append(a, 7)
	if b[0] != 2 {
		t.Fatalf("an append to one array reached the next: %v", b)
	}
	c := s.take(4)  // the second chunk
	d := s.take(6)  // the rest of it
	e := s.zeros(3) // beyond the chunks: new
	f := s.take(11) // longer than a chunk: new
	if len(s.chunks) != 2 || &c[0] != &s.chunks[1][0] || &d[0] != &s.chunks[1][4] || len(e) != 3 || len(f) != 11 {
		t.Fatalf("%d chunks; arrays not carved as expected", len(s.chunks))
	}
	for i := range c {
		c[i] = 3
	}
	for i := range d {
		d[i] = 4
	}
	if a[0] != 1 || b[0] != 2 || e[0] != 0 {
		t.Fatalf("arrays overlap: %v %v %v", a, b, e)
	}
	s.reset()
	for _, m := range []int{3, 4, 3, 10} {
		z := s.zeros(m)
		for i, v := range z {
			if v != 0 {
				t.Fatalf("zeros(%d) after a reset: entry %d is %v", m, i, v)
			}
			z[i] = 5
		}
	}
	var none *stageSlab
	if v, w := none.take(3), none.zeros(2); len(v) != 3 || len(w) != 2 || w[0] != 0 {
		t.Fatalf("nil slab: %v %v", v, w)
	}
	none.reset()
}
