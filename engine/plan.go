package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// plan is the resolved configuration of one computation: n, the leaf factor
// lambda = ln f, the tilts and the squaring rule.
type plan struct {
	opt    Options
	n      int
	lambda float64
	tau    []float64
	// finalSD is the standard deviation of the privacy loss of the whole
	// composition (from the leaves' variances), for the tilts.
	finalSD float64
	// saddle is the final loss's saddle-point tilt for 3.5 standard
	// deviations (saddle.go), 0 if none; cgfs holds the leaves' copies for
	// it by mechanism name (String).
	saddle float64
	cgfs   map[string]cgf
	// chainTilts are the groups of results of a ComposeMany chain whose
	// tilts its levels add (chaintilts.go); total is the final count.
	chainTilts []chainTilt
	total      int
	cp         *composer
	leaves     map[Mechanism]*list
	steps      int
	done       int
	// grid: also compose the grid lists (grid.go) of the leaves in
	// gridLeaves; every Result then takes the tighter of both bounds.
	grid       bool
	gridLeaves map[Mechanism]*list
	gridLambda float64 // the grid leaves' ln f (atoms inside the points)
	// gcp composes the grid lists, concurrently with cp's grouped lists;
	// mu guards done, steps and notes.
	gcp *composer
	mu  sync.Mutex
	// notes say where the computation fell back from the method's
	// settings (Result.Notes), each once.
	notes []string
	// the swapped grid chain (gridswap.go): the grid leaves' builders,
	// and whether composeMany leaves it to composeSequence
	swapSources  map[Mechanism]*swapSource
	swapDeferred bool
	// stepsPlanned is set when the caller planned every step of the
	// computation (composeSequence) and composeMany must not add its own.
	stepsPlanned bool
	// powerN is the transform length of the power path (power.go)
	powerN int
}

// maxRange is the largest bucket range (n+1) lambda, in units of privacy
// loss, that squaring goes to and that the automatic factor chooses: the
// losses i*lambda, the window u*lambda and the eps queries' search range
// stay far from the float64 limits, and losses beyond it are of no use
// (every delta below them is 1 to double precision: e^-(2^30)). Mass
// beyond the range stays in the corners (sound, looser; see
// Result.Notes).
const maxRange = 1 << 30

// note records a note once.
func (p *plan) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.notes {
		if t == s {
			return
		}
	}
	p.notes = append(p.notes, s)
}

// canSquare reports whether squaring l keeps its range within maxRange.
func canSquare(l *list) bool {
	return float64(l.n+1)*2*l.lambda <= maxRange
}

// newPlan resolves the options for composing parts.
//
// The automatic factor (the authors' "voodoo ritual" made explicit): the
// leaf's index range -n..n must cover the privacy loss of every leaf except
// for a mass of at most TailBudget/(2 r) in its tails, so that after r
// observations the corners hold at most about TailBudget; within that, f is
// as small as possible, because the final window of u buckets in which the
// error correction cannot be used is about r*ln(f) wide. Mechanisms whose
// loss has atoms (randomized response, Laplace) get a factor that puts the
// largest atom exactly on a bucket border.
func newPlan(parts []Part, o Options) (*plan, error) {
	p := &plan{opt: o, n: o.Buckets / 2, leaves: map[Mechanism]*list{},
		grid: !o.DisableErrorCorrection && o.Lists != ListsGrouped, gridLeaves: map[Mechanism]*list{}}
	if p.n%2 != 0 {
		return nil, invalidf("buckets must be a multiple of 4 (so that n is even, Definition 3), got %d", o.Buckets)
	}
	total := 0
	for _, part := range parts {
		total += part.Count
	}
	if err := p.chooseFactor(parts, total); err != nil {
		return nil, err
	}
	// Tilts are chosen from the leaves' privacy-loss variance.
	v := 0.0
	for _, part := range parts {
		leaf, err := p.leafUntilted(part.Mechanism)
		if err != nil {
			return nil, err
		}
		v += float64(part.Count) * leaf.lossVariance()
		p.leaves[part.Mechanism] = leaf
	}
	// The leaves start with common tilts for the largest leaf variance
	// (their envelopes are zero); composePair re-tilts for each level.
	vMax := 0.0
	for _, leaf := range p.leaves {
		leaf.variance = leaf.lossVariance()
		vMax = math.Max(vMax, leaf.variance)
	}
	p.finalSD = math.Sqrt(v)
	p.total = total
	// A right tail heavier than a Gaussian one (subsampled mechanisms)
	// reaches 3.5 standard deviations at a smaller tilt than 3.5/sd: the
	// saddle point's tilt (saddle.go), which tiltsFor adds to the final
	// tilts when it is well below them.
	p.cgfs = map[string]cgf{}
	var final []nameCount
	for _, part := range parts {
		p.cgfs[part.Mechanism.String()] = newCGF(p.leaves[part.Mechanism])
		final = append(final, nameCount{part.Mechanism.String(), part.Count})
	}
	p.saddle = saddleOf(p.cgfs, final, 3.5/p.finalSD)
	p.tau = chooseTilts(math.Sqrt(vMax), o.Tilts, float64(p.n+1)*p.lambda)
	for _, ls := range []map[Mechanism]*list{p.leaves, p.gridLeaves} {
		for m, leaf := range ls {
			leaf.tau = p.tau
			leaf.envA = make([]float64, len(p.tau))
			leaf.envC = make([]float64, len(p.tau))
			leaf.variance = p.leaves[m].variance
		}
	}
	p.cp = newComposer(p.n)
	p.gcp = newComposer(p.n)
	p.gcp.plans = p.cp.plans // FFT plans are shared (planCache)
	return p, nil
}

// chooseFactor sets the plan's factor (p.lambda, ln of the paper's bucket
// factor f, Definition 3) and the grid lists' spacing p.gridLambda for
// total observations of parts: Options.Factor when set, else the largest
// loss range of the parts at the tail budget TailBudget/(2 total) over n
// buckets (capped at maxRange/2, with a note), moved so that the largest
// atom of loss (atomic) falls exactly on a border.
func (p *plan) chooseFactor(parts []Part, total int) error {
	o := p.opt
	if o.Factor != 0 {
		p.lambda = math.Log(o.Factor)
		if !(p.lambda > 0) {
			return invalidf("factor %v is too close to 1", o.Factor)
		}
	} else {
		t := 0.0
		atom := 0.0
		for _, part := range parts {
			t = math.Max(t, part.Mechanism.lossRange(o.TailBudget/(2*float64(total))))
			if am, ok := part.Mechanism.(atomic); ok {
				atom = math.Max(atom, am.atomLoss())
			}
		}
		if !(t > 0) {
			return invalidf("cannot choose a factor automatically (loss range %v); set Options.Factor", t)
		}
		if t > maxRange/2 {
			p.note(fmt.Sprintf("the privacy loss reaches %.3g, beyond the bucket range the engine uses (%.3g): the mass beyond it stays in the corner buckets", t, float64(maxRange/2)))
			t = maxRange / 2
		}
		p.lambda = t / float64(p.n)
		p.gridLambda = p.lambda
		if atom > 0 && atom <= t {
			k := math.Floor(atom / p.lambda)
			p.lambda = atomFactor(atom, k, p.lambda)
			// the grid lists put the atom at most on point n-1: its
			// negative -k lambda must stay inside their points -n+1..n
			p.gridLambda = atomFactor(atom, math.Min(k, float64(p.n-1)), p.gridLambda)
		}
	}
	if p.gridLambda == 0 {
		p.gridLambda = p.lambda
	}
	return nil
}

// atomFactor returns the factor lambda' >= atom/k, as close as rounding
// allows, that puts the atom exactly on (not above) border k; lambda if k < 1.
func atomFactor(atom, k, lambda float64) float64 {
	if k < 1 {
		return lambda
	}
	lambda = atom / k
	for math.FMA(k, lambda, -atom) < 0 {
		lambda = math.Nextafter(lambda, math.Inf(1))
	}
	return lambda
}

// atomic is implemented by mechanisms whose privacy loss has a largest atom.
type atomic interface{ atomLoss() float64 }

// chooseTilts returns the tilts tau (per unit of privacy loss) for a final
// privacy loss with standard deviation sd: 0 for the bulk, +-T with T about
// 3.5 standard deviations of the final loss for the tails that decide
// delta in A||B (upper) and B||A (lower), and +-2T for deep tails. The
// rigorous error of a convolution is smallest, relative to the values, where
// the tilted sequence peaks and grows like exp(d^2/2) at d standard
// deviations from there; the spacing keeps every bucket within about 1.75
// standard deviations of a tilt's peak.
//
//	k = 1: {0}; 2: {0, T}; 3: {0, T, -T}; 4: {0, T, -T, 2T}; 5: {0, T, -T, 2T, -2T}
//
// T is capped at tiltCap/rangeL (half that for k >= 4), so that
// exp(tau * loss) stays moderate over the list's range [-rangeL, rangeL]
// (the tilted sequences, their products and squared norms must stay
// finite), also after a squaring doubles the range.
func chooseTilts(sd float64, k int, rangeL float64) []float64 {
	return chooseTiltsCap(sd, k, rangeL, tiltCap)
}

// tiltCap bounds |T| rangeL in chooseTilts.
const tiltCap = 60

// chooseTiltsCap is chooseTilts with the cap c instead of tiltCap: |T|
// rangeL <= c (c/2 for k >= 4).
func chooseTiltsCap(sd float64, k int, rangeL, c float64) []float64 {
	if k == 1 || !(sd > 0) || math.IsInf(sd, 0) {
		return []float64{0}
	}
	T := 3.5 / sd
	lim := c / rangeL
	if k >= 4 {
		lim /= 2
	}
	if T > lim {
		T = lim
	}
	all := []float64{0, T, -T, 2 * T, -2 * T}
	return all[:k]
}

// lossVariance returns the larger of the variances of the bucket log-ratio
// under A and under B (regular buckets only).
func (l *list) lossVariance() float64 {
	var v float64
	for _, m := range [][]float64{l.a, l.c} {
		var s0, s1, s2 float64
		for o := l.lo; o <= l.hi; o++ {
			L := l.loss(o)
			s0 += m[o]
			s1 += m[o] * L
			s2 += m[o] * L * L
		}
		if s0 > 0 {
			mean := s1 / s0
			v = math.Max(v, s2/s0-mean*mean)
		}
	}
	return v
}

// leafUntilted embeds m without tilts (used to choose them); with p.grid
// it also builds m's grid leaf into p.gridLeaves.
func (p *plan) leafUntilted(m Mechanism) (*list, error) {
	b := newLeafBuilder(p.n, p.lambda, nil)
	b.recordGroups = p.grid && p.gridLambda == p.lambda
	if b.recordGroups {
		// the grid leaf shares the grouped leaf's embedding: cut at the
		// cells while the grouped list is composed (its bounds stay the
		// same, at no extra cost), at half cells for the grid lists alone
		// (twice the groups)
		b.cellCuts = p.opt.Lists != ListsGrid
		c := 2*p.n + 16
		if !b.cellCuts {
			c = 4*p.n + 16
		}
		b.groups = make([]leafGroup, 0, c)
	}
	b.inexact = true
	if em, ok := m.(exactMasses); ok && em.exactMasses() {
		b.inexact = false
	}
	if err := m.embed(b); err != nil {
		return nil, fmt.Errorf("engine: embedding %s: %w", m, err)
	}
	l := b.rel(m)
	l.tailMA, l.tailMC = l.tailMoments()
	l.tails = &tailCache{}
	if p.grid {
		gb := b
		if !b.recordGroups {
			gb = newLeafBuilder(p.n, p.gridLambda, nil)
			gb.recordGroups = true
			gb.groups = make([]leafGroup, 0, 2*p.n+16)
			gb.inexact = b.inexact
			if err := m.embed(gb); err != nil {
				return nil, fmt.Errorf("engine: embedding %s: %w", m, err)
			}
		}
		p.gridLeaves[m] = gb.finishGrid(l.relErrIn, m.String())
		p.keepSwapSource(m, gb, l.relErrIn)
	}
	return l, nil
}

// leaf returns the embedded leaf of m.
func (p *plan) leaf(m Mechanism) (*list, error) {
	if l := p.leaves[m]; l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("engine: mechanism %s was not planned", m)
}

func (b *leafBuilder) rel(m Mechanism) *list {
	rel := 64 * unitRoundoff
	if r, ok := m.(relErr); ok {
		rel = r.relErr()
	}
	l := b.finish(rel, m.String())
	l.relErrIn = rel
	return l
}

// relErr is implemented by mechanisms whose embedding error is not the
// default 64u relative.
type relErr interface{ relErr() float64 }

// needSquare applies the squaring rule of Figure 10 with free_infty_budget
// (Section 4.6) to the composition x × y whose corner mass would be after:
// square when it would exceed threshold/2 times the corner masses before
// (2.2 for x = y, as in the paper) and the free budget.
func (p *plan) needSquare(x, y *list, after float64) bool {
	before := x.cornerValue() + y.cornerValue()
	return after > p.opt.FreeInftyBudget && after > p.opt.SquaringThreshold/2*before
}

func (p *plan) step(ctx context.Context) error {
	p.mu.Lock()
	p.done++
	if p.opt.Progress != nil {
		p.opt.Progress(p.done, max(p.steps, p.done))
	}
	p.mu.Unlock()
	return ctx.Err()
}

// composer returns the composer of x's kind of list.
func (p *plan) composer(x *list) *composer {
	if x.grid {
		return p.gcp
	}
	return p.cp
}

// composePair returns x × y, squaring first as the rule asks (both lists
// are brought to the same factor by squaring the finer one).
func (p *plan) composePair(ctx context.Context, x, y *list) (*list, error) {
	self := x == y
	for x.squarings < y.squarings {
		x = x.square()
	}
	for y.squarings < x.squarings {
		y = y.square()
	}
	if self {
		y = x
	}
	// The corners are predicted with the tilts the composition will use
	// and, when no squaring is needed, reused by it.
	for i := 0; ; i++ {
		tau := p.tilts(x, y)
		xr, yr := x.retilt(tau), y.retilt(tau)
		if self {
			yr = xr
		}
		cs := p.composer(x).corners(xr, yr)
		if i < 8 && p.needSquare(x, y, cs.value()) {
			if !canSquare(x) {
				p.note(fmt.Sprintf("squaring stopped at the bucket range %.3g (the largest the engine squares to): corner mass grows instead", float64(x.n+1)*x.lambda))
				z := p.composer(x).compose(xr, yr, &cs)
				return z, p.step(ctx)
			}
			x = x.square()
			if self {
				y = x
			} else {
				y = y.square()
			}
			continue
		}
		z := p.composer(x).compose(xr, yr, &cs)
		return z, p.step(ctx)
	}
}

// composeMany computes the r-fold compositions of m for every r in rs by
// binary powers shared between the rs.
func (p *plan) composeMany(ctx context.Context, m Mechanism, rs []int) ([]*Result, error) {
	leaf, err := p.leaf(m)
	if err != nil {
		return nil, err
	}
	// the grouped and the grid lists are composed at once (each
	// composition's serial parts then overlap with the other's)
	var ls, gs []*list
	var errL, errG error
	var wg sync.WaitGroup
	chains := 1
	if p.grid && p.opt.Lists != ListsGrid {
		chains = 2
	}
	if !p.stepsPlanned {
		p.addSteps(chains * powerSteps(rs))
	}
	if p.grid {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gs, errG = p.composePowers(ctx, p.gridLeaves[m], rs)
		}()
	}
	if p.opt.Lists != ListsGrid || !p.grid {
		ls, errL = p.composePowers(ctx, leaf, rs)
	}
	wg.Wait()
	if errL != nil {
		return nil, errL
	}
	if errG != nil {
		return nil, errG
	}
	out := make([]*Result, len(rs))
	for i := range rs {
		switch {
		case ls == nil:
			out[i] = newGridResult(gs[i], len(gs[i].tau), p.gridLambda)
		case gs == nil:
			out[i] = newResult(ls[i], !p.opt.DisableErrorCorrection, len(ls[i].tau), p.lambda)
		default:
			out[i] = newResult(ls[i], true, len(ls[i].tau), p.lambda).withGrid(gs[i])
		}
		out[i].addNotes(p.notes)
		out[i].momFn = momentsFn([]Part{{m, rs[i]}})
	}
	if err := p.addSwapped(ctx, m, rs, out); err != nil {
		return nil, err
	}
	return out, nil
}

// addSteps adds k to the steps planned (Options.Progress): every chain of
// compositions adds its own when it starts, so the total grows with the
// parts of a sequence and the swapped chain instead of being reset.
func (p *plan) addSteps(k int) {
	p.mu.Lock()
	p.steps += k
	p.mu.Unlock()
}

// powerSteps returns the compositions composePowers makes for rs: the
// squarings x × x up to the largest r, and one composition per further
// binary digit of each r.
func powerSteps(rs []int) int {
	maxR := 0
	for _, r := range rs {
		maxR = max(maxR, r)
	}
	bitsN := 0
	for (1 << bitsN) <= maxR {
		bitsN++
	}
	s := max(bitsN-1, 0)
	for _, r := range rs {
		s += max(popcount(r)-1, 0)
	}
	return s
}

// composePowers returns the r-fold compositions of leaf for every r in rs
// by binary powers shared between the rs.
func (p *plan) composePowers(ctx context.Context, leaf *list, rs []int) ([]*list, error) {
	maxR := 0
	for _, r := range rs {
		maxR = max(maxR, r)
	}
	var err error
	bitsN := 0
	for (1 << bitsN) <= maxR {
		bitsN++
	}
	// the powers whose bit no r uses are dropped once the next is built
	// (less memory held, fewer fresh pages)
	used := 0
	for _, r := range rs {
		used |= r
	}
	powers := []*list{leaf}
	for k := 1; k < bitsN; k++ {
		prev := powers[k-1]
		z, err := p.composePair(ctx, prev, prev)
		if err != nil {
			return nil, err
		}
		if used&(1<<(k-1)) == 0 {
			powers[k-1] = nil
		}
		powers = append(powers, z)
	}
	out := make([]*list, len(rs))
	for idx, r := range rs {
		var acc *list
		for k := 0; k < bitsN; k++ {
			if r&(1<<k) == 0 {
				continue
			}
			if acc == nil {
				acc = powers[k]
				continue
			}
			acc, err = p.composePair(ctx, acc, powers[k])
			if err != nil {
				return nil, err
			}
		}
		out[idx] = acc
	}
	return out, nil
}

// composeSequence composes the heterogeneous sequence parts.
func (p *plan) composeSequence(ctx context.Context, parts []Part) (*Result, error) {
	var acc, gacc *list
	p.swapDeferred = true // addSwappedSequence below
	// the whole sequence's steps are planned at once: each part's powers
	// and the compositions joining the parts, in each chain
	chains := 1
	if p.grid && p.opt.Lists != ListsGrid {
		chains = 2
	}
	planned := 0
	for _, part := range parts {
		planned += powerSteps([]int{part.Count})
	}
	p.addSteps(chains * (planned + len(parts) - 1))
	p.stepsPlanned = true
	for _, part := range parts {
		res, err := p.composeMany(ctx, part.Mechanism, []int{part.Count})
		if err != nil {
			return nil, err
		}
		if acc == nil && gacc == nil {
			acc, gacc = res[0].l, res[0].g
			continue
		}
		if acc != nil {
			if acc, err = p.composePair(ctx, acc, res[0].l); err != nil {
				return nil, err
			}
		}
		if gacc != nil {
			if gacc, err = p.composePair(ctx, gacc, res[0].g); err != nil {
				return nil, err
			}
		}
	}
	var res *Result
	if acc == nil {
		res = newGridResult(gacc, len(gacc.tau), p.gridLambda)
	} else {
		res = newResult(acc, !p.opt.DisableErrorCorrection, len(acc.tau), p.lambda).withGrid(gacc)
	}
	res.addNotes(p.notes)
	res.momFn = momentsFn(parts)
	if err := p.addSwappedSequence(ctx, parts, res); err != nil {
		return nil, err
	}
	return res, nil
}

func popcount(r int) int {
	c := 0
	for ; r > 0; r &= r - 1 {
		c++
	}
	return c
}

// compactNames turns the name counts into "name^count" terms.
func compactNames(names []nameCount) []string {
	out := make([]string, len(names))
	for i, nc := range names {
		out[i] = nc.name
		if nc.count > 1 {
			out[i] = fmt.Sprintf("%s^%d", nc.name, nc.count)
		}
	}
	return out
}
