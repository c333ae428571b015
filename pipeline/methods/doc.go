// Package methods holds the bounding methods a manifest names and the
// contract between them and the runner: a method (Func) computes a Job,
// one mechanism instance at several numbers of compositions, and returns
// one Outcome per number. Buckets computes the privacy-buckets bounds
// with the composed states of a states.Service (backend, cache, memory
// budget); Compare returns the comparison methods of package compare
// (kov, advanced, rdp, cdp, exact), fed with closed forms or with the
// single-round state of the same service, and on sequences
// of mechanisms where they compose (sequence.go).
//
// With an accuracy target ([engine] accuracy, EngineOptions.Accuracy),
// Buckets refines (accuracy.go): it composes at the job's bucket count,
// then at twice as many, and so on, for the numbers of compositions whose
// brackets are still wider than the target, until every eps(delta) and
// delta(eps) bracket of the job meets it (relative width
// (upper - lower)/upper, RelativeWidth), no unmet bracket narrows, the next
// round would exceed the memory budget, or the bucket count would pass
// 2^26. Every round's states go through the cache under their own bucket
// count. The Outcome reports the narrowest round (Buckets, Accuracy) and
// says what was reached in its Note.
//
// May import: compare, pipeline/backend, pipeline/manifest, pipeline/memory,
// pipeline/states.
package methods
