//go:build amd64 && !purego

package fft

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly butterfly loops (kernel_amd64.s); it is
// fixed at start-up from the processor's features.
var useAVX2 = cpu.X86.HasAVX2

// The assembly kernels take the first entry of the block (re, im), the
// first twiddle of each table and the quarter (or half) length, a multiple
// of 4.

//go:noescape
func ditPairAVX2(re, im, w1r, w1i, w2r, w2i *float64, h int, inv bool)

//go:noescape
func ditOneAVX2(re, im, wr, wi *float64, h int)

//go:noescape
func difPairAVX2(re, im, w1r, w1i, w2r, w2i *float64, h int, inv bool)

//go:noescape
func difOneAVX2(re, im, wr, wi *float64, h int)

// The radix-3 stage kernels (radix3.go) take the first entry of each third
// (real and imaginary parts), of each twiddle table and the length, a
// multiple of 4.

//go:noescape
func radix3DIFAVX2(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool)

//go:noescape
func radix3DITAVX2(r0, i0, r1, i1, r2, i2, w1r, w1i, w2r, w2i *float64, n int, inv bool)
