package query

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pbuckets/pbuckets/internal/outward"
	"github.com/pbuckets/pbuckets/pipeline/search"
)

// Calibration is the answer of a noise search for one r as it is printed:
// the least noise found meeting the target by the upper bound (rounded up
// and checked again) and the most noise proved insufficient by the lower
// bound (rounded down).
type Calibration struct {
	Spec search.Spec
	// Meets holds the tied parameters of the answer, as printed; MeetsProbe
	// its probe (the check). Nil when no noise in the factor range meets
	// the target.
	Meets      map[string]float64
	MeetsProbe *search.Probe
	// Rounded is true when Meets holds the rounded values (their check
	// passed), false when it holds the search's own answer.
	Rounded bool
	// Insufficient holds the tied parameters of the most noise the lower
	// bound proves insufficient, rounded down (by post-processing, less
	// noise is insufficient too); nil when none was found.
	Insufficient      map[string]float64
	InsufficientProbe *search.Probe
	Result            *search.Result
}

// Calibrate rounds the search's answer res up to the digits its tolerance
// justifies (at least 3 significant digits) and checks the rounded
// mechanism with the upper bound (one more probe of s, usually a new
// composition): a rounded answer is printed only if it meets the target
// itself. The noise proved insufficient is rounded down, which needs no
// check.
func Calibrate(ctx context.Context, s *search.Searcher, res *search.Result) (Calibration, error) {
	c := Calibration{Spec: res.Spec, Result: res}
	digits := max(3, int(math.Ceil(-math.Log10(res.Spec.RelTol)))+1)
	if p := res.Insufficient; p != nil {
		c.InsufficientProbe = p
		c.Insufficient = map[string]float64{}
		for _, k := range res.Spec.Tie {
			c.Insufficient[k] = roundedValue(p.Params[k], digits, false)
		}
	}
	p := res.Meets
	if p == nil {
		return c, nil
	}
	rounded := map[string]float64{}
	changed := false
	for _, k := range res.Spec.Tie {
		rounded[k] = roundedValue(p.Params[k], digits, true)
		changed = changed || rounded[k] != p.Params[k]
	}
	c.Meets, c.MeetsProbe = tiedParams(p.Params, res.Spec.Tie), p
	if !changed {
		c.Rounded = true
		return c, nil
	}
	check := res.Spec
	check.Mechanism = res.Spec.At(1)
	for k, v := range rounded {
		check.Mechanism.Params[k] = v
	}
	q, err := s.Probe(ctx, check, 1)
	if err != nil {
		return c, fmt.Errorf("checking the rounded answer %s: %w", FormatTied(rounded, res.Spec.Tie), err)
	}
	if q.Upper <= res.Spec.Delta {
		c.Meets, c.MeetsProbe, c.Rounded = rounded, &q, true
	}
	return c, nil
}

// roundedValue returns v rounded to digits significant digits, up or down
// (outward.Decimal).
func roundedValue(v float64, digits int, up bool) float64 {
	r, err := strconv.ParseFloat(outward.Decimal(v, digits, up), 64)
	if err != nil || math.IsInf(r, 0) {
		return v
	}
	return r
}

func tiedParams(params map[string]float64, tie []string) map[string]float64 {
	out := make(map[string]float64, len(tie))
	for _, k := range tie {
		out[k] = params[k]
	}
	return out
}

// FormatTied renders tied parameters, "sigma 1.523" or "mu 4100, scale
// 833", each exactly (shortest representation): the one spelling of a
// calibration's noise in messages and output.
func FormatTied(params map[string]float64, tie []string) string {
	parts := make([]string, len(tie))
	for i, k := range tie {
		parts[i] = k + " " + strconv.FormatFloat(params[k], 'g', -1, 64)
	}
	return strings.Join(parts, ", ")
}
