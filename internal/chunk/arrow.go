package chunk

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// ArrowType returns the Arrow type that holds values of t.
func ArrowType(t types.Type) arrow.DataType {
	if t.IsOID() || t.ID == types.IDTime || t.ID == types.IDTimeTZ {
		return arrow.PrimitiveTypes.Int64 // time: microseconds since midnight; timetz: packed
	}
	switch t.ID {
	case types.IDBool:
		return arrow.FixedWidthTypes.Boolean
	case types.IDInt16:
		return arrow.PrimitiveTypes.Int16
	case types.IDInt32:
		return arrow.PrimitiveTypes.Int32
	case types.IDInt64:
		return arrow.PrimitiveTypes.Int64
	case types.IDFloat32:
		return arrow.PrimitiveTypes.Float32
	case types.IDFloat64:
		return arrow.PrimitiveTypes.Float64
	case types.IDDate:
		return arrow.FixedWidthTypes.Date32
	case types.IDTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case types.IDTimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case types.IDInterval:
		// Months and days, and in the Nanoseconds field the time part in
		// microseconds: an interval's time part spans +-2^63 us, past
		// what nanoseconds hold (292 years). Read it with Value or
		// IntervalAt.
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	case types.IDNumeric:
		// The binary form (types.AppendNumericBinary) of the plain value
		// (types.PlainNumeric), as storage keeps it: read it with Value.
		return arrow.BinaryTypes.Binary
	default: // text, varchar, bpchar, arrays, json, jsonb, bytea and uuid (their raw bytes), unknown
		return arrow.BinaryTypes.String
	}
}

// Schema returns the Arrow schema for columns of the given types.
func Schema(ts []types.Type) *arrow.Schema {
	fields := make([]arrow.Field, len(ts))
	for i, t := range ts {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: ArrowType(t), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// Value returns row i of column col, whose SQL type is t, as a Datum.
func Value(col arrow.Array, t types.Type, i int) types.Datum {
	if col.IsNull(i) {
		return nil
	}
	switch a := col.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Date32:
		return types.Date(a.Value(i))
	case *array.Timestamp:
		return types.Timestamp(a.Value(i))
	case *array.MonthDayNanoInterval:
		return IntervalAt(a, i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return NumericAt(a, i)
	}
	panic(fmt.Sprintf("chunk: unsupported arrow column %T", col))
}

// NumericAt is Value of row i of a numeric column, not NULL.
func NumericAt(a *array.Binary, i int) *apd.Decimal {
	d := new(apd.Decimal)
	if _, err := types.DecodeNumericBinary(d, a.Value(i)); err != nil {
		panic(fmt.Sprintf("chunk: corrupt numeric %x: %v", a.Value(i), err))
	}
	return d
}

// AppendNumericBinary appends to fb, the builder of a numeric column,
// the value enc holds in the binary form (types.AppendNumericBinary), as
// storage keeps it: copied as it is when plain, else through its
// Decimal. It returns the rest of enc.
func AppendNumericBinary(fb *array.BinaryBuilder, enc []byte) ([]byte, error) {
	v, rest, err := types.SplitNumericBinary(enc)
	if err != nil {
		return nil, err
	}
	if v.Plain() {
		fb.Append(enc[:len(enc)-len(rest)])
		return rest, nil
	}
	var d apd.Decimal
	v.Decimal(&d)
	appendNumeric(fb, &d)
	return rest, nil
}

// appendNumeric appends d to fb, a numeric column's builder.
func appendNumeric(fb *array.BinaryBuilder, d *apd.Decimal) {
	var scratch [32]byte
	fb.Append(types.AppendNumericBinary(scratch[:0], types.PlainNumeric(d)))
}

// Builder accumulates rows into a Chunk.
type Builder struct {
	types   []types.Type
	rb      *array.RecordBuilder
	ops     []Op
	n       int
	dataLen []int // per column: string (or binary) bytes of the last chunk
	lastN   int   // rows of the last chunk, until reserve makes room
}

// IntervalAt is Value of row i of an interval column, unboxed.
func IntervalAt(a *array.MonthDayNanoInterval, i int) types.Interval {
	v := a.Value(i)
	return types.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds} // microseconds, see ArrowType
}

// NewBuilder returns a builder for rows of the given column types.
func NewBuilder(ts []types.Type) *Builder { return NewBuilderWith(Allocator(), ts) }

// NewBuilderWith is NewBuilder with buffers from mem (tests pass a
// memory.CheckedAllocator to prove every buffer is released).
func NewBuilderWith(mem memory.Allocator, ts []types.Type) *Builder {
	return &Builder{types: ts, rb: array.NewRecordBuilder(mem, Schema(ts))}
}

// Len returns the number of rows appended since the last Build.
func (b *Builder) Len() int { return b.n }

// Append adds a row with its operation. The Datums must match the builder's
// types (see package types).
func (b *Builder) Append(op Op, row []types.Datum) {
	if b.lastN > 0 {
		b.reserve()
	}
	for j, v := range row {
		appendValue(b.rb.Field(j), v)
	}
	b.ops = append(b.ops, op)
	b.n++
}

// Columns returns the builder of each column, for callers that append
// values straight into them (then AppendedRow(s) records the rows).
func (b *Builder) Columns() []array.Builder {
	if b.lastN > 0 {
		b.reserve()
	}
	return b.rb.Fields()
}

// AppendedRow records one row appended through Columns, with its op.
func (b *Builder) AppendedRow(op Op) {
	b.ops = append(b.ops, op)
	b.n++
}

// AppendedRows records n rows appended through Columns, all with op: the
// bulk form of AppendedRow, for callers that append a batch of values to
// each column at once.
func (b *Builder) AppendedRows(op Op, n int) {
	b.ops = slices.Grow(b.ops, n)
	for range n {
		b.ops = append(b.ops, op)
	}
	b.n += n
}

// AppendDatum appends v, a Datum of the column's type, to fb, a column
// builder of this package's Arrow types (see Columns).
func AppendDatum(fb array.Builder, v types.Datum) { appendValue(fb, v) }

// Build returns the rows appended so far as a Chunk and resets the builder,
// with room for as many rows (and string bytes) as this chunk held, so
// that a builder making chunks of a steady size does not grow its
// buffers by copying for each one.
func (b *Builder) Build() *Chunk {
	n := b.n
	fields := b.rb.Fields()
	if cap(b.dataLen) < len(fields) {
		b.dataLen = make([]int, len(fields))
	}
	for j, f := range fields {
		if sb, ok := f.(dataBuilder); ok {
			b.dataLen[j] = sb.DataLen()
		}
	}
	rec := b.rb.NewRecordBatch()
	c := &Chunk{Rec: rec, Ops: b.ops, Types: b.types}
	b.ops = nil
	b.n = 0
	b.lastN = n
	return c
}

// reserve makes room, at the first row of a chunk, for as much as the
// last chunk held.
func (b *Builder) reserve() {
	n := b.lastN
	b.lastN = 0
	b.ops = make([]Op, 0, n)
	for j, f := range b.rb.Fields() {
		f.Reserve(n)
		if sb, ok := f.(dataBuilder); ok {
			sb.ReserveData(b.dataLen[j])
		}
	}
}

// dataBuilder is a builder of a variable-width column (string, binary).
type dataBuilder interface {
	DataLen() int
	ReserveData(int)
}

// Release frees the builder's buffers.
func (b *Builder) Release() { b.rb.Release() }

func appendValue(fb array.Builder, v types.Datum) {
	if v == nil {
		fb.AppendNull()
		return
	}
	switch f := fb.(type) {
	case *array.BooleanBuilder:
		f.Append(v.(bool))
	case *array.Int16Builder:
		f.Append(int16(v.(int64)))
	case *array.Int32Builder:
		f.Append(int32(v.(int64)))
	case *array.Int64Builder:
		f.Append(v.(int64))
	case *array.Float32Builder:
		f.Append(float32(v.(float64)))
	case *array.Float64Builder:
		f.Append(v.(float64))
	case *array.Date32Builder:
		f.Append(arrow.Date32(v.(types.Date)))
	case *array.TimestampBuilder:
		f.Append(arrow.Timestamp(v.(types.Timestamp)))
	case *array.MonthDayNanoIntervalBuilder:
		iv := v.(types.Interval)
		f.Append(arrow.MonthDayNanoInterval{Months: iv.Months, Days: iv.Days, Nanoseconds: iv.Micros}) // see ArrowType
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			panic(fmt.Sprintf("chunk: %T in string column", v))
		}
		f.Append(s)
	case *array.BinaryBuilder:
		d, ok := v.(*apd.Decimal)
		if !ok {
			panic(fmt.Sprintf("chunk: %T in numeric column", v))
		}
		appendNumeric(f, d)
	default:
		panic(fmt.Sprintf("chunk: unsupported builder %T", fb))
	}
}

// FromRows builds a chunk of the given rows, all with operation op.
func FromRows(ts []types.Type, op Op, rows [][]types.Datum) *Chunk {
	b := NewBuilder(ts)
	defer b.Release()
	for _, r := range rows {
		b.Append(op, r)
	}
	return b.Build()
}
