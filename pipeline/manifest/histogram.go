package manifest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// histogramTolerance is how far the sum of a histogram's probabilities may
// be from 1 (rounding in CSV files).
const histogramTolerance = 1e-6

// maxHistogramBytes bounds the size of a histogram file.
const maxHistogramBytes = 1 << 30

// ReadHistogram reads the two PMFs of a histogram mechanism from a CSV file
// (header line with columns a and b) or a Parquet file (.parquet, float
// columns a and b). Each row is one point of the common universe. It checks
// that both columns are non-negative, finite and sum to 1, and returns the
// SHA-256 of the file.
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
	if err := checkPMFs(a, b); err != nil {
		return nil, nil, "", fmt.Errorf("histogram %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	return a, b, hex.EncodeToString(sum[:]), nil
}

func checkPMFs(a, b []float64) error {
	if len(a) == 0 {
		return errors.New("no rows")
	}
	for name, pmf := range map[string][]float64{"a": a, "b": b} {
		total := 0.0
		for i, v := range pmf {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("column %s, row %d: probability must be finite and >= 0, got %v", name, i+1, v)
			}
			total += v
		}
		if math.Abs(total-1) > histogramTolerance {
			return fmt.Errorf("column %s sums to %.12g, not 1", name, total)
		}
	}
	return nil
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
