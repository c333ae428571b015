package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteUsesUmask checks that written files get 0666 less the umask
// (0644 under 022, 0640 under 027), as os.Create gives, not 0600, and that
// no temporary file is left.
func TestWriteUsesUmask(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o002, 0o664}} {
		old := syscall.Umask(tc.umask)
		path := filepath.Join(dir, "sub", "f.txt")
		err := Write(path, func(w io.Writer) error {
			_, err := io.WriteString(w, "data")
			return err
		})
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != tc.want {
			t.Errorf("umask %03o: mode %03o, want %03o", tc.umask, got, tc.want)
		}
		os.Remove(path)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// TestWriteKeepsOldFileOnError checks that a failed write leaves the old
// file as it was and no temporary file.
func TestWriteKeepsOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("old file is now %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files, want 1", len(entries))
	}
}
