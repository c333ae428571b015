package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pbuckets/pbuckets/compare"
)

// CompareMethods returns the comparison methods implemented with package
// compare: kov, advanced (from the tight single-round curve), rdp (classic
// conversion), cdp (concentrated-DP fit) and exact (closed forms). A method
// without an input for a mechanism kind skips the job with a note.
func CompareMethods() Registry {
	return Registry{
		MethodKOV: curveMethod(MethodKOV, func(spec MechanismSpec, r int) (compare.Curve, error) {
			d0, err := delta0(spec)
			if err != nil {
				return nil, err
			}
			return compare.KOV(d0, r, compare.KOVOptions{})
		}, "KOV optimal composition over the tight single-round curve"),
		MethodAdvanced: curveMethod(MethodAdvanced, func(spec MechanismSpec, r int) (compare.Curve, error) {
			d0, err := delta0(spec)
			if err != nil {
				return nil, err
			}
			return compare.Advanced(d0, r, compare.AdvancedOptions{})
		}, "advanced composition over the tight single-round curve"),
		MethodRDP: curveMethod(MethodRDP, func(spec MechanismSpec, r int) (compare.Curve, error) {
			renyi, err := renyiCurve(spec)
			if err != nil {
				return nil, err
			}
			return compare.RDP(renyi, r, compare.Classic, compare.RDPOptions{})
		}, "Renyi DP, classic conversion"),
		MethodCDP: curveMethod(MethodCDP, func(spec MechanismSpec, r int) (compare.Curve, error) {
			renyi, err := renyiCurve(spec)
			if err != nil {
				return nil, err
			}
			c, err := compare.CDP(renyi, r, compare.CDPOptions{})
			if errors.Is(err, compare.ErrNoCDPFit) {
				return nil, fmt.Errorf("%w: %v", ErrNotApplicable, err)
			}
			return c, err
		}, "concentrated DP fit, classic conversion"),
		MethodExact: exactMethod,
	}
}

// delta0 returns the tight single-round curve of the mechanism, where
// package compare has one.
func delta0(spec MechanismSpec) (compare.DeltaFunc, error) {
	p := spec.Params
	switch spec.Kind {
	case KindGauss:
		if p["truncate"] > 0 {
			return compare.TruncatedGaussDelta0(p["sigma"], p["sensitivity"], p["truncate"])
		}
		return compare.GaussDelta0(p["sigma"], p["sensitivity"])
	case KindLaplace:
		if p["truncate"] > 0 {
			return compare.TruncatedLaplaceDelta0(p["scale"], p["sensitivity"], p["truncate"])
		}
		return compare.LaplaceDelta0(p["scale"], p["sensitivity"])
	case KindRandomizedResponse:
		return compare.RRDelta0(p["p"])
	case KindEpsDelta:
		return compare.EpsDeltaDelta0(p["eps"], p["delta"])
	}
	return nil, fmt.Errorf("%w: no closed-form single-round curve for kind %s", ErrNotApplicable, spec.Kind)
}

// renyiCurve returns the single-round Renyi divergence curve, where package
// compare has one.
func renyiCurve(spec MechanismSpec) (compare.RenyiFunc, error) {
	p := spec.Params
	switch spec.Kind {
	case KindGauss:
		if p["truncate"] > 0 {
			return nil, fmt.Errorf("%w: no Renyi curve for the truncated Gauss mechanism", ErrNotApplicable)
		}
		return compare.GaussRenyi(p["sigma"], p["sensitivity"])
	case KindLaplace:
		if p["truncate"] > 0 {
			return nil, fmt.Errorf("%w: no Renyi curve for the truncated Laplace mechanism", ErrNotApplicable)
		}
		return compare.LaplaceRenyi(p["scale"], p["sensitivity"])
	case KindRandomizedResponse:
		return compare.RRRenyi(p["p"])
	case KindSGD:
		return compare.SampledGaussianRenyi(p["sigma"], p["q"])
	}
	return nil, fmt.Errorf("%w: no closed-form Renyi curve for kind %s", ErrNotApplicable, spec.Kind)
}

// curveMethod adapts a per-r curve constructor to a MethodFunc. Curves are
// upper bounds; they have no lower bound (NaN).
func curveMethod(name string, build func(MechanismSpec, int) (compare.Curve, error), note string) MethodFunc {
	return func(ctx context.Context, job Job) ([]Outcome, error) {
		out := make([]Outcome, 0, len(job.Compositions))
		for i, r := range job.Compositions {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c, err := build(job.Instance.Spec, r)
			if errors.Is(err, ErrNotApplicable) {
				return nil, err
			}
			out = append(out, curveOutcome(r, c, err, note, false, job))
			if job.Progress != nil {
				job.Progress(i+1, len(job.Compositions))
			}
		}
		return out, nil
	}
}

func curveOutcome(r int, c compare.Curve, err error, note string, tight bool, job Job) Outcome {
	o := Outcome{R: r, Note: note}
	if err != nil {
		o.Err = err
		return o
	}
	for _, eps := range job.Eps {
		d := c.Delta(eps)
		lo := math.NaN()
		if tight {
			lo = d
		}
		o.Delta = append(o.Delta, Bound{Upper: d, Lower: lo})
	}
	for _, delta := range job.Delta {
		e := c.Eps(delta)
		lo := math.NaN()
		if tight {
			lo = e
		}
		o.Eps = append(o.Eps, Bound{Upper: e, Lower: lo})
	}
	return o
}

// exactMethod returns the tight curves that have closed forms: the
// untruncated Gauss mechanism, randomized response, and a single round of
// the untruncated Laplace mechanism. Upper and lower bound coincide.
func exactMethod(ctx context.Context, job Job) ([]Outcome, error) {
	spec := job.Instance.Spec
	p := spec.Params
	var build func(r int) (compare.Curve, error)
	switch {
	case spec.Kind == KindGauss && p["truncate"] == 0:
		build = func(r int) (compare.Curve, error) { return compare.ExactGauss(p["sigma"], p["sensitivity"], r) }
	case spec.Kind == KindRandomizedResponse:
		build = func(r int) (compare.Curve, error) { return compare.ExactRR(p["p"], r) }
	case spec.Kind == KindLaplace && p["truncate"] == 0:
		build = func(r int) (compare.Curve, error) {
			if r != 1 {
				return nil, fmt.Errorf("%w: the exact Laplace curve is known for r = 1 only", ErrNotApplicable)
			}
			return compare.ExactLaplace(p["scale"], p["sensitivity"])
		}
	default:
		return nil, fmt.Errorf("%w: no closed form for kind %s%s", ErrNotApplicable, spec.Kind, truncNote(spec))
	}
	out := make([]Outcome, 0, len(job.Compositions))
	for _, r := range job.Compositions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := build(r)
		if errors.Is(err, ErrNotApplicable) {
			// Only this r lacks a closed form: report it as a skipped task.
			out = append(out, Outcome{R: r, Err: err})
			continue
		}
		out = append(out, curveOutcome(r, c, err, "closed form (tight)", true, job))
	}
	return out, nil
}

func truncNote(spec MechanismSpec) string {
	if spec.Params["truncate"] > 0 {
		return " (truncated)"
	}
	return ""
}
