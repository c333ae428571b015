package engine

import (
	"fmt"
	"math"
)

// Noise selects the noise distribution of a Vuvuzela mechanism.
type Noise int

const (
	// NoiseLaplace is Laplace noise with the given scale (the original
	// Vuvuzela design).
	NoiseLaplace Noise = iota
	// NoiseGauss is Gaussian noise with standard deviation scale (Section 7).
	NoiseGauss
)

func (n Noise) String() string {
	if n == NoiseGauss {
		return "gauss"
	}
	return "laplace"
}

// VuvuzelaDialing returns the pair of Vuvuzela's dialing protocol (Section
// 7.1): the observed number of invitations is ceil(max(0, X)) for X with
// mean mu (A) or mu + 2 (B) and Laplace or Gauss noise of the given scale.
// The integer counts are embedded exactly (NOTES.md: the counts are
// integers, so the PMF is embedded, not a density).
func VuvuzelaDialing(noise Noise, mu, scale float64) (Mechanism, error) {
	if err := checkNonNegative("vuvuzela_dialing: mu", mu); err != nil {
		return nil, err
	}
	if err := checkPositive("vuvuzela_dialing: scale", scale); err != nil {
		return nil, err
	}
	if noise != NoiseLaplace && noise != NoiseGauss {
		return nil, invalidf("vuvuzela_dialing: unknown noise %d", noise)
	}
	if span := (mu + 80*scale); span > 2e7 {
		return nil, invalidf("vuvuzela_dialing: mu + 80*scale = %g is too large to enumerate", span)
	}
	a, ta := countPMF(noise, mu, scale)
	b, tb := countPMF(noise, mu+2, scale)
	for len(a) < len(b) {
		a = append(a, 0)
	}
	// The tails beyond the enumerated counts (below 1e-300) become two
	// distinguishing outcomes, counted in full in each direction: their
	// ratios are not known, and dropping them would lose mass.
	a = append(a, ta, 0)
	b = append(b, 0, tb)
	h := &histMech{name: fmt.Sprintf("vuvuzela_dialing(noise=%s, mu=%s, scale=%s)", noise, fmtFloat(mu), fmtFloat(scale)), a: a, b: b}
	return h, nil
}

// countPMF returns P(ceil(max(0, X)) = k) for k = 0..K, K where the
// remaining tail is below 1e-300, and that tail P(X > K); X has mean mu.
func countPMF(noise Noise, mu, scale float64) ([]float64, float64) {
	cdfMass := func(x1, x2 float64) float64 { // P(x1 < X <= x2)
		if noise == NoiseGauss {
			return normMass((x1-mu)/scale, (x2-mu)/scale)
		}
		return lapMass((x1-mu)/scale, (x2-mu)/scale)
	}
	var tail float64
	if noise == NoiseGauss {
		tail = mu + 39*scale
	} else {
		tail = mu + 700*scale
	}
	K := int(math.Ceil(tail)) + 2
	p := make([]float64, K+1)
	p[0] = cdfMass(math.Inf(-1), 0)
	for k := 1; k <= K; k++ {
		p[k] = cdfMass(float64(k-1), float64(k))
	}
	return p, cdfMass(float64(K), math.Inf(1))
}
