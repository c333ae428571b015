package engine

// Noise selects the noise distribution of a mechanism: of the counts of
// the Vuvuzela mechanisms (VuvuzelaDialing, VuvuzelaConversation) and of the
// steps of the subsampled mechanisms (SubsampledGauss, SubsampledLaplace).
type Noise int

const (
	// NoiseLaplace is Laplace noise with the given scale (the original
	// Vuvuzela design).
	NoiseLaplace Noise = iota
	// NoiseGauss is Gaussian noise with standard deviation scale (Section 7).
	NoiseGauss
)

// String returns the noise's name in manifests: "laplace" or "gauss".
func (n Noise) String() string {
	if n == NoiseGauss {
		return "gauss"
	}
	return "laplace"
}
