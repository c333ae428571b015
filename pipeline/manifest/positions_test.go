package manifest

import (
	"testing"
)

func TestScanKeyLines(t *testing.T) {
	src := `name = "x"   # comment with = sign
title = """
multi [ line
"""
[engine]
buckets = 10
[[mechanism]]
id = "a"
values = [
  1, # ]
  2,
]
[mechanism.engine]
tilts = 2
[[mechanism]]
id = 'b'
"quoted key" = 1
[sweep]
"a.sigma" = [1.0]
b.scale = { from = 1, to = 2, num = 2 }
[[sequence]]
parts = [ { mechanism = "a", count = 1 }, { mechanism = "b", count = "[" },
  # { mechanism = "c" },
  {
    mechanism = "d" }, [1, [2,
  3]], 'x,y'
]
`
	kl := scanKeyLines(src)
	tests := []struct {
		path []string
		want int
	}{
		{[]string{"name"}, 1},
		{[]string{"title"}, 2},
		{[]string{"engine"}, 5},
		{[]string{"engine", "buckets"}, 6},
		{[]string{"mechanism", "0"}, 7},
		{[]string{"mechanism", "0", "id"}, 8},
		{[]string{"mechanism", "0", "values"}, 9},
		{[]string{"mechanism", "0", "engine", "tilts"}, 14},
		{[]string{"mechanism", "1", "id"}, 16},
		{[]string{"mechanism", "1", "quoted key"}, 17},
		{[]string{"mechanism", "1", "missing"}, 15},
		{[]string{"sweep", "a.sigma"}, 19},
		{[]string{"sweep", "b", "scale"}, 20},
		{[]string{"mechanism", "0", "values", "0"}, 10},
		{[]string{"mechanism", "0", "values", "1"}, 11},
		{[]string{"mechanism", "0", "values", "2"}, 9},
		{[]string{"sequence", "0", "parts"}, 22},
		{[]string{"sequence", "0", "parts", "0"}, 22},
		{[]string{"sequence", "0", "parts", "1", "count"}, 22},
		{[]string{"sequence", "0", "parts", "2"}, 24},
		{[]string{"sequence", "0", "parts", "3"}, 25},
		{[]string{"sequence", "0", "parts", "4"}, 26},
		{[]string{"sequence", "0", "parts", "5"}, 22},
		{[]string{"nothing"}, 0},
	}
	for _, tc := range tests {
		if got := kl.line(tc.path...); got != tc.want {
			t.Errorf("line(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
}

func TestGrids(t *testing.T) {
	intTests := []struct {
		in   any
		want []int
		err  bool
	}{
		{int64(5), []int{5}, false},
		{[]any{int64(3), int64(1), int64(3)}, []int{1, 3}, false},
		{map[string]any{"from": int64(3), "to": int64(20), "scale": "log2"}, []int{4, 8, 16}, false},
		{map[string]any{"from": int64(1), "to": int64(7), "step": int64(3)}, []int{1, 4, 7}, false},
		{map[string]any{"from": int64(1), "to": int64(100), "scale": "log", "num": int64(3)}, []int{1, 10, 100}, false},
		{map[string]any{"from": int64(0), "to": int64(4)}, nil, true},
		{map[string]any{"from": int64(1), "to": int64(1 << 40), "step": int64(1)}, nil, true},
		{[]any{}, nil, true},
		{[]any{"x"}, nil, true},
		{int64(-1), nil, true},
	}
	for _, tc := range intTests {
		got, err := intGrid(tc.in)
		if (err != nil) != tc.err || !tc.err && !equalInts(got, tc.want) {
			t.Errorf("intGrid(%v) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
	floatTests := []struct {
		in   any
		want []float64
		err  bool
	}{
		{[]any{1.0, int64(2)}, []float64{1, 2}, false},
		{map[string]any{"from": 1.0, "to": 2.0, "num": int64(3)}, []float64{1, 1.5, 2}, false},
		{map[string]any{"from": 1e-6, "to": 1e-4, "num": int64(3), "scale": "log"}, []float64{1e-6, 1e-5, 1e-4}, false},
		{map[string]any{"from": 0.0, "to": 1.0, "num": int64(3), "scale": "log"}, nil, true},
		{map[string]any{"from": 0.0, "to": 1.0, "num": int64(0)}, nil, true},
		{map[string]any{"from": 0.0, "to": 1.0, "num": int64(2), "steps": int64(2)}, nil, true},
		{"1", nil, true},
	}
	for _, tc := range floatTests {
		got, err := floatGrid(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("floatGrid(%v): error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		for i := range tc.want {
			if d := got[i] - tc.want[i]; d > 1e-12*tc.want[i] || d < -1e-12*tc.want[i] {
				t.Errorf("floatGrid(%v) = %v, want %v", tc.in, got, tc.want)
				break
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
