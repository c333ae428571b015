// Package fft computes fast Fourier transforms of complex vectors held as
// two float64 slices (real and imaginary parts), of lengths 2^k (radix 2)
// and 3*2^k (one radix-3 stage around three radix-2 transforms), with a
// proven bound on their rounding error: Higham, "Accuracy and Stability of
// Numerical Algorithms" (2nd ed.), Theorem 24.2 (Kappa, Kappa3, Eta3,
// TwiddleErr).
//
// A Plan of length n gives the unnormalised transforms in natural order
// (Forward, Inverse) and, for convolutions, which multiply spectra
// pointwise and never need the natural order, a forward transform that
// leaves the spectrum in a fixed permuted order (ForwardBitReversed: the
// bit-reversed order for 2^k, Plan.Frequency says which frequency each
// position holds) and an inverse that takes it in that order
// (InverseBitReversed), saving both permutations.
//
// The butterfly loops exist as portable Go and, on amd64 with AVX2, as
// assembly doing the same IEEE operations in the same order (no fused
// multiply-add): results are bitwise the same on every machine, and the
// fused, blocked and parallel stages give bitwise the results of the plain
// one-stage-at-a-time algorithm the error analysis is about (the tests
// check each).
//
// May import: no package of this module.
package fft
