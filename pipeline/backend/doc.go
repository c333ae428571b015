// Package backend holds the Backend interface through which the pipeline
// composes privacy-bucket states and queries them (Mechanism, State), and
// Engine, its implementation with package engine. It composes the
// mechanisms that manifest.MechanismSpec.Build makes (package manifest
// holds the table of kinds and their engine constructors) and converts
// manifest options to the engine's.
//
// May import: engine, pipeline/manifest.
package backend
