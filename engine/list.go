package engine

import (
	"math"
)

// list is a privacy-bucket list with error-correction terms (Definition 7),
// kept for both directions at once.
//
// Regular buckets have indices i = -n+1..n and are stored at offset
// o = i+n-1 of a and c: a[o] is B(i), the A-mass of the atomic events with
// index i (Lemma 8), and c[o] is their B-mass, so that the virtual
// error-correction term is l~(i) = c[o] - a[o]/f^i (Definition 7, Lemma 11).
// Every event x with index i satisfies
//
//	f^(i-u) <= P_A(x)/P_B(x) <= f^i          (Lemma 6 and Lemma 12)
//
// with the real-valued counter u. The bucket -n of the paper (ratio at most
// f^-n) and the bucket infinity (ratio above f^n) are the corners lo and hi;
// unlike the paper's bucket -n, both corners absorb their events: an event
// that reached a corner stays there, and its A-mass and B-mass are added in
// full to delta_up of both directions. Distinguishing events (P_B = 0 or
// P_A = 0) are kept apart in distA and distB.
//
// Floating-point error is bounded rigorously: the true values satisfy
//
//	|a_true[o] - a[o]| <= relA*a[o] + min_m envA[m]*exp(-tau[m]*L(o))
//
// with L(o) = i*lambda the log-ratio of the bucket, and the same for c. The
// exponential envelopes come from FFT convolutions done on exponentially
// tilted sequences (see convolve.go).
type list struct {
	n      int
	lambda float64 // ln f
	u      float64

	a, c   []float64
	lo, hi int // first and last offset where a or c may be non-zero (lo > hi: none)

	relA, relC float64
	tau        []float64
	envA, envC []float64

	// l1A and l1C bound the total error over the regular buckets,
	//
	//	sum_o |a_true[o] - a[o]| <= l1A      (and likewise for c),
	//
	// next to the pointwise model: squaring adds errors without doubling
	// them and an FFT's error summed over N outputs is about sqrt(N) times
	// its pointwise bound, so this is far smaller than the sum of the
	// pointwise bounds after a long composition; delta uses it for the
	// buckets wholly on one side of eps (delta.go). +Inf when unknown.
	// They include the underflow allowance abs of every bucket.
	l1A, l1C float64

	// tl1A and tl1C bound the total error in the tilted measure of each
	// tilt tau[m] (tl1.go):
	//
	//	sum_o |a_true[o] - a[o]| exp(tau[m] L(o)) <= tl1A[m]
	//
	// (likewise for c), so that the error summed over the buckets beyond
	// L >= Ls is at most exp(-tau[m] Ls) tl1A[m] for tau[m] >= 0 (the
	// mirror below): tilted like the envelopes, summed like l1. nil (or a
	// length other than len(tau)) when unknown; +Inf entries are unknown
	// too. They include the underflow allowance abs of every bucket.
	//
	// The entries the most recent composition zeroed as noise are kept
	// apart: tl1A bounds the errors before that zeroing, and a zeroed entry
	// o adds its value v_o (true mass at most v_o + its error before), so
	// the whole tilted error is at most tl1A[m] + tl1ZA[m], tl1ZA[m] =
	// sum_zeroed v_o exp(tau[m] L(o)) (nil: 0), and over any set of offsets
	// the zeroed part adds at most zA = sum_zeroed v_o untilted: delta adds
	// zA instead of carrying the zeroed mass to the worst end of a tilt
	// (tl1Sum folds them for the next operation).
	tl1A, tl1C   []float64
	tl1ZA, tl1ZC []float64
	zA, zC       float64

	// abs is an absolute allowance for underflow, added to the error bound
	// of every regular entry of a and c on top of the model above: a mass
	// or product below the smallest normal float64 (2^-1022) loses its
	// relative accuracy (a true 1e-400 is stored as 0), which neither rel
	// nor the envelopes cover. It is 0 while no such value can have arisen
	// (histograms with normal masses, their products while they stay
	// normal) and of the order of 2^-1060 otherwise: invisible in delta
	// except through e^eps at eps near 700, where it keeps the lower bound
	// sound (see delta.go and tinyMass).
	abs float64

	hiA, hiC, loA, loC, distA, distB val

	// tailMA, tailMC bound ln M_A and ln M_B of the regular events at the
	// tilts tailTaus (grouped lists; nil when unknown): cornertail.go.
	tailMA, tailMC []float64
	tails          *tailCache // their tail bounds (cachedTailBounds)
	// raw are the corner values before the Chernoff caps when hasWatch
	// (rawCorners): the squaring rule watches them (cornerValue)
	raw      [6]float64
	hasWatch bool

	compositions, squarings int
	names                   []nameCount

	// variance is the variance of the privacy loss of the composed leaves
	// (the sum of the leaves' variances); it sets the tilts (plan.tilts).
	variance float64

	// grid marks a grid list (grid.go): a holds the A-masses of the upper
	// pair and c those of the lower pair (not B-masses); u is 0. Every atom
	// at offset o of the upper pair has privacy loss in [L(o) - wUp,
	// L(o) + wUp], of the lower pair in [L(o) - wLo, L(o) + wLo]. The
	// corners are the upper pair's; lowDistA and lowDistB are the lower
	// pair's distinguishing masses (it keeps no other corner).
	grid               bool
	wUp, wLo           float64
	lowDistA, lowDistB val

	// relErrIn is the relative error of the masses a leaf was built from
	// (leaves only; the grid leaf is built with it).
	relErrIn float64

	// spare holds work arrays of length 2n that the list's producer no
	// longer needs (the power path's transform and work arrays,
	// powerCompose): bounds takes them all (and sets spare to nil) for its
	// tilt weights, its error bounds and the grid table instead of
	// allocating, which saves the allocation and zeroing of up to 2K+1
	// arrays of 2n values per composed list (K tilts). nil for every other list; a
	// copy of the list must not keep them (retilt clears them).
	spare [][]float64
}

// arena hands out work arrays of one length: spare ones first (their
// contents are arbitrary: every user writes every entry before reading
// it), then new ones.
type arena struct {
	m    int
	free [][]float64
}

// get returns an array of length a.m with arbitrary contents.
func (a *arena) get() []float64 {
	if k := len(a.free); k > 0 {
		v := a.free[k-1]
		a.free = a.free[:k-1]
		return v[:a.m]
	}
	return make([]float64, a.m)
}

// put returns v (length a.m, no longer used) for reuse.
func (a *arena) put(v []float64) {
	if v != nil && cap(v) >= a.m {
		a.free = append(a.free, v)
	}
}

// nameCount records that a list composes count observations of a mechanism.
type nameCount struct {
	name  string
	count int
}

func mergeNames(x, y []nameCount) []nameCount {
	out := append([]nameCount(nil), x...)
	for _, nc := range y {
		found := false
		for i := range out {
			if out[i].name == nc.name {
				out[i].count += nc.count
				found = true
				break
			}
		}
		if !found {
			out = append(out, nc)
		}
	}
	return out
}

// val is a non-negative scalar with an absolute error bound: the true value
// lies in [v-e, v+e].
type val struct{ v, e float64 }

func (x val) upper() float64 { return x.v + x.e }
func (x val) lower() float64 { return math.Max(0, x.v-x.e) }

// add returns x+y with the rounding of the addition accounted for.
func (x val) add(y val) val {
	s := x.v + y.v
	return val{s, x.e + y.e + 2*unitRoundoff*math.Abs(s)}
}

// sub returns x-y (for masses known to be at least y).
func (x val) sub(y val) val {
	s := x.v - y.v
	return val{math.Max(s, 0), x.e + y.e + 2*unitRoundoff*math.Abs(s)}
}

// mul returns x*y with first- and second-order error terms and rounding
// (including underflow: a product below 2^-1022 may be off by 2^-1075).
// An exact zero times an infinite error bound is an exact zero.
func (x val) mul(y val) val {
	p := x.v * y.v
	e := (mulUp(math.Abs(x.v), y.e) + mulUp(math.Abs(y.v), x.e) + mulUp(x.e, y.e)) * (1 + 4*unitRoundoff)
	e += 2 * unitRoundoff * math.Abs(p)
	if p < minNormal && x.v != 0 && y.v != 0 {
		e += 0x1p-1074
	}
	return val{p, e}
}

func newList(n int, lambda float64, tau []float64) *list {
	return newListOn(n, lambda, tau, make([]float64, 2*n), make([]float64, 2*n))
}

// newListOn is newList on the arrays a and c (2n zeros each).
func newListOn(n int, lambda float64, tau []float64, a, c []float64) *list {
	return &list{
		n:      n,
		lambda: lambda,
		a:      a,
		c:      c,
		lo:     2 * n,
		hi:     -1,
		tau:    tau,
		envA:   make([]float64, len(tau)),
		envC:   make([]float64, len(tau)),
		l1A:    math.Inf(1),
		l1C:    math.Inf(1),
	}
}

// regularMass returns upper bounds on sum_o a[o] and sum_o c[o] over the
// support (rounding included).
func (l *list) regularMass() (sa, sc float64) {
	for o := l.lo; o <= l.hi; o++ {
		sa += l.a[o]
		sc += l.c[o]
	}
	g := 1 + gamma(2*l.n+2)
	return sa * g, sc * g
}

// regularMassSide returns regularMass's A-mass (aSide) or B-mass bound
// alone, computed the same way.
func (l *list) regularMassSide(aSide bool) float64 {
	v := l.c
	if aSide {
		v = l.a
	}
	s := 0.0
	for o := l.lo; o <= l.hi; o++ {
		s += v[o]
	}
	return s * (1 + gamma(2*l.n+2))
}

// index returns the bucket index of offset o.
func (l *list) index(o int) int { return o - l.n + 1 }

// loss returns L(o) = i*lambda, the log of the bucket factor f^i.
func (l *list) loss(o int) float64 { return float64(o-l.n+1) * l.lambda }

// trim shrinks [lo, hi] to the offsets where a or c is non-zero.
func (l *list) trim() {
	lo, hi := l.lo, l.hi
	if lo < 0 {
		lo = 0
	}
	if hi > 2*l.n-1 {
		hi = 2*l.n - 1
	}
	for lo <= hi && l.a[lo] == 0 && l.c[lo] == 0 {
		lo++
	}
	for hi >= lo && l.a[hi] == 0 && l.c[hi] == 0 {
		hi--
	}
	l.lo, l.hi = lo, hi
}

// regularSums returns the total regular A-mass and B-mass with error bounds.
func (l *list) regularSums(ea, ec []float64) (val, val) {
	var sa, sc, esa, esc float64
	for o := 0; o < 2*l.n; o++ {
		sa += l.a[o]
		sc += l.c[o]
		esa += ea[o]
		esc += ec[o]
	}
	g := gamma(2*l.n + 2)
	return val{sa, esa*(1+g) + g*sa}, val{sc, esc*(1+g) + g*sc}
}

// corners returns the corner masses as upper bounds.
func (l *list) corners() Corners {
	return Corners{
		InfinityA:       l.hiA.upper() + l.distA.upper(),
		DistinguishingA: l.distA.upper(),
		LowB:            l.loC.upper() + l.distB.upper(),
		DistinguishingB: l.distB.upper(),
		LowA:            l.loA.upper(),
		InfinityB:       l.hiC.upper(),
	}
}

// cornerValue is the computed corner mass (without error bounds), which the
// squaring heuristic watches.
func (l *list) cornerValue() float64 {
	if r := l.raw; l.hasWatch {
		return math.Max(r[0]+r[2]+r[1], r[4]+r[5]+r[3])
	}
	return math.Max(l.hiA.v+l.distA.v+l.loA.v, l.loC.v+l.distB.v+l.hiC.v)
}

// minPositive returns the smallest positive entry of a and c on [lo, hi]
// (+Inf when there is none): products of entries of two lists whose
// minPositive multiply to at least minNormal cannot underflow.
func (l *list) minPositive() float64 {
	m := math.Inf(1)
	for o := l.lo; o <= l.hi; o++ {
		if v := l.a[o]; v > 0 && v < m {
			m = v
		}
		if v := l.c[o]; v > 0 && v < m {
			m = v
		}
	}
	return m
}
