// Package results holds the result files: Frame, their in-memory
// column-oriented form, and reading and writing it as Parquet, atomically
// (a reader never sees a partial file), with key/value metadata.
//
// May import: internal/atomicfile.
package results
