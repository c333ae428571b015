// Package methods holds the bounding methods a manifest names and the
// contract between them and the runner: a method (Func) computes a Job,
// one mechanism instance at several numbers of compositions, and returns
// one Outcome per number. Buckets computes the privacy-buckets bounds
// through a Backend and the state cache; Compare returns the comparison
// methods of package compare (kov, advanced, rdp, cdp, exact), fed with
// closed forms or with the backend's single-round state, and on sequences
// of mechanisms where they compose (sequence.go).
//
// May import: compare, pipeline/backend, pipeline/cache, pipeline/manifest.
package methods
