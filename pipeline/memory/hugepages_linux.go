package memory

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"
)

// HugePages prepares size bytes of the Go heap to be backed by transparent
// huge pages (Linux madvise MADV_HUGEPAGE), so that the engine's large
// float64 arrays fault in 2 MiB at a time instead of 4 KiB: on a 2-core VM a
// DP-SGD run (sigma 4, q 0.01, r 65,536) took 43,000 page faults and a
// fifth of its CPU time in the kernel, and with the heap advised 1,300
// faults (engine/README.md, issue 12 step 8). The runtime does not advise
// its heap itself (since Go 1.21.1), and with the kernel's default
// "madvise" mode such a heap gets no huge pages.
//
// It allocates size bytes without touching them (fresh heap memory is
// mapped, not yet backed), advises the 2 MiB-aligned part of that range,
// and frees it again: the allocations that follow reuse the advised pages
// (the page allocator takes the lowest free addresses first), and an
// advised mapping keeps the advice when its pages are released and
// faulted in again. It does nothing, and says why, when the kernel has no
// transparent huge pages or backs every mapping with them already
// ("always"), when HugePageEnv is "0", when the address space is limited
// (RLIMIT_AS) or the kernel does not overcommit (a strict kernel would
// refuse the mapping), or when size is below 2 MiB. It returns the number
// of bytes advised.
//
// Call it once, early in a command's main, before the heap grows.
func HugePages(size int64) (int64, error) {
	if os.Getenv(HugePageEnv) == "0" {
		return 0, fmt.Errorf("huge pages: %s=0", HugePageEnv)
	}
	if size < 2*hugePageSize {
		return 0, errors.New("huge pages: nothing to prepare")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return 0, fmt.Errorf("huge pages: %w", err)
	}
	if !strings.Contains(string(mode), "[madvise]") {
		return 0, fmt.Errorf("huge pages: kernel mode %q, not madvise", strings.TrimSpace(string(mode)))
	}
	if oc, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err != nil || strings.TrimSpace(string(oc)) == "2" {
		return 0, errors.New("huge pages: the kernel does not overcommit")
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur != ^uint64(0) {
		return 0, errors.New("huge pages: the address space is limited")
	}
	b := make([]byte, size)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start+hugePageSize-1)&^(hugePageSize-1) - start
	hi := (start+uintptr(size))&^(hugePageSize-1) - start
	err = syscall.Madvise(b[lo:hi], syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(b)
	// collect b and hand its (untouched) pages back to the kernel, so that
	// they do not count against the runtime's memory limit until used
	debug.FreeOSMemory()
	if err != nil {
		return 0, fmt.Errorf("huge pages: madvise: %w", err)
	}
	return int64(hi - lo), nil
}
