package engine

import (
	"context"
	"testing"
)

// TestProgressMonotone checks Options.Progress through plain compositions,
// a sequence and a composition that adds the swapped grid list: done counts
// up by one, the planned total never falls and stays ahead of done until
// the last call, which has done = total (except where the swapped chain's
// steps are added). (The swapped chain used to reset the total,
// so that it fell below the steps already done.)
func TestProgressMonotone(t *testing.T) {
	sgd, _ := SGD(2, 0.05)
	g1, _ := Gauss(3, 1, 0)
	g2, _ := Gauss(5, 1, 0)
	wide, _ := Gauss(0.2, 1, 0)
	for _, c := range []struct {
		name string
		run  func(Options) (*Result, error)
	}{
		{"sgd r=300", func(o Options) (*Result, error) { return Compose(context.Background(), sgd, 300, o) }},
		{"sequence", func(o Options) (*Result, error) {
			return ComposeSequence(context.Background(), []Part{{g1, 5}, {g2, 12}}, o)
		}},
		{"swapped gauss 0.2 r=64", func(o Options) (*Result, error) { return Compose(context.Background(), wide, 64, o) }},
	} {
		var calls [][2]int
		res, err := c.run(Options{Buckets: 4000, Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
		if err != nil {
			t.Fatal(err)
		}
		if c.name == "swapped gauss 0.2 r=64" && res.s == nil {
			t.Fatalf("%s: no swapped list composed; the case no longer covers it", c.name)
		}
		if len(calls) == 0 {
			t.Fatalf("%s: no progress reported", c.name)
		}
		for i, cl := range calls {
			if cl[0] != i+1 || cl[1] < cl[0] || (i > 0 && cl[1] < calls[i-1][1]) {
				t.Fatalf("%s: call %d = (done %d, total %d) after %v", c.name, i, cl[0], cl[1], calls[max(0, i-1)])
			}
		}
		if last := calls[len(calls)-1]; last[0] != last[1] {
			t.Errorf("%s: last call (done %d, total %d): the total was over-planned", c.name, last[0], last[1])
		}
		for i, cl := range calls[:len(calls)-1] {
			// The swapped chain's steps are added when the grid list shows
			// it is needed, after the others: the total catches up there.
			if c.name == "swapped gauss 0.2 r=64" && cl[0] == cl[1] && calls[i+1][1] > cl[1] {
				continue
			}
			if cl[0] >= cl[1] {
				t.Errorf("%s: call %d of %d says done %d of %d: the total was under-planned", c.name, i+1, len(calls), cl[0], cl[1])
				break
			}
		}
	}
}
