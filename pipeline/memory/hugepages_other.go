//go:build !linux

package memory

import "errors"

// HugePages does nothing on this platform (see the Linux version): it
// returns 0 and an error that says so.
func HugePages(size int64) (int64, error) {
	return 0, errors.New("huge pages: only on Linux")
}
