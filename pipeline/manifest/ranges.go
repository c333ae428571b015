package manifest

import (
	"fmt"
	"math"
	"sort"
)

// maxGrid bounds the number of values a grid may expand to.
const maxGrid = 100000

// expandGrid expands v, a single item or a non-empty array of items, with
// item, which returns the values of one item (a number or a range table).
// An array may expand to at most maxGrid values.
func expandGrid[T any](v any, item func(any) ([]T, error)) ([]T, error) {
	x, isList := v.([]any)
	if !isList {
		return item(v)
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("must not be empty")
	}
	var out []T
	for i, it := range x {
		vals, err := item(it)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out = append(out, vals...)
		if len(out) > maxGrid {
			return nil, fmt.Errorf("expands to more than %d values", maxGrid)
		}
	}
	return out, nil
}

// rangeScale returns the scale of a range table ("linear" if absent).
func rangeScale(t map[string]any) (string, error) {
	s, ok := t["scale"]
	if !ok {
		return "linear", nil
	}
	scale, ok := s.(string)
	if !ok {
		return "", fmt.Errorf("range scale must be a string")
	}
	return scale, nil
}

// floatGrid expands a number, an array of numbers and range tables, or a
// single range table {from, to, num, scale = "linear" | "log"}.
func floatGrid(v any) ([]float64, error) {
	out, err := expandGrid(v, func(item any) ([]float64, error) {
		if f, ok := asFloat(item); ok {
			return []float64{f}, nil
		}
		t, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("expected a number or a range table {from, to, num, scale}, got %s", typeName(item))
		}
		return floatRange(t)
	})
	if err != nil {
		return nil, err
	}
	for _, f := range out {
		if !finite(f) {
			return nil, fmt.Errorf("values must be finite, got %v", f)
		}
	}
	return out, nil
}

func floatRange(t map[string]any) ([]float64, error) {
	if bad := unknownKeys(t, "from", "to", "num", "scale"); len(bad) > 0 {
		return nil, fmt.Errorf("unknown range key %q (known: from, to, num, scale)", bad[0])
	}
	from, ok1 := asFloat(t["from"])
	to, ok2 := asFloat(t["to"])
	num, ok3 := asInt(t["num"])
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("a range needs numbers from and to and an integer num")
	}
	if !finite(from) || !finite(to) {
		return nil, fmt.Errorf("range bounds must be finite")
	}
	if num < 1 || num > maxGrid {
		return nil, fmt.Errorf("range num must be in [1, %d], got %d", maxGrid, num)
	}
	scale, err := rangeScale(t)
	if err != nil {
		return nil, err
	}
	out := make([]float64, num)
	switch scale {
	case "linear":
		for i := range out {
			out[i] = lerp(from, to, i, int(num))
		}
	case "log":
		if !(from > 0 && to > 0) {
			return nil, fmt.Errorf("a log range needs positive from and to")
		}
		lf, lt := math.Log(from), math.Log(to)
		for i := range out {
			out[i] = math.Exp(lerp(lf, lt, i, int(num)))
		}
		out[0], out[num-1] = from, to
		if num == 1 {
			out[0] = from
		}
	default:
		return nil, fmt.Errorf("range scale must be \"linear\" or \"log\", got %q", scale)
	}
	return out, nil
}

func lerp(a, b float64, i, n int) float64 {
	if n == 1 {
		return a
	}
	return a + (b-a)*float64(i)/float64(n-1)
}

// intGrid expands compositions: a positive integer, an array of integers and
// range tables, or a single range table {from, to, scale = "linear" |
// "log2" | "log", step, num}. The result is sorted and free of duplicates.
func intGrid(v any) ([]int, error) {
	out, err := expandGrid(v, func(item any) ([]int, error) {
		switch x := item.(type) {
		case int64:
			return []int{int(x)}, nil
		case map[string]any:
			return intRange(x)
		}
		return nil, fmt.Errorf("expected an integer or a range table {from, to, scale}, got %s", typeName(item))
	})
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		if r < 1 {
			return nil, fmt.Errorf("numbers of compositions must be >= 1, got %d", r)
		}
		if r > 1<<40 {
			return nil, fmt.Errorf("numbers of compositions must be at most 2^40, got %d", r)
		}
	}
	sort.Ints(out)
	uniq := out[:0]
	for i, r := range out {
		if i == 0 || r != out[i-1] {
			uniq = append(uniq, r)
		}
	}
	return uniq, nil
}

func intRange(t map[string]any) ([]int, error) {
	if bad := unknownKeys(t, "from", "to", "scale", "step", "num"); len(bad) > 0 {
		return nil, fmt.Errorf("unknown range key %q (known: from, to, scale, step, num)", bad[0])
	}
	from, ok1 := t["from"].(int64)
	to, ok2 := t["to"].(int64)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("a range needs integers from and to")
	}
	if from < 1 || to < from {
		return nil, fmt.Errorf("a range needs 1 <= from <= to, got from = %d, to = %d", from, to)
	}
	if to > 1<<40 {
		return nil, fmt.Errorf("numbers of compositions must be at most 2^40, got %d", to)
	}
	scale, err := rangeScale(t)
	if err != nil {
		return nil, err
	}
	var out []int
	switch scale {
	case "linear":
		step := int64(1)
		if s, ok := t["step"]; ok {
			if step, ok = s.(int64); !ok || step < 1 {
				return nil, fmt.Errorf("range step must be a positive integer")
			}
		}
		if (to-from)/step+1 > maxGrid {
			return nil, fmt.Errorf("range expands to more than %d values", maxGrid)
		}
		for r := from; r <= to; r += step {
			out = append(out, int(r))
		}
	case "log2":
		for p := int64(1); p <= to; p *= 2 {
			if p >= from {
				out = append(out, int(p))
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no power of 2 in [%d, %d]", from, to)
		}
	case "log":
		num, ok := t["num"].(int64)
		if !ok || num < 1 || num > maxGrid {
			return nil, fmt.Errorf("a log range needs an integer num in [1, %d]", maxGrid)
		}
		lf, lt := math.Log(float64(from)), math.Log(float64(to))
		for i := 0; i < int(num); i++ {
			out = append(out, int(math.Round(math.Exp(lerp(lf, lt, i, int(num))))))
		}
		out[0] = int(from)
		if num > 1 {
			out[num-1] = int(to)
		}
	default:
		return nil, fmt.Errorf("range scale must be \"linear\", \"log2\" or \"log\", got %q", scale)
	}
	return out, nil
}
