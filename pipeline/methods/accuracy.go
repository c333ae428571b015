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
	// accuracyGrowth multiplies the bucket count from one round to the
	// next (a multiple of 4 stays one).
	accuracyGrowth = 2
	// maxAccuracyBuckets is the largest bucket count a round may use: the
	// largest a manifest accepts (2^26).
	maxAccuracyBuckets = 1 << 26
	// accuracyNarrowing: a round narrowed a bracket when its relative width
	// is at most this fraction of the previous round's. A round in which no
	// unmet bracket narrowed ends the refinement: what limits the bracket
	// is not the resolution (e.g. a delta bracket [0, tiny] in the far
	// tail, a bound set by the tail budget) or more buckets make it wider.
	accuracyNarrowing = 0.9
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
	// Rounds is the number of bucket counts tried for this r (cached ones
	// included).
	Rounds int
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

// refine computes the job at growing bucket counts: the first round at the
// spec's count, each next one at accuracyGrowth times more, for the numbers
// of compositions whose brackets are still wider than the target. It stops
// when every bracket of the job (every r, eps and delta) meets the target,
// when no unmet bracket narrowed in a round (accuracyNarrowing), when the
// next round would exceed the memory budget (MemoryNeed > Budget) or
// maxAccuracyBuckets, or when a later round fails. Each round goes through
// the state cache under its own bucket count, so a rerun computes nothing.
// For each r it reports the round with the narrowest worst bracket (the
// bucket count used is in Outcome.Buckets), with Outcome.Accuracy set and
// a sentence on the accuracy reached appended to the note.
func (b *Buckets) refine(ctx context.Context, job Job, mech backend.Mechanism) ([]Outcome, error) {
	spec := job.Instance.Spec
	target := spec.Engine.Accuracy
	rs := job.Compositions
	best := make([]Outcome, len(rs))
	bestW := make([][]float64, len(rs))
	lastW := make([][]float64, len(rs))
	rounds := make([]int, len(rs))
	pending := make([]int, len(rs))
	for i := range rs {
		pending[i] = i
	}
	stop := ""
	cur := spec
	if cur.Engine.Buckets == 0 {
		// the refinement doubles the chain's bucket count
		cur.Engine.Buckets = manifest.DefaultBuckets
	}
	for round := 1; ; round++ {
		if job.Round != nil {
			job.Round(round, cur.Engine.Buckets)
		}
		prs := make([]int, len(pending))
		for k, i := range pending {
			prs[k] = rs[i]
		}
		outs, err := b.round(ctx, job, mech, cur, prs)
		if err != nil {
			if round == 1 || ctx.Err() != nil {
				return nil, err
			}
			stop = fmt.Sprintf("the round at %d buckets failed: %v", cur.Engine.Buckets, err)
			break
		}
		narrowed := false
		reachable := false // some unmet bracket may meet the target within the limits
		// the last count of the doublings (the memory budget has its own
		// stop)
		limit := cur.Engine.Buckets
		for limit*accuracyGrowth <= maxAccuracyBuckets {
			limit *= accuracyGrowth
		}
		var still []int
		for k, i := range pending {
			o := outs[k]
			w := widths(o)
			rounds[i] = round
			if rounds[i] == 1 || best[i].Err != nil && o.Err == nil || o.Err == nil && worst(w) <= worst(bestW[i]) {
				best[i], bestW[i] = o, w
			}
			if prev := lastW[i]; prev != nil {
				for q := range min(len(w), len(prev)) {
					if prev[q] > target && (w[q] <= target || w[q] < prev[q] && w[q] <= accuracyNarrowing*prev[q]) {
						narrowed = true
					}
					if w[q] > target && w[q] < prev[q] && canReach(w[q], w[q]/prev[q], target, cur.Engine.Buckets, limit) {
						reachable = true
					}
				}
			}
			lastW[i] = w
			if best[i].Err == nil && worst(bestW[i]) > target {
				still = append(still, i)
			}
		}
		pending = still
		if len(pending) == 0 {
			break
		}
		if round > 1 && !narrowed {
			stop = fmt.Sprintf("no bracket narrowed from %d to %d buckets", cur.Engine.Buckets/accuracyGrowth, cur.Engine.Buckets)
			break
		}
		if round > 1 && !reachable {
			stop = fmt.Sprintf("at the rate the brackets narrowed from %d to %d buckets, none would meet the target by %d buckets", cur.Engine.Buckets/accuracyGrowth, cur.Engine.Buckets, limit)
			break
		}
		next := cur
		next.Engine.Buckets = cur.Engine.Buckets * accuracyGrowth
		if next.Engine.Buckets > maxAccuracyBuckets {
			stop = fmt.Sprintf("%d buckets is the largest count", cur.Engine.Buckets)
			break
		}
		if need, budget := b.MemoryNeed(next), b.budget(); budget > 0 && need > budget {
			stop = fmt.Sprintf("the next round, %d buckets, needs about %s, more than the memory budget %s",
				next.Engine.Buckets, memory.FormatBytes(need), memory.FormatBytes(budget))
			break
		}
		cur = next
	}
	for i := range best {
		o := &best[i]
		if o.Err != nil {
			continue
		}
		acc := &Accuracy{Target: target, Reached: worst(bestW[i]), Rounds: rounds[i]}
		acc.Met = acc.Reached <= target
		if !acc.Met {
			acc.Stop = stop
		}
		o.Accuracy = acc
		o.Note = joinNote(o.Note, acc.Sentence(o.Buckets))
	}
	return best, nil
}

// canReach reports whether a bracket of relative width w, which narrowed
// by the factor rate (< 1) in the last doubling, would meet target by the
// bucket count limit if every further doubling narrowed it by the same
// factor. Brackets set by the window narrow like 1/buckets (rate 1/2),
// those set by error bounds more slowly; a rate observed once is the
// estimate the refinement stops on, so that a target it cannot meet ends
// with what it reached instead of doubling to the limit (issue 20).
func canReach(w, rate, target float64, buckets, limit int) bool {
	for b := buckets; b < limit; b *= accuracyGrowth {
		w *= rate
		if w <= target {
			return true
		}
	}
	return false
}

// Sentence describes what the target reached with the given bucket count,
// for the note column of runs.parquet: "accuracy 0.001 met at 400000
// buckets (3 rounds)" or "accuracy 0.001 not met: reached 0.0031 at 1600000
// buckets (5 rounds; the next round, ... more than the memory budget 8 GiB)".
func (a *Accuracy) Sentence(buckets int) string {
	rounds, target := a.rounds(), strconv.FormatFloat(a.Target, 'g', -1, 64)
	if a.Met {
		return fmt.Sprintf("accuracy %s met at %d buckets (%s)", target, buckets, rounds)
	}
	reached := formatUp(a.Reached)
	if math.IsInf(a.Reached, 1) {
		reached = "+Inf (a trivial or missing bound)"
	}
	why := rounds
	if a.Stop != "" {
		why += "; " + a.Stop
	}
	return fmt.Sprintf("accuracy %s not met: reached %s at %d buckets (%s)", target, reached, buckets, why)
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
