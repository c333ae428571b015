package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Numbers in machine-readable output (show --format csv|json, eps, delta
// and calibrate --json) are written so that one value reads the same in
// every format and DuckDB, Python and JavaScript load it as a number:
// finite values in full precision (integral ones as 2.0, so that a reader
// guessing types sees floats), +Inf and -Inf (a trivial bound: no finite
// eps, or a delta that cannot be beaten) as 1e999 and -1e999, decimal
// numbers beyond the float64 range that IEEE parsers round to the
// infinities (JSON has no infinity, and DuckDB's CSV sniffer reads "+Inf"
// or "inf" as text; pandas reads 1e999 from JSON, from CSV as text that
// astype(float) converts), and NaN (no bound) as null or an empty CSV
// field.
const (
	posInfText = "1e999"
	negInfText = "-1e999"
)

// dataFloat returns the text of v for CSV and JSON, or null when v is NaN.
func dataFloat(v float64) (text string, null bool) {
	switch {
	case math.IsNaN(v):
		return "", true
	case math.IsInf(v, 1):
		return posInfText, false
	case math.IsInf(v, -1):
		return negInfText, false
	}
	text = strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(text, ".e") {
		// 2.0, not 2: a reader that guesses types (DuckDB) then reads a
		// float column as floats whatever its values
		text += ".0"
	}
	return text, false
}

// jsonColumn reports whether a string column holds JSON objects that the
// JSON output embeds as objects rather than strings: the mechanism
// parameters (params, and params_* or *_params of the search tables).
func jsonColumn(name string) bool {
	return name == "params" || strings.HasPrefix(name, "params_") || strings.HasSuffix(name, "_params")
}

// jsonObject returns s as compact JSON when it is a JSON object, else
// nil.
func jsonObject(s string) []byte {
	t := strings.TrimSpace(s)
	var buf bytes.Buffer
	if !strings.HasPrefix(t, "{") || json.Compact(&buf, []byte(t)) != nil {
		return nil
	}
	return buf.Bytes()
}
