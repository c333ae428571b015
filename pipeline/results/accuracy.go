package results

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MetaAccuracy records the accuracy targets a run gave the manifest's
// mechanisms (manifest.Manifest.AccuracyTargets: "" when none). `pbuckets
// run --accuracy` overrides the manifest's accuracy keys without changing
// the manifest hash, so parts run with different targets carry the same
// hash: this key, and for files written before it the accuracy column of
// runs.parquet, tell them apart (accuracyMix).
const MetaAccuracy = "pbuckets.accuracy"

// metaFile is a result file with its pbuckets.* metadata.
type metaFile struct {
	path string
	meta map[string]string
}

// runsFilePattern matches the names of runs tables: runs.parquet and
// runs-part-I-of-N.parquet.
var runsFilePattern = regexp.MustCompile(`^runs(-part-[1-9][0-9]*-of-[1-9][0-9]*)?\.parquet$`)

// accuracyMix returns why files read together as one dataset are of runs
// with different accuracy targets, or "" when they are not (as far as the
// files tell). Files that record MetaAccuracy are compared by it; when
// some do not (written before the key existed), the runs tables among
// them are read and each mechanism instance's target (the accuracy column
// of its buckets rows with status ok) is compared across them: a
// mechanism whose rows in different files carry different targets is a
// mix. (Without the key, different mechanisms with different targets in
// different parts cannot be told from a manifest that gives them
// different targets.)
func accuracyMix(files []metaFile) string {
	recorded := map[string][]string{}
	var unrecorded []string
	for _, f := range files {
		v, ok := f.meta[MetaAccuracy]
		if !ok {
			if runsFilePattern.MatchString(filepath.Base(f.path)) {
				unrecorded = append(unrecorded, f.path)
			}
			continue
		}
		if v == "" {
			v = "none"
		}
		recorded[v] = append(recorded[v], filepath.Base(f.path))
	}
	if len(recorded) > 1 {
		return "parts run with different accuracy targets (pbuckets run --accuracy, which the manifest hash does not cover): " +
			describeGroups(recorded, 0) + "; run the parts again with one --accuracy (or none; states are cached)"
	}
	if len(unrecorded) < 2 {
		return ""
	}
	// mechanism instance -> target -> files
	byMech := map[string]map[string][]string{}
	var mechs []string
	for _, path := range unrecorded {
		f, err := ReadParquet(path)
		if err != nil {
			continue // its reader reports it
		}
		mech, method, status, acc := f.Column("mechanism"), f.Column("method"), f.Column("status"), f.Column("accuracy")
		if mech == nil || method == nil || status == nil || acc == nil ||
			mech.Type != String || method.Type != String || status.Type != String || acc.Type != Float64 {
			continue // written before the accuracy columns: no target
		}
		for i := range f.Rows() {
			if method.Strings[i] != "buckets" || status.Strings[i] != "ok" {
				continue
			}
			target := "none"
			if !acc.IsNull(i) && !math.IsNaN(acc.Floats[i]) {
				target = strconv.FormatFloat(acc.Floats[i], 'g', -1, 64)
			}
			m := mech.Strings[i]
			if byMech[m] == nil {
				byMech[m] = map[string][]string{}
				mechs = append(mechs, m)
			}
			if base := filepath.Base(path); !slices.Contains(byMech[m][target], base) {
				byMech[m][target] = append(byMech[m][target], base)
			}
		}
	}
	var mixed []string
	for _, m := range mechs {
		if len(byMech[m]) > 1 {
			mixed = append(mixed, fmt.Sprintf("mechanism %q: %s", m, describeGroups(byMech[m], 0)))
		}
	}
	if len(mixed) == 0 {
		return ""
	}
	return "parts run with different accuracy targets (pbuckets run --accuracy, which the manifest hash does not cover; runs.parquet column accuracy): " +
		strings.Join(mixed, "; ") + "; run the parts again with one --accuracy (or none; states are cached)"
}
