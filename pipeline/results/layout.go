package results

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
)

// The result tables a run writes for each manifest (renyi only when the
// manifest asks for Renyi divergences, tradeoff only when it asks for
// true-positive rates at false-positive rates).
const (
	TableDelta    = "delta"
	TableEpsilon  = "epsilon"
	TableRuns     = "runs"
	TableRenyi    = "renyi"
	TableTradeoff = "tradeoff"
)

// Tables lists the result tables in the order a run writes them.
func Tables() []string {
	return []string{TableDelta, TableEpsilon, TableRuns, TableRenyi, TableTradeoff}
}

// requiredTables are the tables every complete set holds.
var requiredTables = []string{TableDelta, TableEpsilon, TableRuns}

// Parquet metadata keys of the result files (pbuckets.*).
const (
	MetaManifest = "pbuckets.manifest"
	MetaName     = "pbuckets.name"
	MetaTitle    = "pbuckets.title"
	MetaHash     = "pbuckets.manifest_hash"
	MetaVersion  = "pbuckets.version"
	// MetaShard is "I/N" in part I of a run sharded N ways, "" otherwise.
	MetaShard = "pbuckets.shard"
	// MetaComplete is "false" when the run was interrupted.
	MetaComplete = "pbuckets.complete"
	// MetaFailed is the number of tasks of the run (of the part) that
	// failed, in decimal; files of an older pbuckets lack it.
	MetaFailed = "pbuckets.failed"
	// MetaFailedTasks names the first MaxFailedNames failed tasks, one
	// per line ("mechanism \"gauss\": method buckets: r=8").
	MetaFailedTasks = "pbuckets.failed_tasks"
)

// MaxFailedNames bounds the failed tasks MetaFailedTasks names; the runs
// table has every one with its error.
const MaxFailedNames = 20

// Part identifies what one run writes of a manifest's dataset: part Index
// (1-based) of Count, or the whole dataset when Count is 0.
//
// The layout makes a dataset unambiguous: an unsharded run writes
// <dir>/<table>.parquet, a run sharded N ways writes its parts into a
// folder of their own, <dir>/shards-of-N/<table>-part-I-of-N.parquet, so
// that no glob of one folder reads parts of different N, or parts and an
// unsharded run, together.
type Part struct {
	Index, Count int
}

// Sharded reports whether the part is one of several (Count > 0).
func (p Part) Sharded() bool { return p.Count > 0 }

// String returns "I/N", or "" for an unsharded run (the MetaShard value).
func (p Part) String() string {
	if !p.Sharded() {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.Index, p.Count)
}

// SetDir returns the folder of the set of count parts in the results
// folder dir of a manifest: dir itself for an unsharded run (count 0),
// dir/shards-of-<count> otherwise.
func SetDir(dir string, count int) string {
	if count == 0 {
		return dir
	}
	return filepath.Join(dir, setFolder(count))
}

func setFolder(count int) string { return "shards-of-" + strconv.Itoa(count) }

// Path returns the file of table that part p writes in the results
// folder dir of a manifest (<out>/<name>).
func (p Part) Path(dir, table string) string {
	if !p.Sharded() {
		return filepath.Join(dir, table+".parquet")
	}
	return filepath.Join(SetDir(dir, p.Count), fmt.Sprintf("%s-part-%d-of-%d.parquet", table, p.Index, p.Count))
}

var (
	setFolderPattern = regexp.MustCompile(`^shards-of-([1-9][0-9]*)$`)
	partPattern      = regexp.MustCompile(`^([a-z]+)-part-([1-9][0-9]*)-of-([1-9][0-9]*)\.parquet$`)
)
