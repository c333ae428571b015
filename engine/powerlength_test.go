package engine

import (
	"context"
	"testing"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

func TestPowerLength(t *testing.T) {
	for _, c := range []struct{ b, want int }{
		{0, 1024}, {1, 1024}, {1024, 1024}, {1025, 1536}, {1536, 1536}, {1537, 2048},
		{16384, 16384}, {16385, 24576}, {24576, 24576}, {24577, 32768},
		{34300, 49152}, {49153, 65536}, {100000, 131072}, {1 << 22, 1 << 22}, {1<<22 + 1, 6 << 20},
	} {
		if got := powerLength(c.b); got != c.want {
			t.Errorf("powerLength(%d) = %d, want %d", c.b, got, c.want)
		}
		if !isPowerLength(powerLength(c.b)) {
			t.Errorf("powerLength(%d) = %d is not a power length", c.b, powerLength(c.b))
		}
	}
	for _, c := range []struct {
		n    int
		want bool
	}{{512, false}, {768, false}, {1024, true}, {1536, true}, {3072, true}, {5120, false}, {1 << 20, true}, {3 << 20, true}, {9 << 10, false}} {
		if got := isPowerLength(c.n); got != c.want {
			t.Errorf("isPowerLength(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

func TestMirrorPairsMatchSpectrumOrder(t *testing.T) {
	for _, N := range []int{2, 4, 8, 64, 1024, 6, 12, 24, 96, 1536, 3 << 12} {
		fp := fft.NewPlan(N)
		seen := make([]int, N)
		last := -1
		mirrorPairs(N, func(p, q int) {
			if p <= last || q < p {
				t.Errorf("N %d: pair (%d, %d) after %d: not ascending or mirror before it", N, p, q, last)
			}
			last = p
			seen[p]++
			if q != p {
				seen[q]++
			}
			if k, kq := fp.Frequency(p), fp.Frequency(q); (k+kq)%N != 0 {
				t.Errorf("N %d: positions %d, %d hold frequencies %d, %d: not mirrors", N, p, q, k, kq)
			}
		})
		for p, c := range seen {
			if c != 1 {
				t.Errorf("N %d: position %d visited %d times", N, p, c)
			}
		}
	}
}

func TestPowerComposeRefusesLeafLongerThanTransform(t *testing.T) {
	leaf := newList(8, 0.1, nil)
	leaf.grid = true
	leaf.a[7], leaf.c[7] = 1, 1
	leaf.lo, leaf.hi = 7, 7
	p := &plan{}
	for _, N := range []int{8, 12} { // 4 and 6 buckets a side: shorter than the leaf's 8
		if _, err := p.powerCompose(context.Background(), fft.NewPlan(N), leaf, 3, []float64{0}, 1, nil, nil, nil); err == nil {
			t.Errorf("N %d: a leaf of 8 buckets a side composed, want an error", N)
		}
	}
	if _, err := p.powerCompose(context.Background(), fft.NewPlan(16), leaf, 3, []float64{0}, 1, nil, nil, nil); err != nil {
		t.Errorf("N 16: %v", err)
	}
}
