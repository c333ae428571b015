package main

import (
	"flag"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// searchFlags are the flags of a noise search without a manifest (search
// and calibrate): the [search] keys.
type searchFlags struct {
	tie                          *string
	rs                           *listFlag[int64]
	epochs                       *listFlag[float64]
	eEps, eps, delta             *float64
	relTol, minFactor, maxFactor *float64
	maxProbes                    *int
}

// searchFlagNames lists the flags of addSearchFlags.
var searchFlagNames = []string{"tie", "r", "epochs", "e-eps", "eps", "delta", "rel-tol", "min-factor", "max-factor", "max-probes"}

// addSearchFlags registers the [search] flags on fs.
func addSearchFlags(fs *flag.FlagSet) *searchFlags {
	f := &searchFlags{rs: intList(), epochs: floatList()}
	f.tie = fs.String("tie", "", "comma-separated parameters multiplied by the factor (default: scale/sigma; mu,scale for Vuvuzela)")
	fs.Var(f.rs, "r", "number(s) of observations: comma-separated or repeated; 10000, 10_000 or 1e4")
	fs.Var(f.epochs, "epochs", "number(s) of epochs of a training run, instead of --r: r = epochs/q steps (Poisson), epochs*dataset_size/batch (fixed size), or epochs (random_allocation, whose observation is an epoch)")
	f.eEps = fs.Float64("e-eps", 0, "target e^eps (>= 1)")
	f.eps = fs.Float64("eps", 0, "target eps (natural log, >= 0)")
	f.delta = fs.Float64("delta", 0, "target delta, in (0, 1)")
	f.relTol = fs.Float64("rel-tol", 0, "stop bisecting when hi/lo <= 1 + rel-tol (default 0.01)")
	f.minFactor = fs.Float64("min-factor", 0, "smallest factor probed (default 1/1024)")
	f.maxFactor = fs.Float64("max-factor", 0, "largest factor probed (default 1024)")
	f.maxProbes = intFlag(fs, "max-probes", 0, "largest number `N` of probes per search (default 60)")
	return f
}

// searchFlagManifest builds a one-mechanism manifest with a [search] table
// from the flags, checked exactly like a manifest. With startAtOne, tied
// parameters that no flag sets start at 1 (calibrate: the search finds
// their value).
func searchFlagManifest(set map[string]bool, mf *mechFlags, sf *searchFlags, startAtOne bool) (*manifest.Manifest, error) {
	var problems flagProblems
	mech, engine := mf.tables(set, &problems)
	search := map[string]any{}
	switch {
	case len(sf.rs.vals) > 0 && len(sf.epochs.vals) > 0:
		problems.add("give either --r or --epochs, not both")
	case len(sf.epochs.vals) > 0:
		search["epochs"] = sf.epochs.vals
	case len(sf.rs.vals) == 0:
		problems.add("--r is required (the number of observations; or --epochs for a training run)")
	default:
		search["compositions"] = sf.rs.vals
	}
	switch {
	case set["e-eps"] && set["eps"]:
		problems.add("give either --e-eps or --eps, not both")
	case set["e-eps"]:
		problems.finite("e-eps", *sf.eEps)
		search["e_eps"] = *sf.eEps
	case set["eps"]:
		problems.finite("eps", *sf.eps)
		search["eps"] = *sf.eps
	default:
		problems.add("the target --e-eps (or --eps) is required")
	}
	if set["delta"] {
		problems.finite("delta", *sf.delta)
		search["delta"] = *sf.delta
	} else {
		problems.add("the target --delta is required")
	}
	tie := manifest.DefaultTie(*mf.kind)
	if *sf.tie != "" {
		tie = splitList(*sf.tie)
		search["tie"] = tie
	}
	if startAtOne {
		for _, p := range tie {
			if _, given := mech[p]; !given {
				mech[p] = 1.0
			}
		}
	}
	for flagName, kv := range map[string]struct {
		key string
		v   float64
	}{"rel-tol": {"rel_tol", *sf.relTol}, "min-factor": {"min_factor", *sf.minFactor}, "max-factor": {"max_factor", *sf.maxFactor}} {
		if set[flagName] {
			problems.finite(flagName, kv.v)
			search[kv.key] = kv.v
		}
	}
	if set["max-probes"] {
		search["max_probes"] = *sf.maxProbes
	}
	if len(problems) > 0 {
		return nil, joinProblems(problems)
	}
	doc := map[string]any{"name": "search", "mechanism": []map[string]any{mech}, "search": search}
	if engine != nil {
		doc["engine"] = engine
	}
	return parseFlagManifest(doc)
}
