package backend

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestGoBuildID compares the build ID read from the test binary's ELF note
// with `go tool buildid`, and checks that a file without the note gives "".
func TestGoBuildID(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the build ID note is read from ELF executables")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	got := goBuildID(exe)
	if got == "" {
		t.Fatal("no build ID read from the test binary")
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("goBuildID = %q, go tool buildid = %q", got, want)
	}
	f := t.TempDir() + "/not-elf"
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id := goBuildID(f); id != "" {
		t.Errorf("goBuildID of a shell script = %q, want \"\"", id)
	}
	if id := buildIdentity(); !strings.HasPrefix(id, "rev-") && !strings.HasPrefix(id, "buildid-") {
		t.Errorf("buildIdentity = %q, want a VCS revision or a build ID", id)
	}
}
