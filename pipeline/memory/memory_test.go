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
		{"-1G", 0, true}, {"lots", 0, true}, {"", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseBytes(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v", tc.in, got, err)
		}
	}
}
