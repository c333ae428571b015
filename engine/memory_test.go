package engine

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// heapGrowth runs f and returns the bytes allocated meanwhile (TotalAlloc)
// and the largest growth of the heap (HeapAlloc, including garbage not yet
// collected) seen by a sampler every 100 microseconds.
func heapGrowth(f func()) (total, peak uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, max(peak, after.HeapAlloc) - before.HeapAlloc
}

// TestEstimateBuildMemory checks that the estimates of the Vuvuzela pairs'
// one-time work cover what building them and their loss ranges allocates,
// and exceed the measured peak heap growth by a margin, without being
// loose by more than a factor of 2.5.
func TestEstimateBuildMemory(t *testing.T) {
	cases := []struct {
		conv      bool
		noise     Noise
		mu, scale float64
	}{
		{true, NoiseGauss, 1000, 200},    // small: FFT length 2^13
		{true, NoiseGauss, 45000, 7500},  // medium (Figure 17's GS(45k, 7.5k)): 2^18
		{true, NoiseLaplace, 20000, 800}, // Laplace: 2^17
		{false, NoiseLaplace, 8000, 500}, // dialing: 350,000 counts
	}
	// The peak depends on when the collector runs: at the default GOGC
	// it may not run at all during a build that follows larger tests (the
	// heap goal is then far above the build's allocation), so the peak is
	// measured at GOGC=20 as in TestEstimateComposeMemory.
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	for _, c := range cases {
		var m Mechanism
		var est int64
		var err error
		if c.conv {
			m, err = VuvuzelaConversation(c.noise, c.mu, c.scale)
			est = EstimateConversationMemory(c.noise, c.mu, c.scale)
		} else {
			m, err = VuvuzelaDialing(c.noise, c.mu, c.scale)
			est = EstimateDialingMemory(c.noise, c.mu, c.scale)
		}
		if err != nil {
			t.Fatal(err)
		}
		cm := m.(*countMech)
		total, peak := heapGrowth(func() {
			if err := cm.prepare(context.Background()); err != nil {
				t.Fatal(err)
			}
			cm.lossRange(1e-30)
		})
		t.Logf("%s: estimate %.1f MB, allocated %.1f MB, peak heap growth %.1f MB", m, float64(est)/1e6, float64(total)/1e6, float64(peak)/1e6)
		if uint64(est) < total || float64(est) < 1.25*float64(peak) {
			t.Errorf("%s: estimate %d bytes is below the allocated %d or 1.25 times the peak heap growth %d", m, est, total, peak)
		}
		if float64(est) > 2.5*float64(total) {
			t.Errorf("%s: estimate %d bytes is more than 2.5 times the allocated %d", m, est, total)
		}
	}
}

// TestEstimateComposeMemory checks a whole composition of a conversation
// pair: EstimateMemory plus EstimateConversationMemory must exceed the
// measured peak heap growth by a margin. EstimateMemory counts the
// composition's live bytes, so the peak is measured with the collector
// running at GOGC=20 (the heap stays within about 1.2 times the live
// bytes); with the default GOGC=100 the heap of a composition overshoots
// its live bytes by up to 2 times between collections (measured: 172-183 MB
// at 100,000 buckets against an estimate of 114 MB for Gauss, 150 MB for
// this pair).
func TestEstimateComposeMemory(t *testing.T) {
	const mu, scale = 15000, 2500
	m, err := VuvuzelaConversation(NoiseGauss, mu, scale)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Buckets: 20000}
	est := EstimateMemory(opt) + EstimateConversationMemory(NoiseGauss, mu, scale)
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	_, peak := heapGrowth(func() {
		if _, err := ComposeMany(context.Background(), m, []int{1 << 10, 1 << 16}, opt); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%s, %d buckets: estimate %.1f MB, peak heap growth %.1f MB", m, opt.Buckets, float64(est)/1e6, float64(peak)/1e6)
	if float64(est) < 1.25*float64(peak) {
		t.Errorf("estimate %d bytes is below 1.25 times the peak heap growth %d", est, peak)
	}
}
