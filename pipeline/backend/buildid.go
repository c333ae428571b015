package backend

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/pbuckets/pbuckets/engine"
)

// Version returns engine.Version and the identity of this build: the VCS
// revision of a clean checkout, else the Go build ID of the running
// executable (a hash of its inputs and contents, which the linker records
// in ELF executables), else a hash of the whole executable, so that states
// cached by a modified build are never reused by another.
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
		// Reading the build ID costs a few section headers; hashing the
		// executable (30 MB) cost about 50 ms of every process where the
		// build carries no VCS information (GOFLAGS=-buildvcs=false).
		if id := goBuildID(exe); id != "" {
			h := sha256.Sum256([]byte(id))
			return "buildid-" + hex.EncodeToString(h[:])[:16]
		}
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

// goBuildID returns the Go build ID that the linker writes into the
// .note.go.buildid section of ELF executables (note name "Go", type 4,
// the ID as its descriptor), or "" when there is none (other formats,
// a build with -ldflags=-buildid=, a file that cannot be read).
func goBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	data, err := s.Data()
	if err != nil || len(data) < 16 {
		return ""
	}
	bo := f.ByteOrder
	namesz, descsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
	if namesz != 4 || typ != 4 || !bytes.Equal(data[12:16], []byte("Go\x00\x00")) || uint64(descsz) > uint64(len(data)-16) {
		return ""
	}
	return string(data[16 : 16+descsz])
}
