package engine

// The power path's transform lengths.
//
// The power path composes on one circular transform of N points
// (power.go). engine/internal/fft transforms lengths 2^k and 3·2^k, so the
// lengths step by factors of 4/3 and 3/2 instead of 2: a question whose
// bracket a 2^k transform misses by a little meets it at 3·2^k points, at
// three quarters of 2^(k+1)'s cost, instead of at 2^(k+1).

// isPowerLength reports whether n is a transform length of the power path:
// 2^k or 3·2^k, at least powerMinN.
func isPowerLength(n int) bool {
	if n < powerMinN {
		return false
	}
	if n%3 == 0 {
		n /= 3
	}
	return n&(n-1) == 0
}

// powerLength returns the transform length of the power path for a bucket
// count b: the shortest length 2^k or 3·2^k of at least max(b, powerMinN).
func powerLength(b int) int {
	return transformLength(max(b, powerMinN))
}

// transformLength returns the shortest length 2^k or 3·2^k (k >= 1) of at
// least x: those engine/internal/fft transforms.
func transformLength(x int) int {
	n := nextPow2(x)
	if t := n / 4 * 3; t >= x && n >= 4 {
		return t
	}
	return n
}

// PowerLength returns the transform length (points) the power path
// composes on for Options.Buckets = b: the shortest 2^k or 3·2^k of at least
// b and 2^10. The accuracy target's rounds step through these lengths.
func PowerLength(b int) int { return powerLength(b) }

// wrapIndex returns j modulo N for j in [-N, 2N) (a circular transform's
// index; N need not be a power of two).
func wrapIndex(j, N int) int {
	if j < 0 {
		return j + N
	}
	if j >= N {
		return j - N
	}
	return j
}
