// Package runner turns manifests into tasks (Expand: one method, one
// mechanism instance, one number of compositions each), selects a shard of
// them (Shard), runs them concurrently within a memory budget (Runner), and
// writes each manifest's results: delta, epsilon, runs and renyi Parquet
// files under <out>/<name>/. A failed task fails alone; an interrupted run
// writes what finished.
//
// May import: pipeline/backend, pipeline/manifest, pipeline/memory,
// pipeline/methods, pipeline/results, pipeline/states.
package runner
