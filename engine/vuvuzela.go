package engine

import (
	"context"
	"fmt"
	"math"
)

// Tails of the noise counts: the dialing PMF is enumerated until the tails
// are below dialTail; the conversation's two counts until convTail (their
// sum is computed by FFT, whose length grows with the range).
const (
	dialTail = 1e-300
	convTail = 1e-50
	// maxConvLength bounds the length of the conversation's FFTs (about
	// 1 GiB of buffers and plan).
	maxConvLength = 1 << 23
	// gaussLongTails bounds the sum's length for which Gauss counts are
	// kept to tails of dialTail instead of convTail.
	gaussLongTails = 1 << 21
)

func checkVuvuzela(what string, noise Noise, mu, scale float64) error {
	if err := checkNonNegative(what+": mu", mu); err != nil {
		return err
	}
	if err := checkPositive(what+": scale", scale); err != nil {
		return err
	}
	if scale < 1e-300 {
		// half of it (the conversation's pair counts) would underflow
		return paramError(what+": scale", "must be at least 1e-300 (the counts are point masses to far below 1e-300), got %v", scale)
	}
	if noise != NoiseLaplace && noise != NoiseGauss {
		return invalidf("%s: unknown noise %d", what, noise)
	}
	if span := mu + tailWidth(noise, dialTail)*scale; span > 2e7 {
		return invalidf("%s: mu + %.0f*scale = %g is too large to enumerate", what, tailWidth(noise, dialTail), span)
	}
	return nil
}

// VuvuzelaDialing returns the pair of Vuvuzela's dialing protocol (Section
// 7.1): the observed number of invitations is ceil(max(0, X)) for X with
// mean mu (A) or mu + 2 (B) and Laplace or Gauss noise of the given scale.
// The counts are integers, so their PMF is embedded exactly (not a
// density), each mass with a
// bounded relative error; the tails beyond 1e-300 are kept in a corner.
func VuvuzelaDialing(noise Noise, mu, scale float64) (Mechanism, error) {
	if err := checkVuvuzela("vuvuzela_dialing", noise, mu, scale); err != nil {
		return nil, err
	}
	m := &countMech{name: fmt.Sprintf("vuvuzela_dialing(noise=%s, mu=%s, scale=%s)", noise, fmtFloat(mu), fmtFloat(scale))}
	if noise == NoiseLaplace {
		// both geometric sides have the loss +-2/scale exactly (atomLoss):
		// the plan puts it on a bucket border and, at -+2/scale, inside
		// the grid lists' points (at t/n the atom -2/scale fell below
		// point -n+1 into the grid leaf's low corner: bounds [0, 1])
		m.atom = 2 / scale
	}
	m.build = func(context.Context) error {
		a, b := dialingCounts(noise, mu, scale)
		lo, hi := min(a.lo, b.lo), max(a.hi(), b.hi())
		rel := math.Max(a.rel, b.rel)
		for k := lo; k <= hi; k++ {
			pa, pb := a.at(k), b.at(k)
			// (masses below 2^-1022 carry an absolute error of a few
			// units of 2^-1074 beyond rel)
			m.addEvent(pa, pa*rel+0x1p-1070, pb, pb*rel+0x1p-1070)
		}
		m.addRest(a.left+a.right, b.left+b.right, rel)
		m.rel = rel
		return nil
	}
	return m, nil
}

// VuvuzelaConversation returns the pair of Vuvuzela's conversation protocol
// (Section 7.1, with the paper's pair noise read as scale/2 and the counts
// as integers): the observed count is the sum
// of ceil(max(0, X1)) and ceil(max(0, X2)), X1 with mean mu and noise of the
// given scale, X2 independent with mean mu/2 and scale/2; on the B side the
// means are mu + 2 and mu/2 + 1. For Gauss noise, scale is the standard
// deviation (singles N(mu, scale^2), pairs N(mu/2, (scale/2)^2)).
//
// With Laplace noise the PMF of the sum is computed in closed form, each
// entry to about 1e-13 relative (the counts are geometric on either side of
// their means); with Gauss noise by Poisson summation (the sum of two
// rounded Gaussians is, up to e^(-1500), the density of a Gaussian plus a
// triangular variable: gausssum.go), direct sums where the clamp at 0
// matters, and tilted FFT convolutions only as a fallback, each entry with
// a rigorous error bound (about 3e-13 relative on the paper's pairs).
// Entries known to the pair's resolution target are embedded as events
// with their loss intervals, the rest (total mass below about 1e-45 for
// the paper's parameters) is kept in a corner, counted in full by upper
// bounds. The work is done once, when the mechanism is first composed; it
// takes seconds for the paper's largest parameters.
func VuvuzelaConversation(noise Noise, mu, scale float64) (Mechanism, error) {
	if err := checkVuvuzela("vuvuzela_conversation", noise, mu, scale); err != nil {
		return nil, err
	}
	// The sum is computed by FFTs of length about 1.5 (mu + t*scale), t the
	// count's tail width; beyond 2^23 entries (the paper's largest pair,
	// LP(450k, 20k), needs 4.2M) memory would reach gigabytes.
	if span := 1.5*(mu+2+tailWidth(noise, convTail)*scale) + 8; span > maxConvLength {
		return nil, invalidf("vuvuzela_conversation: mu + %.0f*scale = %g: the sum of the counts would need an FFT of more than %d entries", tailWidth(noise, convTail), mu+tailWidth(noise, convTail)*scale, maxConvLength)
	}
	m := &countMech{name: fmt.Sprintf("vuvuzela_conversation(noise=%s, mu=%s, scale=%s)", noise, fmtFloat(mu), fmtFloat(scale))}
	m.build = func(ctx context.Context) error {
		s, target, err := conversationSum(ctx, noise, mu, scale)
		if err != nil {
			return err
		}
		var uA, uB, lA, lB float64
		for k := range s.a {
			if s.rel[k] <= target {
				m.addEvent(s.a[k], s.ea[k], s.b[k], s.eb[k])
				m.rel = math.Max(m.rel, s.rel[k])
				continue
			}
			uA += s.ubA[k]
			uB += s.ubB[k]
			lA += math.Max(0, s.lbA[k])
			lB += math.Max(0, s.lbB[k])
		}
		g := 1 + gamma(len(s.a)+2)
		m.unknownA = [2]float64{lA / g, (uA + s.restA) * g}
		m.unknownB = [2]float64{lB / g, (uB + s.restB) * g}
		m.tilts = s.tilts
		return nil
	}
	return m, nil
}

// dialingCounts returns the PMFs of the dialing pair's counts on the A side
// (mean mu) and the B side (mean mu + 2), to tails of dialTail.
func dialingCounts(noise Noise, mu, scale float64) (a, b countDist) {
	return newCountDist(noise, mu, scale, dialTail), newCountDist(noise, mu+2, scale, dialTail)
}

// conversationSum returns the PMFs of the conversation pair's observed
// count (the sum of the singles' and the pairs' counts) on both sides, and
// the relative error below which an entry is resolved (an event; the rest
// goes to a corner).
func conversationSum(ctx context.Context, noise Noise, mu, scale float64) (*countSum, float64, error) {
	tail := convTail
	if noise == NoiseGauss && 1.5*(mu+2+tailWidth(noise, dialTail)*scale)+8 <= gaussLongTails {
		// The accurate Gauss sums resolve entries down to about the
		// counts' tails: keep them to 1e-300 where the FFT stays short.
		tail = dialTail
	}
	xa := newCountDist(noise, mu, scale, tail)
	xb := newCountDist(noise, mu+2, scale, tail)
	ya := newCountDist(noise, mu/2, scale/2, tail)
	yb := newCountDist(noise, mu/2+1, scale/2, tail)
	// Laplace noise: the sum in closed form (laplacesum.go), to about
	// 1e-13 relative; Gauss noise: the accurate sums (gausssum.go); the
	// tilted FFTs (countsum.go) where the closed form does not apply.
	var s *countSum
	target := sumTarget
	if noise == NoiseLaplace {
		s = laplaceSumCounts(xa, xb, ya, yb, mu, mu+2, scale, mu/2, mu/2+1, scale/2)
	} else {
		var err error
		if s, target, err = gaussSumCounts(ctx, xa, xb, ya, yb, mu, mu+2, scale, mu/2, mu/2+1, scale/2); err != nil {
			return nil, 0, err
		}
	}
	if s == nil {
		var err error
		if s, err = sumCounts(ctx, xa, xb, ya, yb); err != nil {
			return nil, 0, err
		}
	}
	return s, target, nil
}
