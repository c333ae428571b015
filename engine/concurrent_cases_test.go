package engine

import (
	"os"
	"runtime"
	"sync"
)

// longTests reports whether PB_LONG is set (make test-long): the long
// exhaustive variants of tests whose default run checks the same property
// on a cheaper variant.
func longTests() bool { return os.Getenv("PB_LONG") != "" }

// runConcurrently calls f(i) for every i in [0, n) on up to GOMAXPROCS
// goroutines, handing out the indices in order, and returns when all
// calls have returned. The property tests draw their cases first (one
// seeded generator, in order) and report per index afterwards, so their
// output does not depend on the schedule.
func runConcurrently(n int, f func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// merge adds the statistics of o (cases after those of s: on equal
// margins the earlier description is kept, as one sequential run would).
func (s *propStats) merge(o propStats) {
	s.checks += o.checks
	s.illConditioned += o.illConditioned
	s.trivialUp += o.trivialUp
	s.trivialEps += o.trivialEps
	if o.worstUp < s.worstUp {
		s.worstUp, s.worstUpDesc = o.worstUp, o.worstUpDesc
	}
	if o.worstLo < s.worstLo {
		s.worstLo, s.worstLoDesc = o.worstLo, o.worstLoDesc
	}
	s.worstEpsUp = min(s.worstEpsUp, o.worstEpsUp)
	s.worstEpsLo = min(s.worstEpsLo, o.worstEpsLo)
	s.swapped += o.swapped
	s.bracketChecks += o.bracketChecks
	s.bracketTight += o.bracketTight
	if o.bracketUp < s.bracketUp {
		s.bracketUp, s.bracketUpDesc = o.bracketUp, o.bracketUpDesc
	}
	if o.bracketLo < s.bracketLo {
		s.bracketLo, s.bracketLoDesc = o.bracketLo, o.bracketLoDesc
	}
	for k, v := range o.kinds {
		s.kinds[k] += v
	}
	s.dirChecks += o.dirChecks
	s.realChecks += o.realChecks
}
