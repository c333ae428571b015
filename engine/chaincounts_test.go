package engine

import (
	"context"
	"slices"
	"testing"
)

// TestChainCounts checks which numbers of compositions shape a chain.
func TestChainCounts(t *testing.T) {
	for _, c := range []struct{ rs, want []int }{
		{[]int{1024, 64, 4}, []int{4, 1024}},
		{[]int{16, 1024, 16, 3}, []int{3, 16, 1024}},
		{[]int{17, 1024}, []int{1024}},
		{[]int{7}, []int{7}},
		{nil, nil},
	} {
		if got := ChainCounts(c.rs); !slices.Equal(got, c.want) {
			t.Errorf("ChainCounts(%v) = %v, want %v", c.rs, got, c.want)
		}
	}
}

// TestChainCountsDecideBits checks ChainCounts' promise: calls with the
// same shaping counts give bitwise the same results for the r they share
// (however many other r they compute), and a call without the small r of
// the chain does not (which is why caches key states by ChainCounts).
func TestChainCountsDecideBits(t *testing.T) {
	m, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Buckets: 2000}
	ctx := context.Background()
	bits := func(rs []int, r int) []float64 {
		res, err := ComposeMany(ctx, m, rs, opt)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(rs, r)
		var out []float64
		for _, eps := range []float64{0.5, 1, 2, 3} {
			d := res[i].Delta(eps)
			out = append(out, d.Upper, d.Lower)
		}
		return out
	}
	a := bits([]int{4, 64, 1024}, 64)
	if b := bits([]int{1024, 200, 4, 64}, 64); !slices.Equal(a, b) {
		t.Errorf("same shaping counts, other bits: %v vs %v", a, b)
	}
	if c := bits([]int{64, 1024}, 64); slices.Equal(a, c) {
		t.Logf("without r = 4 the bits of r = 64 happen to agree (%v)", c)
	}
}
