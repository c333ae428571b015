package memory

// HugePageEnv is the environment variable that turns HugePages off when set
// to "0".
const HugePageEnv = "PBUCKETS_HUGEPAGES"

// hugePageSize is the size of a transparent huge page on the platforms
// HugePages acts on (x86-64 and arm64 with 4 KiB base pages).
const hugePageSize = 2 << 20

// HugePageReserve returns the number of bytes of heap HugePages should
// prepare for a process that may use up to avail bytes: a quarter of
// avail, at most 1 GiB, at least 64 MiB (0 when avail is unknown). The
// engine's default computations peak at about 200 MB; a larger heap grows
// past the prepared bytes on ordinary pages.
func HugePageReserve(avail int64) int64 {
	if avail <= 0 || avail >= Unlimited {
		return 0
	}
	return min(max(avail/4, 64<<20), 1<<30)
}
