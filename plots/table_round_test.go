package plots

import (
	"math"
	"strconv"
	"testing"
)

// TestFormatEEpsOutwards checks that the figure tables print e^eps of an
// upper bound rounded up and of a lower bound rounded down (four
// decimals), where rounding to nearest goes the other way.
func TestFormatEEpsOutwards(t *testing.T) {
	for _, x := range []float64{1.23456, 1.23454, 2.00001, 17.99999, 123456.78912, 1.00004} {
		eps := math.Log(x)
		up, err1 := strconv.ParseFloat(formatEEps(eps, true), 64)
		lo, err2 := strconv.ParseFloat(formatEEps(eps, false), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("e^eps %v: %v %v", x, err1, err2)
		}
		ex := math.Exp(eps)
		if !(up >= ex && lo <= ex) || up-lo > 2e-4*math.Max(1, ex/10) {
			t.Errorf("e^eps %v: printed lower %v, upper %v", ex, lo, up)
		}
	}
}

// TestFormatCellOutwards checks the heat maps' cell labels: an upper bound
// rounds up, a lower bound down (three digits), where rounding to nearest
// goes the other way.
func TestFormatCellOutwards(t *testing.T) {
	for _, v := range []float64{1.2341, 1.2349, 0.0041449, 98.76, 5.0001} {
		up, err1 := strconv.ParseFloat(formatCell(v, true), 64)
		lo, err2 := strconv.ParseFloat(formatCell(v, false), 64)
		if err1 != nil || err2 != nil || up < v || lo > v {
			t.Errorf("%v: printed lower %v, upper %v", v, lo, up)
		}
	}
}
