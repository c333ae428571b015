package memory

import (
	"testing"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"512MiB", 512 << 20, false}, {"8GiB", 8 << 30, false}, {"2G", 2e9, false}, {"1000", 1000, false},
		{"8GB", 8e9, false}, {"1KB", 1000, false}, {"1kB", 1000, false}, {"8gib", 8 << 30, false}, {"4Gi", 4 << 30, false},
		{"100 MB", 100e6, false}, {"1TB", 1e12, false}, {"16B", 16, false}, {"1.5GiB", 3 << 29, false},
		{"-1G", 0, true}, {"lots", 0, true}, {"", 0, true}, {"GB", 0, true}, {"8XB", 0, true}, {"NaNGB", 0, true}, {"infGB", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseBytes(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v", tc.in, got, err)
		}
	}
}
