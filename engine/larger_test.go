package engine

import (
	"context"
	"testing"
)

// TestLargeRBulkNotZeroed is issue 20 item 3's DP-SGD case, sigma 5, q
// 1e-4, r = 2^25, delta 1e-5 (an RDP bound gives eps <= 0.447, a test on
// the sum of the outputs proves eps >= 0.400): before the envelopes were
// capped by the tilted total-error bounds and the noise zeroing by the
// untilted one, the bracket was [0, 0.526] at 20,000 buckets and [0, +Inf]
// at 100,000 (the bulk's values, below their pointwise envelopes, were
// zeroed as noise; engine README, "Large r"). Now both are finite, below
// the RDP bound, and more buckets do not widen them.
func TestLargeRBulkNotZeroed(t *testing.T) {
	if testing.Short() {
		t.Skip("composes 2^25 observations at 100,000 buckets")
	}
	m, err := SGD(5, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	const r, delta, rdp, known = 1 << 25, 1e-5, 0.447, 0.400
	var prevWidth float64
	for i, b := range []int{20000, 100000} {
		res, err := Compose(context.Background(), m, r, Options{Buckets: b})
		if err != nil {
			t.Fatal(err)
		}
		e := res.Eps(delta)
		t.Logf("%d buckets: eps in [%v, %v] %s", b, e.Lower, e.Upper, e.Note)
		if !(e.Upper <= rdp) || !(e.Upper >= known) || !(e.Lower <= known+0.05) {
			t.Errorf("%d buckets: eps in [%v, %v], want an upper end in [%v, %v] (the sum test's lower bound, RDP) and a sound lower end", b, e.Lower, e.Upper, known, rdp)
		}
		if w := e.Upper - e.Lower; i > 0 && !(w <= prevWidth*1.05) {
			t.Errorf("%d buckets: bracket width %v, wider than %v with fewer buckets", b, w, prevWidth)
		} else {
			prevWidth = w
		}
	}
}
