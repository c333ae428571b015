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
// Buckets refines (accuracy.go) in rounds of growing size, for the
// numbers of compositions whose brackets are still wider than the target,
// until every eps(delta) and delta(eps) bracket of the job meets it
// (relative width (upper - lower)/upper, RelativeWidth). At Buckets = 0 it
// starts cheap: the engine's power path for the r that qualify
// (EngineOptions.Path), at the length the backend predicts for the target
// (backend.Engine.PowerStart) where that is at most 2^20 points and at
// 2^14 points otherwise, jumping to the length at which its N^-2 rate
// meets the target, and the squaring chain at 100,000 buckets for
// the others or where the power path stops narrowing; an explicit bucket
// count starts the chain there. It stops when no unmet bracket narrows,
// the measured rate cannot reach the target, the next round would exceed
// the memory budget, or the size would pass its largest. Every round's
// states go through the cache under their own path and size. The Outcome
// reports the narrowest round (Buckets, Accuracy with its Path) and says
// what was reached in its Note.
//
// May import: compare, pipeline/backend, pipeline/manifest, pipeline/memory,
// pipeline/states.
package methods
