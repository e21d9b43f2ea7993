package storage

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestWriteOnlyBatch: a write-only batch commits like any other, merged
// with others, and refuses reads.
func TestWriteOnlyBatch(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteOnlyBatch()
	if !w.WriteOnly() {
		t.Fatal("NewWriteOnlyBatch is not write-only")
	}
	for c := int64(0); c < 10; c++ {
		if err := ordersTable.Insert(w, order(c, c)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := ordersTable.Get(w, []types.Datum{int64(1), int64(1)}); !errors.Is(err, ErrWriteOnly) {
		t.Fatalf("read through a write-only batch: %v, want ErrWriteOnly", err)
	}
	other := s.NewWriteBatch()
	if err := ordersTable.Insert(other, []types.Datum{int64(30), int64(30), "other", 1.5}); err != nil {
		t.Fatal(err)
	}
	commit(t, s, 1, w, other)
	snap := s.Snapshot()
	defer snap.Close()
	row, ok, err := ordersTable.Get(snap, []types.Datum{int64(30), int64(30)})
	if err != nil || !ok || row[2] != "other" {
		t.Fatalf("row 30 = %v %v %v, want the other batch's", row, ok, err)
	}
	n := 0
	it := ordersTable.Scan(snap)
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil || n != 11 {
		t.Fatalf("%d rows (%v), want 11", n, err)
	}
}

// TestBatchIndexedAtFirstRead: a batch fills unindexed and becomes
// indexed at its first read, which sees every write made before it; later
// writes and deletes are seen by later reads, and the commit holds all of
// them.
func TestBatchIndexedAtFirstRead(t *testing.T) {
	s := openMem(t)
	w := s.NewWriteBatch()
	for c := int64(0); c < 100; c++ {
		if err := ordersTable.Insert(w, order(c, c)); err != nil {
			t.Fatal(err)
		}
	}
	if w.indexed {
		t.Fatal("batch indexed before any read")
	}
	row, ok, err := ordersTable.Get(w, []types.Datum{int64(42), int64(42)})
	if err != nil || !ok || row[0] != int64(42) {
		t.Fatalf("row 42 through the batch = %v %v %v", row, ok, err)
	}
	if !w.indexed || w.Count() != 100 {
		t.Fatalf("after a read: indexed %v, count %d; want true, 100", w.indexed, w.Count())
	}
	if err := ordersTable.Delete(w, order(7, 7)); err != nil {
		t.Fatal(err)
	}
	if err := ordersTable.Insert(w, []types.Datum{int64(100), int64(100), "new", 2.5}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ordersTable.Get(w, []types.Datum{int64(7), int64(7)}); err != nil || ok {
		t.Fatalf("deleted row 7 still read through the batch (%v)", err)
	}
	n := 0
	it := ordersTable.Scan(w)
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil || n != 100 {
		t.Fatalf("scan through the batch: %d rows (%v), want 100", n, err)
	}
	commit(t, s, 1, w)
	snap := s.Snapshot()
	defer snap.Close()
	n = 0
	it = ordersTable.Scan(snap)
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil || n != 100 {
		t.Fatalf("committed: %d rows (%v), want 100", n, err)
	}
}
