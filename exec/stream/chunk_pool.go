package stream

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// Buffer recycling for backfill chunks. A snapshot scan builds a chunk
// of every scanChunkRows rows it reads: millions of rows make thousands
// of chunks, and with Arrow's Go allocator each is a fresh set of
// buffers (about 20 bytes a row for three integer columns). That churn,
// not the data kept, is what made the garbage collector run nearly all
// the time during a backfill, and with it the write barriers of every
// pointer store in Pebble's iterators (15% of a GROUP BY backfill's CPU).
//
// chunkBuffers is an Allocator whose freed buffers are used again: a
// chunk's arrays free their buffers when the last reference is released
// (by the operator that consumes the chunk, in whatever actor), and the
// scan's next chunks take them back. Buffers are kept by power-of-two
// size class in sync.Pools, so an idle pool costs nothing after a GC.
//
// Recycling is safe only for buffers nothing reads once released. Arrow
// reference counting covers the arrays themselves; what it does not
// cover are values that alias a buffer: a String column's Value is a Go
// string over the data buffer, which operators keep as Datums (group
// keys, join rows, state) long after the chunk is gone. pooledTypes
// therefore admits only chunks whose read columns copy out as values
// (integers, floats, booleans, dates, timestamps, intervals); a chunk
// with a read text or numeric column uses the Go allocator as before.
// Under the invariants build tag released buffers are overwritten with
// poisonByte, so an operator reading a chunk after releasing it sees
// garbage (and the differential tests fail) instead of a latent bug.

// chunkBuffers is the process's pool of backfill chunk buffers.
var chunkBuffers = &bufferPool{}

const (
	minPooledClass = 6  // 64 bytes: Arrow's alignment
	maxPooledClass = 20 // 1 MiB: larger buffers go to the Go allocator
	poisonByte     = 0xdb
)

// bufferPool is a memory.Allocator recycling buffers of power-of-two
// sizes from minPooledClass to maxPooledClass. Buffers it hands out have
// the class size as capacity, which is how Free finds their class; Go
// allocates power-of-two sizes of 64 bytes and more aligned to at least
// 64 bytes, as Arrow wants. It is safe for concurrent use.
type bufferPool struct {
	classes [maxPooledClass + 1]sync.Pool // of unsafe.Pointer to the buffer's first byte
}

var _ memory.Allocator = (*bufferPool)(nil)

// sizeClass returns the class of a buffer of size bytes, or -1 when it is
// not pooled.
func sizeClass(size int) int {
	c := bits.Len(uint(size - 1))
	if size <= 1<<minPooledClass {
		c = minPooledClass
	}
	if c > maxPooledClass {
		return -1
	}
	return c
}

// Allocate implements memory.Allocator: a zeroed buffer of size bytes
// (Arrow's builders count on new validity bitmaps being zero).
func (p *bufferPool) Allocate(size int) []byte {
	c := sizeClass(size)
	if c < 0 {
		return memory.DefaultAllocator.Allocate(size)
	}
	if ptr, ok := p.classes[c].Get().(unsafe.Pointer); ok {
		b := unsafe.Slice((*byte)(ptr), 1<<c)
		clear(b)
		return b[:size]
	}
	return make([]byte, size, 1<<c)
}

// Reallocate implements memory.Allocator.
func (p *bufferPool) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:]) // as Allocate: grown bytes read as zero
		}
		return b
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free implements memory.Allocator: b goes back to its class.
func (p *bufferPool) Free(b []byte) {
	n := cap(b)
	if n == 0 || n&(n-1) != 0 {
		return // not of a class: the Go allocator's
	}
	c := bits.Len(uint(n)) - 1
	if c < minPooledClass || c > maxPooledClass {
		return
	}
	if invariants {
		b = b[:n]
		for i := range b {
			b[i] = poisonByte
		}
	}
	p.classes[c].Put(unsafe.Pointer(unsafe.SliceData(b)))
}

// pooledTypes reports whether chunks of columns ts, of which only those
// with read[i] set (nil: all) hold values, may use chunkBuffers: no read
// column is one whose values alias their buffer.
func pooledTypes(ts []types.Type, read []bool) bool {
	for i, t := range ts {
		if read != nil && !read[i] {
			continue
		}
		switch chunk.ArrowType(t).ID() {
		case arrow.BOOL, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64,
			arrow.DATE32, arrow.TIMESTAMP, arrow.INTERVAL_MONTH_DAY_NANO:
		default:
			return false
		}
	}
	return true
}

// newScanBuilder returns the chunk builder of a scan of columns ts
// reading read: with recycled buffers where pooledTypes allows (and no
// test counts buffers, see chunk.SetAllocator).
func newScanBuilder(ts []types.Type, read []bool) *chunk.Builder {
	if pooledTypes(ts, read) && !chunk.Checked() {
		return chunk.NewBuilderWith(chunkBuffers, ts)
	}
	return chunk.NewBuilder(ts)
}
