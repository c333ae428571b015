// Package backend holds the Backend interface through which the pipeline
// composes privacy-bucket states and queries them (Mechanism, State), and
// Engine, its implementation with package engine. It is the only pipeline
// package that imports engine; it converts manifest specs and options to
// the engine's and nothing else.
//
// May import: engine, pipeline/manifest.
package backend
