package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// # Random allocation (balls in bins), one epoch
//
// Every record is used in exactly one of an epoch's t steps, chosen
// uniformly and independently of the other records (k = 1: a random
// partition into t batches); each step releases the clipped sum of its
// batch plus N(0, sigma^2 I) noise (DP-SGD). With m = sensitivity/sigma the
// pair of one epoch is, in units of sigma,
//
//	P = (1/t) sum_i N(m e_i, I_t)    (the data set with the record z)
//	Q = N(0, I_t)                    (the data set without it)
//
// # Why this pair bounds an epoch (add/remove, both orders)
//
// Upper bound. Chua, Ghazi, Harrison, Leeman, Kamath, Kumar, Manurangsi,
// Sinha, Zhang, "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025,
// arXiv 2412.16802), show that (P, Q) is a tightly dominating pair of the
// adaptive batch linear query mechanism with balls-and-bins batches
// (ABLQ_B: each step's gradients, of norm <= 1, may depend on all earlier
// outputs), in both orders: delta(eps) = max(delta_{P||Q}(eps),
// delta_{Q||P}(eps)). The proof sketch: fixing the other records, step i
// releases an adaptively chosen sum plus z's contribution g_i (norm <= 1)
// if z was allocated to i, plus noise; the other records' sum is known to
// the adversary and can be subtracted, rotating each step's noise so that
// g_i lies on a fixed axis and discarding the orthogonal coordinates is a
// garbling, and a shorter g_i is a garbling of a longer one (as for the
// Gaussian mechanism); adaptivity is handled by conditioning step by step
// on the past outputs, under which every step has this form. Feldman and
// Shenfeld ("Privacy amplification by random allocation", arXiv
// 2502.08202; "Efficient privacy loss accounting for subsampling and
// random allocation", arXiv 2602.17284) account for the same pair (its
// PLD in both directions, remove and add) in floating point without a
// rounding guarantee. The engine reports the max over both directions of
// the composed pair, so P||Q (removal) and Q||P (addition) are both
// covered, and E epochs with fresh allocations compose as dominating pairs
// do (Zhu, Dong, Wang, AISTATS 2022, composition of dominating pairs).
//
// Lower bound. (P, Q) is attained: all other records contribute 0 and z
// contributes sensitivity along one fixed axis in every step; then the
// first coordinates of the t outputs have exactly the laws P and Q (the
// other coordinates are independent noise, equal under both). So one
// epoch dominates (P, Q) and delta of the composed pair is also a lower
// bound: the pair is exact, not only dominating.
//
// # The sufficient statistic
//
// With X_i = exp(m y_i - m^2/2) (i.i.d. lognormal with mean 1 under Q),
// dP/dQ(y) = S/t with S = sum_i X_i: the privacy loss is L = ln(S/t) and
// every hockey-stick divergence of (P, Q) is one of the pair of laws of S.
//
// # Embedding: exact groups of events
//
// The engine needs groups of events of the pair with their A- and
// B-masses (to a known relative error) and an interval holding the
// privacy loss of every event (leafBuilder.add). We build groups of the
// ORIGINAL pair, so upper and lower bounds both follow from the engine's
// existing arguments (chord bound / spread for the upper, merging for the
// lower), with no dominance argument of our own:
//
//   - Level 0 (one coordinate): the real line of y_i is cut into intervals
//     I_c; a group is {y_i in I_c}, with Q-mass q_c = Phi-mass of I_c, the
//     moment E_Q[X_i; I_c] = P(Z + m in I_c) (the tilted mass, since
//     dN(m,1)/dN(0,1) = X) and the hull [x(inf I_c), x(sup I_c)] of X_i on
//     it (x increasing), rounded outwards.
//   - Sums: a group of the first j coordinates times a group of the next
//     j' is a set of events of the first j + j' coordinates (a product set)
//     with Q-mass q q', moment mu q' + mu' q (S adds) and hull [lo + lo',
//     hi + hi']; a union of disjoint groups is a group whose masses and
//     moments add and whose hull is the union's. Product groups are merged
//     into cells of the sum's range by their lower hull end (any
//     assignment is valid; the cells only decide how wide the hulls get).
//     t coordinates are reached by doubling and the binary digits of t.
//   - Final groups: B-mass q (Q), A-mass mu/t (P, as dP = (S/t) dQ), loss
//     in [ln(lo/t), ln(hi/t)] rounded outwards.
//
// Every mass is a sum of products of non-negative level-0 masses, so its
// relative error is tracked exactly like the engine's other leaves
// (relErr). Products below allocTiny are set aside with bounds of their
// Q-mass and moment and of those of all groups derived from them; they go
// to the corner with an unknown loss (addUnknown), which upper bounds count
// in full and lower bounds ignore.
//
// # Accuracy, and the grid lists
//
// The hulls are worst-case: the hull width of a sum is the sum of the
// widths, so a group's loss interval is about (merges along its history) *
// (cell width) wide, and this does not shrink with t while the spread of
// the loss does (like 1/sqrt(t)). These exact groups feed the grouped list
// only (coarse cells, allocGrid.d = 0.02), where they give sound but loose
// bounds. The grid lists compose instead a dominating pair (mean-preserving
// spreads of the law of S) and a dominated pair (merges), see
// allocation_pairs.go; their errors add like variances, and the result
// takes the tighter list in each direction. The loss range (lossRange, and
// so the engine's factor) is sized by those pairs; hull groups reaching
// beyond it go to the grouped list's corners (counted in full), so with
// Options.Lists = ListsGrouped or DisableErrorCorrection (grouped list
// only) the upper bound of this pair is loose, often +Inf.
//
// Participations k > 1 (the pair's ratio is then the k-th elementary
// symmetric polynomial of the X_i over C(t, k), not a function of their
// sum) are bounded through Feldman and Shenfeld's reduction to blocks of
// 1-out-of-floor(t/k) and ceil(t/k) allocation, with the lower bound of
// the sum statistic (allocation_k.go). Replace-one is refused: the ratio
// sum_i e^(m y_i - m^2/2) / sum_i e^(-m y_i - m^2/2) of the antipodal
// instance (z's step keeps its allocation, its contribution flips sign) is
// not a function of one sum, and no dominating pair of it is proven here.
// Laplace noise is not built.

// allocTiny: products of masses below it are set aside (their relative
// error is no longer controlled near the subnormal range).
const allocTiny = 1e-280

// allocGroup is a group of events of the first j coordinates: Q-mass b,
// moment mu = E_Q[S_j; group] and a hull [lo, hi] of S_j on it.
type allocGroup struct{ b, mu, lo, hi float64 }

// allocLevel is the grouped law of S_j.
type allocLevel struct {
	g []allocGroup // sorted by lo
	j float64      // coordinates summed
	// rel bounds the relative error of every b and mu; hullOps counts
	// the roundings of the hull ends (each at most one ulp, outward
	// corrected at the end)
	rel     float64
	hullOps int
	// set aside (bounds): Q-mass and moment of the events not in g
	junkB, junkMu float64
}

// allocGrid holds the cell widths used for S: relative width d in the
// bulk and above, absolute width d*j below the bulk down to j*d/dLo, and
// relative width dLo below that and far in the upper tail.
type allocGrid struct {
	d, dLo float64
	// kappa > 0: the relative width at a sum of j coordinates is
	// min(d, kappa sdX/sqrt(j)), a fixed fraction of S_j's relative
	// standard deviation
	kappa float64
	// xFine0: above it (level 0), the cells are dLo wide; yCut: the
	// level-0 cell above yCut has an unbounded hull; yMin: the one below
	// yMin has hull lower end 0.
	xFine0, yMin, yCut float64
	// sdX: the standard deviation of one X under Q
	sdX float64
	// dTail > 0: the relative width beyond the bulk of a sum (d if 0)
	dTail float64
}

func defaultAllocGrid(m float64) allocGrid {
	g := allocGrid{d: 2e-3, dLo: 0.05, yMin: -13.5, yCut: m + 13.5}
	// P-mass of one coordinate above y = m + 8 is about 6e-16
	g.xFine0 = math.Exp(m*(m+8) - m*m/2)
	g.sdX = math.Sqrt(math.Expm1(math.Min(m*m, 700)))
	return g
}

// boundaries returns the cell borders of the range of a sum of j
// coordinates whose finite lower hull ends lie in [lo, hi]: ascending, the
// first at most lo (cells [B_c, B_c+1), the last unbounded).
func (gr allocGrid) boundaries(j, lo, hi float64) []float64 {
	d, dLo, dTail := gr.d, gr.dLo, gr.d
	if gr.dTail > 0 {
		dTail = gr.dTail
	}
	if gr.kappa > 0 {
		// finer cells as the sum concentrates (its relative spread falls
		// like 1/sqrt(j))
		d = math.Min(d, gr.kappa*gr.sdX/math.Sqrt(j))
		// and coarser ones far below the bulk, whose mass vanishes
		dLo = math.Min(0.05, dLo*math.Sqrt(j))
	}
	// the finest cells reach 12 standard deviations of S_j above its
	// mean, cells of the level-0 width the level-0 tail threshold beyond
	bulkHi := j + 12*gr.sdX*math.Sqrt(j)
	xFine := (j - 1) + gr.xFine0 + 12*gr.sdX*math.Sqrt(j)
	a := d * j // absolute width below the bulk
	var B []float64
	// below j*d/dLo: relative width dLo, built downwards
	x := a / dLo
	var low []float64
	for x > lo && x > 1e-300 {
		low = append(low, x)
		x /= 1 + dLo
	}
	low = append(low, 0)
	slices.Reverse(low)
	B = append(B, low...)
	x = a / dLo
	for x+a < j {
		x += a
		B = append(B, x)
	}
	x = j
	for x <= hi {
		B = append(B, x)
		switch {
		case x < bulkHi:
			x *= 1 + d
		case x < xFine:
			// beyond the bulk one coordinate dominates: the level-0
			// relative width suffices
			x *= 1 + dTail
		default:
			x *= 1 + dLo
		}
	}
	B = append(B, x)
	return B
}

// level0 returns the groups of one coordinate X = exp(m y - m^2/2).
func (gr allocGrid) level0(m, rel float64) *allocLevel {
	half := m * m / 2
	yOf := func(x float64) float64 { return (math.Log(x) + half) / m }
	// cell borders in y
	var ys []float64
	ys = append(ys, math.Inf(-1), gr.yMin)
	B := gr.boundaries(1, math.Exp(m*gr.yMin-half), math.Exp(m*gr.yCut-half))
	for _, x := range B {
		if x <= 0 {
			continue
		}
		y := yOf(x)
		if y > ys[len(ys)-1] && y < gr.yCut {
			ys = append(ys, y)
		}
	}
	ys = append(ys, gr.yCut, math.Inf(1))
	// x(y) rounded outwards: the exponent's error (gaussXErr: rounding of
	// m y - m^2/2 and of m itself) plus exp's own (below 2u)
	xOut := func(y float64, up bool) float64 {
		if math.IsInf(y, -1) {
			return 0
		}
		if math.IsInf(y, 1) {
			return math.Inf(1)
		}
		arg := m*y - half
		e := gaussXErr(m, y, arg) + 4*unitRoundoff
		if up {
			return math.Exp(arg + e + 4*unitRoundoff*math.Abs(arg))
		}
		return math.Exp(arg - e - 4*unitRoundoff*math.Abs(arg))
	}
	lv := &allocLevel{j: 1, rel: rel}
	for c := 0; c+1 < len(ys); c++ {
		y1, y2 := ys[c], ys[c+1]
		b := normMass(y1, y2)
		mu := normMassShift(y1, y2, m)
		g := allocGroup{b, mu, xOut(y1, false), xOut(y2, true)}
		if b < allocTiny || mu < allocTiny {
			// bounded by rel; the masses themselves are upper bounds up
			// to it
			lv.junkB += b * (1 + 2*rel)
			lv.junkMu += mu * (1 + 2*rel)
			continue
		}
		lv.g = append(lv.g, g)
	}
	return lv
}

// convolve returns the grouped law of S_x + S_y for independent groups x
// and y (x == y allowed: the self-convolution counts each unordered pair
// once with doubled masses).
func (gr allocGrid) convolve(ctx context.Context, x, y *allocLevel) (*allocLevel, error) {
	self := x == y
	j := x.j + y.j
	loMin := minPosLo(x) + minPosLo(y)
	hiMax := 0.0
	for _, g := range x.g {
		if !math.IsInf(g.lo, 1) && g.lo > hiMax {
			hiMax = g.lo
		}
	}
	hy := 0.0
	for _, g := range y.g {
		if !math.IsInf(g.lo, 1) && g.lo > hy {
			hy = g.lo
		}
	}
	hiMax += hy
	B := gr.boundaries(j, loMin, hiMax)
	nc := len(B) // cell c = [B[c], B[c+1]); the last cell [B[nc-1], inf)
	// cell sums in double-double (twoSum): error 2u + O(n u^2) relative
	cb := make([]float64, nc+1)
	cm := make([]float64, nc+1)
	cbE := make([]float64, nc+1)
	cmE := make([]float64, nc+1)
	clo := make([]float64, nc+1)
	chi := make([]float64, nc+1)
	cn := make([]int32, nc+1)
	for c := range clo {
		clo[c] = math.Inf(1)
	}
	inf := nc // the cell of unbounded hulls
	out := &allocLevel{j: j}
	var junkB, junkMu float64
	add := func(c int, b, mu, lo, hi float64) {
		if b < allocTiny || mu < allocTiny {
			junkB += b
			junkMu += mu
			return
		}
		var e float64
		cb[c], e = twoSum(cb[c], b)
		cbE[c] += e
		cm[c], e = twoSum(cm[c], mu)
		cmE[c] += e
		clo[c] = math.Min(clo[c], lo)
		chi[c] = math.Max(chi[c], hi)
		cn[c]++
	}
	for i, g := range x.g {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		start := 0
		if self {
			start = i
		}
		c := 0
		for k := start; k < len(y.g); k++ {
			h := y.g[k]
			b := g.b * h.b
			mu := g.mu*h.b + h.mu*g.b
			if self && k != i {
				b *= 2
				mu *= 2
			}
			lo := g.lo + h.lo
			hi := g.hi + h.hi
			if math.IsInf(hi, 1) {
				add(inf, b, mu, lo, hi)
				continue
			}
			for c+1 < nc && B[c+1] <= lo {
				c++
			}
			add(c, b, mu, lo, hi)
		}
	}
	var maxN int32
	for c := 0; c <= nc; c++ {
		if cn[c] == 0 {
			continue
		}
		maxN = max(maxN, cn[c])
		out.g = append(out.g, allocGroup{cb[c] + cbE[c], cm[c] + cmE[c], clo[c], chi[c]})
	}
	// The unbounded cell last: sort by lo keeps the walk above valid (its
	// groups are never walked past: they go to inf directly).
	slices.SortStableFunc(out.g, func(a, b allocGroup) int {
		switch {
		case math.IsInf(a.hi, 1) && !math.IsInf(b.hi, 1):
			return 1
		case !math.IsInf(a.hi, 1) && math.IsInf(b.hi, 1):
			return -1
		}
		if a.lo < b.lo {
			return -1
		}
		if a.lo > b.lo {
			return 1
		}
		return 0
	})
	u := unitRoundoff
	// a product b*b' has relative error rel_x + rel_y + u (the doubling
	// is exact), a moment mu b' + mu' b one more u; a cell sums at most
	// maxN of them in double-double (Neumaier's bound for non-negative
	// terms: 2u + 2 n u^2 relative, and the final rounding of hi + lo: u)
	out.rel = (x.rel + y.rel + 3*u + 3*u + 2*float64(maxN)*u*u) * (1 + 4*u)
	out.hullOps = max(x.hullOps, y.hullOps) + 1
	// set-aside events of x (y) combined with all of y (x): Q-mass at most
	// junkB_x * 1, moment at most junkMu_x + junkB_x * E[S_y] with E[S_y] =
	// y.j (the level-0 moments sum to 1); plus this product's own. The
	// bounds are inflated for their own rounding.
	s := 1 + 1e-9
	out.junkB = (x.junkB + y.junkB + junkB*(1+2*out.rel)) * s
	out.junkMu = (x.junkMu + x.junkB*y.j + y.junkMu + y.junkB*x.j + junkMu*(1+2*out.rel)) * s
	if self {
		out.junkB = (2*x.junkB + junkB*(1+2*out.rel)) * s
		out.junkMu = (2*x.junkMu + 2*x.junkB*x.j + junkMu*(1+2*out.rel)) * s
	}
	return out, nil
}

// minPosLo returns the smallest positive lower hull end of lv's groups.
func minPosLo(lv *allocLevel) float64 {
	v := math.Inf(1)
	for _, g := range lv.g {
		if g.lo > 0 && g.lo < v {
			v = g.lo
		}
	}
	if math.IsInf(v, 1) {
		return 1
	}
	return v
}

// allocSum returns the grouped law of S_t by doubling.
func (gr allocGrid) allocSum(ctx context.Context, m, rel float64, t int) (*allocLevel, error) {
	return byDoubling(ctx, gr.level0(m, rel), t, gr.convolve)
}

// byDoubling returns the t-fold sum of base (t >= 1) by repeated
// doubling: the powers base^(2^k) for the binary digits of t, added up
// with add.
func byDoubling[T any](ctx context.Context, base T, t int, add func(context.Context, T, T) (T, error)) (T, error) {
	pow, acc, have := base, base, false
	for n := t; ; {
		if n&1 == 1 {
			if !have {
				acc, have = pow, true
			} else {
				var err error
				if acc, err = add(ctx, acc, pow); err != nil {
					var zero T
					return zero, err
				}
			}
		}
		n >>= 1
		if n == 0 {
			break
		}
		var err error
		if pow, err = add(ctx, pow, pow); err != nil {
			var zero T
			return zero, err
		}
	}
	return acc, nil
}

// allocMech is the one-epoch pair of random allocation with Gaussian noise.
type allocMech struct {
	sigma, sens float64
	t, k        int
	name        string
	grid        allocGrid

	once buildOnce
	// final groups
	pa, pb, lossLo, lossHi []float64
	rel                    float64
	unknownA, unknownB     float64
	// grid lists: a dominating and a dominated pair (allocation_pairs.go)
	pairGrid          allocGrid
	upGroups, lowGrps []leafGroup
	relPairs          float64
	absLoss, cumMass  []float64
}

// RandomAllocationGauss returns the pair of ONE epoch of DP-SGD with random
// allocation (balls in bins): each record is used in exactly participations
// of the epoch's stepsPerEpoch steps, chosen uniformly at random (1: a
// random partition into batches); each step adds N(0, sigma^2) noise to the
// sum of its batch's contributions, each of norm at most sensitivity.
// Composing it E times bounds E epochs. The pair is
//
//	(1/t) sum_i N(m e_i, I_t)  vs  N(0, I_t),  m = sensitivity/sigma, t = stepsPerEpoch,
//
// which dominates the adaptive epoch in both orders and is attained (see
// the top of allocation.go: Chua et al. 2025, Feldman and Shenfeld 2025),
// so both bounds hold. For participations k > 1 the pair is the product
// of blocks of 1-out-of-floor(t/k) and ceil(t/k) allocation (Feldman and
// Shenfeld's reduction, an upper bound only; the lower bound is the
// Gaussian mechanism of the sum statistic, mu = k m / sqrt(t); see
// allocation_k.go). Only add_remove is supported (replace-one is refused
// with the reason); Laplace noise is not. The tight bounds come from the grid
// lists (the default Options.Lists); the grouped list alone is loose.
// The first use builds the pairs (O(N^2) per doubling with N a few
// thousand cells: about 0.1 to 2 s of CPU for sensitivity/sigma in [0.5,
// 2] and t up to 10,000; more for large sensitivity/sigma, whose grid is
// longer).
func RandomAllocationGauss(sigma, sensitivity float64, stepsPerEpoch, participations int, rel Relation) (Mechanism, error) {
	const kind = "random_allocation"
	if err := checkPositive(kind+": sigma", sigma); err != nil {
		return nil, err
	}
	if err := checkPositive(kind+": sensitivity", sensitivity); err != nil {
		return nil, err
	}
	if stepsPerEpoch < 1 || stepsPerEpoch > 1<<20 {
		return nil, paramError(kind+": steps_per_epoch", "must be in [1, 2^20], got %d", stepsPerEpoch)
	}
	if participations < 1 || participations > stepsPerEpoch {
		return nil, paramError(kind+": participations", "must be in [1, steps_per_epoch = %d], got %d", stepsPerEpoch, participations)
	}
	if !rel.valid() {
		return nil, invalidf("%s: unknown relation %d", kind, int(rel))
	}
	if rel != AddRemove {
		return nil, paramError(kind+": relation", "%s is not supported: under replace-one the worst instance's ratio is sum_i e^(m y_i) / sum_i e^(-m y_i) (the replaced record's step keeps its allocation), not a function of one sum, which this pair's construction needs, and no dominating pair of it is proven; use add_remove (a replace-one neighbour is two add/remove steps away: group privacy)", rel)
	}
	m := sensitivity / sigma
	if err := checkRatio(kind+": sensitivity/sigma", m); err != nil {
		return nil, err
	}
	if m > 20 || m < 1e-3 {
		return nil, paramError(kind+": sigma", "gives sensitivity/sigma = %v, outside [1e-3, 20], where the construction's grid is sized", m)
	}
	if participations > 1 {
		// dominated by blocks of 1-out-of-floor(t/k) and ceil(t/k)
		// (allocation_k.go)
		return newAllocK(sigma, sensitivity, stepsPerEpoch, participations)
	}
	name := fmt.Sprintf("random_allocation_gauss(sigma=%s, steps_per_epoch=%d", fmtFloat(sigma), stepsPerEpoch)
	if sensitivity != 1 {
		name += ", sensitivity=" + fmtFloat(sensitivity)
	}
	name += ")"
	hull := defaultAllocGrid(m)
	hull.d = 2e-2
	pg := defaultAllocGrid(m)
	pg.d = math.Min(5e-3, 5e-3*pg.sdX) // finer for a narrow X (small m)
	pg.kappa = 2.5e-2
	pg.dLo = 2e-2
	// beyond the bulk of a sum one coordinate dominates; for a wide X (m
	// >= 1, whose grid is longest) cells as wide as below the bulk
	// (measured: sigma 0.5, t 10,000, 50 epochs, 2.3 s -> 1.3 s of CPU,
	// eps(1e-5) bracket 0.020% -> 0.089% wide; for m = 0.5 the far tail,
	// delta near 1e-10, widened beyond 0.2%, so narrow X keep d)
	if m >= 1 {
		pg.dTail = 2e-2
	}
	return &allocMech{sigma: sigma, sens: sensitivity, t: stepsPerEpoch, k: participations, name: name, grid: hull, pairGrid: pg}, nil
}

func (a *allocMech) String() string { return a.name }

// m0 is the level-0 relative error of the masses: the distribution
// functions and the rounding of m (as for the subsampled Gaussian pairs,
// over |y| <= 40 + m).
func (a *allocMech) m0() (m, rel float64) {
	m = a.sens / a.sigma
	return m, 64*unitRoundoff + 4*unitRoundoff*m*(40+m)
}

func (a *allocMech) prepare(ctx context.Context) error { return a.once.do(ctx, a.build) }

func (a *allocMech) ensure() error {
	return a.prepare(context.Background())
}

func (a *allocMech) build(ctx context.Context) error {
	m, rel0 := a.m0()
	lv, err := a.grid.allocSum(ctx, m, rel0, a.t)
	if err != nil {
		return err
	}
	pp, err := a.pairGrid.pairsSum(ctx, m, rel0, a.t)
	if err != nil {
		return err
	}
	a.upGroups, a.lowGrps, a.relPairs = pairGroups(pp, a.t)
	t := float64(a.t)
	lnt := math.Log(t)
	u := unitRoundoff
	// hull ends: each of hullOps levels rounds a sum once (relative u),
	// level 0 is outward already
	hw := float64(lv.hullOps+2) * 2 * u
	a.pa, a.pb, a.lossLo, a.lossHi = a.pa[:0], a.pb[:0], a.lossLo[:0], a.lossHi[:0]
	for _, g := range lv.g {
		lo, hi := math.Inf(-1), math.Inf(1)
		if g.lo > 0 {
			l := math.Log(g.lo)
			lo = l - lnt - hw - 4*u*(math.Abs(l)+lnt)
		}
		if !math.IsInf(g.hi, 1) {
			h := math.Log(g.hi)
			hi = h - lnt + hw + 4*u*(math.Abs(h)+lnt)
		}
		a.pa = append(a.pa, g.mu/t)
		a.pb = append(a.pb, g.b)
		a.lossLo = append(a.lossLo, lo)
		a.lossHi = append(a.lossHi, hi)
	}
	// pa = mu/t: one more rounding
	a.rel = (lv.rel + 2*u) * (1 + 4*u)
	a.unknownA = lv.junkMu / t * (1 + 4*u)
	a.unknownB = lv.junkB * (1 + 4*u)
	// loss range table: |loss| bounds, descending, with cumulative mass,
	// of the upper and the lower pair's atoms (the grid lists' events;
	// the hull groups' intervals are too wide to size the range by; the
	// range only decides accuracy: whatever leaves it is counted in full
	// by upper bounds or dropped by lower ones)
	type lm struct{ l, w float64 }
	var tab []lm
	for _, gs := range [][]leafGroup{a.upGroups, a.lowGrps} {
		for _, g := range gs {
			l := math.Max(math.Abs(g.lossLo), math.Abs(g.lossHi))
			if l >= 1e8 {
				l = math.Inf(1) // the atoms at S = 0 and S = inf
			}
			tab = append(tab, lm{l, g.pa + g.pb})
		}
	}
	slices.SortFunc(tab, func(x, y lm) int {
		switch {
		case x.l > y.l:
			return -1
		case x.l < y.l:
			return 1
		}
		return 0
	})
	a.absLoss, a.cumMass = a.absLoss[:0], a.cumMass[:0]
	s := a.unknownA + a.unknownB
	for _, e := range tab {
		s += e.w
		a.absLoss = append(a.absLoss, e.l)
		a.cumMass = append(a.cumMass, s)
	}
	return nil
}

func (a *allocMech) embed(b *leafBuilder) error {
	if err := a.ensure(); err != nil {
		return err
	}
	for i := range a.pa {
		b.add(a.pa[i], a.pb[i], a.lossLo[i], a.lossHi[i])
	}
	b.addUnknown(0, a.unknownA, 0, a.unknownB)
	if b.recordGroups {
		// the grid lists compose the dominating and the dominated pair
		// instead of the exact groups (allocation_pairs.go); the corners
		// the exact groups left in b count for the upper pair as extra
		// mass
		b.groups = append(b.groups[:0], a.upGroups...)
		b.lowGroups = a.lowGrps
	}
	return nil
}

func (a *allocMech) relErr() float64 {
	if err := a.ensure(); err != nil {
		return 1
	}
	return math.Max(a.rel, a.relPairs)
}

// lossRange: the largest finite |loss| bound of the groups outside a tail
// of mass p (groups with an unbounded interval are in the tail).
func (a *allocMech) lossRange(p float64) float64 {
	if err := a.ensure(); err != nil {
		return 1
	}
	for i, l := range a.absLoss {
		if a.cumMass[i] > p && !math.IsInf(l, 0) {
			return 2 * l
		}
	}
	return 1e-3
}
