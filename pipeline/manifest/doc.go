// Package manifest holds the experiment manifests: it parses and validates
// the TOML files of experiments/ (mechanisms and their kinds, sequences of
// them, engine options, [query], [sweep], [search] and [[figure]] tables),
// reporting every problem with its file, line and key (Error); expands a
// sweep into mechanism instances (Manifest.Instances), each with its own
// numbers of observations when training runs are counted in epochs
// (epochs.go); and reads the data
// files of histogram mechanisms. It owns the table of mechanism kinds
// (kinds.go): the keys of each kind, their checks and defaults, the flags
// of the one-line commands that set them (keyflags.go), and the engine
// constructor that builds a mechanism of the kind (MechanismSpec.Build).
// Nothing here computes a bound.
//
// May import: engine.
package manifest
