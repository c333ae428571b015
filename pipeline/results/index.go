package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pbuckets/pbuckets/internal/atomicfile"
)

// IndexFile names the index of a manifest's results folder: it names the
// set of files that is the manifest's current dataset. A run writes it
// when the set it wrote is complete: an unsharded run when it finishes,
// the last shard of a sharded run to finish when every part is there.
const IndexFile = "dataset.json"

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
