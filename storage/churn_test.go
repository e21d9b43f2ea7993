package storage

import (
	"github.com/cockroachdb/pebble/v2"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// scanPoints scans table and returns the rows it returned and the
// internal points Pebble stepped over to find them.
func scanPoints(t *testing.T, s *Store, table *Table) (rows int, points uint64) {
	t.Helper()
	it := table.Scan(s)
	for it.Next() {
		rows++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	points = it.(*tableIter).it.(*pebble.Iterator).Stats().InternalStats.PointCount
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return rows, points
}

// TestScanChurnFlushes: rows rewritten in every epoch leave a version per
// epoch in the memtable; a scan that steps over far more versions than it
// returns rows has the memtable flushed, after which scans see about one
// version per row again.
func TestScanChurnFlushes(t *testing.T) {
	s, err := Open("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const keys, epochs = 10, 2000
	row := make([]types.Datum, 4)
	for e := range epochs {
		w := s.NewWriteBatch()
		for k := range keys {
			if err := benchTable.Insert(w, benchRow(row, int64(k))); err != nil {
				t.Fatal(err)
			}
			row[3] = float64(e)
		}
		if err := s.CommitEpoch(uint64(e+1), []*WriteBatch{w}); err != nil {
			t.Fatal(err)
		}
	}
	rows, points := scanPoints(t, s, benchTable)
	if rows != keys || points < keys*epochs {
		t.Fatalf("before the flush: %d rows over %d points, want %d over at least %d", rows, points, keys, keys*epochs)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		rows, points = scanPoints(t, s, benchTable)
		if rows != keys {
			t.Fatalf("after the flush: %d rows, want %d", rows, keys)
		}
		if points <= 2*keys {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a scan still steps over %d points for %d rows", points, rows)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A scan without churn asks for no flush.
	s.churnFlush.Store(0)
	scanPoints(t, s, benchTable)
	if s.churnFlush.Load() != 0 {
		t.Fatal("a scan over one version per row asked for a flush")
	}
}
