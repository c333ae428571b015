package manifest

import (
	"strconv"
	"strings"
)

// keyLines maps the keys of a TOML document to the line that defines them.
// toml.MetaData does not expose positions of decoded keys, so semantic
// errors find their line with this small scanner. Elements of arrays of
// tables get their index as a path segment ("mechanism", "1", "sigma").
// The scanner is best effort: a key it cannot place falls back to its
// nearest enclosing table, and to line 0 (unknown) after that.
type keyLines struct {
	lines map[string]int
}

func pathKey(path []string) string { return strings.Join(path, "\x1f") }

// line returns the line of path or of its nearest known ancestor, 0 if none.
func (k keyLines) line(path ...string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := k.lines[pathKey(path[:n])]; ok {
			return l
		}
	}
	return 0
}

func scanKeyLines(src string) keyLines {
	k := keyLines{lines: map[string]int{}}
	arrays := map[string]int{} // array-of-tables path -> number of elements so far
	var table []string
	var val valueScan // the value of the last key, while it spans lines
	record := func(path []string, line int) {
		key := pathKey(path)
		if _, ok := k.lines[key]; !ok {
			k.lines[key] = line
		}
	}
	resolve := func(segs []string) []string {
		var out []string
		for _, s := range segs {
			out = append(out, s)
			if n, ok := arrays[pathKey(out)]; ok && n > 0 {
				out = append(out, strconv.Itoa(n-1))
			}
		}
		return out
	}
	for i, raw := range strings.Split(src, "\n") {
		lineNo := i + 1
		if val.open() {
			val.scan(raw, lineNo, record)
			continue
		}
		t := strings.TrimSpace(raw)
		switch {
		case t == "" || t[0] == '#':
			continue
		case strings.HasPrefix(t, "[["):
			segs, ok := parseDottedKey(t[2:], "]]")
			if !ok || len(segs) == 0 {
				continue
			}
			parent := resolve(segs[:len(segs)-1])
			arr := append(parent, segs[len(segs)-1])
			record(arr, lineNo)
			n := arrays[pathKey(arr)]
			arrays[pathKey(arr)] = n + 1
			table = append(append([]string(nil), arr...), strconv.Itoa(n))
			record(table, lineNo)
		case t[0] == '[':
			segs, ok := parseDottedKey(t[1:], "]")
			if !ok || len(segs) == 0 {
				continue
			}
			table = resolve(segs)
			record(table, lineNo)
		default:
			segs, rest, ok := parseKeyBeforeEquals(t)
			if !ok {
				continue
			}
			path := append(append([]string(nil), table...), segs...)
			record(path, lineNo)
			val = valueScan{path: path}
			val.scan(rest, lineNo, record)
		}
	}
	return k
}

// parseDottedKey parses `a."b c".d` up to the terminator and returns the
// segments.
func parseDottedKey(s, term string) ([]string, bool) {
	var segs []string
	for {
		s = strings.TrimLeft(s, " \t")
		seg, rest, ok := parseKeySegment(s)
		if !ok {
			return nil, false
		}
		segs = append(segs, seg)
		rest = strings.TrimLeft(rest, " \t")
		switch {
		case strings.HasPrefix(rest, "."):
			s = rest[1:]
		case strings.HasPrefix(rest, term):
			return segs, true
		default:
			return nil, false
		}
	}
}

// parseKeyBeforeEquals parses the dotted key of a `key = value` line and
// returns it with the text after the '='.
func parseKeyBeforeEquals(s string) ([]string, string, bool) {
	var segs []string
	for {
		s = strings.TrimLeft(s, " \t")
		seg, rest, ok := parseKeySegment(s)
		if !ok {
			return nil, "", false
		}
		segs = append(segs, seg)
		rest = strings.TrimLeft(rest, " \t")
		switch {
		case strings.HasPrefix(rest, "."):
			s = rest[1:]
		case strings.HasPrefix(rest, "="):
			return segs, rest[1:], true
		default:
			return nil, "", false
		}
	}
}

func parseKeySegment(s string) (seg, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	switch s[0] {
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case '"':
				return b.String(), s[i+1:], true
			default:
				b.WriteByte(s[i])
			}
		}
		return "", "", false
	case '\'':
		j := strings.IndexByte(s[1:], '\'')
		if j < 0 {
			return "", "", false
		}
		return s[1 : 1+j], s[2+j:], true
	}
	i := 0
	for i < len(s) && isBareKeyChar(s[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	return s[:i], s[i:], true
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// valueScan follows brackets and strings through the lines of a value.
// The elements of an array value get their index as a path segment
// (parts = [ {...}, {...} ] records "parts", "0" and "parts", "1" at the
// lines where the elements start); deeper elements are not recorded.
type valueScan struct {
	path     []string // the key of the value
	depth    int      // bracket depth
	inString string   // closing delimiter of an open multi-line string
	elem     int      // index of the next element of the array value
	expect   bool     // the next non-blank character at depth 1 starts an element
}

// open reports whether the value continues on the next line.
func (v *valueScan) open() bool { return v.depth > 0 || v.inString != "" }

// scan follows one line of the value, recording the lines of its array
// elements with record.
func (v *valueScan) scan(s string, line int, record func([]string, int)) {
	if v.inString != "" {
		j := strings.Index(s, v.inString)
		if j < 0 {
			return
		}
		s = s[j+len(v.inString):]
		v.inString = ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if v.depth == 1 && v.expect && c != ' ' && c != '\t' && c != ',' && c != '#' && c != ']' {
			record(append(append([]string(nil), v.path...), strconv.Itoa(v.elem)), line)
			v.elem++
			v.expect = false
		}
		switch c {
		case '#':
			return
		case '[', '{':
			v.depth++
			if v.depth == 1 && c == '[' {
				v.expect = true
			}
		case ']', '}':
			if v.depth > 0 {
				v.depth--
			}
		case ',':
			if v.depth == 1 {
				v.expect = true
			}
		case '"', '\'':
			triple := strings.Repeat(string(c), 3)
			if strings.HasPrefix(s[i:], triple) {
				j := strings.Index(s[i+3:], triple)
				if j < 0 {
					v.inString = triple
					return
				}
				i += 3 + j + 2
				continue
			}
			for i++; i < len(s) && s[i] != c; i++ {
				if c == '"' && s[i] == '\\' {
					i++
				}
			}
		}
	}
}
