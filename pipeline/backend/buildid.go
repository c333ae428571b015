package backend

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/pbuckets/pbuckets/engine"
)

// Version returns engine.Version and the identity of this build: the VCS
// revision of a clean checkout, else a hash of the running executable (so
// that states cached by a modified build are never reused by another).
func (Engine) Version() string { return engine.Version + "/" + buildIdentity() }

// buildIdentity is computed once per process (it never changes while the
// process runs).
var buildIdentity = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev string
		modified := true
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" && !modified {
			return "rev-" + rev
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return "exe-" + hex.EncodeToString(h.Sum(nil))[:16]
			}
		}
	}
	return "unknown"
})
