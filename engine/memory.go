package engine

import "math"

// EstimateMemory returns an estimate in bytes of the peak live memory of one
// composition with these options (bucket arrays of the stored powers of two,
// error bounds, FFT buffers and tilt weights), for admission control. It
// counts live bytes, not the garbage the collector has yet to reclaim: with
// the default GOGC=100 the heap of a composition reaches up to about twice
// them (measured for Gauss, r = 2^16, 100,000 buckets: estimate 114 MB, peak
// heap growth 172 to 183 MB; with GOGC=20, 122 MB). It depends on the
// options only: the one-time work of a mechanism whose events are computed
// when it is first composed is not included; add EstimateConversationMemory
// or EstimateDialingMemory for the Vuvuzela pairs (the other mechanisms need
// little beyond the bucket lists).
func EstimateMemory(opt Options) int64 {
	o, err := opt.withDefaults()
	if err != nil {
		o.Buckets, o.Tilts = 100000, 3
	}
	if o.Path == PathPower {
		return estimatePowerMemory(o)
	}
	n := int64(o.Buckets / 2)
	N := int64(nextPow2(int(3 * n)))
	lists := int64(44)                      // up to 40 stored powers plus working lists
	perList := 2 * 2 * n * 8                // a and c
	errs := 4 * 2 * n * 8                   // error bound arrays of two operands
	fft := 4 * N * 8                        // scratch
	tw := N*8 + N*4 + N*16                  // twiddles, bit reversal, stage twiddles
	wts := 4 * int64(o.Tilts+2) * 2 * n * 8 // weight cache (tilts per level, 4 entries)
	// the tilts of a chain's results (chaintilts.go): per level up to
	// maxChainTilts pairs, each with 4 cached weight arrays and 2 output
	// buffers of the composition
	chain := int64(0)
	if o.Tilts >= 3 {
		chain = 2 * maxChainTilts * 6 * 2 * n * 8
	}
	wts += chain
	table := 10 * 2 * n * 8 // bounds and delta table of a queried Result
	one := lists*perList + errs + fft + tw + wts + table
	if o.DisableErrorCorrection || o.Lists == ListsGrouped {
		return one + 1<<20
	}
	// the grid lists are composed at once by a second composer (the same
	// arrays again) and recorded leaf groups; a queried Result keeps the
	// grid table (3 arrays) and bounds; grid squarings 4 arrays of scratch
	grid := lists*perList + errs + fft + tw + wts + (5+4)*2*n*8 + 2*2*n*32
	if o.Lists == ListsGrid {
		return grid + 1<<20
	}
	return one + grid + 1<<20
}

// EstimateConversationMemory returns an estimate in bytes of the memory that
// VuvuzelaConversation(noise, mu, scale) adds to a composition, to be added
// to EstimateMemory: everything its one-time build allocates (the four
// count PMFs with their error envelopes, and their logs; the nine arrays of
// the sum's enclosures and, for Gauss noise, the five per side of the
// accurate sums and the direct sums' work list; the
// FFT plan (twiddles, bit reversal, stage twiddles: 28 bytes per entry) and
// the four FFT buffers (32 bytes per entry) of length N, the power of two
// at or above the sum's length, at most 2^23, so about 0.5 GiB for these two alone; the
// events, bounded as one entry per sum entry and with every capacity the
// appends go through), the loss ranges the plan derives from the events
// and the events' moments the far-tail bound keeps.
// It is an upper bound on the heap the build reaches even if the collector
// reclaims nothing meanwhile (the FFT buffers are garbage once the events
// are stored); the events and the loss ranges stay for the composition.
// Parameters the constructor refuses get the estimate of their size.
func EstimateConversationMemory(noise Noise, mu, scale float64) int64 {
	t := tailWidth(noise, convTail)
	if noise == NoiseGauss && 1.5*(mu+2+tailWidth(noise, dialTail)*scale)+8 <= gaussLongTails {
		t = tailWidth(noise, dialTail) // as VuvuzelaConversation
	}
	xa0, xa1 := estCountRange(t, mu, scale)
	xb0, xb1 := estCountRange(t, mu+2, scale)
	ya0, ya1 := estCountRange(t, mu/2, scale/2)
	yb0, yb1 := estCountRange(t, mu/2+1, scale/2)
	n1 := math.Max(xa1, xb1) - math.Min(xa0, xb0) + 1
	n2 := math.Max(ya1, yb1) - math.Min(ya0, yb0) + 1
	nz := n1 + n2 - 1
	N := math.Max(2, math.Exp2(math.Ceil(math.Log2(nz))))
	dists := 16 * (xa1 - xa0 + xb1 - xb0 + ya1 - ya0 + yb1 - yb0 + 4)
	logs := 8 * 2 * (n1 + n2)
	sums := 9 * 8 * nz
	if noise == NoiseGauss {
		// per side: lb, ub, rel, est (8 bytes), need (1); the jobs (16
		// bytes, capacities through appends at most 2.5 times)
		sums += 2 * (33 + 40) * nz
	}
	fft := 28*N + 32*N
	return estBytes(dists + logs + sums + fft + 2*estEventsMemory(nz) + 1<<16)
}

// EstimateDialingMemory returns an estimate in bytes of the memory that
// VuvuzelaDialing(noise, mu, scale) adds to a composition, counted as in
// EstimateConversationMemory: its two count PMFs with their error
// envelopes, its events (one per count, with every capacity the appends go
// through), their loss ranges and the moments the far-tail bound keeps.
func EstimateDialingMemory(noise Noise, mu, scale float64) int64 {
	t := tailWidth(noise, dialTail)
	a0, a1 := estCountRange(t, mu, scale)
	b0, b1 := estCountRange(t, mu+2, scale)
	n := math.Max(a1, b1) - math.Min(a0, b0) + 1
	dists := 16 * (a1 - a0 + b1 - b0 + 2) // masses and error envelopes
	return estBytes(dists + 2*estEventsMemory(n) + 1<<16)
}

// estCountRange returns the first and last count newCountDist stores for a
// tail width of t standard units (as float64, which does not overflow).
func estCountRange(t, mu, scale float64) (lo, hi float64) {
	return math.Max(0, math.Floor(mu-t*scale)), math.Ceil(mu+t*scale) + 1
}

// estEventsMemory bounds the bytes allocated for n events of a countMech and
// their loss ranges. Each of the four slices is appended to one entry at a
// time: every growth allocates at least 1.25 times the previous capacity,
// so all capacities together are at most 5 times the last, which is at
// most 1.25 n plus 1,216 entries (growth by (c+768)/4, rounded up to an
// 8 KiB page): 50 n + 48,640 bytes per slice. lossRange then allocates 16
// bytes per event for the sort and 16 for the ranges it keeps.
func estEventsMemory(n float64) float64 {
	return 4*(50*n+48640) + 32*n
}

// estBytes converts a byte count to int64, mapping NaN and values beyond
// 2^62 (invalid parameters) to 2^62.
func estBytes(b float64) int64 {
	if !(b < 1<<62) {
		return 1 << 62
	}
	return int64(math.Ceil(b))
}
