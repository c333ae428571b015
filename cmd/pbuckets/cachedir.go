package main

import (
	"flag"
	"os"
	"path/filepath"
)

// oneLinerCache returns the state cache folder of a one-line command (eps,
// delta, calibrate, search with flags) and the flag that chose it: --cache
// when given, else OUT/.cache when --out is given, else the user's cache
// folder (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux, then
// pbuckets/states), so that a one-liner run in any folder leaves no
// results/.cache there. Without a user cache folder it is OUT/.cache.
func oneLinerCache(fs *flag.FlagSet, out, cacheFlag string) (dir, flagName string) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case cacheFlag != "":
		return cacheFlag, "--cache"
	case set["out"]:
		return filepath.Join(out, ".cache"), "--out"
	}
	if user, err := os.UserCacheDir(); err == nil {
		return filepath.Join(user, "pbuckets", "states"), "the user cache folder (--cache DIR to choose another)"
	}
	return filepath.Join(out, ".cache"), "--out"
}
