package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/parquet/file"

	"github.com/pbuckets/pbuckets/internal/atomicfile"
)

// The result tables a run writes for each manifest (renyi only when the
// manifest asks for Renyi divergences).
const (
	TableDelta   = "delta"
	TableEpsilon = "epsilon"
	TableRuns    = "runs"
	TableRenyi   = "renyi"
)

// Tables lists the result tables in the order a run writes them.
func Tables() []string { return []string{TableDelta, TableEpsilon, TableRuns, TableRenyi} }

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
)

// IndexFile names the index of a manifest's results folder: it names the
// set of files that is the manifest's current dataset. A run writes it
// when the set it wrote is complete: an unsharded run when it finishes,
// the last shard of a sharded run to finish when every part is there.
const IndexFile = "dataset.json"

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

// Set is one set of result files of a manifest in its results folder: the
// files of an unsharded run, the parts of a sharded run, or parts left at
// the top of the folder by pbuckets before the shards-of-N folders.
type Set struct {
	// Dir is the set's folder; Name describes it ("unsharded run",
	// "shards-of-16", ...).
	Dir, Name string
	// Shards is the number of parts of the set, 0 for an unsharded run.
	Shards int
	// Files maps each table to its files in part order ("" for a missing
	// part).
	Files map[string][]string
	// ManifestHash and Version are those of the set's files when they all
	// agree.
	ManifestHash, Version string
	// Problems says why the set is not a complete dataset (missing or
	// interrupted parts, parts of different manifests or builds); empty
	// when it is one.
	Problems []string
	// Legacy marks parts written at the top of the folder by an older
	// pbuckets: never read.
	Legacy bool
}

// Complete reports whether the set is a complete dataset.
func (s *Set) Complete() bool { return len(s.Problems) == 0 && !s.Legacy }

// Describe summarizes the set in one line.
func (s *Set) Describe() string {
	state := "complete"
	if !s.Complete() {
		state = strings.Join(s.Problems, "; ")
	}
	return fmt.Sprintf("%s (%s): %s", s.Name, s.Dir, state)
}

// Status is what the results folder of one manifest holds: its current
// dataset and the sets that are not it.
type Status struct {
	// Dir is the folder, <out>/<name>.
	Dir string
	// Current is the manifest's dataset: the set the index names or, with
	// no index, the only set present. Nil when there is none.
	Current *Set
	// Problem says why there is no current set (nothing found, several
	// sets and no index); nil when Current is set. An incomplete current
	// set is described by its own Problems.
	Problem error
	// Stale lists the sets present that are not the current one.
	Stale []*Set
}

// Usable returns nil when the folder holds a complete current dataset,
// else an error saying why not.
func (st *Status) Usable() error {
	switch {
	case st.Problem != nil:
		return st.Problem
	case !st.Current.Complete():
		return fmt.Errorf("results %s: %s", st.Dir, st.Current.Describe())
	}
	return nil
}

// Index is the content of IndexFile.
type Index struct {
	// Set is the folder of the current dataset relative to the results
	// folder: "." or "shards-of-N".
	Set string `json:"set"`
	// Shards is its number of parts (0: unsharded).
	Shards       int    `json:"shards"`
	ManifestHash string `json:"manifest_hash"`
	Version      string `json:"version"`
	// Files lists each table's files relative to the results folder, in
	// part order, for readers such as DuckDB or pandas.
	Files map[string][]string `json:"files"`
}

// Scan reads the results folder dir of one manifest: the sets of result
// files present, each checked from the metadata of its files, and the
// index. It fails only when the folder cannot be read.
func Scan(dir string) (*Status, error) {
	st := &Status{Dir: dir}
	sets, err := findSets(dir)
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		s.check()
	}
	idx, err := ReadIndex(dir)
	switch {
	case err == nil:
		for _, s := range sets {
			if !s.Legacy && s.Shards == idx.Shards {
				st.Current = s
			}
		}
		if st.Current == nil {
			st.Problem = fmt.Errorf("results %s: the index %s names %s, which is missing", dir, IndexFile, idx.Set)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	default:
		var candidates []*Set
		for _, s := range sets {
			if !s.Legacy {
				candidates = append(candidates, s)
			}
		}
		switch len(candidates) {
		case 0:
			st.Problem = fmt.Errorf("results %s: no result files (delta.parquet or shards-of-N/)", dir)
		case 1:
			st.Current = candidates[0]
		default:
			var names []string
			for _, s := range candidates {
				names = append(names, s.Describe())
			}
			st.Problem = fmt.Errorf("results %s: several result sets and no index %s (none completed since): %s; remove the stale ones",
				dir, IndexFile, strings.Join(names, " | "))
		}
	}
	for _, s := range sets {
		if s != st.Current {
			st.Stale = append(st.Stale, s)
		}
	}
	return st, nil
}

// findSets lists the sets of result files in dir.
func findSets(dir string) ([]*Set, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sets []*Set
	whole := &Set{Dir: dir, Name: "unsharded run", Files: map[string][]string{}}
	legacy := map[int]*Set{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			if m := setFolderPattern.FindStringSubmatch(name); m != nil {
				n, _ := strconv.Atoi(m[1])
				s, err := partSet(filepath.Join(dir, name), n, false)
				if err != nil {
					return nil, err
				}
				sets = append(sets, s)
			}
			continue
		}
		if table, ok := strings.CutSuffix(name, ".parquet"); ok && slices.Contains(Tables(), table) {
			whole.Files[table] = []string{filepath.Join(dir, name)}
		}
		if m := partPattern.FindStringSubmatch(name); m != nil && slices.Contains(Tables(), m[1]) {
			n, _ := strconv.Atoi(m[3])
			if legacy[n] == nil {
				s, err := partSet(dir, n, true)
				if err != nil {
					return nil, err
				}
				legacy[n] = s
			}
		}
	}
	if len(whole.Files) > 0 {
		sets = append([]*Set{whole}, sets...)
	}
	keys := make([]int, 0, len(legacy))
	for n := range legacy {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	for _, n := range keys {
		sets = append(sets, legacy[n])
	}
	return sets, nil
}

// partSet lists the parts of a run sharded n ways in folder (the top of
// the results folder for legacy parts).
func partSet(folder string, n int, legacy bool) (*Set, error) {
	s := &Set{Dir: folder, Name: setFolder(n), Shards: n, Files: map[string][]string{}, Legacy: legacy}
	if legacy {
		s.Name = fmt.Sprintf("parts of %d at the top of the folder (written by an older pbuckets; never read)", n)
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		m := partPattern.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() || !slices.Contains(Tables(), m[1]) {
			continue
		}
		i, _ := strconv.Atoi(m[2])
		if c, _ := strconv.Atoi(m[3]); c != n || i > n {
			if !legacy {
				s.Problems = append(s.Problems, fmt.Sprintf("%s does not belong in %s", e.Name(), setFolder(n)))
			}
			continue
		}
		if s.Files[m[1]] == nil {
			s.Files[m[1]] = make([]string, n)
		}
		s.Files[m[1]][i-1] = filepath.Join(folder, e.Name())
	}
	return s, nil
}

// check fills s.Problems from the files present and their metadata.
func (s *Set) check() {
	if s.Legacy {
		return
	}
	n := max(s.Shards, 1)
	// Missing files: every required table, and renyi in all parts or none.
	missing := map[int][]string{}
	for _, table := range Tables() {
		files, present := s.Files[table]
		if !present && !slices.Contains(requiredTables, table) {
			continue
		}
		for i := range n {
			if !present || files[i] == "" {
				missing[i+1] = append(missing[i+1], table)
			}
		}
	}
	if len(missing) > 0 {
		s.Problems = append(s.Problems, describeMissing(missing, s.Shards))
	}
	// The files' metadata: the shard each says it is, whether its run
	// finished, and one manifest and build for all.
	hashes, versions := map[string][]string{}, map[string][]string{}
	interrupted := map[int]bool{}
	for _, table := range Tables() {
		for i, path := range s.Files[table] {
			if path == "" {
				continue
			}
			meta, err := ReadMetadata(path)
			if err != nil {
				s.Problems = append(s.Problems, err.Error())
				continue
			}
			part := Part{Index: i + 1, Count: s.Shards}
			if s.Shards == 0 {
				part.Index = 0
			}
			if got := meta[MetaShard]; got != part.String() {
				s.Problems = append(s.Problems, fmt.Sprintf("%s says it is shard %q", filepath.Base(path), got))
			}
			if meta[MetaComplete] != "true" {
				interrupted[i+1] = true
			}
			hashes[meta[MetaHash]] = append(hashes[meta[MetaHash]], filepath.Base(path))
			versions[meta[MetaVersion]] = append(versions[meta[MetaVersion]], filepath.Base(path))
		}
	}
	if len(interrupted) > 0 {
		if s.Shards == 0 {
			s.Problems = append(s.Problems, "the run was interrupted; run it again to finish (states are cached)")
		} else {
			s.Problems = append(s.Problems, fmt.Sprintf("part %s interrupted; run %s again", joinInts(keysOf(interrupted)), plural(len(interrupted), "it", "them")))
		}
	}
	s.ManifestHash = single(hashes)
	s.Version = single(versions)
	if len(hashes) > 1 {
		s.Problems = append(s.Problems, "files of different versions of the manifest: "+describeGroups(hashes, 8))
	}
	if len(versions) > 1 {
		s.Problems = append(s.Problems, "files of different builds of pbuckets: "+describeGroups(versions, 0))
	}
}

// describeMissing says which parts lack which tables.
func describeMissing(missing map[int][]string, shards int) string {
	if shards == 0 {
		return "missing " + strings.Join(missing[1], ", ")
	}
	parts := keysOf(missing)
	var all []int
	for _, i := range parts {
		if len(missing[i]) == len(requiredTables) || len(missing[i]) == len(Tables()) {
			all = append(all, i)
		}
	}
	msg := fmt.Sprintf("%d of %d parts missing (%s)", len(parts), shards, joinInts(parts))
	if len(all) < len(parts) {
		var detail []string
		for _, i := range parts {
			detail = append(detail, fmt.Sprintf("part %d lacks %s", i, strings.Join(missing[i], ", ")))
		}
		msg += ": " + strings.Join(detail, "; ")
	}
	return msg
}

func keysOf[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// joinInts writes sorted integers with runs as ranges: "1-3, 7".
func joinInts(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// single returns the only key of m, or "" when there are several.
func single(m map[string][]string) string {
	if len(m) != 1 {
		return ""
	}
	for k := range m {
		return k
	}
	return ""
}

// describeGroups lists the values of m with the files that carry them;
// values are cut to width characters when width > 0.
func describeGroups(m map[string][]string, width int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v := k
		if width > 0 && len(v) > width {
			v = v[:width]
		}
		files := m[k]
		if len(files) > 3 {
			files = append(files[:3:3], fmt.Sprintf("%d more", len(m[k])-3))
		}
		out = append(out, fmt.Sprintf("%q in %s", v, strings.Join(files, ", ")))
	}
	return strings.Join(out, "; ")
}

// ReadMetadata returns the key/value metadata of a Parquet file (the
// pbuckets.* keys of result files) without reading its rows.
func ReadMetadata(path string) (map[string]string, error) {
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	kv := r.MetaData().KeyValueMetadata()
	out := make(map[string]string, kv.Len())
	keys, vals := kv.Keys(), kv.Values()
	for i, k := range keys {
		out[k] = vals[i]
	}
	return out, nil
}

// ReadIndex reads the index of the results folder dir; the error wraps
// fs.ErrNotExist when there is none.
func ReadIndex(dir string) (*Index, error) {
	data, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, IndexFile), err)
	}
	if idx.Shards < 0 || idx.Set != setName(idx.Shards) {
		return nil, fmt.Errorf("%s: set %q does not match %d shards", filepath.Join(dir, IndexFile), idx.Set, idx.Shards)
	}
	return &idx, nil
}

func setName(shards int) string {
	if shards == 0 {
		return "."
	}
	return setFolder(shards)
}

// WriteIndex makes the complete set s the current dataset of the results
// folder dir.
func WriteIndex(dir string, s *Set) error {
	if !s.Complete() {
		return fmt.Errorf("results %s: not indexing an incomplete set: %s", dir, s.Describe())
	}
	idx := Index{Set: setName(s.Shards), Shards: s.Shards, ManifestHash: s.ManifestHash, Version: s.Version, Files: map[string][]string{}}
	for table, files := range s.Files {
		for _, f := range files {
			rel, err := filepath.Rel(dir, f)
			if err != nil {
				return err
			}
			idx.Files[table] = append(idx.Files[table], filepath.ToSlash(rel))
		}
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, IndexFile), func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// CheckWritable checks, before any work, that files can be written in
// dir: it creates dir (with its parents) if missing and writes and removes
// a probe file there. The error names the folder and the reason.
func CheckWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("cannot write results to %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".pbuckets-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write results to %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cannot write results to %s: %w", dir, err)
	}
	return nil
}

// CheckFiles checks that result files read together form whole datasets:
// files of one manifest (pbuckets.name) must all be the unsharded run or
// all parts of one sharded run, of one manifest version and build, each
// part present once. Unless incomplete is allowed, every part must be
// there and no run interrupted. Files without pbuckets metadata, and
// files that cannot be read as Parquet (their reader reports them), are
// not checked. The error says what is mixed or missing.
func CheckFiles(paths []string, incomplete bool) error {
	type file struct {
		path string
		meta map[string]string
	}
	groups := map[string][]file{}
	var names []string
	for _, p := range paths {
		meta, err := ReadMetadata(p)
		if err != nil {
			continue
		}
		name, ok := meta[MetaName]
		if !ok {
			continue
		}
		if groups[name] == nil {
			names = append(names, name)
		}
		groups[name] = append(groups[name], file{p, meta})
	}
	var problems []error
	for _, name := range names {
		files := groups[name]
		shards, hashes, versions := map[string][]string{}, map[string][]string{}, map[string][]string{}
		var interrupted []string
		for _, f := range files {
			shards[f.meta[MetaShard]] = append(shards[f.meta[MetaShard]], f.path)
			hashes[f.meta[MetaHash]] = append(hashes[f.meta[MetaHash]], filepath.Base(f.path))
			versions[f.meta[MetaVersion]] = append(versions[f.meta[MetaVersion]], filepath.Base(f.path))
			if f.meta[MetaComplete] != "true" {
				interrupted = append(interrupted, f.path)
			}
		}
		counts := map[int]map[int]int{} // N -> I -> files
		for shard, ps := range shards {
			p, err := parsePart(shard)
			if err != nil {
				return fmt.Errorf("%s: %w", ps[0], err)
			}
			if counts[p.Count] == nil {
				counts[p.Count] = map[int]int{}
			}
			counts[p.Count][p.Index] += len(ps)
		}
		where := fmt.Sprintf("results of %q", name)
		if len(counts) > 1 {
			var kinds []string
			for _, n := range keysOf(counts) {
				if n == 0 {
					kinds = append(kinds, "an unsharded run")
				} else {
					kinds = append(kinds, fmt.Sprintf("parts of %d", n))
				}
			}
			problems = append(problems, fmt.Errorf("%s: mixed sets: %s; read one set (one shards-of-N folder, or the unsharded files)", where, strings.Join(kinds, " with ")))
			continue
		}
		if len(hashes) > 1 {
			problems = append(problems, fmt.Errorf("%s: mixed: files of different versions of the manifest: %s", where, describeGroups(hashes, 8)))
			continue
		}
		if len(versions) > 1 {
			problems = append(problems, fmt.Errorf("%s: mixed: files of different builds of pbuckets: %s", where, describeGroups(versions, 0)))
			continue
		}
		for n, parts := range counts {
			var twice, missing []int
			for i := 1; i <= max(n, 1); i++ {
				k := i
				if n == 0 {
					k = 0
				}
				switch c := parts[k]; {
				case c == 0:
					missing = append(missing, i)
				case c > 1 && n > 0:
					twice = append(twice, i)
				}
			}
			if len(twice) > 0 {
				problems = append(problems, fmt.Errorf("%s: part %s given more than once (tables of several kinds cannot be read as one)", where, joinInts(twice)))
			}
			if len(missing) > 0 && !incomplete {
				problems = append(problems, fmt.Errorf("%s: %d of %d parts missing (%s)", where, len(missing), n, joinInts(missing)))
			}
		}
		if len(interrupted) > 0 && !incomplete {
			problems = append(problems, fmt.Errorf("%s: written by an interrupted run: %s", where, strings.Join(interrupted, ", ")))
		}
	}
	return errors.Join(problems...)
}

// parsePart parses a MetaShard value: "" or "I/N".
func parsePart(s string) (Part, error) {
	if s == "" {
		return Part{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Part{}, fmt.Errorf("invalid %s %q", MetaShard, s)
	}
	return Part{Index: i, Count: n}, nil
}
