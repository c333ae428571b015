//go:build !amd64 || purego

package fft

// useAVX2 is false where there are no assembly kernels.
const useAVX2 = false

func ditPairAVX2(re, im, w1r, w1i, w2r, w2i *float64, h int, inv bool) {
	panic("fft: no AVX2 kernels")
}
func ditOneAVX2(re, im, wr, wi *float64, h int) { panic("fft: no AVX2 kernels") }
func difPairAVX2(re, im, w1r, w1i, w2r, w2i *float64, h int, inv bool) {
	panic("fft: no AVX2 kernels")
}
func difOneAVX2(re, im, wr, wi *float64, h int) { panic("fft: no AVX2 kernels") }
func radix3DIFAVX2(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool) {
	panic("fft: no AVX2 kernels")
}
func radix3DITAVX2(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool) {
	panic("fft: no AVX2 kernels")
}
