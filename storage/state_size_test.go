package storage

import (
	"errors"
	"testing"
)

// TestTableSizes: a table's size counts its committed live keys and their
// bytes, and nothing of a neighbouring table id; Pebble's disk estimate
// appears once the keys are flushed to an sstable.
func TestTableSizes(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	var want TableSize
	for i := byte(0); i < 10; i++ {
		key := append(appendVnodePrefix(nil, 7, uint16(i)), 'k', i)
		val := make([]byte, int(i))
		mustDo(t, w.Set(key, val))
		want.Keys++
		want.Bytes += int64(len(key) + len(val))
	}
	for _, id := range []uint32{6, 8} { // neighbours, not counted
		mustDo(t, w.Set(appendVnodePrefix(nil, id, 0), []byte("x")))
	}
	commit(t, s, 1, w)
	w = s.NewWriteBatch()
	del := append(appendVnodePrefix(nil, 7, 9), 'k', 9)
	mustDo(t, w.Delete(del))
	want.Keys--
	want.Bytes -= int64(len(del) + 9)
	uncommitted := s.NewWriteBatch() // never committed: not counted
	mustDo(t, uncommitted.Set(append(appendVnodePrefix(nil, 7, 0), 'z'), []byte("v")))
	commit(t, s, 2, w)

	snap := s.Snapshot()
	defer snap.Close()
	got, err := TableSizes(snap, []uint32{7, 99})
	mustDo(t, err)
	if got[0].Keys != want.Keys || got[0].Bytes != want.Bytes {
		t.Fatalf("table 7: %+v, want %d keys, %d bytes", got[0], want.Keys, want.Bytes)
	}
	if got[1] != (TableSize{}) {
		t.Fatalf("table 99 holds nothing, got %+v", got[1])
	}

	mustDo(t, s.db.Flush())
	got, err = TableSizes(s, []uint32{7})
	mustDo(t, err)
	if got[0].Keys != want.Keys || got[0].DiskBytes <= 0 {
		t.Fatalf("table 7 after a flush: %+v, want %d keys and a disk estimate", got[0], want.Keys)
	}
}

// TestTableSizesClosed: measuring through a closed snapshot fails.
func TestTableSizesClosed(t *testing.T) {
	s := openMem(t)
	snap := s.Snapshot()
	mustDo(t, snap.Close())
	if _, err := TableSizes(snap, []uint32{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed snapshot: %v", err)
	}
}
