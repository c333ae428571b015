package manifest

import (
	"reflect"
	"strings"
	"testing"
)

func TestFloatGrid(t *testing.T) {
	rng := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	ok := []struct {
		in   any
		want []float64
	}{
		{1.5, []float64{1.5}},
		{int64(2), []float64{2}},
		{[]any{1.0, int64(3)}, []float64{1, 3}},
		{rng("from", 1.0, "to", 2.0, "num", int64(3)), []float64{1, 1.5, 2}},
		{[]any{0.5, rng("from", 1.0, "to", 100.0, "num", int64(3), "scale", "log")}, []float64{0.5, 1, 10, 100}},
	}
	for _, tc := range ok {
		got, err := floatGrid(tc.in)
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("floatGrid(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		for i := range got {
			if d := got[i] - tc.want[i]; d > 1e-12 || d < -1e-12 {
				t.Errorf("floatGrid(%v) = %v, want %v", tc.in, got, tc.want)
			}
		}
	}
	bad := []struct {
		in   any
		want string
	}{
		{[]any{}, "must not be empty"},
		{"x", "expected a number or a range table"},
		{[]any{1.0, "x"}, "element 1: expected a number"},
		{rng("from", 1.0, "to", 2.0, "num", int64(3), "scale", int64(1)), "range scale must be a string"},
		{rng("from", 1.0, "to", 2.0, "num", int64(3), "scale", "log2"), `"linear" or "log"`},
		{[]any{rng("from", 1.0, "to", 2.0, "num", int64(maxGrid)), 1.0}, "expands to more than"},
		{rng("from", 1.0, "to", 2.0, "num", int64(3), "step", 1.0), "unknown range key"},
	}
	for _, tc := range bad {
		if _, err := floatGrid(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("floatGrid(%v): error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestIntGrid(t *testing.T) {
	rng := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	ok := []struct {
		in   any
		want []int
	}{
		{int64(4), []int{4}},
		{[]any{int64(8), int64(2), int64(8)}, []int{2, 8}},
		{rng("from", int64(3), "to", int64(20), "scale", "log2"), []int{4, 8, 16}},
		{[]any{int64(5), rng("from", int64(1), "to", int64(7), "step", int64(3))}, []int{1, 4, 5, 7}},
		{rng("from", int64(1), "to", int64(100), "scale", "log", "num", int64(3)), []int{1, 10, 100}},
	}
	for _, tc := range ok {
		got, err := intGrid(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("intGrid(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct {
		in   any
		want string
	}{
		{[]any{}, "must not be empty"},
		{1.5, "expected an integer or a range table"},
		{[]any{int64(1), 2.5}, "element 1: expected an integer"},
		{int64(0), "must be >= 1"},
		{rng("from", int64(1), "to", int64(4), "scale", 2.0), "range scale must be a string"},
		{rng("from", int64(5), "to", int64(7), "scale", "log2"), "no power of 2"},
		{[]any{rng("from", int64(1), "to", int64(maxGrid)), int64(1)}, "expands to more than"},
	}
	for _, tc := range bad {
		if _, err := intGrid(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("intGrid(%v): error %v, want %q", tc.in, err, tc.want)
		}
	}
}
