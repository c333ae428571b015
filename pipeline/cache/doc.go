// Package cache keeps composed states on disk (States), each under a key
// derived from everything that produced it (Key): the backend's build, the
// mechanism, its data, the engine options, the number of compositions and
// the shaping counts of the composition chain it came from
// (engine.ChainCounts: a state's bits depend on them, so states written by
// shards, by an interrupted run or by another manifest are reused exactly
// where a fresh computation would give the same bits).
// The runner and the noise search share it (normally <out>/.cache).
//
// May import: internal/atomicfile, pipeline/backend, pipeline/manifest.
package cache
