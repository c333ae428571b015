// Package manifest holds the experiment manifests: it parses and validates
// the TOML files of experiments/ (mechanisms and their kinds, sequences of
// them, engine options, [query], [sweep], [search] and [[figure]] tables),
// reporting every problem with its file, line and key (Error); expands a
// sweep into mechanism instances (Manifest.Instances); and reads the data
// files of histogram mechanisms. Nothing here computes a bound.
//
// May import: no package of this module.
package manifest
