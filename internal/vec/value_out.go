package vec

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// toArray builds the Arrow array of type t (chunk.ArrowType) holding the
// n values of v, with buffers from mem. The caller owns the array.
func toArray(mem memory.Allocator, t types.Type, v vvec, n int) arrow.Array {
	nullBuf, nulls := validityBuffer(mem, v.valid, n)
	var bufs []*memory.Buffer
	switch t.ID {
	case types.IDInt16:
		bufs = []*memory.Buffer{nullBuf, fixedBuffer(mem, v.i, n, func(x int64) int16 { return int16(x) })}
	case types.IDInt32, types.IDDate:
		bufs = []*memory.Buffer{nullBuf, fixedBuffer(mem, v.i, n, func(x int64) int32 { return int32(x) })}
	case types.IDInt64, types.IDTimestamp, types.IDTimestampTZ:
		bufs = []*memory.Buffer{nullBuf, fixedBuffer(mem, v.i, n, func(x int64) int64 { return x })}
	case types.IDFloat32:
		bufs = []*memory.Buffer{nullBuf, fixedBuffer(mem, v.f, n, func(x float64) float32 { return float32(x) })}
	case types.IDFloat64:
		bufs = []*memory.Buffer{nullBuf, fixedBuffer(mem, v.f, n, func(x float64) float64 { return x })}
	case types.IDBool:
		bufs = []*memory.Buffer{nullBuf, wordsBuffer(mem, v.b, n)}
	case types.IDNumeric:
		offs, data := numericBuffers(mem, v, n)
		bufs = []*memory.Buffer{nullBuf, offs, data}
	default: // text, varchar
		offs, data := stringBuffers(mem, v, n)
		bufs = []*memory.Buffer{nullBuf, offs, data}
	}
	data := array.NewData(chunk.ArrowType(t), n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release() // data holds its own reference
		}
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// validityBuffer is the Arrow validity bitmap of valid (nil when no row
// is NULL) and the number of NULL rows.
func validityBuffer(mem memory.Allocator, valid []uint64, n int) (*memory.Buffer, int) {
	if valid == nil {
		return nil, 0
	}
	set := 0
	for w, x := range valid {
		if w == len(valid)-1 {
			x &= tailMask(n)
		}
		set += bits.OnesCount64(x)
	}
	if set == n {
		return nil, 0
	}
	return wordsBuffer(mem, valid, n), n - set
}

// wordsBuffer copies the first n bits of w into a new bitmap buffer.
func wordsBuffer(mem memory.Allocator, w []uint64, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	nb := int(bitutil.BytesForBits(int64(n)))
	buf.Resize(nb)
	if n > 0 {
		src := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
		copy(buf.Bytes(), src[:nb])
		if n&7 != 0 { // clear the bits past n in the last byte
			buf.Bytes()[nb-1] &= byte(1)<<(uint(n)&7) - 1
		}
	}
	return buf
}

// fixedBuffer converts n values into a new buffer of T.
func fixedBuffer[S, T any](mem memory.Allocator, vals []S, n int, conv func(S) T) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	var zero T
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	if n > 0 {
		out := unsafe.Slice((*T)(unsafe.Pointer(&buf.Bytes()[0])), n)
		for i, v := range vals[:n] {
			out[i] = conv(v)
		}
	}
	return buf
}

// stringBuffers builds the offsets and data of a string array of v's
// valid rows (the others empty).
func stringBuffers(mem memory.Allocator, v vvec, n int) (offs, data *memory.Buffer) {
	size := 0
	for i := 0; i < n; i++ {
		if v.isValid(i) {
			size += len(v.s[i])
		}
	}
	offs = memory.NewResizableBuffer(mem)
	offs.Resize((n + 1) * 4)
	o := unsafe.Slice((*int32)(unsafe.Pointer(&offs.Bytes()[0])), n+1)
	data = memory.NewResizableBuffer(mem)
	data.Resize(size)
	d := data.Bytes()
	pos := 0
	for i := 0; i < n; i++ {
		o[i] = int32(pos)
		if v.isValid(i) {
			pos += copy(d[pos:], v.s[i])
		}
	}
	o[n] = int32(pos)
	return offs, data
}
