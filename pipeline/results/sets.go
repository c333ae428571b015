package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	// Gaps says which rows the set lacks: missing parts, parts of an
	// interrupted run, failed tasks. `--partial` reads such a set.
	Gaps []string
	// Problems says why the set is not one dataset (parts of different
	// manifests, builds or accuracy targets, unreadable or misplaced
	// files): never read.
	Problems []string
	// Failed counts the failed tasks of the set's parts (as far as their
	// metadata records them).
	Failed int
	// Rerun lists the parts (1-based, sorted) that must run again for the
	// set to be complete: missing, interrupted or with failed tasks. Empty
	// for an unsharded run (which reruns as a whole).
	Rerun []int
	// Legacy marks parts written at the top of the folder by an older
	// pbuckets: never read.
	Legacy bool
}

// Complete reports whether the set is a complete dataset: every part of
// one run, none interrupted, no task failed.
func (s *Set) Complete() bool { return len(s.Problems) == 0 && len(s.Gaps) == 0 && !s.Legacy }

// Describe summarizes the set in one line.
func (s *Set) Describe() string {
	state := "complete"
	if !s.Complete() {
		state = strings.Join(append(slices.Clone(s.Problems), s.Gaps...), "; ")
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

// UsablePartial is Usable for a reader that accepts gaps (missing parts,
// interrupted runs, failed tasks): it refuses only a set that is not one
// dataset.
func (st *Status) UsablePartial() error {
	switch {
	case st.Problem != nil:
		return st.Problem
	case st.Current.Legacy || len(st.Current.Problems) > 0:
		return fmt.Errorf("results %s: %s", st.Dir, st.Current.Describe())
	}
	return nil
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
	// Missing files: every required table, and renyi and tradeoff in all
	// parts or none.
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
		s.Gaps = append(s.Gaps, describeMissing(missing, s.Shards))
	}
	// The files' metadata: the shard each says it is, whether its run
	// finished, and one manifest and build for all.
	hashes, versions := map[string][]string{}, map[string][]string{}
	interrupted := map[int]bool{}
	failed := map[int]failedTasks{}
	var read []metaFile
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
			if f := readFailed(meta); f.count > 0 {
				f.runs = failed[i+1].runs
				if table == TableRuns {
					f.runs = filepath.Base(path)
				}
				failed[i+1] = f
			}
			hashes[meta[MetaHash]] = append(hashes[meta[MetaHash]], filepath.Base(path))
			versions[meta[MetaVersion]] = append(versions[meta[MetaVersion]], filepath.Base(path))
			read = append(read, metaFile{path, meta})
		}
	}
	if len(interrupted) > 0 {
		if s.Shards == 0 {
			s.Gaps = append(s.Gaps, "the run was interrupted; run it again to finish (states are cached)")
		} else {
			s.Gaps = append(s.Gaps, fmt.Sprintf("part %s interrupted; run %s again", joinInts(keysOf(interrupted)), plural(len(interrupted), "it", "them")))
		}
	}
	if s.Shards > 0 {
		rerun := map[int]bool{}
		for _, m := range []map[int]bool{interrupted, setOf(keysOf(missing)), setOf(keysOf(failed))} {
			for i := range m {
				rerun[i] = true
			}
		}
		s.Rerun = keysOf(rerun)
	}
	for _, i := range keysOf(failed) {
		f := failed[i]
		s.Failed += f.count
		if s.Shards == 0 {
			s.Gaps = append(s.Gaps, f.describe("the run")+"; run it again once the cause is fixed (finished tasks are cached)")
		} else {
			s.Gaps = append(s.Gaps, f.describe(fmt.Sprintf("part %d", i))+"; run it again once the cause is fixed (finished tasks are cached)")
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
	if mix := accuracyMix(read); mix != "" {
		s.Problems = append(s.Problems, mix)
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
		if containsAll(missing[i], requiredTables) { // the part is missing as a whole
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

func setOf(xs []int) map[int]bool {
	m := make(map[int]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
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

// containsAll reports whether every element of want is in have.
func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
