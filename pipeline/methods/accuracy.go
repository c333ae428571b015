package methods

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/memory"
)

// The refinement of an accuracy target (EngineOptions.Accuracy).
const (
	// accuracyGrowth multiplies the size of a round whose path has no
	// rate measured yet (the chain's first round).
	accuracyGrowth = 2
	// powerGrowth is the least growth of the power path's transform length
	// from one round to the next where a rate predicts the length: one
	// step of its lengths, which step by 3/2 and 4/3 (2^k, 3·2^(k-1),
	// 2^(k+1)). Without a prediction (a trivial bracket) it doubles, as
	// the chain does: short lengths' widths are uneven (DP-SGD 0.6/0.016,
	// r 10^5: +Inf at 2^14 and 2^15, the power path not qualifying at
	// 3·2^13, 4.8e-4 at 2^16).
	powerGrowth = 4.0 / 3
	// maxAccuracyBuckets is the largest bucket count a round may use: the
	// largest a manifest accepts (2^26).
	maxAccuracyBuckets = 1 << 26
	// accuracyNarrowing: a round narrowed a bracket when its relative width
	// is at most this fraction of the previous round's. A round in which no
	// unmet bracket narrowed ends the refinement: what limits the bracket
	// is not the resolution (e.g. a delta bracket [0, tiny] in the far
	// tail, a bound set by the tail budget) or more buckets make it wider.
	accuracyNarrowing = 0.9
	// powerStartPoints is the transform length of the first round on the
	// power path: cheap (about a tenth of a round at 2^17 points), and wide
	// enough for its width to predict the length the target needs.
	powerStartPoints = 1 << 14
	// powerPredictedPoints is the longest first round of the power path
	// taken from the engine's prediction of the length the target needs
	// (backend.Engine.PowerStart, engine/powerpredict.go): up to it the
	// first round is that length instead of a probe at powerStartPoints
	// whose width the next round extrapolates (DP-SGD 4/0.01, r 65,536: at
	// 1.45e-4 3·2^14 points at once instead of 2^14 then 3·2^14, at 1e-5
	// 3·2^16 instead of 2^14, 2^17, then 3·2^16: 0.09 against 0.15 s of
	// CPU). Where the engine predicts nothing (heavy tails, eps beyond
	// about 20) or a longer length, the probe: a first round at 2^21
	// points costs over a second.
	powerPredictedPoints = 1 << 20
	// maxPowerPoints is the largest transform length of the power path
	// the refinement asks for (its peak RSS for DP-SGD was 301 MB at 2^21
	// points).
	maxPowerPoints = 1 << 22
	// powerRate is the exponent p of the power path's widths, w ~ N^-p:
	// the grid's slack is paid r times at the spacing 2R/N (engine/README.md,
	// section 6.1; measured within 1% on the DP-SGD and Gauss rows).
	powerRate = 2.0
	// powerSlowRate is the smallest exponent at which the worst bracket of
	// the power path narrowed between two rounds for the refinement to
	// extrapolate at that rate; below it (uneven widths at short lengths,
	// or a far-tail query set by the power's rounding bound rather than
	// the grid) the power path goes on at powerRate only while cheap
	// beside the chain (nextRound), and the chain takes over.
	powerSlowRate = 1.0
	// maxRate bounds a measured exponent used to extrapolate.
	maxRate = 3.0
	// accuracyMargin multiplies the size the rate predicts for the target
	// on the chain (a round just short of the target costs a whole round
	// more).
	accuracyMargin = 1.2
	// powerMargin is accuracyMargin of the power path: none, for its
	// lengths are rounded up to the next transform length, and below the length where
	// the rate N^-2 sets in the widths fall faster (DP-SGD 1/0.016, r
	// 10^5: 0.074 at 2^14, 0.0037 at 2^16, 2.0e-4 at 2^18, 5.5e-5 at 2^19),
	// so that N^-2 from a short transform overestimates the length needed.
	powerMargin = 1.0
	// powerRateMargin is accuracyMargin of the power path's jumps at a
	// measured rate: the local rate falls with the length (DP-SGD
	// 4/0.01, r 65,536: N^-2.0 from 2^14 to 2^18 points, N^-1.9 to 2^19,
	// where the width 1.01e-5 just missed 1e-5; 1/0.001, r 250,000:
	// N^-2.1 to 2^18, N^-1.5 from 2^19 to 2^20), and a round just short
	// of the target costs a round twice as long more.
	powerRateMargin = 1.15
	// powerRateDamping multiplies the rate measured between the power
	// path's last two rounds before it extrapolates a jump: that rate is a
	// secant over a long stretch of lengths, and the local rate falls
	// along it (DP-SGD 1/0.001, r 250,000 with its floor: N^-1.97 from
	// 2^14 to 2^19 points, then N^-1.5 to 2^20, N^-1.0 to 3·2^19 and
	// N^-0.67 to 2^21). Undamped, the target 9.6e-6 took a round at 3·2^19
	// points (1.07e-5) before 2^21 (8.9e-6); with transform lengths a
	// step of 4/3 or 3/2 apart, the rounding up no longer hides it. Damped
	// by 3/4 on DP-SGD 1.1/0.01, 4/0.01 and 1/0.001 at targets 1e-6 to
	// 3e-5, every round count stayed or fell.
	powerRateDamping = 0.75
	// maxJump bounds the growth of the size from one round to the next.
	maxJump = 64
	// powerFirstJump bounds the growth from the power path's first round,
	// whose jump rests on the assumed rate: a bracket set by something
	// other than the grid (a dominating pair's slack, a far tail) would
	// otherwise send the second round to the largest lengths. 32 (2^19
	// points from 2^14, about 0.4 s) lets the deep DP-SGD questions meet
	// 1e-4 in two rounds (1/0.001, r 250,000 with the question's floor:
	// 0.055 at 2^14, 1.6e-4 at 2^18, 4.6e-5 at 2^19).
	powerFirstJump = 32
)

// Accuracy says what an accuracy target reached for one number of
// compositions (Outcome.Accuracy).
type Accuracy struct {
	// Target is the requested relative width of the brackets.
	Target float64
	// Reached is the largest relative width (RelativeWidth) over the job's
	// eps(delta) and delta(eps) queries in the outcome reported: +Inf when
	// one of its bounds is trivial or missing.
	Reached float64
	// Met is Reached <= Target.
	Met bool
	// Rounds is the number of rounds computed for this r (cached ones
	// included).
	Rounds int
	// Path is what composed the round reported: manifest.PathPower
	// (Outcome.Buckets is then its transform length), manifest.PathChain
	// or backend.PathClosedForm (one leaf of Outcome.Buckets buckets).
	Path string
	// Stop says why the refinement ended before meeting the target ("" if
	// met).
	Stop string
}

// RelativeWidth returns the relative width (upper - lower)/upper of a
// bracket: of [eps_low, eps_up] for an eps(delta) query (delta = false),
// of [delta_low, delta_up] for a delta(eps) query (delta = true). A trivial
// bound (eps_up = +Inf, delta_up >= 1) and a missing lower bound (NaN) give
// +Inf: they never meet a target. An upper bound of 0 (and a lower bound of
// 0) gives 0: the bracket is exact. The result is never NaN.
func RelativeWidth(upper, lower float64, delta bool) float64 {
	switch {
	case math.IsNaN(upper) || math.IsNaN(lower) || math.IsInf(upper, 1) || math.IsInf(lower, -1):
		return math.Inf(1)
	case delta && upper >= 1:
		return math.Inf(1)
	case upper <= 0:
		return 0
	}
	return max(0, (upper-lower)/upper)
}

// widths returns the relative widths of the outcome's eps(delta) brackets,
// then of its delta(eps) brackets; an outcome that failed has none that
// could meet a target (a single +Inf).
func widths(o Outcome) []float64 {
	if o.Err != nil {
		return []float64{math.Inf(1)}
	}
	w := make([]float64, 0, len(o.Eps)+len(o.Delta))
	for _, b := range o.Eps {
		w = append(w, RelativeWidth(b.Upper, b.Lower, false))
	}
	for _, b := range o.Delta {
		w = append(w, RelativeWidth(b.Upper, b.Lower, true))
	}
	return w
}

// worst returns the largest of ws (0 when empty: a job without eps or delta
// queries meets any target).
func worst(ws []float64) float64 {
	m := 0.0
	for _, w := range ws {
		m = max(m, w)
	}
	return m
}

// powerPather is implemented by backends that compose on the engine's
// power path (backend.Engine): whether r compositions of m qualify for it.
type powerPather interface {
	PowerPath(ctx context.Context, m backend.Mechanism, r int, opt manifest.EngineOptions) (bool, error)
}

// closedFormer is implemented by backends that compose some mechanisms in
// closed form (backend.Engine): one leaf at the bucket count asked, at a
// cost independent of r.
type closedFormer interface {
	ClosedForm(m backend.Mechanism, r int, opt manifest.EngineOptions) bool
}

// closedFormStartBuckets is the first bucket count of a composition in
// closed form (one leaf). Measured on the untruncated Gauss pair at r 512
// (sigma 200 sqrt 2, delta at e^eps 1.01 and 1.5): relative widths 1.4e-3,
// 6.4e-4, 1.2e-4, 2.1e-5, 1.0e-5, 5.1e-6 at 1,024, 2,048, 3,072, 4,096,
// 8,192, 16,384 buckets, in 3 to 36 ms: 4,096 meets 1e-4 in one round.
const closedFormStartBuckets = 4096

// closedFormStart returns the first bucket count of a composition in
// closed form for the accuracy target: closedFormStartBuckets, or a
// quarter of it for targets of 1e-3 and above. The widths are uneven in
// the bucket count where eps falls in its cell (the widest at the largest
// eps, the far tail), and a round recomposes aligned at the largest eps
// whose bracket misses the target, exact there (alignedDeltas): 1,024
// buckets meet 1.9e-3 on the row above (1.4e-3, its e^eps 1.5) in about
// 4 ms, where 2,048 took 6-7 ms.
func closedFormStart(target float64) int {
	if target >= 1e-3 {
		return closedFormStartBuckets / 4
	}
	return closedFormStartBuckets
}

// step is one round's place in the refinement: a path and a size (the
// chain's bucket count or the power path's transform length).
type step struct {
	path string
	size int
}

// unit names the size of the path: "points" of the power path's
// transform, "buckets" of the chain.
func (s step) unit() string {
	if s.path == manifest.PathPower {
		return "points"
	}
	return "buckets"
}

// limit returns the largest size of the path.
func (s step) limit() int {
	if s.path == manifest.PathPower {
		return maxPowerPoints
	}
	return maxAccuracyBuckets
}

// firstSteps returns the first round of the refinement of spec for each
// number of compositions in rs. A bucket count in spec (Buckets > 0)
// starts the squaring chain there, as without a target. Buckets = 0
// starts cheap: a composition in closed form at closedFormStart,
// the power path at powerStartPoints for the r the backend says qualify
// for it, the chain at DefaultBuckets for the others. The backend is asked
// with the question's floor (eps, deltas), as the rounds compose: its
// range, and so whether the power path takes it, depends on the floor.
func (b *Buckets) firstSteps(ctx context.Context, spec manifest.MechanismSpec, mech backend.Mechanism, rs []int, eps, deltas []float64) ([]step, error) {
	out := make([]step, len(rs))
	for i := range out {
		out[i] = step{manifest.PathChain, spec.Engine.Buckets}
	}
	if spec.Engine.Buckets > 0 {
		return out, nil
	}
	pp, ok := b.States.Backend.(powerPather)
	cf, isCF := b.States.Backend.(closedFormer)
	for i, r := range rs {
		out[i].size = manifest.DefaultBuckets
		if isCF && cf.ClosedForm(mech, r, spec.Engine) {
			out[i].size = closedFormStart(spec.Engine.Accuracy)
			continue
		}
		if !ok {
			continue
		}
		e := spec.Engine
		if df, ok := b.States.Backend.(deltaFloorer); ok && e.TailBudget == 0 && e.Factor == 0 && e.DeltaFloor == 0 && len(eps)+len(deltas) > 0 {
			f, err := df.DeltaFloor(ctx, mech, r, eps, deltas, e)
			if err != nil {
				return nil, fmt.Errorf("choosing the tail budget: %w", err)
			}
			e.DeltaFloor = f
		}
		// a predicted length qualifies (the prediction is made on the
		// power path's plan for it), and spares the question at the
		// longest length
		n, err := b.powerStart(ctx, mech, r, eps, deltas, e)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out[i] = step{manifest.PathPower, n}
			continue
		}
		q, err := pp.PowerPath(ctx, mech, r, e)
		if err != nil {
			return nil, err
		}
		if q {
			out[i] = step{manifest.PathPower, powerStartPoints}
		}
	}
	return out, nil
}

// powerStarter is the backend's prediction of the power path's length
// for a target (backend.Engine.PowerStart).
type powerStarter interface {
	PowerStart(ctx context.Context, m backend.Mechanism, r int, eps, deltas []float64, target float64, minN, maxN int, opt manifest.EngineOptions) (int, error)
}

// powerStart returns the first round's length on the power path for r
// compositions of mech with the engine options e (the question's floor
// set) where the backend predicts the target met at a length of at most
// powerPredictedPoints (at least powerStartPoints); 0 where it predicts
// none (the probe at powerStartPoints, if the power path qualifies).
func (b *Buckets) powerStart(ctx context.Context, mech backend.Mechanism, r int, eps, deltas []float64, e manifest.EngineOptions) (int, error) {
	ps, ok := b.States.Backend.(powerStarter)
	if !ok || !(e.Accuracy > 0 && e.Accuracy < 1) {
		return 0, nil
	}
	n, err := ps.PowerStart(ctx, mech, r, eps, deltas, e.Accuracy, powerStartPoints, powerPredictedPoints, e)
	if err != nil {
		return 0, fmt.Errorf("predicting the first length: %w", err)
	}
	return n, nil
}

// deltaFloorer is the backend's choice of the question's floor
// (backend.Engine.DeltaFloor).
type deltaFloorer interface {
	DeltaFloor(ctx context.Context, m backend.Mechanism, r int, eps, deltas []float64, opt manifest.EngineOptions) (float64, error)
}

// rate returns the exponent p with which a bracket narrowed from width
// prev at size n0 to w at size n1 (w = prev (n1/n0)^-p); NaN when either
// width is not finite and positive.
func rate(prev, w float64, n0, n1 int) float64 {
	if !(prev > 0 && w > 0) || math.IsInf(prev, 0) || math.IsInf(w, 0) || n1 <= n0 {
		return math.NaN()
	}
	return math.Log(prev/w) / math.Log(float64(n1)/float64(n0))
}

// nextSize returns the size at which a bracket of width w at size n
// meets target if it narrows like size^-p, times margin, at least growth
// times n and at most maxJump times n; without a rate (p <= 0) or a finite
// width, accuracyGrowth times n (a blind step).
func nextSize(w, p, target, margin, growth float64, n int) float64 {
	f := float64(accuracyGrowth)
	if w > target && !math.IsInf(w, 1) && p > 0 {
		f = math.Pow(w/target, 1/p) * margin
	}
	return float64(n) * min(float64(maxJump), max(growth, f))
}

// roundSize rounds a size up to one the path composes: a transform length
// of the power path (2^k or 3·2^k, backend.PowerLength) from
// powerStartPoints to 2 maxPowerPoints, a multiple of 4 with two
// significant digits for the chain (so that targets near each other share
// rounds in the cache).
func roundSize(path string, x float64) int {
	if path == manifest.PathPower {
		if !(x <= maxPowerPoints*2) {
			return maxPowerPoints * 2
		}
		return backend.PowerLength(max(powerStartPoints, int(math.Ceil(x))))
	}
	scale := math.Pow(10, math.Max(0, math.Floor(math.Log10(x))-1))
	n := int(math.Ceil(x/scale-1e-9) * scale)
	return (n + 3) / 4 * 4
}

// refine computes the job in rounds of growing size until every bracket
// of the job (every r, eps and delta) meets the target. Each number of
// compositions that starts on the power path (firstSteps) refines alone,
// those that start on the chain together: each round composes those whose
// brackets are still wider than the target on one path at one size.
// Each round is the path's that composed it (a round asked of the power
// path may be the chain's: refineFrom), and nextRound (refinepolicy.go)
// chooses the next from the rounds so far, their widest brackets among
// the unmet r and their CPU cost: the power path at its measured rate (or
// its assumed N^-2 while cheap beside the chain), the chain at its own,
// within a CPU budget. The refinement stops when every bracket meets the
// target, when nextRound says why it stops (no narrowing, a rate that
// would not reach the target by the largest size, the largest size, a
// round beyond the CPU budget), when the next round would exceed the
// memory budget (MemoryNeed > Budget), or when a later round fails. Each
// round goes through the state cache under its own path and size (a
// cached round counts at its prior cost). For each r it reports the round
// with the narrowest worst bracket (its size is in Outcome.Buckets, its
// path in Accuracy.Path), intersected with the other methods' bounds
// (applyOthers; the rounds before are not), with Outcome.Accuracy set and
// a sentence on the accuracy reached appended to the note.
func (b *Buckets) refine(ctx context.Context, job Job, mech backend.Mechanism) ([]Outcome, error) {
	spec := job.Instance.Spec
	target := spec.Engine.Accuracy
	rs := job.Compositions
	best := make([]Outcome, len(rs))
	bestW := make([][]float64, len(rs))
	bestPath := make([]string, len(rs))
	rounds := make([]int, len(rs))
	stops := make([]string, len(rs))
	first, err := b.firstSteps(ctx, spec, mech, rs, job.Eps, job.Delta)
	if err != nil {
		return nil, err
	}
	announced := 0
	// each r that starts on the power path refines alone (the power path
	// composes every r on its own, so each may take its own lengths), then
	// those that start on the chain together (they share its levels)
	var groups [][]int
	var chain []int
	for i, st := range first {
		if st.path == manifest.PathPower {
			groups = append(groups, []int{i})
		} else {
			chain = append(chain, i)
		}
	}
	if len(chain) > 0 {
		groups = append(groups, chain)
	}
	for _, pending := range groups {
		stop, err := b.refineFrom(ctx, job, mech, first[pending[0]], pending, &announced, best, bestW, bestPath, rounds)
		if err != nil {
			return nil, err
		}
		for _, i := range pending {
			stops[i] = stop
		}
	}
	// the other methods' bounds (at most 20-30 ms for RDP, about 1.5 s
	// for DP-SGD's loss-tail test) on the rounds reported only: they
	// narrow brackets wider than otherWidth, which a met target of at
	// most otherWidth never has
	applyOthers(spec, job, best)
	for i := range best {
		o := &best[i]
		if o.Err != nil {
			continue
		}
		acc := &Accuracy{Target: target, Reached: worst(widths(*o)), Rounds: rounds[i], Path: bestPath[i]}
		acc.Met = acc.Reached <= target
		if !acc.Met {
			acc.Stop = stops[i]
		}
		o.Accuracy = acc
		o.Note = joinNote(o.Note, acc.Sentence(o.Buckets))
	}
	return best, nil
}

// refineFrom runs the rounds of refine for the numbers of compositions
// job.Compositions[i], i in pending, from the step cur, recording each
// one's best outcome, its widths and path, and its rounds in the slices
// of refine (indexed like job.Compositions); announced counts the rounds
// announced to job.Round. Each round's path is the one that composed it
// (Outcome.path: a round asked of the power path that the chain composed
// is the chain's, and the power path composes no later round), its cost
// the process's CPU time while it ran (its prior when cached), and
// nextRound chooses the next. It returns why it stopped before every
// bracket met the target ("" if they all did).
func (b *Buckets) refineFrom(ctx context.Context, job Job, mech backend.Mechanism, cur step, pending []int, announced *int,
	best []Outcome, bestW [][]float64, bestPath []string, rounds []int) (string, error) {
	spec := job.Instance.Spec
	target := spec.Engine.Accuracy
	rs := job.Compositions
	plan := refinePlan{target: target, powerOK: cur.path == manifest.PathPower}
	var worsts []map[int]float64 // each round's worst width of each r composed
	ok := 0                      // rounds that succeeded
	stop := ""
	for round := 1; ; round++ {
		if job.Round != nil {
			*announced++
			job.Round(*announced, cur.size, cur.unit())
		}
		rspec := spec
		rspec.Engine.Buckets, rspec.Engine.Path = cur.size, cur.path
		prs := make([]int, len(pending))
		for k, i := range pending {
			prs[k] = rs[i]
		}
		outs, err := b.round(ctx, job, mech, rspec, prs, false)
		// the round's cost is its prior, not the CPU it took: the rounds,
		// and so the brackets, depend on the question alone (not on the
		// machine's speed, its load or the jobs running beside it)
		cost := plan.prior(cur.path, cur.size)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			if cur.path == manifest.PathPower {
				// the chain may compose what the power path could not
				plan.powerOK, plan.lost = false, plan.lost+cost
				next, why := nextRound(plan)
				if why != "" {
					if ok == 0 {
						return "", err
					}
					stop = why
					break
				}
				cur = next
				continue
			}
			if ok == 0 {
				return "", err
			}
			stop = fmt.Sprintf("the round at %d %s failed: %v", cur.size, cur.unit(), err)
			break
		}
		ok++
		ran, label, cached := cur.path, cur.path, true
		for _, o := range outs {
			cached = cached && o.Cached
			if o.path != "" {
				label = o.path
			}
		}
		if label != manifest.PathPower {
			ran = manifest.PathChain // the chain, or one leaf in closed form
		}
		if cur.path == manifest.PathPower && ran != manifest.PathPower {
			// asked of the power path, composed by the chain: the power
			// path did not qualify at this length; once more at
			// powerRetryPoints after a shorter round
			plan.powerOK = !plan.fellBack && cur.size < powerRetryPoints
			plan.fellBack = true
			plan.fallbacks++
			plan.fellBackAt = max(plan.fellBackAt, cur.size)
			if job.Round != nil {
				job.Round(*announced, cur.size, "buckets (the chain: the power path does not qualify at this length)")
			}
		}
		cost = plan.prior(ran, cur.size)
		ws := map[int]float64{}
		var still []int
		for k, i := range pending {
			o := outs[k]
			w := widths(o)
			rounds[i] = round
			ws[i] = worst(w)
			if bestW[i] == nil || best[i].Err != nil && o.Err == nil || o.Err == nil && worst(w) <= worst(bestW[i]) {
				best[i], bestW[i], bestPath[i] = o, w, label
			}
			if best[i].Err == nil && worst(bestW[i]) > target {
				still = append(still, i)
			}
		}
		worsts = append(worsts, ws)
		plan.rounds = append(plan.rounds, roundStat{path: ran, size: cur.size, cost: cost})
		pending = still
		if len(pending) == 0 {
			break
		}
		// the rounds' worst brackets among the r still pending
		plan.maxR = 0
		for _, i := range pending {
			plan.maxR = max(plan.maxR, rs[i])
		}
		for j := range plan.rounds {
			w := 0.0
			for _, i := range pending {
				w = max(w, worsts[j][i])
			}
			plan.rounds[j].worst = w
		}
		next, why := nextRound(plan)
		if why != "" {
			stop = why
			break
		}
		nspec := spec
		nspec.Engine.Buckets, nspec.Engine.Path = next.size, next.path
		if need, budget := b.MemoryNeed(nspec), b.budget(); budget > 0 && need > budget {
			stop = fmt.Sprintf("the next round, %d %s, needs about %s, more than the memory budget %s",
				next.size, next.unit(), memory.FormatBytes(need), memory.FormatBytes(budget))
			break
		}
		cur = next
	}
	return stop, nil
}

// canReach reports whether a bracket of relative width w at size n, which
// narrowed like size^-p between the last two rounds, would meet target by
// the size limit if it went on narrowing at that rate. Brackets set by the
// grid's slack narrow like size^-2, those set by error bounds more
// slowly; a rate observed once is the estimate the refinement stops on, so
// that a target it cannot meet ends with what it reached instead of
// growing to the limit.
func canReach(w, p, target float64, n, limit int) bool {
	return w*math.Pow(float64(limit)/float64(n), -p) <= target
}

// Sentence describes what the target reached with the given size (the
// chain's bucket count or the power path's transform length), for the
// note column of runs.parquet: "accuracy 0.001 met at 400000 buckets (3
// rounds)", "accuracy 0.0001 met at 131072 points of the power path (2
// rounds)" or "accuracy 0.001 not met: reached 0.0031 at 1600000 buckets
// (5 rounds; the next round, ... more than the memory budget 8 GiB)".
func (a *Accuracy) Sentence(buckets int) string {
	rounds, target := a.rounds(), strconv.FormatFloat(a.Target, 'g', -1, 64)
	at := fmt.Sprintf("%d buckets", buckets)
	if a.Path == manifest.PathPower {
		at = fmt.Sprintf("%d points of the power path", buckets)
	}
	if a.Met {
		return fmt.Sprintf("accuracy %s met at %s (%s)", target, at, rounds)
	}
	reached := formatUp(a.Reached)
	if math.IsInf(a.Reached, 1) {
		reached = "+Inf (a trivial or missing bound)"
	}
	why := rounds
	if a.Stop != "" {
		why += "; " + a.Stop
	}
	return fmt.Sprintf("accuracy %s not met: reached %s at %s (%s)", target, reached, at, why)
}

// Short describes what the target reached in a few words: "accuracy
// 0.0001 met in 3 rounds", "accuracy 0.0001 not met (reached 0.00026 in 2
// rounds)". The reasons are in Sentence.
func (a *Accuracy) Short() string {
	rounds, target := a.rounds(), strconv.FormatFloat(a.Target, 'g', -1, 64)
	if a.Met {
		return fmt.Sprintf("accuracy %s met in %s", target, rounds)
	}
	return fmt.Sprintf("accuracy %s not met (reached %s in %s)", target, formatUp(a.Reached), rounds)
}

// rounds returns "1 round" or "N rounds".
func (a *Accuracy) rounds() string {
	if a.Rounds == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", a.Rounds)
}

// formatUp formats a positive width with two significant digits, rounded
// up (a width reached is not understated): 0.0475 is "0.048".
func formatUp(x float64) string {
	if !(x > 0) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
	scale := math.Pow(10, math.Floor(math.Log10(x))-1)
	return strconv.FormatFloat(math.Ceil(x/scale*(1-1e-12))*scale, 'g', 2, 64)
}

// joinNote appends a sentence to a note ("; " between).
func joinNote(note, s string) string {
	if note == "" {
		return s
	}
	return note + "; " + s
}
