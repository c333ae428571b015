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
