// Package check holds a test that decodes the Kubernetes manifests of
// scripts/k8s strictly into the k8s.io/api types, as the API server would
// read them (an unknown or misspelled field fails), and checks the
// settings the sweep relies on. It is a module of its own, so that
// k8s.io/api (19 modules) stays out of pbuckets's go.mod; run it with
// make test-k8s.
package check
