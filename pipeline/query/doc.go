// Package query holds the questions of the one-line commands, asked of a
// parsed manifest (the same typed spec a manifest file gives): Ask bounds
// eps(delta) or delta(eps) after r observations of the manifest's one
// mechanism by the methods it names; Calibrate turns a noise search's
// answer into a calibration that is sound as printed (rounded to the
// digits the search's tolerance justifies, and the rounded noise checked
// again). It prints nothing: package main parses the flags into a manifest
// and prints the answers.
//
// May import: internal/outward, pipeline/backend, pipeline/manifest,
// pipeline/memory, pipeline/methods, pipeline/results, pipeline/search,
// pipeline/states.
package query
