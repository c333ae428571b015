// Package cache keeps composed states on disk (States), each under a key
// derived from everything that produced it (Key): the backend's build, the
// mechanism, its data, the engine options and the number of compositions.
// The runner and the noise search share it (normally <out>/.cache).
//
// May import: internal/atomicfile, pipeline/backend, pipeline/manifest.
package cache
