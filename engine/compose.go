package engine

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/pbuckets/pbuckets/engine/internal/fft"
)

// composer holds what the compositions of one computation share: FFT plans,
// tilt weights and scratch buffers. It is not safe for concurrent use.
type composer struct {
	n         int
	plans     *planCache
	weights   weightCache
	scratches []*convScratch // one per worker
	tiltBufs  [][2][]float64 // per tilt: untilted A and B values
	workers   int            // tilted convolutions run at once
	ffts      int            // transforms done (diagnostics and tests)
	moms      []momentEntry  // recent moments (composer.moments)
	errBuf    [4][]float64   // scratch of errBounds
	chosen    [2][]uint8     // scratch of compose: the tilt each entry took
	bBuf      [4][]float64   // scratch of derivedB (grid lists; two slots)
	bestBuf   [2][]float64   // scratch of compose: the best bound per entry
	tl1Acc    []float64      // scratch of fftTL1 (K*K)
	zeroBuf   [2][]float64   // scratch of compose: the values zeroed as noise
	// e^-L(o) of the most recent lambda (negExp)
	negExpTab    []float64
	negExpRel    float64
	negExpLambda float64
}

func newComposer(n int) *composer {
	return &composer{n: n, plans: &planCache{m: map[int]*fft.Plan{}}, weights: weightCache{n: n}, workers: runtime.GOMAXPROCS(0)}
}

// planCache holds FFT plans by length. Plans are read-only once built,
// so the composers of one computation (the grouped and the grid lists,
// composed at once) share one cache.
type planCache struct {
	mu sync.Mutex
	m  map[int]*fft.Plan
}

func (cp *composer) plan(N int) *fft.Plan {
	cp.plans.mu.Lock()
	defer cp.plans.mu.Unlock()
	p := cp.plans.m[N]
	if p == nil {
		p = fft.NewPlan(N)
		cp.plans.m[N] = p
	}
	return p
}

func nextPow2(k int) int {
	N := 2
	for N < k {
		N <<= 1
	}
	return N
}

// moments returns M(tau_m) = sum_o v[o] w[m][o] over the support of l for
// the A-masses and the B-masses, for the tilt weights tw of l's tilts
// (computed once per list and weights; not safe for concurrent use).
func (cp *composer) moments(l *list, tw *tiltWeights) (mA, mC []float64) {
	for _, e := range cp.moms {
		if e.l == l && e.tw == tw {
			return e.a, e.c
		}
	}
	mA, mC = make([]float64, len(tw.w)), make([]float64, len(tw.w))
	// the two sides at once (each sum in its order: the same values)
	concurrently(func() {
		l.momentsInto(tw.w, true, mA)
	}, func() {
		l.momentsInto(tw.w, false, mC)
	})
	if len(cp.moms) >= 2 { // x and y of one composition
		cp.moms = cp.moms[1:]
	}
	cp.moms = append(cp.moms, momentEntry{l, tw, mA, mC})
	return mA, mC
}

type momentEntry struct {
	l    *list
	tw   *tiltWeights
	a, c []float64
}

// compose returns the composition x × y of Definition 4 and 7 (the lists
// must share n, lambda and tilts). x and y may be the same list. cs, when
// not nil, holds the corner masses of x × y already computed (corners).
func (cp *composer) compose(x, y *list, cs *cornerSet) *list {
	n := x.n
	if y.n != n || y.lambda != x.lambda || !equalTau(x.tau, y.tau) {
		panic("engine: composing incompatible bucket lists")
	}
	z := newList(n, x.lambda, x.tau)
	z.u = x.u + y.u
	z.compositions = x.compositions + y.compositions
	z.squarings = x.squarings
	z.names = mergeNames(x.names, y.names)
	z.variance = x.variance + y.variance
	z.tailMA, z.tailMC = addMoments(x.tailMA, y.tailMA), addMoments(x.tailMC, y.tailMC)
	if z.tailMA != nil {
		z.tails = &tailCache{}
	}
	if x.grid != y.grid {
		panic("engine: composing a grid list with a grouped list")
	}
	if x.grid {
		// grid lists (grid.go): indices add exactly, windows add
		z.grid = true
		z.wUp = (x.wUp + y.wUp) * (1 + 2*unitRoundoff)
		z.wLo = (x.wLo + y.wLo) * (1 + 2*unitRoundoff)
	}

	tw := cp.weights.get(x.lambda, x.tau)
	w, wrel := tw.w, tw.rel
	K := len(x.tau)
	mxA, mxC := cp.moments(x, tw)
	myA, myC := cp.moments(y, tw)
	// Tilted total-error bounds of the operands (tl1.go).
	tmxA, tmxC := tl1Moments(mxA, tw.rel, n), tl1Moments(mxC, tw.rel, n)
	tmyA, tmyC := tl1Moments(myA, tw.rel, n), tl1Moments(myC, tw.rel, n)
	exA, exC := tl1Of(x, tw, tmxA, tmxC)
	eyA, eyC := exA, exC
	if y != x {
		eyA, eyC = tl1Of(y, tw, tmyA, tmyC)
	}

	// Atoms: the largest entries, when they carry much of the 2-norm, are
	// convolved directly (positive terms: relative rounding error only) and
	// only the rest by FFT, whose absolute error scales with the norms of
	// the rest (atoms in one bucket make that error large; see sparse.go).
	sx := atomsOf(x)
	sy := sx
	if y != x {
		sy = atomsOf(y)
	}
	fx, fy := x, y
	if len(sx.idx) > 0 {
		fx = x.without(sx)
	}
	if y == x {
		fy = fx
	} else if len(sy.idx) > 0 {
		fy = y.without(sy)
	}
	var direct directPart
	if len(sx.idx)+len(sy.idx) > 0 {
		direct = directConv(x, y, fx, sx, sy)
	}

	// Relative error of the outputs (Section "error model" in list.go).
	drel := 3*wrel + 2*unitRoundoff + gamma(len(sx.idx)+len(sy.idx)+4)
	relA := (x.relA + y.relA + x.relA*y.relA + drel) / (1 - drel)
	relC := (x.relC + y.relC + x.relC*y.relC + drel) / (1 - drel)
	z.relA, z.relC = relA, relC

	// Best bound so far per output offset, for each sequence.
	for k := range cp.bestBuf {
		if len(cp.bestBuf[k]) < 2*n {
			cp.bestBuf[k] = make([]float64, 2*n)
		}
	}
	bestA, bestC := cp.bestBuf[0][:2*n], cp.bestBuf[1][:2*n]
	for o := range bestA {
		bestA[o] = math.Inf(1)
		bestC[o] = math.Inf(1)
	}
	for m := range z.envA {
		z.envA[m] = math.Inf(1)
		z.envC[m] = math.Inf(1)
	}

	// chA, chC: the tilt each output entry took (noTilt: none bounds it),
	// for the FFT part of the total-error bound (list.l1A) below.
	for k := range cp.chosen {
		if len(cp.chosen[k]) < 2*n {
			cp.chosen[k] = make([]uint8, 2*n)
		}
	}
	chA, chC := cp.chosen[0][:2*n], cp.chosen[1][:2*n]
	for o := range chA {
		chA[o], chC[o] = noTilt, noTilt
	}
	var sumFA, sumFC float64
	tfA, tfC := make([]float64, K), make([]float64, K) // fftTL1
	fftNonzero := false

	haveRegular := x.lo <= x.hi && y.lo <= y.hi
	w0, w1 := 0, -1
	if haveRegular {
		w0 = max(0, x.lo+y.lo-(n-1))
		w1 = min(2*n-1, x.hi+y.hi-(n-1))
	}
	shift := n - 1 - x.lo - y.lo // output offset o <-> conv index o+shift
	if w0 <= w1 {
		lenX, lenY := x.hi-x.lo+1, y.hi-y.lo+1
		T := lenX - 1 + lenY - 1
		need := max(T-(w0+shift)+1, w1+shift+1, lenX, lenY)
		N := nextPow2(need)
		fp := cp.plan(N)
		// The tilts are independent: convolve them on all cores, then
		// merge in tilt order (the same results as one after the other).
		outs := make([]tiltOut, K)
		for len(cp.tiltBufs) < K {
			cp.tiltBufs = append(cp.tiltBufs, [2][]float64{})
		}
		for m := range outs { // reused output buffers
			for k := range cp.tiltBufs[m] {
				if cap(cp.tiltBufs[m][k]) < w1-w0+1 {
					cp.tiltBufs[m][k] = make([]float64, 2*n)
				}
			}
			outs[m].va, outs[m].vc = cp.tiltBufs[m][0][:w1-w0+1], cp.tiltBufs[m][1][:w1-w0+1]
		}
		workers := max(1, min(K, cp.workers))
		for len(cp.scratches) < workers {
			cp.scratches = append(cp.scratches, &convScratch{})
		}
		var wg sync.WaitGroup
		for wi := 0; wi < workers; wi++ {
			wg.Add(1)
			go func(s *convScratch, first int) {
				defer wg.Done()
				s.buffers(N)
				for m := first; m < K; m += workers {
					tiltConv(tiltJob{x: x, y: y, fx: fx, fy: fy, wm: w[m], invm: tw.inv[m], m: m,
						mxA: mxA[m], mxC: mxC[m], myA: myA[m], myC: myC[m], fp: fp, N: N,
						w0: w0, w1: w1, shift: shift, relA: relA, relC: relC, wrel: wrel, direct: direct}, s, &outs[m])
				}
			}(cp.scratches[wi], wi)
		}
		wg.Wait()
		// A second bound on the propagated part of each envelope, from the
		// operands' tilted total errors and tilted maxima (Young's
		// inequality with the 1- and the inf-norm, propTilted), kept where
		// it is smaller than the moment-based one of tiltConv.
		propTilted(cp, x, y, tw, exA, eyA, exC, eyC, outs)
		for m := 0; m < K; m++ {
			cp.ffts += outs[m].ffts
			z.envA[m], z.envC[m] = outs[m].envA, outs[m].envC
		}
		// Per output entry, the tilt with the smallest bound (the first
		// of equal ones), in one pass over the entries (tilt order within
		// each entry; the entries are independent, so on all cores).
		parallelRange(w1-w0+1, cp.workers, func(i0, i1 int) {
			for o := w0 + i0; o < w0+i1; o++ {
				bestA0, bestC0 := bestA[o], bestC[o]
				mA, mC := -1, -1
				for m := 0; m < K; m++ {
					inv := tw.inv[m][o]
					if bA := outs[m].envA * inv * (1 + wrel); bA < bestA0 {
						bestA0, mA = bA, m
					}
					if bC := outs[m].envC * inv * (1 + wrel); bC < bestC0 {
						bestC0, mC = bC, m
					}
				}
				if mA >= 0 {
					bestA[o], chA[o] = bestA0, uint8(mA)
					z.a[o] = math.Max(0, outs[mA].va[o-w0])
				}
				if mC >= 0 {
					bestC[o], chC[o] = bestC0, uint8(mC)
					z.c[o] = math.Max(0, outs[mC].vc[o-w0])
				}
			}
		})
		for m := range outs {
			if !(outs[m].fftA <= 0 && outs[m].fftC <= 0) {
				fftNonzero = true
			}
		}
		sumFA = fftL1(chA, outs, tw, w0, w1, true)
		sumFC = fftL1(chC, outs, tw, w0, w1, false)
		if len(cp.tl1Acc) < K*K {
			cp.tl1Acc = make([]float64, K*K)
		}
		tfA = fftTL1(chA, outs, tw, x.tau, n, x.lambda, w0, w1, true, cp.tl1Acc)
		tfC = fftTL1(chC, outs, tw, x.tau, n, x.lambda, w0, w1, false, cp.tl1Acc)
	} else {
		for m := 0; m < K; m++ {
			wm := w[m]
			z.envA[m] = propagate(x.relA, y.relA, x.envA[m], y.envA[m], x.moment(wm, true), y.moment(wm, true), n)
			z.envC[m] = propagate(x.relC, y.relC, x.envC[m], y.envC[m], x.moment(wm, false), y.moment(wm, false), n)
		}
	}
	// The tilted total-error bounds of the outputs (tl1.go; they do not
	// depend on the zeroing below, which they leave to tl1ZA) also bound
	// every single entry: |err_o| e^(tau_m L_o) <= tl1A[m]. The pointwise
	// envelopes grow about 4x per level (2x per composition, 2x per
	// squaring) while the totals grow 2x per composition only, so after
	// many levels the totals are far below them: without this cap the
	// envelopes of DP-SGD at r = 2^25 exceeded the bulk's values, which
	// were then zeroed as noise and delta_up became trivial. Capping keeps the model |err_o| <= rel v_o +
	// min_m env_m e^(-tau_m L_o) + abs valid: each term of the min bounds
	// the chosen value's error on its own.
	gz := (1 + gamma(2*n+2)) * (1 + wrel) * (1 + 4*unitRoundoff)
	z.tl1A, z.tl1C = make([]float64, K), make([]float64, K)
	for k := 0; k < K; k++ {
		absT := absTilted(newAbs0(x, y, sx, sy, fftNonzero), n, x.lambda, x.tau[k])
		z.tl1A[k] = tl1Compose(exA[k], eyA[k], tmxA[k], tmyA[k], drel, tfA[k], 0, absT, n)
		z.tl1C[k] = tl1Compose(exC[k], eyC[k], tmxC[k], tmyC[k], drel, tfC[k], 0, absT, n)
	}
	if w0 <= w1 {
		capEnvelopes(z, bestA, bestC, tw, w0, w1, cp.workers)
	}
	// Entries far below their error bound are rounding noise; they would
	// pile up in the corners and trigger needless squarings. Set them to 0:
	// the true mass there is at most v + rel*v + env <= (1 + 1/32) env for
	// v <= env/64; the envelopes grow by the zeroed values (below).
	zeroed := false
	var zeroA, zeroC float64 // mass set to 0
	// and tilted (list.tl1ZA): the zeroed values are kept in scratch and
	// summed with each tilt's weights afterwards (dense products over the
	// zeroed range, cheaper than K products per zeroed entry in the loop)
	tzA, tzC := make([]float64, K), make([]float64, K)
	for k := range cp.zeroBuf {
		if len(cp.zeroBuf[k]) < 2*n {
			cp.zeroBuf[k] = make([]float64, 2*n)
		}
	}
	zvA, zvC := cp.zeroBuf[0][:2*n], cp.zeroBuf[1][:2*n]
	z0, z1 := w1+1, w0-1
	for o := w0; o <= w1; o++ {
		zvA[o], zvC[o] = 0, 0
		if v := z.a[o]; v > 0 && v*noiseRatio <= bestA[o] {
			zeroA += v
			zvA[o] = v
			z0, z1 = min(z0, o), o
			z.a[o], zeroed = 0, true
		}
		if v := z.c[o]; v > 0 && v*noiseRatio <= bestC[o] {
			zeroC += v
			zvC[o] = v
			z0, z1 = min(z0, o), o
			z.c[o], zeroed = 0, true
		}
	}
	// a zeroed entry's true mass differs from its new value 0 by at most
	// its value (1 + rel) plus its error bound before, so every envelope
	// grows by the largest zeroed value in its tilted measure (not by
	// 1/32 of itself, as the comment above allows; an enlargement written
	// 1 + 2/noiseRatio, the untyped integer 0, would not be applied at all;
	// TestZeroedEntryBound, TestPropTiltedPointwise)
	vmA, vmC := make([]float64, K), make([]float64, K)
	if zeroed {
		for k := 0; k < K; k++ {
			wk := w[k][z0 : z1+1]
			va, vc := zvA[z0:z1+1], zvC[z0:z1+1]
			var sa, sc, ma, mc float64
			for i, x := range wk {
				pa, pc := va[i]*x, vc[i]*x
				sa += pa
				sc += pc
				if pa > ma {
					ma = pa
				}
				if pc > mc {
					mc = pc
				}
			}
			tzA[k], tzC[k] = sa, sc
			vmA[k], vmC[k] = ma, mc
		}
		g := (1 + wrel) * (1 + 4*unitRoundoff)
		for m := range z.envA {
			if ma := vmA[m]; ma > 0 {
				z.envA[m] = upInf((z.envA[m] + (ma*(1+z.relA)*g + 0x1p-1074)) * (1 + 2*unitRoundoff))
			}
			if mc := vmC[m]; mc > 0 {
				z.envC[m] = upInf((z.envC[m] + (mc*(1+z.relC)*g + 0x1p-1074)) * (1 + 2*unitRoundoff))
			}
		}
	}
	z.lo, z.hi = w0, w1
	z.trim()
	xa, xc := x.regularMass()
	ya, yc := xa, xc
	if y != x {
		ya, yc = y.regularMass()
	}
	// Underflow allowance (list.abs). With x_true = x + dx, |dx| <= (the
	// rel and envelope model) + x.abs, the output error is dx*y_true +
	// x*dy: the allowances contribute x.abs (the true regular mass of y is
	// at most 1) and y.abs (1+rel) |x|_1 (the rel part of dx times y.abs
	// included); the envelope parts times the other's allowance are in the
	// moments (list.moment). New: products of the direct part below 2^-1022
	// (possible only when the smallest positive entries multiply below it;
	// at most 96 products per entry) and the untilting products of a
	// non-zero FFT part.
	newAbs := newAbs0(x, y, sx, sy, fftNonzero)
	if x.abs > 0 || y.abs > 0 || newAbs > 0 {
		rx := math.Max(x.relA, x.relC)
		z.abs = (x.abs + y.abs*(1+rx)*math.Max(xa, xc) + newAbs) * (1 + 4*unitRoundoff)
	}
	z.l1A = l1Compose(x.l1A, y.l1A, xa, ya, drel, sumFA, zeroA, n) + float64(2*n)*newAbs
	z.l1C = l1Compose(x.l1C, y.l1C, xc, yc, drel, sumFC, zeroC, n) + float64(2*n)*newAbs
	// (z.tl1A and z.tl1C, the same in the tilted measure of every tilt,
	// were formed above.) The zeroed entries are kept apart (list.tl1ZA):
	// tilted and untilted sums of their values, rounded up (products
	// below 2^-1022 lose 2^-1074 each).
	z.tl1ZA, z.tl1ZC = make([]float64, K), make([]float64, K)
	uf := float64(2*n) * 0x1p-1074
	for k := 0; k < K; k++ {
		z.tl1ZA[k], z.tl1ZC[k] = upInf(tzA[k]*gz+uf), upInf(tzC[k]*gz+uf)
	}
	z.zA = zeroA*(1+gamma(2*n+2)) + uf
	z.zC = zeroC*(1+gamma(2*n+2)) + uf

	if cs == nil {
		c := cp.corners(x, y)
		cs = &c
	}
	cs.apply(z)
	return z
}

// propTilted lowers the envelopes of outs to a second bound where it is
// smaller. With x_true = x + dx, y_true = y + dy and the tilted weights
// w_m(o) = e^(tau_m L(o)) (indices add, so w_m(j+k) = w_m(j) w_m(k)),
//
//	|x_true*y_true - x*y|(o) w_m(o) <= |dx*y_true|(o) w_m(o) + |x*dy|(o) w_m(o)
//	                               <= TX_m (Ymax_m + TY_m) + Xmax_m TY_m,
//
// where TX_m >= sum_j |dx_j| w_m(j) is x's tilted total-error bound (tl1Of,
// zeroed parts folded in), Xmax_m = max_j x_j w_m(j) and |dy_k| w_m(k) <=
// TY_m (Young's inequality with the 1-norm of one factor and the inf-norm
// of the other). The moment-based bound of tiltConv (propagate) multiplies
// pointwise envelopes by tilted 1-norms instead, and after many levels
// its envelopes grow about 4x per level (2x per composition, 2x per
// squaring) while the values per bucket of a large list are small: DP-SGD
// at r = 2^25 with 10^6 buckets had its whole bulk zeroed as noise. The FFT's own rounding (fftA) is added unchanged.
func propTilted(cp *composer, x, y *list, tw *tiltWeights, exA, eyA, exC, eyC []float64, outs []tiltOut) {
	K := len(outs)
	xmA, xmC := make([]float64, K), make([]float64, K)
	ymA, ymC := xmA, xmC
	tiltedMax(x, tw, xmA, xmC)
	if y != x {
		ymA, ymC = make([]float64, K), make([]float64, K)
		tiltedMax(y, tw, ymA, ymC)
	}
	g := 1 + 8*unitRoundoff
	for m := range outs {
		pa := upInf((mulUp(exA[m], ymA[m]+eyA[m]) + mulUp(xmA[m], eyA[m])) * g)
		pc := upInf((mulUp(exC[m], ymC[m]+eyC[m]) + mulUp(xmC[m], eyC[m])) * g)
		// only where tiltConv's bound is finite: an infinite one marks a
		// tilt whose weighted sequences left float64 (its values must not
		// be chosen)
		if e := upInf((outs[m].fftA + pa) * g); e < outs[m].envA && !math.IsInf(outs[m].envA, 1) {
			outs[m].envA = e
		}
		if e := upInf((outs[m].fftC + pc) * g); e < outs[m].envC && !math.IsInf(outs[m].envC, 1) {
			outs[m].envC = e
		}
	}
}

// tiltedMax sets mA[m] and mC[m] to upper bounds on max_o l.a[o] w_m(o)
// and max_o l.c[o] w_m(o) over l's regular entries (the weights' rounding
// included; 2^-1074 for products that may underflow).
func tiltedMax(l *list, tw *tiltWeights, mA, mC []float64) {
	for m := range mA {
		var a, c float64
		if l.lo <= l.hi {
			w := tw.w[m][l.lo : l.hi+1]
			va, vc := l.a[l.lo:l.hi+1], l.c[l.lo:l.hi+1]
			for i, x := range w {
				// (the weights are normal and the values finite: no NaN)
				if p := va[i] * x; p > a {
					a = p
				}
				if p := vc[i] * x; p > c {
					c = p
				}
			}
		}
		mA[m] = upInf(a*(1+tw.rel)*(1+2*unitRoundoff) + 0x1p-1074)
		mC[m] = upInf(c*(1+tw.rel)*(1+2*unitRoundoff) + 0x1p-1074)
	}
}

// newAbs0 is the underflow allowance a composition adds (see compose):
// products of the direct part below 2^-1022 and the untilting products of
// a non-zero FFT part.
func newAbs0(x, y *list, sx, sy atomSet, fftNonzero bool) float64 {
	a := 0.0
	if len(sx.idx)+len(sy.idx) > 0 && !(x.minPositive()*y.minPositive() >= minNormal) {
		a += tinyMass
	}
	if fftNonzero {
		a += 0x1p-1070
	}
	return a
}

// capEnvelopes lowers the envelopes of z to its tilted total-error bounds
// where those are smaller (env_m = min(env_m, tl1A[m]); likewise C) and,
// if any was lowered, the best bound per entry of [w0, w1] to the new
// min over the tilts (bestA, bestC as in compose: env_m inv_m[o] (1 +
// wrel)). Sound because tl1A[m] >= sum_o |err_o| e^(tau_m L_o) >= |err_o|
// e^(tau_m L_o) for every entry o (the error of the value compose chose,
// whichever tilt it came from).
func capEnvelopes(z *list, bestA, bestC []float64, tw *tiltWeights, w0, w1, workers int) {
	lowA, lowC := false, false
	for m := range z.envA {
		if t := z.tl1A[m]; t < z.envA[m] {
			z.envA[m], lowA = t, true
		}
		if t := z.tl1C[m]; t < z.envC[m] {
			z.envC[m], lowC = t, true
		}
	}
	if !lowA && !lowC {
		return
	}
	parallelRange(w1-w0+1, workers, func(i0, i1 int) {
		for o := w0 + i0; o < w0+i1; o++ {
			for m := range z.envA {
				inv := tw.inv[m][o] * (1 + tw.rel)
				if lowA {
					bestA[o] = math.Min(bestA[o], z.envA[m]*inv)
				}
				if lowC {
					bestC[o] = math.Min(bestC[o], z.envC[m]*inv)
				}
			}
		}
	})
}

// noTilt marks an output entry that no tilt bounds.
const noTilt = 255

// fftL1 bounds the sum over the window [w0, w1] of the FFT rounding errors
// of the entries, each taken from the tilt ch[o]. convErrBound bounds the
// 2-norm of a tilted convolution's whole error vector e_m (out.fftA, and
// uses it per entry), and an entry taken from tilt m has error
// |e_m[o]| inv_m[o] after untilting, so by Cauchy-Schwarz the sum over the
// entries S_m that took tilt m is at most fftA_m sqrt(sum_{S_m} inv_m^2):
// about sqrt(|S_m|) times one entry's bound instead of |S_m| times.
func fftL1(ch []uint8, outs []tiltOut, tw *tiltWeights, w0, w1 int, aSide bool) float64 {
	acc := make([]float64, len(outs))
	for o := w0; o <= w1; o++ {
		m := ch[o]
		if m == noTilt {
			return math.Inf(1)
		}
		v := tw.inv[m][o]
		acc[m] += v * v
	}
	s := 0.0
	for m, a := range acc {
		if a == 0 {
			continue
		}
		f := outs[m].fftA
		if !aSide {
			f = outs[m].fftC
		}
		s += f * math.Sqrt(a*(1+gamma(w1-w0+2))) * (1 + tw.rel) * (1 + 4*unitRoundoff)
	}
	return s * (1 + gamma(len(outs)+2))
}

// l1Compose returns the total-error bound (list.l1A) of one side of x × y:
// with dx = x_true - x (sum |dx| <= ex) and likewise dy, the true
// composition differs from the exact convolution of the computed inputs by
// dx*y_true + x*dy, whose sum over all outputs is at most
// ex (|y|_1 + ey) + |x|_1 ey (Young's inequality; the regular window and
// the corners only take part of it). The computed values differ from that
// convolution by the relative rounding drel (of at most |x|_1 |y|_1 in
// total), by the FFT rounding of the tilt each entry took (sumF, fftL1),
// and by the entries zeroed as noise (zeroed); clamping at 0
// only brings values closer to the non-negative truth.
// mx and my are upper bounds on the operands' regular masses of this side
// (list.regularMass). tl1Compose (tl1.go) is the same bound in the tilted
// measure of each tilt.
func l1Compose(ex, ey, mx, my, drel, sumF, zeroed float64, n int) float64 {
	v := ex*(my+ey) + mx*ey + drel*mx*my/(1-drel) + sumF + zeroed
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v * (1 + gamma(2*n+16)) * (1 + 1e-12)
}

// tiltJob is the input of one tilted convolution of a composition.
type tiltJob struct {
	x, y, fx, fy     *list     // operands and their parts without atoms
	wm, invm         []float64 // tilt weights of tilt m and their inverses
	m                int
	mxA, mxC         float64 // moments of x and y for tilt m (composer.moments)
	myA, myC         float64
	fp               *fft.Plan
	N                int
	w0, w1, shift    int
	relA, relC, wrel float64
	direct           directPart
}

// tiltOut is its result: the envelope coefficients of tilt m and the
// untilted values (direct part included, before clamping at 0) on [w0, w1].
type tiltOut struct {
	envA, envC float64
	fftA, fftC float64 // the part of envA, envC from this FFT's rounding
	va, vc     []float64
	ffts       int
}

// tiltConv convolves the tilted operands of j with scratch s into out,
// whose va and vc have length w1-w0+1.
func tiltConv(j tiltJob, s *convScratch, out *tiltOut) {
	x, y, n := j.x, j.y, j.x.n
	nx, _, _ := fill(s.reX, s.imX, j.fx, j.wm)
	ny := nx
	if y != x {
		ny, _, _ = fill(s.reY, s.imY, j.fy, j.wm)
	}
	// Moments of the whole inputs, for the propagated errors.
	mxA, mxC, myA, myC := j.mxA, j.mxC, j.myA, j.myC
	// Balance the B-sequence against the A-sequence (exact scaling).
	sC := pow2Balance(math.Sqrt(nx.l2a), math.Sqrt(nx.l2c))
	scaleIm(s.imX, &nx, sC)
	if y != x {
		scaleIm(s.imY, &ny, sC)
	} else {
		ny = nx
	}
	finishNorms(&nx)
	finishNorms(&ny)
	out.ffts = 2
	j.fp.ForwardBitReversed(s.reX, s.imX)
	if y != x {
		j.fp.ForwardBitReversed(s.reY, s.imY)
		out.ffts++
	}
	spectralProduct(s, j.N, y == x)
	j.fp.InverseBitReversed(s.reX, s.imX)
	epsFFT := convErrBound(j.fp.Kappa(), j.N, nx, ny) // per entry, tilted+scaled domain
	if nx.l1a+nx.l1c > 0 && ny.l1a+ny.l1c > 0 {
		// Underflow (Higham's bound assumes none): inputs and the
		// transforms' intermediate results below 2^-1022 are off by up to
		// 2^-1075 each; through the convolution that is at most
		// N 2^-1075 times the other input's 1-norm per input entry, and
		// N log2(N) operations carried with growth at most N.
		epsFFT += 0x1p-1070 * float64(j.N) * (64 + nx.l1a + nx.l1c + ny.l1a + ny.l1c)
	}
	invN := 1 / float64(j.N)
	sC2 := 1 / (sC * sC)
	// Envelope coefficients for this tilt.
	out.fftA = (1 + j.relA) * (1 + j.wrel) * epsFFT
	out.fftC = (1 + j.relC) * (1 + j.wrel) * epsFFT * sC2
	out.envA = (1+j.relA)*(1+j.wrel)*epsFFT + propagate(x.relA, y.relA, x.envA[j.m], y.envA[j.m], mxA, myA, n)
	out.envC = (1+j.relC)*(1+j.wrel)*epsFFT*sC2 + propagate(x.relC, y.relC, x.envC[j.m], y.envC[j.m], mxC, myC, n)
	for o := j.w0; o <= j.w1; o++ {
		t := o + j.shift
		inv := j.invm[o]
		out.va[o-j.w0] = s.reX[t]*invN*inv + j.direct.at(j.direct.a, o)
		out.vc[o-j.w0] = s.imX[t]*invN*inv*sC2 + j.direct.at(j.direct.c, o)
	}
}

// noiseRatio: entries below 1/noiseRatio of their error bound are zeroed.
const noiseRatio = 64

// propagate returns the envelope coefficient contributed by the input errors:
// (1+rx) ey Mx + (1+ry) ex My + 2n ex ey (see list.go), rounded up also
// through underflow (2^-1070 when an input envelope is non-zero). An
// infinite envelope times a zero moment stays 0 (the moment is an upper
// bound of a sum of non-negative terms: zero means no mass to carry it).
func propagate(rx, ry, ex, ey, mx, my float64, n int) float64 {
	g := 1 + gamma(2*n+2)
	v := g * ((1+rx)*mulNN(ey, mx) + (1+ry)*mulNN(ex, my) + float64(2*n)*mulNN(ex, ey))
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	if ex > 0 || ey > 0 {
		v += 0x1p-1070
	}
	return v
}

// moment returns an upper bound on sum_o v[o] w[o] over the support of l
// (rounded up through underflow), plus abs times the sum of all weights:
// the moment of the largest values the underflow allowance admits.
func (l *list) moment(w []float64, aSide bool) float64 {
	out := [1]float64{}
	l.momentsInto([][]float64{w}, aSide, out[:])
	return out[0]
}

// momentsInto sets out[m] to l.moment(ws[m], aSide) for every m. The sums
// of up to four weights run in one pass over the values (each its own
// accumulator in offset order: the same value as a pass of its own, with
// the additions of different sums overlapping).
func (l *list) momentsInto(ws [][]float64, aSide bool, out []float64) {
	v := l.c
	if aSide {
		v = l.a
	}
	lo, hi := l.lo, l.hi
	for m0 := 0; m0 < len(ws); m0 += 4 {
		g := min(4, len(ws)-m0)
		// a group of fewer than four repeats its first weights
		var w [4][]float64
		for j := range w {
			w[j] = ws[m0]
			if j < g {
				w[j] = ws[m0+j]
			}
		}
		var s [4]float64
		if lo <= hi {
			s = dot4(v[lo:hi+1], w[0][lo:hi+1], w[1][lo:hi+1], w[2][lo:hi+1], w[3][lo:hi+1])
		}
		copy(out[m0:m0+g], s[:g])
	}
	for m, w := range ws {
		if lo <= hi {
			// products below 2^-1022 lose up to 2^-1075 each
			out[m] += float64(hi-lo+1) * 0x1p-1074
		}
		if l.abs > 0 {
			// the underflow allowance of every offset (list.abs), so that
			// envelopes times the other operand's allowance are covered
			sw := 0.0
			for _, x := range w {
				sw += x
			}
			out[m] += l.abs * sw * (1 + gamma(len(w)+2))
		}
	}
}

// dot4 returns the four sums sum_o v[o] w_j[o], each accumulated in offset
// order (the w_j at least as long as v).
func dot4(v, w0, w1, w2, w3 []float64) (s [4]float64) {
	w0, w1, w2, w3 = w0[:len(v)], w1[:len(v)], w2[:len(v)], w3[:len(v)]
	var s0, s1, s2, s3 float64
	for o, x := range v {
		s0 += x * w0[o]
		s1 += x * w1[o]
		s2 += x * w2[o]
		s3 += x * w3[o]
	}
	return [4]float64{s0, s1, s2, s3}
}

// errBounds returns the per-offset error bounds of x and y (tilt weights
// twx and twy of their tilts) in the composer's scratch buffers, valid
// until the next call.
func (cp *composer) errBounds(x, y *list, twx, twy *tiltWeights) (ex, ecx, ey, ecy []float64) {
	for k := range cp.errBuf {
		if len(cp.errBuf[k]) < 2*x.n {
			cp.errBuf[k] = make([]float64, 2*x.n)
		}
	}
	ex, ecx = x.errBoundsInto(twx, cp.errBuf[0], cp.errBuf[1])
	ey, ecy = ex, ecx
	if y != x {
		ey, ecy = y.errBoundsInto(twy, cp.errBuf[2], cp.errBuf[3])
	}
	return ex, ecx, ey, ecy
}

// errBoundsW returns the per-offset error bounds of a and c using the
// tilt weights tw of l's tilts, in new slices.
func (l *list) errBoundsW(tw *tiltWeights) (ea, ec []float64) {
	return l.errBoundsInto(tw, make([]float64, 2*l.n), make([]float64, 2*l.n))
}

// errBoundsInto is errBoundsW writing into ea and ec (length 2n).
//
// The envelope term min_m env[m] exp(-tau_m L(o)) is, in log space, the
// lower envelope of K lines in o, so the minimising tilt is constant
// between the crossings of the lines (at most K(K-1)/2 of them): each
// stretch takes the tilt that is smallest in its middle, and every
// entry costs one product instead of K. Any tilt gives a valid bound, so a
// rounding-level misjudgement near a crossing only picks a nearly equal one.
func (l *list) errBoundsInto(tw *tiltWeights, ea, ec []float64) ([]float64, []float64) {
	n2 := 2 * l.n
	ea, ec = ea[:n2], ec[:n2]
	// the two sides are independent: at once, each entry as one after the
	// other would compute it
	concurrently(func() {
		l.errBoundsSide(tw, ea, l.envA, l.a[:n2], l.relA)
	}, func() {
		l.errBoundsSide(tw, ec, l.envC, l.c[:n2], l.relC)
	})
	return ea, ec
}

// errBoundsSide fills e with the per-offset error bounds of one side of l
// (values v, envelopes env, relative error rel; see errBoundsInto).
func (l *list) errBoundsSide(tw *tiltWeights, e, env, v []float64, rel float64) {
	fillEnvBounds(e, env, l.tau, tw.inv, l.n, l.lambda)
	// the inverse weights' own relative error, and the products' rounding
	slack := (1 + 1e-12) * (1 + 2*tw.rel)
	r := rel * (1 + 2*unitRoundoff)
	// The underflow allowance of the entries (list.abs) and, when an
	// envelope is non-zero, of the products env*inv, which round to 0 or a
	// subnormal below 2^-1022 (a few units of 2^-1074 each).
	abs := l.abs
	if anyPositive(env) {
		abs += 0x1p-1070
	}
	for o := range e {
		e[o] = e[o]*slack + r*v[o] + abs
	}
}

// anyPositive reports whether some entry of v is > 0 (or NaN).
func anyPositive(v []float64) bool {
	for _, x := range v {
		if !(x <= 0) {
			return true
		}
	}
	return false
}

// fillEnvBounds sets e[o] = env[m] inv[m][o] for the tilt m minimising it
// (see errBoundsInto).
func fillEnvBounds(e, env, tau []float64, inv [][]float64, n int, lambda float64) {
	K := len(env)
	// ln of each term: lnEnv[m] - tau_m L(o), L(o) = (o - n + 1) lambda.
	lnEnv := make([]float64, K)
	for m, v := range env {
		lnEnv[m] = ln(v) // -Inf for 0, +Inf for +Inf
	}
	at := func(m int, o float64) float64 { return lnEnv[m] - tau[m]*(o-float64(n)+1)*lambda }
	// Breakpoints: offsets where two finite lines cross.
	cuts := []int{0, len(e)}
	for p := 0; p < K; p++ {
		for q := p + 1; q < K; q++ {
			if math.IsInf(lnEnv[p], 0) || math.IsInf(lnEnv[q], 0) || tau[p] == tau[q] {
				continue
			}
			// lnEnv[p] - tau_p L = lnEnv[q] - tau_q L
			L := (lnEnv[p] - lnEnv[q]) / ((tau[p] - tau[q]) * lambda)
			c := math.Ceil(L + float64(n) - 1)
			if c > 0 && c < float64(len(e)) {
				cuts = append(cuts, int(c))
			}
		}
	}
	slices.Sort(cuts)
	for s := 0; s+1 < len(cuts); s++ {
		o0, o1 := cuts[s], cuts[s+1]
		if o0 == o1 {
			continue
		}
		// the tilt smallest in the middle of the stretch (its ends may be
		// ties; any tilt is valid, the middle one is the tightest)
		mid := float64(o0+o1-1) / 2
		best, bm := math.Inf(1), -1
		for m := 0; m < K; m++ {
			if v := at(m, mid); v < best || bm < 0 {
				best, bm = v, m
			}
		}
		h, iv := env[bm], inv[bm][o0:o1]
		seg := e[o0:o1]
		for k := range seg {
			seg[k] = h * iv[k]
		}
	}
}
