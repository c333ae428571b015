package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// countParams is a Vuvuzela pair's noise parameters.
type countParams struct{ mu, scale float64 }

// countCorners are parameters at the edges of the legal space: mu 0 and
// tiny (half the A-mass or more clamped at count 0), scales so small that
// nearly all mass sits on one count (mu 0.3, scale 0.005 broke the Laplace
// sums' count-0 terms), scales where the clamp holds a mass between 1e-300
// and 1, and pairs where the Poisson-summation closed form applies.
var countCorners = []countParams{
	{0, 0.005}, {0, 0.3}, {0, 1}, {0, 4}, {1e-9, 0.002}, {1e-300, 1},
	{0.3, 0.005}, {0.3, 0.05}, {0.7, 0.02}, {0.5, 0.5}, {1, 0.001},
	{2, 3}, {3, 0.8}, {4, 1}, {5.5, 0.6}, {10, 0.25}, {12, 6},
	{40, 12}, {60, 14}, {200, 1.5},
	// the Poisson-summation closed form (scale >= 19.5) with the clamp's
	// share of the bulk large
	{0, 20},
	// scales far below the counts' spacing: tilted FFTs as steep as
	// 1e16 per count (their error bounds turned negative), tails at 1e300
	// standard units (relative error bounds +Inf)
	{5, 1e-12}, {2.5, 1e-8}, {3.5, 1e-300},
}

// randomCountParams draws n parameters over the legal space: mu 0, tiny or
// log-uniform up to 200; scale log-uniform from 1e-3 to 30, with
// mu + 43 scale <= 150 (the reference's cost).
func randomCountParams(rng *rand.Rand, n int) []countParams {
	var out []countParams
	for len(out) < n {
		var mu float64
		switch rng.IntN(6) {
		case 0:
			mu = 0
		case 1:
			mu = math.Exp(-30 * rng.Float64())
		default:
			mu = math.Exp(math.Log(200) * (2*rng.Float64() - 0.5))
		}
		scale := math.Exp(math.Log(1e-3) + math.Log(3e4)*rng.Float64())
		if mu+43*scale > 150 {
			continue
		}
		out = append(out, countParams{mu, scale})
	}
	return out
}

// encloses reports whether [lo, hi] meets [v-e, v+e] (both enclose the same
// true value, so they must meet).
func encloses(v, e, lo, hi float64) bool {
	return !(v+e < lo) && !(v-e > hi) && !math.IsNaN(v) && !math.IsNaN(e)
}

// checkGaussDialingEntries checks the dialing pair's events (every count's
// masses and their error bounds, as VuvuzelaDialing passes them) and its
// tails against the reference.
func checkGaussDialingEntries(c countParams, ref *refGaussPair) []string {
	var fails []string
	a, b := dialingCounts(NoiseGauss, c.mu, c.scale)
	rel := math.Max(a.rel, b.rel)
	lo, hi := min(a.lo, b.lo), max(a.hi(), b.hi())
	outA, outB := 0.0, 0.0 // reference mass of the counts outside lo..hi
	for k := range ref.aLo {
		if k < lo || k > hi {
			outA += ref.aLo[k]
			outB += ref.bLo[k]
		}
	}
	for k := lo; k <= hi; k++ {
		pa, pb := a.at(k), b.at(k)
		ea, eb := pa*rel+0x1p-1070, pb*rel+0x1p-1070
		if pa <= ea || pb <= eb {
			// the event goes whole to the unknown corner (countMech.embed),
			// with the masses outside the ranges (the tails) as upper ends
			if k < len(ref.aLo) && (ref.aLo[k] > pa+ea+(a.left+a.right)*(1+rel) || ref.bLo[k] > pb+eb+(b.left+b.right)*(1+rel)) {
				fails = append(fails, fmt.Sprintf("dialing %+v: count %d: A %.17g, B %.17g above the corner's upper ends", c, k, ref.aLo[k], ref.bLo[k]))
			}
			continue
		}
		if k >= len(ref.aLo) {
			if pa-ea > ref.restA || pb-eb > ref.restB {
				fails = append(fails, fmt.Sprintf("dialing %+v: count %d beyond the reference's tails", c, k))
			}
			continue
		}
		if !encloses(pa, ea, ref.aLo[k], ref.aHi[k]) || !encloses(pb, eb, ref.bLo[k], ref.bHi[k]) {
			fails = append(fails, fmt.Sprintf("dialing %+v: count %d: A %.17g +- %.3g, B %.17g +- %.3g; exact A [%.17g, %.17g], B [%.17g, %.17g]",
				c, k, pa, ea, pb, eb, ref.aLo[k], ref.aHi[k], ref.bLo[k], ref.bHi[k]))
		}
	}
	if (a.left+a.right)*(1+rel) < outA || (b.left+b.right)*(1+rel) < outB {
		fails = append(fails, fmt.Sprintf("dialing %+v: tails %.3g, %.3g below the exact %.3g, %.3g", c, a.left+a.right, b.left+b.right, outA, outB))
	}
	return fails
}

// checkGaussConversationEntries checks every entry of the conversation
// pair's sum (conversationSum, as VuvuzelaConversation embeds it: resolved
// entries by their value and error bound, the others by their enclosures)
// and its rest against the reference.
func checkGaussConversationEntries(c countParams, ref *refGaussPair) []string {
	var fails []string
	s, target, err := conversationSum(context.Background(), NoiseGauss, c.mu, c.scale)
	if err != nil {
		return []string{err.Error()}
	}
	hi := s.lo + len(s.a) - 1
	outA, outB := 0.0, 0.0
	for k := range ref.aLo {
		if k < s.lo || k > hi {
			outA += ref.aLo[k]
			outB += ref.bLo[k]
		}
	}
	if s.restA < outA || s.restB < outB {
		fails = append(fails, fmt.Sprintf("conversation %+v: rest %.3g, %.3g below the exact mass outside the sums, %.3g, %.3g", c, s.restA, s.restB, outA, outB))
	}
	for k := range s.a {
		n := s.lo + k
		if n >= len(ref.aLo) {
			if s.lbA[k] > ref.restA || s.lbB[k] > ref.restB {
				fails = append(fails, fmt.Sprintf("conversation %+v: sum %d beyond the reference's tails", c, n))
			}
			continue
		}
		var okA, okB bool
		what := "resolved"
		if s.rel[k] <= target {
			okA = encloses(s.a[k], s.ea[k], ref.aLo[n], ref.aHi[n])
			okB = encloses(s.b[k], s.eb[k], ref.bLo[n], ref.bHi[n])
		} else {
			what = "unresolved"
			okA = !(s.lbA[k] > ref.aHi[n]) && !(s.ubA[k] < ref.aLo[n])
			okB = !(s.lbB[k] > ref.bHi[n]) && !(s.ubB[k] < ref.bLo[n])
		}
		if !okA || !okB {
			fails = append(fails, fmt.Sprintf("conversation %+v: sum %d (%s, rel %.3g, target %.3g): A %.17g +- %.3g [%.17g, %.17g], B %.17g +- %.3g [%.17g, %.17g]; exact A [%.17g, %.17g], B [%.17g, %.17g]",
				c, n, what, s.rel[k], target, s.a[k], s.ea[k], s.lbA[k], s.ubA[k], s.b[k], s.eb[k], s.lbB[k], s.ubB[k], ref.aLo[n], ref.aHi[n], ref.bLo[n], ref.bHi[n]))
		}
	}
	return fails
}

// TestGaussCountEntriesExact checks every mass the Gauss count pairs embed
// (dialing: each count; conversation: each entry of the sum, resolved or
// not, with the terms of a count 0, the clamp) against the big.Float
// reference, over the corners of the parameter space and seeded random
// parameters from mu 0 and tiny to 200 and scales from 1e-3 to 30: the
// engine's enclosure must meet the exact one for every entry, both sides,
// and the masses left outside must be within the rests.
func TestGaussCountEntriesExact(t *testing.T) {
	params := append([]countParams{}, countCorners...)
	n := 8
	if testing.Short() {
		n = 3
	}
	params = append(params, randomCountParams(rand.New(rand.NewPCG(11, 2026)), n)...)
	t.Parallel()
	for _, c := range params {
		t.Run(fmt.Sprintf("mu=%g/scale=%g", c.mu, c.scale), func(t *testing.T) {
			t.Parallel()
			dial, conv := refGaussPairsCached(c)
			fails := checkGaussDialingEntries(c, dial)
			fails = append(fails, checkGaussConversationEntries(c, conv)...)
			for i, f := range fails {
				if i == 5 {
					t.Errorf("%+v: %d more", c, len(fails)-5)
					break
				}
				t.Error(f)
			}
		})
	}
}

// fullRef returns the pair's reference with every entry an event (a lower
// end may be 0, a mass below 2^-1074).
func (p *refGaussPair) fullRef() *countRef {
	r := &countRef{restA: p.restA, restB: p.restB}
	for k := range p.aLo {
		r.aLo, r.aHi = append(r.aLo, p.aLo[k]), append(r.aHi, p.aHi[k])
		r.bLo, r.bHi = append(r.bLo, p.bLo[k]), append(r.bHi, p.bHi[k])
		l := ln(p.aHi[k]) - ln(p.bHi[k])
		r.lossHi, r.lossLo = math.Max(r.lossHi, l), math.Min(r.lossLo, l)
	}
	return r
}

// topEvents returns p with its n events of the largest masses (either
// side) kept and the others' upper ends moved to the rest (counted in full
// by the upper references), so that multiset enumeration stays small.
func topEvents(p *countRef, n int) *countRef {
	idx := make([]int, len(p.aLo))
	for k := range idx {
		idx[k] = k
	}
	size := func(k int) float64 { return math.Max(p.aHi[k], p.bHi[k]) }
	sort.SliceStable(idx, func(i, j int) bool { return size(idx[i]) > size(idx[j]) })
	r := &countRef{restA: p.restA, restB: p.restB}
	for i, k := range idx {
		if i >= n {
			r.restA += p.aHi[k]
			r.restB += p.bHi[k]
			continue
		}
		r.aLo, r.aHi = append(r.aLo, p.aLo[k]), append(r.aHi, p.aHi[k])
		r.bLo, r.bHi = append(r.bLo, p.bLo[k]), append(r.bHi, p.bHi[k])
		l := ln(p.aHi[k]) - ln(p.bHi[k])
		r.lossHi, r.lossLo = math.Max(r.lossHi, l), math.Min(r.lossLo, l)
	}
	return r
}

// TestCountPairsEnumeratedWholeSpace composes dialing and conversation
// pairs, Gauss and Laplace noise, over the corners of the parameter space
// and seeded random parameters (mu 0 and tiny to 200, scales 1e-3 to 30),
// r = 1..4, at the default options and at 4,000 buckets, and checks
// delta_up and delta_low in both directions against exact multiset
// enumeration of the r-fold products of references independent of the
// engine's count code (Gauss: refGaussPairs;
// Laplace: dialingLaplaceRef, conversationLaplaceRef), at eps from 0 to
// past both ends of the r-fold loss range: never NaN, the upper bound at
// least the exact's lower end, the lower bound at most its upper end.
func TestCountPairsEnumeratedWholeSpace(t *testing.T) {
	params := []countParams{{0, 0.005}, {0, 0.3}, {1e-9, 0.002}, {0.3, 0.005}, {0.7, 0.02}, {1, 0.001}, {2, 3}, {4, 1}, {10, 0.25}, {5, 1e-12}, {2.5, 1e-8}, {3.5, 1e-300}}
	n := 6
	if testing.Short() {
		n = 2
	}
	params = append(params, randomCountParams(rand.New(rand.NewPCG(5, 1024)), n)...)
	t.Parallel()
	for pi, c := range params {
		t.Run(fmt.Sprintf("mu=%g/scale=%g", c.mu, c.scale), func(t *testing.T) {
			t.Parallel()
			checkCountPairEnumerated(t, pi, c)
		})
	}
}

// checkCountPairEnumerated is TestCountPairsEnumeratedWholeSpace at one
// parameter pair (the pi-th: odd ones at 4,000 buckets).
func checkCountPairEnumerated(t *testing.T, pi int, c countParams) {
	gaussDial, gaussConv := refGaussPairsCached(c)
	for _, noise := range []Noise{NoiseGauss, NoiseLaplace} {
		for _, conv := range []bool{false, true} {
			if noise == NoiseLaplace && conv && c.mu+720*c.scale > 3000 {
				continue // the Laplace reference's direct convolution
			}
			var m Mechanism
			var err error
			var full *countRef
			switch {
			case noise == NoiseGauss && !conv:
				m, err = VuvuzelaDialing(noise, c.mu, c.scale)
				full = gaussDial.fullRef()
			case noise == NoiseGauss:
				m, err = VuvuzelaConversation(noise, c.mu, c.scale)
				full = gaussConv.fullRef()
			case !conv:
				m, err = VuvuzelaDialing(noise, c.mu, c.scale)
				full = dialingLaplaceRef(c.mu, c.scale)
			default:
				m, err = VuvuzelaConversation(noise, c.mu, c.scale)
				full = conversationLaplaceRef(c.mu, c.scale, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{}
			if pi%2 == 1 {
				opt.Buckets = 4000
			}
			for _, g := range []struct {
				rs []int
				n  int
			}{{[]int{1, 2}, 200}, {[]int{3, 4}, 24}} {
				ref := topEvents(full, g.n)
				refs := []*countRef{ref, ref}
				fails, _ := checkAgainstRef(m, g.rs, refs, opt, 0, 0, nil)
				for i, f := range fails {
					if i == 4 {
						t.Errorf("%s: %d more", m, len(fails)-4)
						break
					}
					t.Error(f)
				}
			}
		}
	}
}

// TestVuvuzelaScaleTooSmall: scales below 1e-300 are refused with a
// ParamError (the pair counts' scale/2 would underflow to 0).
func TestVuvuzelaScaleTooSmall(t *testing.T) {
	for _, f := range []func(Noise, float64, float64) (Mechanism, error){VuvuzelaDialing, VuvuzelaConversation} {
		for _, scale := range []float64{5e-324, 1e-301} {
			if _, err := f(NoiseGauss, 1, scale); !errors.As(err, new(*ParamError)) {
				t.Errorf("scale %g: error %v, want a ParamError", scale, err)
			}
		}
		if _, err := f(NoiseLaplace, 1, 1e-300); err != nil {
			t.Errorf("scale 1e-300: %v", err)
		}
	}
}
