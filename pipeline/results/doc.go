// Package results holds the result files: Frame, their in-memory
// column-oriented form, read and written as Parquet atomically (a reader
// never sees a partial file) with pbuckets.* metadata; the layout of a
// manifest's results folder (Part: an unsharded run, or the parts of a
// sharded one in shards-of-N/); Scan, which finds the sets of files there,
// checks each from its files' metadata and names the current dataset
// (Index, written when a set completes) and the stale ones; CheckFiles,
// which refuses files of different runs read together (also runs with
// different accuracy targets, accuracy.go); and CheckWritable.
//
// May import: internal/atomicfile.
package results
