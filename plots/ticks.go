package plots

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// log10Ticks marks decades, labelled 10^k (every second or third decade
// when there are many); ranges of at most two decades also get 2 and 5.
type log10Ticks struct{}

// Ticks implements plot.Ticker.
func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	n := hi - lo
	step := 1
	switch {
	case n > 24:
		step = 4
	case n > 16:
		step = 3
	case n > 8:
		step = 2
	}
	var ticks []plot.Tick
	for k := lo; k <= hi; k++ {
		v := math.Pow(10, float64(k))
		label := ""
		if (k-lo)%step == 0 || n <= 8 {
			label = fmt.Sprintf("1e%d", k)
			if k == 0 {
				label = "1"
			}
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
		if n <= 2 && k < hi {
			for _, m := range []float64{2, 5} {
				ticks = append(ticks, plot.Tick{Value: m * v, Label: strconv.FormatFloat(m*v, 'g', 3, 64)})
			}
		} else if n <= 10 && k < hi {
			for m := 2.0; m < 10; m++ {
				ticks = append(ticks, plot.Tick{Value: m * v})
			}
		}
	}
	return ticks
}

// log2Ticks marks powers of two, labelled 2^k (thinned to at most about
// ten labels).
type log2Ticks struct{}

// Ticks implements plot.Ticker.
func (log2Ticks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log2(min))), int(math.Ceil(math.Log2(max)))
	step := 1
	for (hi-lo)/step > 10 {
		step++
	}
	var ticks []plot.Tick
	for k := lo; k <= hi; k++ {
		label := ""
		if (k-lo)%step == 0 {
			label = strconv.FormatFloat(math.Pow(2, float64(k)), 'f', -1, 64)
		}
		ticks = append(ticks, plot.Tick{Value: math.Pow(2, float64(k)), Label: label})
	}
	return ticks
}

// linearTicks marks round values (1, 2 or 5 times a power of ten apart,
// about five to ten labels) with as many decimals as the step needs.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return nil
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := 0
	if step < 1 {
		decimals = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	var ticks []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+1e-9*step; k++ {
		v := k * step
		if v == 0 {
			v = 0 // no "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		// Minor ticks halfway.
		if h := v + step/2; h <= max {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	return ticks
}
