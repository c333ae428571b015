package engine

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestGridDeltaClosedFormsMatch checks that delta from a table with the
// closed forms of the far atoms (gridSums) agrees with the atom by atom
// sums (the same table without them) to rounding terms (relative 1e-9,
// or 1e-28 absolutely in the far tails; both are bounds), in every
// direction and error mode, over eps from 0 to beyond the range, on power
// lists of DP-SGD and Gauss pairs.
func TestGridDeltaClosedFormsMatch(t *testing.T) {
	sgd, err := SGD(4, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	sgd1, err := SGD(1.1, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	gauss, err := Gauss(20, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		m    Mechanism
		r, N int
	}{{sgd, 1000, 1 << 12}, {sgd1, 1000, 1 << 13}, {gauss, 100, 1 << 12}}
	for _, c := range cases {
		z := powerListFor(t, c.m, c.r, c.N)
		tab := z.gridTable(z.bounds())
		if tab.sums == nil {
			t.Fatalf("%s: no closed forms", c.m)
		}
		full := *tab
		full.sums = nil
		fast := 0
		R := float64(z.n+1) * z.lambda
		for i := 0; i <= 200; i++ {
			eps := R * 1.05 * float64(i) / 200
			for _, mode := range []errMode{errAll, errTilted} {
				got, want := z.gridDeltaWith(eps, tab, mode), z.gridDeltaWith(eps, &full, mode)
				for _, q := range []struct {
					name string
					x, y float64
				}{{"UpperAB", got.UpperAB, want.UpperAB}, {"UpperBA", got.UpperBA, want.UpperBA},
					{"LowerAB", got.LowerAB, want.LowerAB}, {"LowerBA", got.LowerBA, want.LowerBA}} {
					if d := math.Abs(q.x - q.y); !(d <= 1e-9*math.Abs(q.y)+1e-28) {
						t.Errorf("%s eps=%v mode %d: %s %v, atom by atom %v", c.m, eps, mode, q.name, q.x, q.y)
					}
				}
				if got != want {
					fast++
				}
			}
		}
		// the closed forms were used (their rounding differs from the
		// atom by atom sums')
		if fast == 0 {
			t.Errorf("%s: every delta bitwise the atom by atom one", c.m)
		}
	}
}

// TestGridSumsClosedFormsEnclose checks the closed forms against the exact
// sums (256-bit arithmetic) of random masses on a grid, half of them on
// spacings of 1e-8 to 1e-6 where the closed forms cancel to a few
// significant digits (the rounding allowances decide): the upper bounds
// of the A||B and B||A sums of the upper pair at or above the exact
// sums, the lower bounds of the lower pair's at or below, with the far
// atoms a block or more from eps (where the closed forms apply).
func TestGridSumsClosedFormsEnclose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const prec = closedPrec
	for trial := 0; trial < 200; trial++ {
		n := 64 << rng.IntN(4)
		lam := 0.002 + 0.05*rng.Float64()
		near := trial%2 == 1 // spacings so fine that the closed forms cancel
		if near {
			lam = 1e-8 * math.Pow(100, rng.Float64())
		}
		l := newList(n, lam, nil)
		l.grid = true
		l.wUp, l.wLo = 1e-12*rng.Float64(), 1e-12*rng.Float64()
		if near {
			l.wUp, l.wLo = 1e-16*rng.Float64(), 1e-16*rng.Float64()
		}
		tab := &gridTable{up: make([]float64, 2*n), low: make([]float64, 2*n)}
		for o := 0; o < 2*n; o++ {
			// masses over many orders of magnitude, some 0
			if near {
				l.a[o] = 0.5 + rng.Float64()
				l.c[o] = l.a[o] * (1 - 1e-3*rng.Float64())
			} else if rng.IntN(8) > 0 {
				l.a[o] = math.Exp(-30 * rng.Float64())
				l.c[o] = l.a[o] * (1 - 1e-3*rng.Float64())
			}
			tab.up[o], tab.low[o] = l.a[o]*(1+1e-9), l.c[o]*(1-1e-9)
		}
		tab.t, tab.trel = weights(n, lam, -1)
		gs := newGridSums(l, tab)
		if gs == nil {
			t.Fatal("no sums")
		}
		eps := float64(n) * lam * rng.Float64() * 0.8
		// exact e^(-L) and e^(eps -+ w) (Taylor series at 256 bits)
		exact := func(x float64) *big.Float { return bigExp(new(big.Float).SetPrec(prec).SetFloat64(x)) }
		eU, eL := bigExp(bigSub(eps, l.wUp, prec)), bigExp(bigAdd(eps, l.wLo, prec))
		lossOf := func(o int) *big.Float {
			return new(big.Float).SetPrec(prec).Mul(big.NewFloat(float64(o-n+1)).SetPrec(prec), big.NewFloat(lam).SetPrec(prec))
		}
		k := (l.firstAboveLoss(eps+math.Max(l.wUp, l.wLo)+2*lam) + guideBlock - 1) / guideBlock * guideBlock
		if k < 2*n {
			up, upv, low, lowv := gs.closedAB(k, eps, l.wUp, l.wLo, tab.trel)
			checkClosedSums(t, fmt.Sprintf("trial %d A||B from offset %d", trial, k), l, tab, k, 2*n, [4]float64{up, upv, low, lowv},
				func(eml *big.Float) (fU, fL *big.Float) {
					// 1 - e^(eps - w) e^-L and 1 - e^(eps + w) e^-L
					return new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), new(big.Float).SetPrec(prec).Mul(eU, eml)),
						new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), new(big.Float).SetPrec(prec).Mul(eL, eml))
				}, lossOf)
		}
		kb := l.firstAboveLoss(-eps-math.Max(l.wUp, l.wLo)-2*lam) / guideBlock * guideBlock
		if kb > 0 {
			up, upv, low, lowv := gs.closedBA(kb, eps, l.wUp, l.wLo, tab.trel)
			ewU, ewL := exact(l.wUp), exact(-l.wLo)
			checkClosedSums(t, fmt.Sprintf("trial %d B||A below offset %d", trial, kb), l, tab, 0, kb, [4]float64{up, upv, low, lowv},
				func(eml *big.Float) (fU, fL *big.Float) {
					// e^w (e^-L - e^(eps - w)) and e^-w (e^-L - e^(eps + w))
					return new(big.Float).SetPrec(prec).Mul(ewU, new(big.Float).SetPrec(prec).Sub(eml, eU)),
						new(big.Float).SetPrec(prec).Mul(ewL, new(big.Float).SetPrec(prec).Sub(eml, eL))
				}, lossOf)
		}
	}
}

// bigExpNeg returns e^-x.
func bigExpNeg(x *big.Float, prec uint) *big.Float {
	return bigExp(new(big.Float).SetPrec(prec).Neg(x))
}

func bigSub(a, b float64, prec uint) *big.Float {
	return new(big.Float).SetPrec(prec).Sub(big.NewFloat(a).SetPrec(prec), big.NewFloat(b).SetPrec(prec))
}

func bigAdd(a, b float64, prec uint) *big.Float {
	return new(big.Float).SetPrec(prec).Add(big.NewFloat(a).SetPrec(prec), big.NewFloat(b).SetPrec(prec))
}

// checkClosedSums sums exactly (closedPrec bits), over the offsets o in
// [from, to), the upper pair's upper ends and values times fU and the
// lower pair's lower ends and values times fL (factors of e^-L at o's
// grid loss), and checks the closed forms' bounds (up, upv upper; low,
// lowv lower) against them.
func checkClosedSums(t *testing.T, name string, l *list, tab *gridTable, from, to int, bounds [4]float64,
	factors func(eml *big.Float) (fU, fL *big.Float), lossOf func(o int) *big.Float) {
	t.Helper()
	const prec = closedPrec
	sums := [4]*big.Float{}
	for i := range sums {
		sums[i] = new(big.Float).SetPrec(prec)
	}
	for o := from; o < to; o++ {
		fU, fL := factors(bigExpNeg(lossOf(o), prec))
		for i, v := range []struct {
			m float64
			f *big.Float
		}{{tab.up[o], fU}, {l.a[o], fU}, {tab.low[o], fL}, {l.c[o], fL}} {
			sums[i].Add(sums[i], new(big.Float).SetPrec(prec).Mul(big.NewFloat(v.m).SetPrec(prec), v.f))
		}
	}
	for i, v := range bounds {
		upper := i < 2
		if c := big.NewFloat(v).Cmp(sums[i]); upper && c < 0 || !upper && c > 0 {
			ex, _ := sums[i].Float64()
			t.Errorf("%s: sum %d: bound %v, exact %v", name, i, v, ex)
		}
	}
}

// TestGridSumsEncloseStoredSums checks sumBounds on its own: at every block
// boundary the bounds it derives from the stored prefix and suffix sums
// enclose the exact sums (256 bits) of the masses and of the masses times
// the exact e^-L, for masses over many orders of magnitude (whose
// summation rounds visibly either way).
func TestGridSumsEncloseStoredSums(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const prec = closedPrec
	for trial := 0; trial < 40; trial++ {
		n := 256 << rng.IntN(5)
		lam := 0.001 + 0.02*rng.Float64()
		l := newList(n, lam, nil)
		l.grid = true
		tab := &gridTable{up: make([]float64, 2*n), low: make([]float64, 2*n)}
		for o := range l.a {
			l.a[o] = math.Exp(-40*rng.Float64()) * (1 + rng.Float64())
			l.c[o], tab.up[o], tab.low[o] = l.a[o], l.a[o], l.a[o]
		}
		tab.t, tab.trel = weights(n, lam, -1)
		gs := newGridSums(l, tab)
		if gs == nil {
			t.Fatal("no sums")
		}
		nb := len(gs.a.tail) - 1
		// exact sums of m and m e^-L over offsets < b guideBlock (heads)
		// and >= it (tails), each accumulated from its own end (a tail as
		// a total minus a head would cancel: e^-L spans e^(+-80))
		ms, mts := make([]*big.Float, 2*n), make([]*big.Float, 2*n)
		for o := range ms {
			ms[o] = big.NewFloat(l.a[o]).SetPrec(prec)
			loss := new(big.Float).SetPrec(prec).Mul(big.NewFloat(float64(o-n+1)).SetPrec(prec), big.NewFloat(lam).SetPrec(prec))
			mts[o] = new(big.Float).SetPrec(prec).Mul(ms[o], bigExpNeg(loss, prec))
		}
		mass := func(o int) (m, mt *big.Float) { return ms[o], mts[o] }
		heads := make([][2]*big.Float, nb+1)
		tails := make([][2]*big.Float, nb+1)
		s0, s1 := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
		for b := 0; b <= nb; b++ {
			heads[b] = [2]*big.Float{new(big.Float).Copy(s0), new(big.Float).Copy(s1)}
			for o := b * guideBlock; o < min(2*n, (b+1)*guideBlock); o++ {
				m, mt := mass(o)
				s0.Add(s0, m)
				s1.Add(s1, mt)
			}
		}
		s0, s1 = new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
		for b := nb; b >= 0; b-- {
			for o := min(2*n, (b+1)*guideBlock) - 1; o >= b*guideBlock; o-- {
				m, mt := mass(o)
				s0.Add(s0, m)
				s1.Add(s1, mt)
			}
			tails[b] = [2]*big.Float{new(big.Float).Copy(s0), new(big.Float).Copy(s1)}
		}
		in := func(what string, b int, lo, hi float64, ex *big.Float) {
			if big.NewFloat(lo).Cmp(ex) > 0 || big.NewFloat(hi).Cmp(ex) < 0 {
				e, _ := ex.Float64()
				t.Errorf("trial %d %s at block %d: [%v, %v] does not hold %v", trial, what, b, lo, hi, e)
			}
		}
		for b := 0; b <= nb; b++ {
			lo0, hi0, lo1, hi1 := gs.sumBounds(gs.a.head[b], gs.a.headT[b], tab.trel)
			in("head S_0", b, lo0, hi0, heads[b][0])
			in("head S_1", b, lo1, hi1, heads[b][1])
			lo0, hi0, lo1, hi1 = gs.sumBounds(gs.a.tail[b], gs.a.tailT[b], tab.trel)
			in("tail S_0", b, lo0, hi0, tails[b][0])
			in("tail S_1", b, lo1, hi1, tails[b][1])
		}
	}
}
