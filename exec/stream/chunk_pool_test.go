package stream

import (
	"bytes"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// TestBufferPoolSizes: buffers have the size asked for, a power-of-two
// capacity of at least 64 bytes (their class), Arrow's 64-byte
// alignment, and are zero even when recycled after being written.
func TestBufferPoolSizes(t *testing.T) {
	p := &bufferPool{}
	for _, size := range []int{0, 1, 63, 64, 65, 1000, 4096, 8192, 8193, 1 << 20} {
		for range 4 { // the later rounds may reuse the earlier buffers
			b := p.Allocate(size)
			if len(b) != size {
				t.Fatalf("Allocate(%d): len %d", size, len(b))
			}
			c := cap(b)
			if c < 64 || c&(c-1) != 0 || c < size || c >= 2*max(size, 64) {
				t.Fatalf("Allocate(%d): cap %d, want the next power of two >= 64", size, c)
			}
			if size > 0 && uintptr(unsafe.Pointer(&b[0]))%64 != 0 {
				t.Fatalf("Allocate(%d): not 64-byte aligned", size)
			}
			if i := bytes.IndexFunc(b, func(r rune) bool { return r != 0 }); i >= 0 {
				t.Fatalf("Allocate(%d): byte %d is not zero", size, i)
			}
			for i := range b[:cap(b)] {
				b[:cap(b)][i] = 0xff
			}
			p.Free(b)
		}
	}
}

// TestBufferPoolLarge: a buffer past the largest class comes from the Go
// allocator and is not kept by Free.
func TestBufferPoolLarge(t *testing.T) {
	p := &bufferPool{}
	size := 1<<maxPooledClass + 1
	b := p.Allocate(size)
	if len(b) != size {
		t.Fatalf("len %d, want %d", len(b), size)
	}
	p.Free(b) // must not panic or pool it
	if sizeClass(size) != -1 {
		t.Fatalf("sizeClass(%d) = %d, want -1 (not pooled)", size, sizeClass(size))
	}
}

// TestBufferPoolReallocate: Reallocate keeps the content, and bytes it
// adds read as zero, whether it grows within the capacity or moves.
func TestBufferPoolReallocate(t *testing.T) {
	p := &bufferPool{}
	b := p.Allocate(10)
	copy(b, "0123456789")
	b = b[:cap(b)]
	for i := 10; i < len(b); i++ {
		b[i] = 0xee // garbage past the length, as a shrunk buffer has
	}
	b = b[:10]
	for _, size := range []int{40, 64, 200, 5000} {
		b = p.Reallocate(size, b)
		if len(b) != size || string(b[:10]) != "0123456789" {
			t.Fatalf("Reallocate(%d): len %d, head %q", size, len(b), b[:10])
		}
		if i := bytes.IndexFunc(b[10:], func(r rune) bool { return r != 0 }); i >= 0 {
			t.Fatalf("Reallocate(%d): grown byte %d is not zero", size, 10+i)
		}
	}
	p.Free(b)
}

// TestBufferPoolConcurrent: buffers freed and allocated from many
// goroutines are never handed to two owners at once.
func TestBufferPoolConcurrent(t *testing.T) {
	p := &bufferPool{}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mark := byte(g + 1)
			for i := range 2000 {
				b := p.Allocate(100 + i%3000)
				for j := range b {
					b[j] = mark
				}
				if bytes.IndexFunc(b, func(r rune) bool { return r != rune(mark) }) >= 0 {
					errs <- "a buffer was written by another owner"
					return
				}
				p.Free(b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestPooledTypes: only chunks whose read columns copy out as values
// recycle their buffers; an unread text column (all NULL) does not stop
// it.
func TestPooledTypes(t *testing.T) {
	for _, c := range []struct {
		ts   []types.Type
		read []bool
		want bool
	}{
		{[]types.Type{types.TInt64, types.TInt32, types.TFloat64, types.TBool, types.TDate, types.TTimestamp, types.TInterval}, nil, true},
		{[]types.Type{types.TInt64, types.TText}, nil, false},
		{[]types.Type{types.TInt64, types.TText}, []bool{true, false}, true},
		{[]types.Type{types.TInt64, types.TText}, []bool{true, true}, false},
		{[]types.Type{types.TInt64, types.TNumeric}, nil, false},
	} {
		if got := pooledTypes(c.ts, c.read); got != c.want {
			t.Errorf("pooledTypes(%v, %v) = %v, want %v", c.ts, c.read, got, c.want)
		}
	}
}

// TestScanBuilderRecycles: chunks of a scan builder hold the rows
// appended, chunk after chunk, while the earlier ones' buffers are
// released and reused; under the invariants tag a released chunk's
// buffers are poisoned, so a reader that kept one sees it.
func TestScanBuilderRecycles(t *testing.T) {
	ts := []types.Type{types.TInt64, types.TInt32}
	b := newScanBuilder(ts, nil)
	defer b.Release()
	for c := range 50 {
		for i := range 1000 {
			if i%7 == 0 {
				b.Append(chunk.Insert, []types.Datum{int64(c*1000 + i), nil})
			} else {
				b.Append(chunk.Insert, []types.Datum{int64(c*1000 + i), int64(i)})
			}
		}
		ch := b.Build()
		ids := ch.Rec.Column(0).(*array.Int64)
		ks := ch.Rec.Column(1).(*array.Int32)
		for i := range 1000 {
			if ids.Value(i) != int64(c*1000+i) || ks.IsNull(i) != (i%7 == 0) || !ks.IsNull(i) && ks.Value(i) != int32(i) {
				t.Fatalf("chunk %d row %d: id %d, k %v (null %v)", c, i, ids.Value(i), ks.Value(i), ks.IsNull(i))
			}
		}
		raw := ids.Int64Values()
		ch.Release()
		if invariants && uint64(raw[0]) != 0x0101010101010101*poisonByte {
			t.Fatalf("a released chunk's buffer was not poisoned: %x", raw[0])
		}
	}
}
