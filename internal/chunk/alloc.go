package chunk

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// allocator is the allocator of chunks built without one named
// (NewBuilder, and every executor's output): the Go allocator, or in a
// test that proves each chunk's buffers are released exactly once, a
// memory.CheckedAllocator set with SetAllocator.
var allocator atomic.Pointer[memory.Allocator]

func init() {
	var mem memory.Allocator = memory.DefaultAllocator
	allocator.Store(&mem)
}

// Allocator returns the allocator of chunks built without one named.
func Allocator() memory.Allocator { return *allocator.Load() }

// Checked reports whether SetAllocator replaced the Go allocator (a
// test counts buffers: pools that recycle buffers must step aside).
func Checked() bool { return Allocator() != memory.Allocator(memory.DefaultAllocator) }

// SetAllocator makes mem the allocator of chunks built from now on
// without one named, and returns the function that restores the last.
// It is for tests (a memory.CheckedAllocator counts every buffer
// allocated and freed): set it before opening a database and restore it
// after closing it; the process's other users share it.
func SetAllocator(mem memory.Allocator) (restore func()) {
	old := allocator.Swap(&mem)
	return func() { allocator.Store(old) }
}
