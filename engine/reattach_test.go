package engine

import (
	"context"
	"math"
	"testing"
)

// TestReattachRestoresFarTail checks that a count pair's Result decoded from
// its wire form answers far-tail queries as the Result it was encoded from
// once its mechanism is reattached (the decoded one alone is looser there:
// the wire keeps only the moment bound's grid), and that Reattach refuses
// a mechanism or count the Result did not compose.
func TestReattachRestoresFarTail(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a paper-scale conversation pair")
	}
	ctx := context.Background()
	m, err := VuvuzelaConversation(NoiseGauss, 15000, 2500)
	if err != nil {
		t.Fatal(err)
	}
	const r = 1024
	eps := []float64{math.Log(1.45), math.Log(2)}
	floor, err := DeltaFloorFor(ctx, m, r, eps, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compose(ctx, m, r, Options{DeltaFloor: floor})
	if err != nil {
		t.Fatal(err)
	}
	data, err := res.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	decode := func() *Result {
		var d Result
		if err := d.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	plain, back := decode(), decode()
	other, _ := VuvuzelaConversation(NoiseGauss, 15000, 2501)
	if err := back.Reattach(other, r); err == nil {
		t.Errorf("Reattach accepted %s for a result of %s", other, m)
	}
	if err := back.Reattach(m, r/2); err == nil {
		t.Errorf("Reattach accepted r %d for a result of r %d", r/2, r)
	}
	if err := back.Reattach(m, r); err != nil {
		t.Fatal(err)
	}
	looser := false
	for _, e := range eps {
		want, got, p := res.Delta(e), back.Delta(e), plain.Delta(e)
		t.Logf("e^eps %.3g: fresh [%.5g, %.5g], decoded [%.5g, %.5g], reattached [%.5g, %.5g]",
			math.Exp(e), want.Lower, want.Upper, p.Lower, p.Upper, got.Lower, got.Upper)
		if got.Upper != want.Upper || got.Lower != want.Lower {
			t.Errorf("e^eps %.3g: reattached [%g, %g], want the fresh [%g, %g]", math.Exp(e), got.Lower, got.Upper, want.Lower, want.Upper)
		}
		if p.Upper > want.Upper || p.Lower < want.Lower {
			looser = true
		}
	}
	if !looser {
		t.Errorf("the decoded result alone was as tight as the fresh one: the test does not exercise Reattach")
	}
}
