package manifest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// maxHistogramBytes bounds the size of a histogram file.
const maxHistogramBytes = 1 << 30

// ReadHistogram reads the two PMFs of a histogram mechanism from a CSV file
// (header line with columns a and b) or a Parquet file (.parquet, float
// columns a and b). Each row is one point of the common universe. It
// returns the SHA-256 of the file. Whether the columns are probability
// mass functions (finite, non-negative, summing to 1 within
// engine.HistogramTolerance) is engine.Histogram's to check, the one
// owner of the rule (parser.build reports its refusal at the key file).
func ReadHistogram(path string) (a, b []float64, hash string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("histogram: %w", err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxHistogramBytes {
		return nil, nil, "", fmt.Errorf("histogram %s: not a regular file of at most %d bytes", path, int64(maxHistogramBytes))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, "", fmt.Errorf("histogram: %w", err)
	}
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		a, b, err = histogramParquet(data)
	} else {
		a, b, err = histogramCSV(data)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("histogram %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	return a, b, hex.EncodeToString(sum[:]), nil
}

func histogramCSV(data []byte) (a, b []float64, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("reading header: %w", err)
	}
	ia, ib := -1, -1
	for i, h := range header {
		switch strings.TrimSpace(h) {
		case "a":
			ia = i
		case "b":
			ib = i
		}
	}
	if ia < 0 || ib < 0 {
		return nil, nil, fmt.Errorf("the header line must name columns a and b, got %q", strings.Join(header, ","))
	}
	for row := 2; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(rec) <= max(ia, ib) {
			return nil, nil, fmt.Errorf("line %d: missing column", row)
		}
		va, errA := strconv.ParseFloat(strings.TrimSpace(rec[ia]), 64)
		vb, errB := strconv.ParseFloat(strings.TrimSpace(rec[ib]), 64)
		if errA != nil || errB != nil {
			return nil, nil, fmt.Errorf("line %d: a and b must be numbers, got %q and %q", row, rec[ia], rec[ib])
		}
		a, b = append(a, va), append(b, vb)
	}
	return a, b, nil
}

func histogramParquet(data []byte) (a, b []float64, err error) {
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(data),
		parquet.NewReaderProperties(memory.DefaultAllocator), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, nil, err
	}
	defer tbl.Release()
	col := func(name string) ([]float64, error) {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) == 0 {
			return nil, fmt.Errorf("no column %q", name)
		}
		var out []float64
		for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				if chunk.IsNull(i) {
					return nil, fmt.Errorf("column %s: null in row %d", name, len(out)+1)
				}
				switch c := chunk.(type) {
				case *array.Float64:
					out = append(out, c.Value(i))
				case *array.Float32:
					out = append(out, float64(c.Value(i)))
				case *array.Int64:
					out = append(out, float64(c.Value(i)))
				default:
					return nil, fmt.Errorf("column %s has type %s, want float64", name, chunk.DataType())
				}
			}
		}
		return out, nil
	}
	if a, err = col("a"); err != nil {
		return nil, nil, err
	}
	if b, err = col("b"); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}
