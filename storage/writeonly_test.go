package storage

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestWriteOnlyBatch: a write-only batch commits like any other, merged
// with indexed ones in order, and refuses reads.
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
	if err := ordersTable.Insert(other, []types.Datum{int64(3), int64(3), "later", 1.5}); err != nil { // applied after w: wins
		t.Fatal(err)
	}
	commit(t, s, 1, w, other)
	snap := s.Snapshot()
	defer snap.Close()
	row, ok, err := ordersTable.Get(snap, []types.Datum{int64(3), int64(3)})
	if err != nil || !ok || row[2] != "later" {
		t.Fatalf("row 3 = %v %v %v, want the later batch's", row, ok, err)
	}
	n := 0
	it := ordersTable.Scan(snap)
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil || n != 10 {
		t.Fatalf("%d rows (%v), want 10", n, err)
	}
}
