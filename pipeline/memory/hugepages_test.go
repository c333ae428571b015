package memory

import "testing"

func TestHugePageReserve(t *testing.T) {
	tests := []struct{ avail, want int64 }{
		{0, 0}, {-1, 0}, {Unlimited, 0},
		{100 << 20, 64 << 20},      // at least 64 MiB
		{2 << 30, 512 << 20},       // a quarter
		{24 << 30, 1 << 30},        // at most 1 GiB
		{(4 << 30) + 4, 1 << 30},   // a quarter is 1 GiB + 1
		{(4 << 30) - 4, 1<<30 - 1}, // a quarter just below 1 GiB
	}
	for _, tc := range tests {
		if got := HugePageReserve(tc.avail); got != tc.want {
			t.Errorf("HugePageReserve(%d) = %d, want %d", tc.avail, got, tc.want)
		}
	}
}
