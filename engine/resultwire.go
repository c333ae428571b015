package engine

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
)

// resultWire is the serialised form of a Result.
type resultWire struct {
	N                                int
	Lambda, U                        float64
	A, C                             floats // the support Lo..Hi (wirefloats.go)
	Lo, Hi                           int
	RelA, RelC                       float64
	Tau, EnvA, EnvC                  []float64
	L1A, L1C                         float64
	HasL1                            bool      // false in encodings older than the total-error bounds
	TL1A, TL1C                       []float64 // tilted total-error bounds (tl1.go); absent in older encodings
	TL1ZA, TL1ZC                     []float64 // their zeroed parts (list.tl1ZA)
	ZA, ZC                           float64
	HiA, HiC, LoA, LoC, DistA, DistB [2]float64
	Compositions, Squarings          int
	Names                            []string
	Counts                           []int
	EC                               bool
	Info                             Info
	Grid                             *gridWire // the grid list, if any (gridwire.go)
	NoGrouped                        bool      // no grouped list (the grid list alone)
	Swap                             *gridWire // the swapped grid list, if any (gridswap.go)
	Abs                              float64
	Notes                            []string
	Lower                            []byte    // the lower pair's result, if any (lowerpair.go)
	LowerAbsent                      string    // why the lower bounds are absent, if they are
	SlackA, SlackC                   float64   // the lower bounds' rate slack (lowerpair.go)
	MomA, MomB                       []float64 // moment bounds (momentbound.go), absent when none
	MomRest                          [2]float64
	Raw                              [2][3]float64 // the corners before their Chernoff caps (list.raw), when HasWatch
	HasWatch                         bool          // false in encodings older than Raw
	Route                            Route         // what composed the result (RouteUnknown in older encodings)
}

// MarshalBinary encodes the result (the composed bucket list and how it was
// made) so that it can be cached.
func (r *Result) MarshalBinary() ([]byte, error) {
	l := r.l
	if l == nil { // a grid list alone
		l = &list{}
	}
	w := resultWire{NoGrouped: r.l == nil, N: l.n, Lambda: l.lambda, U: l.u, A: support(l.a, l.lo, l.hi), C: support(l.c, l.lo, l.hi), Lo: l.lo, Hi: l.hi,
		RelA: l.relA, RelC: l.relC, Tau: l.tau, EnvA: l.envA, EnvC: l.envC,
		L1A: l.l1A, L1C: l.l1C, HasL1: true, TL1A: l.tl1A, TL1C: l.tl1C, TL1ZA: l.tl1ZA, TL1ZC: l.tl1ZC, ZA: l.zA, ZC: l.zC,
		HiA: [2]float64{l.hiA.v, l.hiA.e}, HiC: [2]float64{l.hiC.v, l.hiC.e},
		LoA: [2]float64{l.loA.v, l.loA.e}, LoC: [2]float64{l.loC.v, l.loC.e},
		DistA: [2]float64{l.distA.v, l.distA.e}, DistB: [2]float64{l.distB.v, l.distB.e},
		Compositions: l.compositions, Squarings: l.squarings, EC: r.ec, Info: r.info,
		Abs: l.abs, Notes: r.notes, Grid: gridToWire(r.g), Swap: gridToWire(r.s), Route: r.route}
	if l.hasWatch {
		w.HasWatch = true
		copy(w.Raw[0][:], l.raw[:3])
		copy(w.Raw[1][:], l.raw[3:])
	}
	if mom := r.moments(); mom != nil {
		w.MomA, w.MomB, w.MomRest = mom.ma, mom.mb, [2]float64{mom.restA, mom.restB}
	}
	for _, nc := range l.names {
		w.Names = append(w.Names, nc.name)
		w.Counts = append(w.Counts, nc.count)
	}
	w.LowerAbsent, w.SlackA, w.SlackC = r.lowerAbsent, r.slackA, r.slackC
	if r.lowerFrom != nil {
		b, err := r.lowerFrom.MarshalBinary()
		if err != nil {
			return nil, err
		}
		w.Lower = b
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&w); err != nil {
		return nil, fmt.Errorf("engine: encoding result: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes a result written by MarshalBinary.
func (r *Result) UnmarshalBinary(data []byte) error {
	var w resultWire
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return fmt.Errorf("engine: decoding result: %w", err)
	}
	if w.Route < RouteUnknown || w.Route > RouteClosedForm {
		return fmt.Errorf("engine: decoding result: unknown route %v", w.Route)
	}
	if w.NoGrouped {
		g, ok := gridFromWire(w.Grid)
		if !ok || g == nil {
			return fmt.Errorf("engine: decoding result: inconsistent grid list")
		}
		*r = Result{ec: true, info: w.Info, notes: w.Notes, route: w.Route}
		r.withGrid(g)
		r.setMoments(momentFromWire(&w))
		if err := r.swapFromWire(w.Swap); err != nil {
			return err
		}
		return r.lowerFromWire(&w)
	}
	if w.N < 2 || w.N > 1<<39 || len(w.EnvA) != len(w.Tau) || len(w.EnvC) != len(w.Tau) || len(w.Names) != len(w.Counts) {
		return fmt.Errorf("engine: decoding result: inconsistent sizes")
	}
	a, okA := expand(w.A, w.Lo, w.Hi, 2*w.N)
	c, okC := expand(w.C, w.Lo, w.Hi, 2*w.N)
	if !okA || !okC {
		return fmt.Errorf("engine: decoding result: inconsistent sizes")
	}
	l := &list{n: w.N, lambda: w.Lambda, u: w.U, a: a, c: c, lo: w.Lo, hi: w.Hi,
		relA: w.RelA, relC: w.RelC, tau: w.Tau, envA: w.EnvA, envC: w.EnvC,
		hiA: val{w.HiA[0], w.HiA[1]}, hiC: val{w.HiC[0], w.HiC[1]},
		loA: val{w.LoA[0], w.LoA[1]}, loC: val{w.LoC[0], w.LoC[1]},
		distA: val{w.DistA[0], w.DistA[1]}, distB: val{w.DistB[0], w.DistB[1]},
		compositions: w.Compositions, squarings: w.Squarings, abs: w.Abs}
	if w.HasWatch {
		l.hasWatch = true
		copy(l.raw[:3], w.Raw[0][:])
		copy(l.raw[3:], w.Raw[1][:])
	}
	l.l1A, l.l1C = math.Inf(1), math.Inf(1) // unknown: pointwise bounds only
	if w.HasL1 {
		l.l1A, l.l1C = w.L1A, w.L1C
	}
	if len(w.TL1A) == len(w.Tau) && len(w.TL1C) == len(w.Tau) {
		l.tl1A, l.tl1C = w.TL1A, w.TL1C
		l.tl1ZA, l.tl1ZC, l.zA, l.zC = w.TL1ZA, w.TL1ZC, w.ZA, w.ZC
	}
	for i := range w.Names {
		l.names = append(l.names, nameCount{w.Names[i], w.Counts[i]})
	}
	g, ok := gridFromWire(w.Grid)
	if !ok {
		return fmt.Errorf("engine: decoding result: inconsistent grid list")
	}
	*r = Result{l: l, b: l.bounds(), ec: w.EC, info: w.Info, notes: w.Notes, route: w.Route}
	r.withGrid(g)
	r.setMoments(momentFromWire(&w))
	if err := r.swapFromWire(w.Swap); err != nil {
		return err
	}
	return r.lowerFromWire(&w)
}

// lowerFromWire restores the lower source of an encoded result.
func (r *Result) lowerFromWire(w *resultWire) error {
	if w.Lower != nil && w.LowerAbsent != "" {
		return fmt.Errorf("engine: decoding result: both a lower pair and its absence")
	}
	if !(w.SlackA >= 0 && w.SlackC >= 0) {
		return fmt.Errorf("engine: decoding result: rate slack %v, %v", w.SlackA, w.SlackC)
	}
	r.lowerAbsent, r.slackA, r.slackC = w.LowerAbsent, w.SlackA, w.SlackC
	if w.Lower != nil {
		low := new(Result)
		if err := low.UnmarshalBinary(w.Lower); err != nil {
			return fmt.Errorf("engine: decoding the lower pair's result: %w", err)
		}
		r.lowerFrom = low
	}
	return nil
}
