package methods

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// The cost-aware choice of an accuracy target's next round (nextRound).
const (
	// roundBudgetFloor and roundBudgetGrowth bound the predicted CPU cost
	// of a round: one predicted at most roundBudgetFloor seconds always
	// runs, a dearer one only while it is at most roundBudgetGrowth times
	// the CPU the refinement spent so far; beyond both the refinement
	// stops with the best bracket reached (a target the rates predict out
	// of reach in a few seconds stops in about that time, and a costly
	// target is approached in rounds whose total stays within about
	// 1 + 1/roundBudgetGrowth of the last).
	roundBudgetFloor  = 4.0
	roundBudgetGrowth = 8.0
	// powerCheapFactor: a round of the power path at its assumed rate
	// (powerRate, its widths having narrowed more slowly than
	// powerSlowRate or not at all between its last two rounds, as they
	// may at short lengths before the grid's slack sets them) runs only
	// when predicted at most 1/powerCheapFactor of the chain's first
	// round.
	powerCheapFactor = 2.0
	// maxAssumedPoints is the largest transform length of a round of the
	// power path at its assumed rate.
	maxAssumedPoints = 1 << 21
	// powerRetryPoints is the length at which the power path is asked
	// again after the chain composed a shorter round asked of it (the
	// power path's lower pair may lose too much mass on a coarse grid,
	// e.g. DP-SGD 0.55/0.004, r 10^5 at 2^14 points, and not on a finer
	// one): where it falls back again, its round is the chain's at about
	// DefaultBuckets, the chain's own first count.
	powerRetryPoints = 1 << 17
)

// powerPrior returns the CPU seconds a round of the power path at n
// points is expected to cost before any was measured (DP-SGD rows:
// 0.02-0.2 s from 2^14 to 2^19 points, the queries included).
func powerPrior(n int) float64 { return 0.02 + 0.35e-6*float64(n) }

// chainPrior returns the CPU seconds a round of the chain at n buckets
// for up to r compositions is expected to cost before any was measured:
// a part that does not grow with n and one that grows like n (DP-SGD 1/1e-4,
// r 2^30: 0.45, 1.2, 1.8 and 2.5 s at 16,384, 65,536, 100,000 and
// 131,072 buckets; about 1.3 s at 100,000 buckets for r 10^5).
func chainPrior(n, r int) float64 {
	return 0.15 + float64(n)/1e5*(0.8+0.03*math.Log2(float64(max(r, 2))))
}

// roundStat is one round of the refinement as nextRound sees it.
type roundStat struct {
	// path is what composed the round: manifest.PathPower or
	// manifest.PathChain (the closed form counts as the chain).
	path string
	size int
	// cost is the round's cost in CPU seconds as the refinement counts
	// it: its prior (powerPrior, chainPrior), not the CPU it took, so
	// that the rounds and the brackets depend on the question alone
	// (not on the machine, its load, the jobs beside it or the cache).
	cost float64
	// worst is the widest bracket of the numbers of compositions still
	// pending (+Inf: a trivial or missing bound).
	worst float64
}

// refinePlan is what nextRound decides on.
type refinePlan struct {
	target float64
	// maxR is the largest number of compositions pending (chainPrior).
	maxR int
	// powerOK: the power path may compose the next round (it composed
	// the rounds asked of it so far, or the chain composed one shorter
	// than powerRetryPoints).
	powerOK bool
	// fellBack: a round asked of the power path was composed by the
	// chain (the power path did not qualify at its length); fallbacks
	// counts those rounds (rounds of path PathChain) and fellBackAt is
	// the largest of their sizes.
	fellBack   bool
	fallbacks  int
	fellBackAt int
	// lost is the prior cost of rounds that failed.
	lost float64
	// rounds are the rounds so far, the last one last; worst is over the
	// numbers of compositions still pending.
	rounds []roundStat
}

// candidate is a possible next round with its predicted cost.
type candidate struct {
	step
	cost    float64 // predicted CPU seconds
	assumed bool    // the power path at its assumed rate, not a measured one
	// need is the size at which the bracket is predicted to meet the
	// target at the rate used (0 when no rate is known).
	need float64
}

// spent returns the CPU seconds of the rounds so far.
func (p refinePlan) spent() float64 {
	s := p.lost
	for _, r := range p.rounds {
		s += r.cost
	}
	return s
}

// chainedOwn reports whether the chain composed a round of its own (not
// one asked of the power path).
func (p refinePlan) chainedOwn() bool {
	return len(p.on(manifest.PathChain)) > p.fallbacks
}

// on returns the rounds composed on path.
func (p refinePlan) on(path string) []roundStat {
	var out []roundStat
	for _, r := range p.rounds {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

// prior returns the prior cost of a round of path at size.
func (p refinePlan) prior(path string, size int) float64 {
	if path == manifest.PathPower {
		return powerPrior(size)
	}
	return chainPrior(size, p.maxR)
}

// cost predicts the CPU seconds of a round of path at size: from the last
// round on that path scaled like the path's prior (a fixed part and one
// like N: N log N from a short round overstated the chain's cost at
// 131,072 buckets 1.8 times), else from the path's prior times the ratio
// of measured to prior cost of the last round (the machine's speed).
func (p refinePlan) cost(path string, size int) float64 {
	if rs := p.on(path); len(rs) > 0 {
		l := rs[len(rs)-1]
		return l.cost * p.prior(path, size) / p.prior(path, l.size)
	}
	speed := 1.0
	if n := len(p.rounds); n > 0 {
		l := p.rounds[n-1]
		if pr := p.prior(l.path, l.size); l.cost > 0 && pr > 0 {
			speed = l.cost / pr
		}
	}
	return p.prior(path, size) * speed
}

// best returns the narrowest worst bracket of the rounds on path ("" for
// every path).
func (p refinePlan) best(path string) float64 {
	b := math.Inf(1)
	for _, r := range p.rounds {
		if path == "" || r.path == path {
			b = min(b, r.worst)
		}
	}
	return b
}

// powerCandidate returns the next round of the power path, or why there
// is none: powerRetryPoints after the chain composed a shorter round asked
// of it (costed as the chain's, which it may again be). Its length meets
// the target at the rate measured between its last two rounds times
// powerRateMargin (after one round at N^-2, powerRate, without a margin
// and at most powerFirstJump times the first length); where that rate is
// below powerSlowRate or unknown, at the assumed rate up to
// maxAssumedPoints (assumed: nextRound takes it only before the chain's
// first round and when cheap beside it).
func (p refinePlan) powerCandidate() (candidate, string) {
	rs := p.on(manifest.PathPower)
	if p.powerOK && len(rs) == 0 && p.fellBack {
		// asked again at a finer grid; it may fall back to the chain
		n := powerRetryPoints
		return candidate{step: step{manifest.PathPower, n}, cost: max(p.cost(manifest.PathPower, n), p.cost(manifest.PathChain, n))}, ""
	}
	if !p.powerOK || len(rs) == 0 {
		return candidate{}, "the power path does not compose this question"
	}
	l := rs[len(rs)-1]
	rate := powerRate
	assumed := false
	limit := maxPowerPoints
	if len(rs) >= 2 {
		m := rate2(rs[len(rs)-2], l)
		if m >= powerSlowRate {
			rate = min(m, maxRate)
		} else {
			assumed, limit = true, maxAssumedPoints
		}
	}
	if l.size >= limit {
		return candidate{}, fmt.Sprintf("%d points is the largest length of the power path at its rate", l.size)
	}
	if !assumed && len(rs) >= 2 && !canReach(l.worst, rate, p.target, l.size, maxPowerPoints) {
		return candidate{}, fmt.Sprintf("at the rate the brackets narrowed from %d to %d points, none would meet the target by %d points",
			rs[len(rs)-2].size, l.size, maxPowerPoints)
	}
	margin, jumpRate := powerMargin, rate
	if len(rs) >= 2 && !assumed {
		margin, jumpRate = powerRateMargin, rate*powerRateDamping
	}
	// one length up at least where a rate predicts the length; a doubling
	// where the widths narrowed more slowly than powerSlowRate (finer
	// steps would only add rounds where the grid does not set the width)
	growth := powerGrowth
	if assumed {
		growth = accuracyGrowth
	}
	want := nextSize(l.worst, jumpRate, p.target, margin, growth, l.size)
	if len(rs) == 1 {
		// the first jump, at the assumed rate from a short transform
		want = min(want, powerFirstJump*float64(l.size))
	}
	n := min(roundSize(manifest.PathPower, max(want, growth*float64(l.size))), limit)
	cost := p.cost(manifest.PathPower, n)
	if f := p.fellBackAt; f >= n {
		// a round asked of it at f fell back to the chain: asked again one
		// length finer at least (costed as the chain's, which it may again
		// be)
		n = min(roundSize(manifest.PathPower, powerGrowth*float64(f)), limit)
		cost = max(p.cost(manifest.PathPower, n), p.cost(manifest.PathChain, n))
	}
	return candidate{step: step{manifest.PathPower, n}, cost: cost, assumed: assumed,
		need: needSize(l.worst, jumpRate, p.target, margin, l.size)}, ""
}

// chainCandidate returns the next round of the chain, or why there is
// none: DefaultBuckets for its first round (and after a round the power
// path left to the chain at a smaller count), then a doubling, then the
// count at which the rate measured between its last two rounds meets the
// target (times accuracyMargin, at most maxJump times the count). The
// chain's first round after the power path's has to narrow the power
// path's best bracket (accuracyNarrowing), each later one its previous
// round's, and the rate has to reach the target by the largest count.
func (p refinePlan) chainCandidate() (candidate, string) {
	rs := p.on(manifest.PathChain)
	c := manifest.PathChain
	mk := func(n int, need float64) (candidate, string) {
		return candidate{step: step{c, n}, cost: p.cost(c, n), need: need}, ""
	}
	if len(rs) == 0 {
		return mk(manifest.DefaultBuckets, 0)
	}
	l := rs[len(rs)-1]
	if len(rs) == 1 {
		if p.fellBack && l.size < manifest.DefaultBuckets {
			// a short round the power path left to the chain
			return mk(manifest.DefaultBuckets, 0)
		}
		if pb := p.best(manifest.PathPower); !math.IsInf(pb, 1) && !narrowed(pb, l.worst) {
			return candidate{}, fmt.Sprintf("the chain at %d buckets narrowed no bracket of the power path's", l.size)
		}
		if l.size >= maxAccuracyBuckets {
			return candidate{}, fmt.Sprintf("%d buckets is the largest size", l.size)
		}
		return mk(min(roundSize(c, accuracyGrowth*float64(l.size)), maxAccuracyBuckets), 0)
	}
	pr := rs[len(rs)-2]
	if !narrowed(pr.worst, l.worst) {
		return candidate{}, fmt.Sprintf("no bracket narrowed from %d to %d buckets", pr.size, l.size)
	}
	rate := rate2(pr, l)
	if rate > 0 && !canReach(l.worst, rate, p.target, l.size, maxAccuracyBuckets) {
		return candidate{}, fmt.Sprintf("at the rate the brackets narrowed from %d to %d buckets, none would meet the target by %d buckets",
			pr.size, l.size, maxAccuracyBuckets)
	}
	if l.size >= maxAccuracyBuckets {
		return candidate{}, fmt.Sprintf("%d buckets is the largest size", l.size)
	}
	if !(rate > 0) {
		rate = 0 // no rate known (a trivial bound before): double
	}
	want := nextSize(l.worst, min(rate, maxRate), p.target, accuracyMargin, accuracyGrowth, l.size)
	return mk(min(roundSize(c, max(want, accuracyGrowth*float64(l.size))), maxAccuracyBuckets),
		needSize(l.worst, min(rate, maxRate), p.target, accuracyMargin, l.size))
}

// narrowed reports whether a bracket of width w narrowed from prev: to
// at most accuracyNarrowing times it (a trivial bound, +Inf, to a finite
// one).
func narrowed(prev, w float64) bool { return w < prev && w <= accuracyNarrowing*prev }

// rate2 returns the exponent with which the worst bracket narrowed from
// round a to round b (rate).
func rate2(a, b roundStat) float64 { return rate(a.worst, b.worst, a.size, b.size) }

// needSize returns the size at which a bracket of width w at size n meets
// target narrowing like size^-p, times margin (no bound on the jump); 0
// without a rate or a finite width.
func needSize(w, p, target, margin float64, n int) float64 {
	if !(p > 0) || math.IsInf(w, 1) || !(w > target) {
		return 0
	}
	return float64(n) * math.Pow(w/target, 1/p) * margin
}

// nextRound chooses the next round of the refinement, or says why it
// stops. The candidates are the power path's next round (while it
// composes the question) and the chain's (powerCandidate,
// chainCandidate). The power path's round is taken at a rate measured
// (at least powerSlowRate), or at its assumed rate before the chain's
// first round where it is predicted to cost at most 1/powerCheapFactor of
// that round; the chain's otherwise. The round taken must be
// predicted to cost at most roundBudgetFloor seconds or roundBudgetGrowth
// times the CPU spent so far; if it is not, a smaller round of the same
// path that fits in what remains of roundBudgetFloor (at least a
// doubling of the path's last size) is taken instead, and without one the
// refinement stops: what it would cost, and the size the rate predicts
// for the target, go in the reason.
func nextRound(p refinePlan) (step, string) {
	pc, pwhy := p.powerCandidate()
	cc, cwhy := p.chainCandidate()
	chained := p.chainedOwn()
	var c candidate
	switch {
	case pwhy == "" && (!pc.assumed || !chained && pc.cost*powerCheapFactor <= cc.cost):
		c = pc
	case cwhy == "":
		c = cc
	case chained || pwhy == "":
		return step{}, cwhy
	default:
		return step{}, pwhy
	}
	spent := p.spent()
	if allow := max(roundBudgetFloor, roundBudgetGrowth*spent); c.cost > allow {
		if s, ok := p.smaller(c, roundBudgetFloor-spent); ok {
			return s, ""
		}
		return step{}, p.overBudget(c, spent)
	}
	return c.step, ""
}

// smaller returns the largest round of c's path below c's size predicted
// to cost at most budget seconds, if it is at least accuracyGrowth
// (powerGrowth on the power path) times the path's last size.
func (p refinePlan) smaller(c candidate, budget float64) (step, bool) {
	rs := p.on(c.path)
	if budget <= 0 || len(rs) == 0 {
		return step{}, false
	}
	floor := accuracyGrowth * float64(rs[len(rs)-1].size)
	if c.path == manifest.PathPower {
		floor = powerGrowth * float64(rs[len(rs)-1].size)
	}
	n := c.size
	for n >= int(floor) && p.cost(c.path, n) > budget {
		m := backend.PowerLength(n * 2 / 3) // the next shorter transform length
		if c.path == manifest.PathChain {
			m = roundSize(c.path, 0.8*float64(n))
		}
		if m >= n {
			return step{}, false
		}
		n = m
	}
	if n < int(floor) || n >= c.size {
		return step{}, false
	}
	return step{c.path, n}, true
}

// overBudget says why the refinement stops before the round c: its
// predicted cost, the budget, and the size the rate predicts for the
// target (with the chain, --buckets composes it directly).
func (p refinePlan) overBudget(c candidate, spent float64) string {
	s := fmt.Sprintf("the next round, %d %s, is predicted to take about %s s of CPU, more than %g s and %g times the %s s spent",
		c.size, c.unit(), formatSeconds(c.cost), roundBudgetFloor, roundBudgetGrowth, formatSeconds(spent))
	if c.need > 0 {
		need := step{c.path, roundSize(c.path, c.need)}
		switch {
		case need.size <= c.size:
			s += "; the rate measured so far extrapolates to the target there (not a promise: rates fall at large sizes)"
			if c.path == manifest.PathChain {
				s += fmt.Sprintf(" (--buckets %d)", c.size)
			}
			return s
		case need.size > need.limit():
			return s + fmt.Sprintf("; the rate measured so far extrapolates to the target beyond %d %s", need.limit(), need.unit())
		}
		s += fmt.Sprintf("; the rate measured so far extrapolates to the target at about %d %s, about %s s", need.size, need.unit(), formatSeconds(p.cost(c.path, need.size)))
		if c.path == manifest.PathChain {
			s += fmt.Sprintf(" (--buckets %d)", need.size)
		}
	}
	return s
}

// formatSeconds formats seconds with two significant digits, whole
// seconds from 10.
func formatSeconds(x float64) string {
	if x >= 10 {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 2, 64)
}
