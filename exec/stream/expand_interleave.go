package stream

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// interleave returns the column of len(arrs)*n rows whose row i*P+k is
// row i of arrs[k] (P = len(arrs)): the projections' columns of an
// Expand in row-major order. With one projection it is arrs[0] itself,
// retained. The arrays stay the caller's; all are of t's Arrow type.
func interleave(arrs []arrow.Array, n int, t types.Type) (arrow.Array, error) {
	if len(arrs) == 1 {
		arrs[0].Retain()
		return arrs[0], nil
	}
	switch arrs[0].(type) {
	case *array.Timestamp:
		return interleaveFixed(arrs, n, func(a arrow.Array) []arrow.Timestamp { return a.(*array.Timestamp).TimestampValues() }), nil
	case *array.Int64:
		return interleaveFixed(arrs, n, func(a arrow.Array) []int64 { return a.(*array.Int64).Int64Values() }), nil
	case *array.Int32:
		return interleaveFixed(arrs, n, func(a arrow.Array) []int32 { return a.(*array.Int32).Int32Values() }), nil
	case *array.Int16:
		return interleaveFixed(arrs, n, func(a arrow.Array) []int16 { return a.(*array.Int16).Int16Values() }), nil
	case *array.Date32:
		return interleaveFixed(arrs, n, func(a arrow.Array) []arrow.Date32 { return a.(*array.Date32).Date32Values() }), nil
	case *array.Float64:
		return interleaveFixed(arrs, n, func(a arrow.Array) []float64 { return a.(*array.Float64).Float64Values() }), nil
	case *array.Float32:
		return interleaveFixed(arrs, n, func(a arrow.Array) []float32 { return a.(*array.Float32).Float32Values() }), nil
	}
	return interleaveTake(arrs, n, t)
}

// interleaveFixed interleaves fixed-width arrays, values(a) being a's
// values (its offset applied).
func interleaveFixed[T any](arrs []arrow.Array, n int, values func(arrow.Array) []T) arrow.Array {
	np := len(arrs)
	out := make([]T, n*np)
	for k, a := range arrs {
		for i, v := range values(a)[:n] {
			out[i*np+k] = v
		}
	}
	valid, nulls := interleaveValidity(arrs, n)
	var raw []byte
	if len(out) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*int(unsafe.Sizeof(out[0])))
	}
	data := array.NewData(arrs[0].DataType(), n*np, []*memory.Buffer{valid, memory.NewBufferBytes(raw)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// interleaveValidity is the validity bitmap of the interleaved rows and
// their null count (nil, 0 when none is NULL).
func interleaveValidity(arrs []arrow.Array, n int) (*memory.Buffer, int) {
	nulls := 0
	for _, a := range arrs {
		nulls += a.NullN()
	}
	if nulls == 0 {
		return nil, 0
	}
	np := len(arrs)
	bits := make([]byte, bitutil.BytesForBits(int64(n*np)))
	for k, a := range arrs {
		for i := range n {
			if a.IsValid(i) {
				bitutil.SetBit(bits, i*np+k)
			}
		}
	}
	return memory.NewBufferBytes(bits), nulls
}

// interleaveTake interleaves arrays of other types (strings, booleans,
// intervals, numerics): concatenated, then taken in row-major order. It
// fails when the strings' bytes are more than one Arrow array holds.
func interleaveTake(arrs []arrow.Array, n int, t types.Type) (arrow.Array, error) {
	all, err := array.Concatenate(arrs, chunk.Allocator())
	if err != nil {
		return nil, err
	}
	ts := []types.Type{t}
	src := &chunk.Chunk{Rec: array.NewRecordBatch(chunk.Schema(ts), []arrow.Array{all}, int64(n*len(arrs))), Types: ts}
	all.Release()
	defer src.Release()
	np := len(arrs)
	rows := make([]int, n*np)
	for r := range rows {
		rows[r] = (r%np)*n + r/np
	}
	c := chunk.Take(src, rows, nil)
	defer c.Release()
	out := c.Rec.Column(0)
	out.Retain()
	return out, nil
}

// repeatRows returns a's rows each repeated np times: row i is rows
// i*np to i*np+np-1. A column of NULLs only (one a scan did not read) is
// made without reading it; nil for a type it has no kernel for (the
// caller takes those rows).
func repeatRows(a arrow.Array, np int) arrow.Array {
	n := a.Len()
	if a.NullN() == n {
		return array.MakeArrayOfNull(chunk.Allocator(), a.DataType(), n*np)
	}
	switch x := a.(type) {
	case *array.Timestamp:
		return repeatFixed(a, x.TimestampValues(), np)
	case *array.Int64:
		return repeatFixed(a, x.Int64Values(), np)
	case *array.Int32:
		return repeatFixed(a, x.Int32Values(), np)
	case *array.Int16:
		return repeatFixed(a, x.Int16Values(), np)
	case *array.Date32:
		return repeatFixed(a, x.Date32Values(), np)
	case *array.Float64:
		return repeatFixed(a, x.Float64Values(), np)
	case *array.Float32:
		return repeatFixed(a, x.Float32Values(), np)
	case *array.String:
		return repeatBytes(x, np)
	case *array.Binary:
		return repeatBytes(x, np)
	}
	return nil
}

// repeatBytes repeats each of a string or binary array's values np
// times; nil when the bytes are more than int32 offsets address (the
// caller's take then decides).
func repeatBytes(a bytesArray, np int) arrow.Array {
	n := a.Len()
	offs, data := a.ValueOffsets(), a.ValueBytes()
	size := int64(offs[n]-offs[0]) * int64(np)
	if size > math.MaxInt32 {
		return nil
	}
	offsets := make([]int32, n*np+1)
	buf := make([]byte, 0, size)
	for i := range n {
		v := data[offs[i]-offs[0] : offs[i+1]-offs[0]]
		for k := range np {
			buf = append(buf, v...)
			offsets[i*np+k+1] = int32(len(buf))
		}
	}
	valid, nulls := repeatValidity(a, np)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&offsets[0])), len(offsets)*4)
	out := array.NewData(a.DataType(), n*np, []*memory.Buffer{valid, memory.NewBufferBytes(raw), memory.NewBufferBytes(buf)}, nil, nulls, 0)
	defer out.Release()
	return array.MakeFromData(out)
}

// bytesArray is a string or binary array: int32 offsets into one data
// buffer.
type bytesArray interface {
	arrow.Array
	ValueOffsets() []int32 // of the array's rows, offset applied: len+1 of them
	ValueBytes() []byte    // from the array's first row's value on
}

// repeatValidity is the validity bitmap of a's rows each repeated np
// times, and their null count (nil, 0 when none is NULL).
func repeatValidity(a arrow.Array, np int) (*memory.Buffer, int) {
	nulls := a.NullN()
	if nulls == 0 {
		return nil, 0
	}
	n := a.Len()
	bits := make([]byte, bitutil.BytesForBits(int64(n*np)))
	for i := range n {
		if a.IsValid(i) {
			for k := range np {
				bitutil.SetBit(bits, i*np+k)
			}
		}
	}
	return memory.NewBufferBytes(bits), nulls * np
}

// repeatFixed repeats each of a fixed-width array's values (vals, its
// offset applied) np times.
func repeatFixed[T any](a arrow.Array, vals []T, np int) arrow.Array {
	n := a.Len()
	out := make([]T, n*np)
	for i, v := range vals[:n] {
		for k := range np {
			out[i*np+k] = v
		}
	}
	valid, nulls := repeatValidity(a, np)
	var raw []byte
	if len(out) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*int(unsafe.Sizeof(out[0])))
	}
	data := array.NewData(a.DataType(), n*np, []*memory.Buffer{valid, memory.NewBufferBytes(raw)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}
