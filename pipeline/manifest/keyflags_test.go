package manifest

import (
	"slices"
	"testing"
)

// TestKeyFlags checks that the flags of the one-line commands and the
// table of kinds name the same keys: every key of a kind (but id, kind and
// engine) has a flag, every flag sets a key of some kind, numeric flags
// numeric keys.
func TestKeyFlags(t *testing.T) {
	numeric := map[string]bool{}
	for _, k := range kindTable {
		for _, p := range k.params {
			numeric[p.name] = true
		}
		for _, s := range append(slices.Clone(k.strings), k.options...) {
			numeric[s] = false
		}
	}
	flags := map[string]bool{}
	for _, f := range KeyFlags() {
		isNum, ok := numeric[f.Key]
		switch {
		case !ok:
			t.Errorf("flag --%s sets %q, a key of no kind", f.Flag, f.Key)
		case isNum != f.Numeric:
			t.Errorf("flag --%s: numeric %v, key %q numeric %v", f.Flag, f.Numeric, f.Key, isNum)
		}
		if flags[f.Flag] {
			t.Errorf("flag --%s listed twice", f.Flag)
		}
		flags[f.Flag] = true
		if FlagOfKey(f.Key) != f.Flag {
			t.Errorf("FlagOfKey(%q) = %q, want %q", f.Key, FlagOfKey(f.Key), f.Flag)
		}
	}
	for key := range numeric {
		if FlagOfKey(key) == "" {
			t.Errorf("key %q has no flag", key)
		}
	}
}

// TestKindTable checks that every row of the table of kinds builds its
// engine mechanism and that the searchable kinds tie searchable parameters.
func TestKindTable(t *testing.T) {
	for _, k := range kindTable {
		if k.build == nil {
			t.Errorf("kind %s: no engine constructor", k.name)
		}
		for _, p := range k.tie {
			if !slices.Contains(k.search, p) {
				t.Errorf("kind %s: default tie %q is not searchable", k.name, p)
			}
			if _, ok := k.param(p); !ok {
				t.Errorf("kind %s: searchable %q is not a parameter", k.name, p)
			}
		}
	}
}
