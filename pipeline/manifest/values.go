package manifest

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// decodedTable returns t with its values in the shapes a TOML decoder
// gives (decodedValue).
func decodedTable(t map[string]any) map[string]any {
	out := make(map[string]any, len(t))
	for k, v := range t {
		out[k] = decodedValue(v)
	}
	return out
}

// decodedValue returns v in the shape a TOML decoder gives it: int64 for
// a Go int, []any for a slice of int64, float64 or string, tables with
// their values converted; other values as they are.
func decodedValue(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []int64:
		return anySlice(x)
	case []float64:
		return anySlice(x)
	case []string:
		return anySlice(x)
	case map[string]any:
		return decodedTable(x)
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, t := range x {
			out[i] = decodedTable(t)
		}
		return out
	}
	return v
}

func anySlice[T any](x []T) []any {
	out := make([]any, len(x))
	for i, v := range x {
		out[i] = v
	}
	return out
}

// typeName describes a decoded TOML value for error messages.
func typeName(v any) string {
	switch v.(type) {
	case int64:
		return "integer"
	case float64:
		return "float"
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	case []map[string]any:
		return "array of tables"
	case nil:
		return "nothing"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// asFloat accepts TOML integers and floats.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// asInt accepts TOML integers and integral floats (1e5).
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

// unknownKeys returns the keys of t that are not in known, sorted.
func unknownKeys(t map[string]any, known ...string) []string {
	var out []string
	for k := range t {
		found := false
		for _, kk := range known {
			if k == kk {
				found = true
				break
			}
		}
		if !found {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// suggest returns ` (did you mean "x"?)` when key is close to one of known.
func suggest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	// Treat a swap of two neighbouring letters (sigam/sigma) as one edit.
	if len(a) == len(b) {
		diff := []int{}
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		if len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]] {
			return 1
		}
	}
	return prev[len(b)]
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
