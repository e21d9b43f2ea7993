package chunk

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Take returns a new chunk of the rows of c at the given indexes, in that
// order, with the given ops (len(ops) == len(rows)). Values are copied a
// column at a time, without decoding them to Datums. c stays owned by the
// caller; the caller owns the result.
func Take(c *Chunk, rows []int, ops []Op) *Chunk {
	n := int(c.Rec.NumCols())
	cols := make([]arrow.Array, n)
	for j := range n {
		cols[j] = takeColumn(c.Rec.Column(j), rows)
	}
	rec := array.NewRecordBatch(c.Rec.Schema(), cols, int64(len(rows)))
	for _, a := range cols {
		a.Release()
	}
	return &Chunk{Rec: rec, Ops: ops, Types: c.Types}
}

// takeColumn gathers rows of col into a new array. Fixed-width and string
// columns are copied straight into new buffers; booleans (bit-packed) go
// through a builder.
func takeColumn(col arrow.Array, rows []int) arrow.Array {
	switch a := col.(type) {
	case *array.Int16:
		return takeFixed(a, a.Int16Values(), rows)
	case *array.Int32:
		return takeFixed(a, a.Int32Values(), rows)
	case *array.Int64:
		return takeFixed(a, a.Int64Values(), rows)
	case *array.Float32:
		return takeFixed(a, a.Float32Values(), rows)
	case *array.Float64:
		return takeFixed(a, a.Float64Values(), rows)
	case *array.Date32:
		return takeFixed(a, a.Date32Values(), rows)
	case *array.Timestamp:
		return takeFixed(a, a.TimestampValues(), rows)
	case *array.MonthDayNanoInterval:
		return takeFixed(a, a.MonthDayNanoIntervalValues(), rows)
	case *array.String:
		return takeBytes(a, rows)
	case *array.Binary:
		return takeBytes(a, rows)
	case *array.Boolean:
		b := array.NewBooleanBuilder(Allocator())
		defer b.Release()
		b.Reserve(len(rows))
		for _, i := range rows {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(a.Value(i))
			}
		}
		return b.NewArray()
	}
	panic(fmt.Sprintf("chunk: unsupported arrow column %T", col))
}

// takeValidity returns the validity bitmap of rows of col and their null
// count (nil, 0 when none is null).
func takeValidity(col arrow.Array, rows []int) (*memory.Buffer, int) {
	if col.NullN() == 0 {
		return nil, 0
	}
	bits := make([]byte, bitutil.BytesForBits(int64(len(rows))))
	nulls := 0
	for k, i := range rows {
		if col.IsValid(i) {
			bitutil.SetBit(bits, k)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(bits), nulls
}

// takeFixed gathers vals (the values of col, offset applied) at rows.
func takeFixed[T any](col arrow.Array, vals []T, rows []int) arrow.Array {
	out := make([]T, len(rows))
	for k, i := range rows {
		out[k] = vals[i]
	}
	valid, nulls := takeValidity(col, rows)
	var raw []byte
	if len(out) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*int(unsafe.Sizeof(out[0])))
	}
	data := array.NewData(col.DataType(), len(rows), []*memory.Buffer{valid, memory.NewBufferBytes(raw)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// bytesArray is a string or binary array: int32 offsets into one data
// buffer.
type bytesArray interface {
	arrow.Array
	ValueLen(i int) int
	ValueOffsets() []int32 // of the array's rows, offset applied: len+1 of them
	ValueBytes() []byte    // from the array's first row's value on
}

// takeBytes gathers the values (strings, binary) of col at rows into one
// offsets and one data buffer.
func takeBytes(col bytesArray, rows []int) arrow.Array {
	size := 0
	for _, i := range rows {
		size += col.ValueLen(i)
	}
	offsets := make([]int32, len(rows)+1)
	buf := make([]byte, 0, size)
	offs, data := col.ValueOffsets(), col.ValueBytes()
	for k, i := range rows {
		buf = append(buf, data[offs[i]-offs[0]:offs[i+1]-offs[0]]...)
		offsets[k+1] = int32(len(buf))
	}
	valid, nulls := takeValidity(col, rows)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&offsets[0])), len(offsets)*4)
	out := array.NewData(col.DataType(), len(rows), []*memory.Buffer{valid, memory.NewBufferBytes(raw), memory.NewBufferBytes(buf)}, nil, nulls, 0)
	defer out.Release()
	return array.MakeFromData(out)
}
