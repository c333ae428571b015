// Package query holds the questions of the one-line commands, asked of a
// parsed manifest (the same typed spec a manifest file gives): Ask bounds
// eps(delta) or delta(eps) after r observations of the manifest's one
// mechanism by the methods it names; Calibrate turns a noise search's
// answer into a calibration that is sound as printed (rounded to the
// digits the search's tolerance justifies, and the rounded noise checked
// again). It prints nothing: package main parses the flags into a manifest
// and prints the answers.
//
// # The path of a question
//
// `pbuckets eps --kind sgd --sigma 1.1 --q 0.01 --r 10000 --delta 1e-5`
// goes from flag to bracket through six hand-offs between packages, each
// carrying a typed value (no text is encoded and read back):
//
//  1. cmd/pbuckets (query.go, mechflags.go): the flags, named by the
//     table of kinds (manifest.KeyFlags), become the values of one
//     [[mechanism]] table and a [query] table, handed to
//     manifest.ParseValues (manifest.go, kinds.go, build.go), which checks
//     them exactly like a manifest file (the ranges by the engine's
//     constructor, engine.SubsampledGauss) and keeps the mechanism it
//     built (Manifest.Built). A refusal's key is mapped back to its flag.
//  2. cmd/pbuckets hands the *manifest.Manifest to Ask (ask.go), which
//     takes the parsed mechanism, refuses a cache folder that cannot be
//     written or buckets beyond the memory budget, and hands a
//     methods.Job to each method.
//  3. methods.Buckets.Run (pipeline/methods/buckets.go) asks for the
//     states of the job's r (with the question's chain, Request.Basis).
//  4. states.Service.Get (pipeline/states/service.go) keys them, reads
//     the cache folder, or reserves memory and composes. A state in the
//     cache whose answers to the same questions are cached beside it
//     answers from them without being read (pipeline/states/answers.go):
//     the repeated one-liner costs about 0.02 s of CPU, most of it the
//     process's start.
//  5. backend.Engine.ComposeMany (pipeline/backend/engine.go) turns the
//     manifest's engine options into engine.Options.
//  6. engine.ComposeMany composes; the states come back wrapped as
//     backend.State.
//
// On the way back the buckets method asks each state for eps(delta)
// (backend.State.EpsBounds, engine.Result.Eps), intersects the bracket
// with the sound bounds of the other methods where they apply
// (buckets_others.go: for sgd the Renyi bound of the sampled Gaussian),
// and returns methods.Outcome; Ask collects them in an Answer; package
// main rounds each bracket outwards to the digits it prints
// (cmd/pbuckets/bracket.go, internal/outward) so that the printed
// numbers are bounds too.
//
// May import: internal/outward, pipeline/backend, pipeline/manifest,
// pipeline/memory, pipeline/methods, pipeline/results, pipeline/search,
// pipeline/states.
package query
