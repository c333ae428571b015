package engine

import "math"

// gridWire is the serialised form of a Result's grid list (grid.go).
type gridWire struct {
	N                                int
	Lambda, WUp, WLo                 float64
	A, C                             floats // the support Lo..Hi (wirefloats.go)
	Lo, Hi                           int
	RelA, RelC                       float64
	Tau, EnvA, EnvC                  []float64
	L1A, L1C                         float64
	TL1A, TL1C                       []float64 // tilted total-error bounds (tl1.go)
	TL1ZA, TL1ZC                     []float64 // their zeroed parts (list.tl1ZA)
	ZA, ZC                           float64
	HiA, HiC, LoA, LoC, DistA, DistB [2]float64
	LowDistA, LowDistB               [2]float64
	Compositions, Squarings          int
	Abs                              float64
}

func gridToWire(g *list) *gridWire {
	if g == nil {
		return nil
	}
	v := func(x val) [2]float64 { return [2]float64{x.v, x.e} }
	return &gridWire{N: g.n, Lambda: g.lambda, WUp: g.wUp, WLo: g.wLo, A: support(g.a, g.lo, g.hi), C: support(g.c, g.lo, g.hi), Lo: g.lo, Hi: g.hi,
		RelA: g.relA, RelC: g.relC, Tau: g.tau, EnvA: g.envA, EnvC: g.envC, L1A: g.l1A, L1C: g.l1C, TL1A: g.tl1A, TL1C: g.tl1C, TL1ZA: g.tl1ZA, TL1ZC: g.tl1ZC, ZA: g.zA, ZC: g.zC,
		HiA: v(g.hiA), HiC: v(g.hiC), LoA: v(g.loA), LoC: v(g.loC), DistA: v(g.distA), DistB: v(g.distB),
		LowDistA: v(g.lowDistA), LowDistB: v(g.lowDistB),
		Compositions: g.compositions, Squarings: g.squarings, Abs: g.abs}
}

// gridFromWire rebuilds a grid list; ok is false for inconsistent sizes.
func gridFromWire(w *gridWire) (g *list, ok bool) {
	if w == nil {
		return nil, true
	}
	if w.N < 2 || w.N > 1<<39 || len(w.EnvA) != len(w.Tau) || len(w.EnvC) != len(w.Tau) ||
		math.IsNaN(w.WUp) || math.IsNaN(w.WLo) {
		return nil, false
	}
	a, okA := expand(w.A, w.Lo, w.Hi, 2*w.N)
	c, okC := expand(w.C, w.Lo, w.Hi, 2*w.N)
	if !okA || !okC {
		return nil, false
	}
	v := func(x [2]float64) val { return val{x[0], x[1]} }
	var ta, tc, tza, tzc []float64
	var za, zc float64
	if len(w.TL1A) == len(w.Tau) && len(w.TL1C) == len(w.Tau) {
		ta, tc, tza, tzc, za, zc = w.TL1A, w.TL1C, w.TL1ZA, w.TL1ZC, w.ZA, w.ZC
	}
	return &list{tl1A: ta, tl1C: tc, tl1ZA: tza, tl1ZC: tzc, zA: za, zC: zc, n: w.N, lambda: w.Lambda, grid: true, wUp: w.WUp, wLo: w.WLo, a: a, c: c, lo: w.Lo, hi: w.Hi,
		relA: w.RelA, relC: w.RelC, tau: w.Tau, envA: w.EnvA, envC: w.EnvC, l1A: w.L1A, l1C: w.L1C,
		hiA: v(w.HiA), hiC: v(w.HiC), loA: v(w.LoA), loC: v(w.LoC), distA: v(w.DistA), distB: v(w.DistB),
		lowDistA: v(w.LowDistA), lowDistB: v(w.LowDistB),
		compositions: w.Compositions, squarings: w.Squarings, abs: w.Abs}, true
}
