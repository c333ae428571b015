package fft

import "sync"

// sharedMaxLog is the log2 of the longest transform whose plan Shared
// keeps: 2^20 points, whose tables take 24 MiB (all lengths up to it
// together at most twice that).
const sharedMaxLog = 20

// shared holds the plans Shared keeps, one per length, each built once.
// An entry is written only inside its sync.Once and never changed after:
// a plan is immutable once NewPlan returns (its bit reversal table is
// built under its own sync.Once), so the table is a read-only cache of
// values that depend on the length alone, not state that any result
// depends on.
var shared [sharedMaxLog + 1]struct {
	once sync.Once
	p    *Plan
}

// shared3 holds the plans of length 3*2^k Shared keeps (index k), up to
// the same cap of 2^sharedMaxLog points.
var shared3 [sharedMaxLog - 1]struct {
	once sync.Once
	p    *Plan
}

// Shared returns a plan of length n (2^k or 3*2^k, k >= 1): for n up to
// 2^20 the same plan for every caller, built on first use, so that
// repeated compositions of one length (the rounds of an accuracy target,
// a session's questions, benchmarks) compute the twiddles once; a new
// plan above. Every transform of a shared plan is bitwise that of a new
// plan of the same length (the same tables; only the number of
// goroutines of the parallel stages is fixed when the plan is built, and
// it does not change any result). It panics as NewPlan does.
func Shared(n int) *Plan {
	if k, ok := threeTimesPow2(n); ok && n <= 1<<sharedMaxLog {
		e := &shared3[k]
		e.once.Do(func() { e.p = NewPlan(n) })
		return e.p
	}
	if n < 2 || n&(n-1) != 0 || n > 1<<sharedMaxLog {
		return NewPlan(n)
	}
	e := &shared[log2(n)]
	e.once.Do(func() { e.p = NewPlan(n) })
	return e.p
}

// log2 returns the log2 of the power of two n.
func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}
