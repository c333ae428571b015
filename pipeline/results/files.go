package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/parquet/file"
)

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
// part present once, of runs with one accuracy target (accuracyMix).
// Unless incomplete is allowed, every part must be
// there, no run interrupted and no task failed (MetaFailed). Files without pbuckets metadata, and
// files that cannot be read as Parquet (their reader reports them), are
// not checked. The error says what is mixed or missing.
func CheckFiles(paths []string, incomplete bool) error {
	groups := map[string][]metaFile{}
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
		groups[name] = append(groups[name], metaFile{p, meta})
	}
	var problems []error
	for _, name := range names {
		files := groups[name]
		shards, hashes, versions := map[string][]string{}, map[string][]string{}, map[string][]string{}
		var interrupted, failed []string
		for _, f := range files {
			if ft := readFailed(f.meta); ft.count > 0 {
				failed = append(failed, ft.describe(f.path))
			}
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
		if mix := accuracyMix(files); mix != "" {
			problems = append(problems, fmt.Errorf("%s: mixed: %s", where, mix))
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
		if len(failed) > 0 && !incomplete {
			problems = append(problems, fmt.Errorf("%s: rows missing, tasks failed: %s; run them again once the cause is fixed", where, strings.Join(failed, "; ")))
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
