// Package runner turns manifests into tasks (Expand: one method, one
// mechanism instance, one number of compositions each, the instance's own
// with query.epochs: manifest.Manifest.Compositions), selects a shard of
// them (Shard), runs them concurrently within a memory budget (Runner), and
// writes each manifest's results: delta, epsilon and runs Parquet files
// under <out>/<name>/, with renyi and tradeoff files when the query asks for
// Renyi orders or false-positive rates; rows name their epochs and steps
// when the query gives epochs. A failed task fails alone; an interrupted
// run writes what finished.
//
// May import: pipeline/backend, pipeline/manifest, pipeline/memory,
// pipeline/methods, pipeline/results, pipeline/states.
package runner
