// Package pipeline turns experiment manifests (TOML files describing
// mechanisms, numbers of compositions, privacy queries and bounding methods)
// into tasks, runs them concurrently within a memory budget, caches composed
// privacy-bucket states, and writes the results as Parquet files.
//
// The bucket computation itself is reached through the Backend interface,
// which EngineBackend implements with package engine; comparison methods are
// plugged in through a Registry of MethodFuncs.
package pipeline
