package fft

import "math/bits"

// Frequency returns the frequency k whose coefficient X_k the spectrum of
// ForwardBitReversed holds at position pos (0 <= pos < n), the order
// InverseBitReversed takes: rev(pos) for n a power of two (rev the bit
// reversal of log2 n bits), and 3 rev(pos mod m) + floor(pos/m) for n =
// 3m (rev of log2 m bits). Position is its inverse.
//
// Mirror frequencies (n - k mod n, which the packing of two real sequences
// into one complex one pairs) of a plan of length 3m: in the first third
// the positions pair as in a radix-2 spectrum of length m; position m + j
// of the second third pairs with 3m - 1 - j in the last.
func (p *Plan) Frequency(pos int) int {
	if p.r3 != nil {
		m := p.r3.sub.n
		return 3*reverseBits(pos&(m-1), p.logN) + pos/m
	}
	return reverseBits(pos, p.logN)
}

// Position returns the position of the coefficient X_k (0 <= k < n) in
// the spectrum order of ForwardBitReversed: the inverse of Frequency.
func (p *Plan) Position(k int) int {
	if p.r3 != nil {
		m := p.r3.sub.n
		return (k%3)*m + reverseBits(k/3, p.logN)
	}
	return reverseBits(k, p.logN)
}

// reverseBits returns the low b bits of x in reverse order.
func reverseBits(x, b int) int {
	return int(bits.Reverse(uint(x)) >> (bits.UintSize - b))
}

// Mirror returns the position of the mirror frequency n - k (mod n) of
// the frequency k at position pos of the spectrum order (Frequency): the
// pairs that separate two real sequences packed into one complex one.
func (p *Plan) Mirror(pos int) int {
	return p.Position((p.n - p.Frequency(pos)) % p.n)
}
