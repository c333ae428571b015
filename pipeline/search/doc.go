// Package search runs noise searches: for a mechanism family with one free
// factor on its noise, the least factor whose buckets upper bound meets a
// target (eps, delta) and the largest whose lower bound proves it missed
// (Searcher, Spec, Result), expanded from a manifest's [search] table
// (Specs), and their result frames. Its probes compose through a
// states.Service, sharing the state cache with the runner and a memory
// budget between concurrent searches. A spec
// with an accuracy target (EngineOptions.Accuracy) is refused
// (ErrAccuracy): a probe is decided at one bucket count.
//
// May import: pipeline/backend, pipeline/manifest, pipeline/memory,
// pipeline/results, pipeline/states.
package search
