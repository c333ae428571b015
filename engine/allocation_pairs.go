package engine

import (
	"context"
	"math"
	"slices"
	"sync"
)

// # Random allocation: a dominating and a dominated pair for the grid lists
//
// The exact groups of allocation.go have hulls whose widths add up over
// the t coordinates, so their loss intervals do not shrink as the loss
// concentrates (large t). For the grid lists (grid.go) the mechanism
// therefore also supplies two pairs of the same one-parameter family,
//
//	(A, B) = ((s/t) G(ds), G(ds))   on s in [0, inf]  (A-mass at s = inf allowed)
//
// where G is a measure on the values of S (the pair of the epoch is G =
// law of S under Q). Within this family, H_alpha(A||B) = int (s/t -
// alpha)^+ dG + A(inf) and H_alpha(B||A) = int (1 - alpha s/t)^+ dG are
// integrals of convex functions of s, so
//
//   - G' >= G in the convex order (same mass and mean, Strassen: G' is a
//     mean-preserving spread of G) makes (A', B') dominate (A, B) for
//     every alpha in both directions (Blackwell; Dong, Roth, Su 2019, the
//     trade-off-function characterisation), and G'' <= G in the convex
//     order makes (A'', B'') dominated by it;
//   - the convex order is preserved by convolution with independent
//     summands (Shaked and Shanthikumar, Stochastic Orders, Theorem
//     3.A.12), so spreading (merging) the law of each partial sum S_j
//     before the next doubling keeps the final law above (below) the law
//     of S_t;
//   - spreading an atom of value v onto grid points g <= v <= g' with
//     B-masses w (g' - v)/(g' - g), w (v - g)/(g' - g) is a mean-preserving
//     spread; merging atoms into one at their mean is the converse
//     (Jensen);
//   - an upper pair may be a super-measure of a dominating pair (extra
//     non-negative atoms only raise delta, grid.go), and a lower pair may
//     drop mass (a sub-measure): so masses that underflow are dropped from
//     the lower pair and spread onto {0, inf} in the upper pair (a valid
//     spread of any law on [0, inf) with that mass and mean), and the
//     level-0 spread uses upper bounds of both parts.
//
// Level 0 is one coordinate: the cells of allocation.go with Q-mass b and
// moment mu; the upper pair spreads each onto its hull ends [lo, hi] (for
// the top cell: lo and inf, the moment above lo going to inf), the lower
// pair merges each into an atom at mu/b. Doubling and the binary digits of
// t then give S_t, the upper pair re-spread onto the sum's grid points
// (allocGrid.boundaries) after each convolution, the lower pair merged per
// cell. The errors are those of mean-preserving spreads of about a cell
// width, which add like variances rather than like hull widths.
//
// Spread fractions are computed without cancellation: the atom's value v =
// v1 + v2 is held exactly as a double-double (twoSum), v_hi - g is exact
// (Sterbenz, cells are at most a factor 2 wide) and so is g' - g, so each
// fraction carries a relative error of at most 3u.

// allocPairs is the upper (spread) and lower (merged) law of S_j.
type allocPairs struct {
	j float64
	// upper: atoms at values v with Q-mass w (exact values of a
	// super-measure of a spread, up to relUp), moment upD at +inf
	up    []allocGroup // lo = hi = v, b = w, mu unused
	upD   float64
	relUp float64
	// lower: atoms (b, mu) at mu/b (lo = hi = mu/b for sorting)
	low    []allocGroup
	relLow float64
}

// pairsLevel0 builds the pairs of one coordinate from the level-0 cells.
func (gr allocGrid) pairsLevel0(m, rel float64) *allocPairs {
	lv := gr.level0(m, rel)
	u := unitRoundoff
	rho := rel + 2*u
	p := &allocPairs{j: 1, relLow: rel}
	// set aside (underflow): spread onto {0, inf} in the upper pair
	zero := lv.junkB * (1 + rho)
	p.upD = lv.junkMu * (1 + rho)
	// carry: the B-mass of the previous cell's upper atom, at cHi, which
	// lies in the next cell's hull [lo, hi] up to rounding (hi_c >= lo_c+1:
	// the hull ends are rounded outwards from the same border) and is
	// spread onto that hull's ends as well (fractions rounded up): one
	// atom per cell border instead of two
	var carry, cHi float64
	for _, g := range lv.g {
		p.low = append(p.low, allocGroup{b: g.b, mu: g.mu, lo: g.mu / g.b, hi: g.mu / g.b})
		bU, muU := g.b*(1+rho), g.mu*(1+rho)
		bL, muL := g.b*(1-rho), g.mu*(1-rho)
		if carry > 0 && !(cHi >= g.lo) {
			// not expected; keep the carried atom where it is
			p.up = append(p.up, allocGroup{b: carry, lo: cHi, hi: cHi})
			carry = 0
		}
		switch {
		case math.IsInf(g.hi, 1):
			// all B-mass at lo, the moment above lo at inf (the carried
			// atom's too)
			p.up = append(p.up, allocGroup{b: (bU + carry) * (1 + 2*u), lo: g.lo, hi: g.lo})
			p.upD += math.Max(0, muU-g.lo*bL+4*u*(muU+g.lo*bL)) * (1 + 2*u)
			p.upD += carry * (cHi - g.lo) * (1 + 4*u)
			carry = 0
		default:
			w := g.hi - g.lo
			den := w * (1 - 2*u)
			nHi := muU - g.lo*bL + 4*u*(muU+g.lo*bL)
			nLo := g.hi*bU - muL + 4*u*(g.hi*bU+muL)
			wHi := math.Max(0, nHi) / den * (1 + 2*u)
			wLo := math.Max(0, nLo) / den * (1 + 2*u)
			if carry > 0 {
				th := (cHi - g.lo) / den * (1 + 2*u) // cHi - lo exact (Sterbenz)
				tl := (g.hi - cHi) * (1 + 2*u) / den * (1 + 2*u)
				wHi += carry * th * (1 + 2*u)
				wLo += carry * tl * (1 + 2*u)
			}
			if g.lo == 0 {
				zero += wLo
			} else {
				p.up = append(p.up, allocGroup{b: wLo * (1 + 2*u), lo: g.lo, hi: g.lo})
			}
			carry, cHi = wHi*(1+2*u), g.hi
		}
	}
	if carry > 0 {
		p.up = append(p.up, allocGroup{b: carry, lo: cHi, hi: cHi})
	}
	if zero > 0 {
		p.up = append(p.up, allocGroup{b: zero})
	}
	slices.SortFunc(p.up, func(a, b allocGroup) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	// the upper values are exact floats and the masses exact values of
	// the super-measure: no relative error yet
	p.relUp = 0
	return p
}

// convolvePairs returns the pairs of S_x + S_y.
func (gr allocGrid) convolvePairs(ctx context.Context, x, y *allocPairs) (*allocPairs, error) {
	self := x == y
	u := unitRoundoff
	out := &allocPairs{j: x.j + y.j}

	// the upper and the lower pair are independent: one goroutine each
	var wg sync.WaitGroup
	var errLow error
	wg.Add(1)
	go func() {
		defer wg.Done()
		errLow = func() error {
			// ---- lower: merge per cell by value
			lmax := x.low[len(x.low)-1].lo + y.low[len(y.low)-1].lo
			lmin := math.Max(x.low[0].lo+y.low[0].lo, lowCut(x.low)+lowCut(y.low))
			BL := gr.boundaries(out.j, lmin, lmax)
			nl := len(BL)
			cb := make([]float64, nl)
			cbE := make([]float64, nl)
			cm := make([]float64, nl)
			cmE := make([]float64, nl)
			cn := make([]int32, nl)
			for i, a := range x.low {
				if i%64 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				start := 0
				if self {
					start = i
				}
				c := 0
				for k := start; k < len(y.low); k++ {
					h := y.low[k]
					b := a.b * h.b
					mu := a.mu*h.b + h.mu*a.b
					if self && k != i {
						b *= 2
						mu *= 2
					}
					if b < allocTiny || mu < allocTiny {
						continue // a lower pair may drop mass
					}
					v := a.lo + h.lo
					for c+1 < nl && BL[c+1] <= v {
						c++
					}
					var e float64
					cb[c], e = twoSum(cb[c], b)
					cbE[c] += e
					cm[c], e = twoSum(cm[c], mu)
					cmE[c] += e
					cn[c]++
				}
			}
			var maxN int32
			for c := 0; c < nl; c++ {
				if cn[c] == 0 {
					continue
				}
				maxN = max(maxN, cn[c])
				b, mu := cb[c]+cbE[c], cm[c]+cmE[c]
				out.low = append(out.low, allocGroup{b: b, mu: mu, lo: mu / b, hi: mu / b})
			}
			slices.SortFunc(out.low, func(a, b allocGroup) int {
				switch {
				case a.lo < b.lo:
					return -1
				case a.lo > b.lo:
					return 1
				}
				return 0
			})
			out.relLow = (x.relLow + y.relLow + 3*u + 3*u + 2*float64(maxN)*u*u) * (1 + 4*u)
			return nil
		}()
	}()
	errUp := func() error {
		// ---- upper: spread every sum onto the output grid
		vmax := x.up[len(x.up)-1].lo + y.up[len(y.up)-1].lo
		// below the sum of the inputs' cuts (mass below each at most
		// allocLowMass) one cell: spread onto {0, cut} (upper), merged (lower)
		vmin := math.Max(math.Min(minPosV(x.up), minPosV(y.up)), lowCut(x.up)+lowCut(y.up))
		B := gr.boundaries(out.j, vmin, vmax)
		nb := len(B)
		acc := make([]float64, nb)
		accE := make([]float64, nb)
		cnt := make([]int32, nb)
		var zero, infD float64
		put := func(c int, w float64) {
			s, e := twoSum(acc[c], w)
			acc[c] = s
			accE[c] += e
			cnt[c]++
		}
		for i, a := range x.up {
			if i%64 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			start := 0
			if self {
				start = i
			}
			c := 0
			for k := start; k < len(y.up); k++ {
				h := y.up[k]
				w := a.b * h.b
				if self && k != i {
					w *= 2
				}
				vh, vl := twoSum(a.lo, h.lo)
				if w < allocTiny {
					// spread onto {0, inf}: Q-mass at 0, moment at inf
					zero += w
					infD += w * (vh + math.Abs(vl)) * (1 + 2*u)
					continue
				}
				for c+1 < nb-1 && B[c+1] <= vh {
					c++
				}
				if vh == B[c] && vl < 0 && c > 0 {
					c--
				}
				g0, g1 := B[c], B[c+1]
				if vh == g0 && vl == 0 {
					put(c, w)
					continue
				}
				den := g1 - g0
				th := ((vh - g0) + vl) / den
				tl := ((g1 - vh) - vl) / den
				if th > 0 {
					put(c+1, w*th)
				}
				if tl > 0 {
					put(c, w*tl)
				}
			}
		}
		var maxN int32
		for c := 0; c < nb; c++ {
			if cnt[c] == 0 {
				continue
			}
			maxN = max(maxN, cnt[c])
			out.up = append(out.up, allocGroup{b: acc[c] + accE[c], lo: B[c], hi: B[c]})
		}
		// the zero atom: set-aside mass (an upper bound; exact super-measure
		// value after the inflation)
		if zero > 0 {
			z := zero * (1 + 1e-9)
			if out.up[0].lo == 0 {
				out.up[0].b += z
			} else {
				out.up = append([]allocGroup{{b: z}}, out.up...)
			}
		}
		// total Q-masses of the operands, upper bounds
		tx, ty := 0.0, 0.0
		for _, a := range x.up {
			tx += a.b
		}
		for _, a := range y.up {
			ty += a.b
		}
		tx *= (1 + 2*x.relUp) * (1 + 1e-12)
		ty *= (1 + 2*y.relUp) * (1 + 1e-12)
		if self {
			out.upD = 2 * x.upD * tx
		} else {
			out.upD = x.upD*ty + y.upD*tx
		}
		out.upD = (out.upD + infD*(1+1e-9)) * (1 + 1e-12)
		// product u, fractions 3u, their product u, double-double sums
		out.relUp = (x.relUp + y.relUp + 6*u + 3*u + 2*float64(maxN)*u*u) * (1 + 4*u)

		return nil
	}()
	wg.Wait()
	if errUp != nil {
		return nil, errUp
	}
	if errLow != nil {
		return nil, errLow
	}
	return out, nil
}

// allocLowMass: the Q-mass below a sum's low cut (lowCut) is at most
// twice it; one cell holds it (a spread onto {0, cut} in the upper pair,
// one merged atom in the lower), which costs only events of that mass.
const allocLowMass = 1e-40

// lowCut returns the value of the first of the sorted atoms at which
// their cumulative Q-mass exceeds allocLowMass: the mass below it is at
// most allocLowMass (so a sum of two is below the sum of their cuts with
// mass at most twice that).
func lowCut(a []allocGroup) float64 {
	s := 0.0
	for _, g := range a {
		s += g.b
		if s > allocLowMass {
			return g.lo
		}
	}
	return 0
}

// minPosV returns the smallest positive value of sorted atoms (1 if none).
func minPosV(a []allocGroup) float64 {
	for _, g := range a {
		if g.lo > 0 {
			return g.lo
		}
	}
	return 1
}

// pairsSum returns the pairs of S_t by doubling.
func (gr allocGrid) pairsSum(ctx context.Context, m, rel float64, t int) (*allocPairs, error) {
	return byDoubling(ctx, gr.pairsLevel0(m, rel), t, gr.convolvePairs)
}

// pairGroups turns the pairs of S_t into leaf groups: upper atoms at loss
// ln(v/t) (A-mass v w / t), the atom at inf and the one at 0 outside every
// range (corners of the upper pair), lower atoms at ln(mu/(b t)) with the
// window of their masses' relative error.
func pairGroups(p *allocPairs, t int) (up, low []leafGroup, rel float64) {
	u := unitRoundoff
	tf := float64(t)
	lnt := math.Log(tf)
	for _, a := range p.up {
		if a.lo == 0 {
			// B-mass only: loss -inf, kept far below every range
			up = append(up, leafGroup{pa: 0, pb: a.b, lossLo: -1e9, lossHi: -1e9})
			continue
		}
		l := math.Log(a.lo)
		w := 4*u*(math.Abs(l)+lnt) + 1e-300
		up = append(up, leafGroup{pa: a.lo * a.b / tf, pb: a.b, lossLo: l - lnt - w, lossHi: l - lnt + w})
	}
	if p.upD > 0 {
		up = append(up, leafGroup{pa: p.upD / tf * (1 + 2*u), pb: 0, lossLo: 1e9, lossHi: 1e9})
	}
	for _, a := range p.low {
		r := math.Log(a.mu/a.b) - lnt
		w := 2*p.relLow + 4*u*(math.Abs(r)+2*lnt+2) + 1e-300
		low = append(low, leafGroup{pa: a.mu / tf, pb: a.b, lossLo: r - w, lossHi: r + w})
	}
	rel = (math.Max(p.relUp, p.relLow) + 2*u) * (1 + 4*u)
	return up, low, rel
}

// allocLowCap is the window cap of the lower chain for separate lower
// groups (gridBuilder.lowCap): their masses are products of t level-0
// masses, whose relative error (about t * 64u) exceeds gridWindowCap/2 for
// t above a few hundred. Windows add over compositions (E * 1e-8 nats
// at most), which costs the lower bound nothing measurable.
const allocLowCap = 1e-8

// lowerOnly adds group e to the lower pair of a grid leaf only: the lower
// half of finishGrid's loop, for separate lower groups
// (leafBuilder.lowGroups).
func (g *gridBuilder) lowerOnly(e leafGroup, cellP, cellQ []float64, cellN []int32) {
	n, lam, r := g.l.n, g.l.lambda, g.r
	if e.tiny {
		return
	}
	fi := float64(n + 1)
	if e.lossHi <= float64(n+1)*lam {
		fi = bucketOf(e.lossHi, lam)
	}
	fj := float64(-n - 1)
	if e.lossLo > -float64(n+2)*lam {
		fj = math.Max(fj, gridFloor(e.lossLo, lam))
	}
	if fi > float64(n) {
		return // a lower pair may drop what leaves the range
	}
	i, j := int(fi), int(fj)
	if j < i-1 && math.FMA(float64(j+1), lam, -e.lossLo) <= gridWindowCap {
		j++
	}
	if j < i-1 && math.FMA(-float64(i-1), lam, e.lossHi) <= gridWindowCap {
		i--
	}
	if j < -n+1 {
		return
	}
	if k, w, ok := nearGrid(e.lossLo, e.lossHi, lam); ok && k > -n && k <= n {
		g.addLow(k, e.pa, r)
		g.wLo = math.Max(g.wLo, w)
		return
	}
	k := i
	if i-j > 1 {
		m := math.Ceil((ln(e.pa) - ln(e.pb)) / lam)
		k = int(math.Max(float64(j+1), math.Min(float64(i), m)))
	}
	o := k + n - 1
	cellP[o] += e.pa
	cellQ[o] += e.pb
	cellN[o]++
}
