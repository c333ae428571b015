// Package states gives composed privacy-bucket states (Service.Get): from
// the cache folder when a state with the same bits is there, else
// composed through a Backend within a memory budget (Budget) and written
// to the cache. It owns the cache key (Service.Key: the backend's build,
// the mechanism, its data, the engine options, the number of compositions
// and the shaping counts of the composition chain, engine.ChainCounts) and
// the rule that fixes a state's bits (Request.Basis: every part of a
// question composes the same chain), so that states written by shards, by
// an interrupted run, by a search or by a one-line command are reused
// exactly where a fresh computation would give the same bits. Beside each
// state it caches the state's answers (answers.go: the calls made on it
// and their results, in order), so that a question asked again is
// answered without decoding the state, bit for bit as the state answers
// it. The buckets method, the noise search and the comparison methods'
// single-round inputs compose through it.
//
// May import: internal/atomicfile, pipeline/backend, pipeline/manifest,
// pipeline/memory.
package states
