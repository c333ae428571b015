package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"testing"
)

// powerLeafFor builds the grid leaf of the power path for r steps of m at
// Buckets = N, as powerPrepare does (half-cell cuts, embedding,
// finishGrid; BenchmarkPowerLeaf builds the same): the leaf builder (its
// groups and grouped sums) and the grid leaf.
func powerLeafFor(tb testing.TB, m Mechanism, r, N int) (*leafBuilder, *list) {
	tb.Helper()
	o, err := Options{Buckets: N, power: powerOn}.withDefaults()
	if err != nil {
		tb.Fatal(err)
	}
	o = o.withTailBudget([]Part{{Mechanism: m, Count: r}})
	p, err := newPowerPlan(m, r, o)
	if err != nil || p == nil {
		tb.Fatalf("no power plan: %v", err)
	}
	R := p.powerRange(m, r)
	n := p.powerN / 2
	lambda := R / float64(n)
	nl := n
	if t := float64(p.n) * p.gridLambda; t < R {
		nl = min(n, 2*int(math.Ceil(t/lambda/2))+2)
	}
	lb := newLeafBuilder(nl, lambda, nil)
	lb.recordGroups = true
	lb.inexact = true
	if err := m.embed(lb); err != nil {
		tb.Fatal(err)
	}
	gl := lb.rel(m)
	return lb, lb.finishGrid(gl.relErrIn, m.String())
}

// leafFingerprint hashes every number of a power leaf: the groups the
// embedding recorded, the grouped sums and counters of the builder, and
// the grid leaf's masses, error bounds, windows and corners.
func leafFingerprint(lb *leafBuilder, l *list) string {
	h := sha256.New()
	f := func(vs ...float64) {
		for _, v := range vs {
			binary.Write(h, binary.LittleEndian, math.Float64bits(v))
		}
	}
	i := func(vs ...int) {
		for _, v := range vs {
			binary.Write(h, binary.LittleEndian, int64(v))
		}
	}
	for _, g := range lb.groups {
		f(g.pa, g.pb, g.lossLo, g.lossHi)
		if g.tiny {
			i(1)
		} else {
			i(0)
		}
	}
	f(lb.l.a...)
	f(lb.l.c...)
	f(lb.uMax, lb.hiA, lb.hiC, lb.loA, lb.loC, lb.distA, lb.distB)
	f(lb.hiAErr, lb.hiCErr, lb.loAErr, lb.loCErr, lb.distAErr, lb.distBErr)
	i(lb.events, int(lb.maxAdds), int(lb.maxTiny))
	hashList(h, l)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// hashList writes a grid leaf's numbers to h.
func hashList(h hash.Hash, l *list) {
	f := func(vs ...float64) {
		for _, v := range vs {
			binary.Write(h, binary.LittleEndian, math.Float64bits(v))
		}
	}
	f(l.a...)
	f(l.c...)
	f(l.relA, l.relC, l.wUp, l.wLo, l.l1A, l.l1C, l.abs, l.u, l.lambda)
	for _, v := range []val{l.hiA, l.hiC, l.loA, l.loC, l.distA, l.distB, l.lowDistA, l.lowDistB} {
		f(v.v, v.e)
	}
	binary.Write(h, binary.LittleEndian, [3]int64{int64(l.n), int64(l.lo), int64(l.hi)})
}

// TestPowerLeafFingerprint compares a hash of the power path's grid leaf
// (and the groups it is built from) with the hash recorded for the current
// implementation, for the DP-SGD rows of the peers' benchmark and the
// other Gaussian pair shapes, at 2^12, 2^17 and 2^18 buckets: a change of
// the embedding or of finishGrid meant to save time must keep every number
// bit for bit; one that changes a rounding on purpose records new hashes
// (and shows its error bound elsewhere).
func TestPowerLeafFingerprint(t *testing.T) {
	sgd := func(sigma, q float64, s Sampling, r Relation) func() (Mechanism, error) {
		return func() (Mechanism, error) { return SubsampledGauss(sigma, 1, q, s, r) }
	}
	cases := []struct {
		name string
		mech func() (Mechanism, error)
		r, N int
		want string
	}{
		{"sgd1/4096", sgd(1.1, 0.01, Poisson, AddRemove), 10000, 1 << 12, "e8d2b671cd12129d"},
		{"sgd4/4096", sgd(4, 0.01, Poisson, AddRemove), 65536, 1 << 12, "ca86552631c20c38"},
		{"sgd1k/4096", sgd(1, 0.001, Poisson, AddRemove), 250000, 1 << 12, "5460f98eda9b93c7"},
		{"antipodal/4096", sgd(1.1, 0.01, Poisson, ReplaceOne), 10000, 1 << 12, "80be18fbdf21885d"},
		{"fixedremove/4096", sgd(1.1, 0.01, FixedSize, AddRemove), 10000, 1 << 12, "3f3e987e9e736534"},
		{"symmetric/4096", sgd(1.1, 0.01, FixedSize, ReplaceOne), 10000, 1 << 12, "07f65c347b646d01"},
		{"sgd1/131072", sgd(1.1, 0.01, Poisson, AddRemove), 10000, 1 << 17, "567d493b64aa7d2b"},
		{"sgd4/131072", sgd(4, 0.01, Poisson, AddRemove), 65536, 1 << 17, "0573e81ab9eebea2"},
		{"sgd1/262144", sgd(1.1, 0.01, Poisson, AddRemove), 10000, 1 << 18, "9154a393f79976f6"},
		{"sgd1k/262144", sgd(1, 0.001, Poisson, AddRemove), 250000, 1 << 18, "571fac5bf4255ac8"},
		{"sgd1k/131072", sgd(1, 0.001, Poisson, AddRemove), 250000, 1 << 17, "7feb687a0f943334"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.N > 1<<12 {
				t.Skip("large leaf")
			}
			m, err := c.mech()
			if err != nil {
				t.Fatal(err)
			}
			lb, l := powerLeafFor(t, m, c.r, c.N)
			if got := leafFingerprint(lb, l); got != c.want {
				t.Errorf("fingerprint %s, want %s (%d groups)", got, c.want, len(lb.groups))
			}
		})
	}
}
