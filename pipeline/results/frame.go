package results

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/pbuckets/pbuckets/internal/atomicfile"
)

// ColumnType is the type of a Frame column.
type ColumnType int

// Column types.
const (
	String ColumnType = iota
	Int64
	Float64
	Bool
)

// Column is one column of a Frame. Exactly the slice of its type is used.
// In a Nullable Float64 column NaN stands for null; a Nullable String or
// Int64 column marks nulls in Null.
type Column struct {
	Name     string
	Type     ColumnType
	Nullable bool
	Strings  []string
	Ints     []int64
	Floats   []float64
	Bools    []bool
	Null     []bool
}

// Len returns the number of values in the column.
func (c *Column) Len() int {
	switch c.Type {
	case String:
		return len(c.Strings)
	case Int64:
		return len(c.Ints)
	case Float64:
		return len(c.Floats)
	default:
		return len(c.Bools)
	}
}

// IsNull reports whether row i is null.
func (c *Column) IsNull(i int) bool {
	if !c.Nullable {
		return false
	}
	if c.Type == Float64 && math.IsNaN(c.Floats[i]) {
		return true
	}
	return i < len(c.Null) && c.Null[i]
}

// Frame is a small column-oriented table, the in-memory form of the result
// files.
type Frame struct {
	Columns []*Column
}

// Rows returns the number of rows (that of the first column).
func (f *Frame) Rows() int {
	if len(f.Columns) == 0 {
		return 0
	}
	return f.Columns[0].Len()
}

// Column returns the column with the given name, or nil.
func (f *Frame) Column(name string) *Column {
	for _, c := range f.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func arrowType(t ColumnType) arrow.DataType {
	switch t {
	case String:
		return arrow.BinaryTypes.String
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case Float64:
		return arrow.PrimitiveTypes.Float64
	default:
		return arrow.FixedWidthTypes.Boolean
	}
}

// WriteParquet writes the frame to path atomically (temporary file and
// rename), with the key/value pairs of meta in the file metadata.
func WriteParquet(path string, f *Frame, meta map[string]string) error {
	rows := f.Rows()
	fields := make([]arrow.Field, len(f.Columns))
	for i, c := range f.Columns {
		if c.Len() != rows {
			return fmt.Errorf("writing %s: column %s has %d rows, want %d", path, c.Name, c.Len(), rows)
		}
		fields[i] = arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: c.Nullable}
	}
	var keys, vals []string
	for k, v := range meta {
		keys = append(keys, k)
		vals = append(vals, v)
	}
	md := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema(fields, &md)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, c := range f.Columns {
		switch fb := b.Field(i).(type) {
		case *array.StringBuilder:
			for j, s := range c.Strings {
				if c.IsNull(j) {
					fb.AppendNull()
				} else {
					fb.Append(s)
				}
			}
		case *array.Int64Builder:
			var valid []bool
			if c.Nullable && len(c.Null) > 0 {
				valid = make([]bool, len(c.Ints))
				for j := range valid {
					valid[j] = !c.IsNull(j)
				}
			}
			fb.AppendValues(c.Ints, valid)
		case *array.Float64Builder:
			for j, v := range c.Floats {
				if c.IsNull(j) {
					fb.AppendNull()
				} else {
					fb.Append(v)
				}
			}
		case *array.BooleanBuilder:
			fb.AppendValues(c.Bools, nil)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	// The root of the schema is REQUIRED, as the Parquet format says;
	// arrow-go v15 writes REPEATED by default, which strict readers such
	// as hyparquet refuse (apache/arrow-go issue 722).
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithRootRepetition(parquet.Repetitions.Required))
	return atomicfile.Write(path, func(w io.Writer) error {
		fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return err
		}
		if err := fw.Write(rec); err != nil {
			fw.Close()
			return err
		}
		return fw.Close()
	})
}

// ReadParquet reads a Parquet file with string, integer, float and boolean
// columns into a Frame.
func ReadParquet(path string) (*Frame, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(data),
		parquet.NewReaderProperties(memory.DefaultAllocator), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tbl.Release()
	f := &Frame{}
	for i, field := range tbl.Schema().Fields() {
		c := &Column{Name: field.Name, Nullable: field.Nullable}
		for _, chunk := range tbl.Column(i).Data().Chunks() {
			n := chunk.Len()
			for j := 0; j < n; j++ {
				null := chunk.IsNull(j)
				switch a := chunk.(type) {
				case *array.String:
					c.Type = String
					c.Strings = append(c.Strings, a.Value(j))
					c.Null = append(c.Null, null)
				case *array.Int64:
					c.Type = Int64
					c.Ints = append(c.Ints, a.Value(j))
					c.Null = append(c.Null, null)
				case *array.Float64:
					c.Type = Float64
					v := a.Value(j)
					if null {
						v = math.NaN()
						c.Nullable = true
					}
					c.Floats = append(c.Floats, v)
				case *array.Boolean:
					c.Type = Bool
					c.Bools = append(c.Bools, a.Value(j))
				default:
					return nil, fmt.Errorf("%s: column %s has unsupported type %s", path, field.Name, chunk.DataType())
				}
			}
		}
		if c.Len() == 0 {
			switch field.Type.ID() {
			case arrow.INT64:
				c.Type = Int64
			case arrow.FLOAT64:
				c.Type = Float64
			case arrow.BOOL:
				c.Type = Bool
			}
		}
		f.Columns = append(f.Columns, c)
	}
	return f, nil
}
