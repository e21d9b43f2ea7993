package storage

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestDurableAcrossReopen writes and commits on a real directory, closes,
// reopens and reads back rows, meta and the committed epoch.
func TestDurableAcrossReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data") // Open creates it
	s, err := Open(dir, Options{})
	mustDo(t, err)
	if s.CommittedEpoch() != 0 {
		t.Fatalf("new store epoch %d", s.CommittedEpoch())
	}
	w := s.NewWriteBatch()
	for id := int64(1); id <= 1000; id++ {
		mustDo(t, ordersTable.Insert(w, order(id%7, id)))
	}
	commit(t, s, 5, w)
	w = s.NewWriteBatch()
	mustDo(t, ordersTable.Delete(w, order(1, 1)))
	commit(t, s, 9, w)
	mustDo(t, s.PutMeta("catalog/t1", []byte("orders")))
	uncommitted := s.NewWriteBatch() // never committed: must not survive
	mustDo(t, ordersTable.Insert(uncommitted, order(1, 5000)))
	want := collect(t, ordersTable.Scan(s))
	mustDo(t, s.Close())
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("data dir: %v", err)
	}

	s, err = Open(dir, Options{})
	mustDo(t, err)
	defer s.Close()
	if s.CommittedEpoch() != 9 {
		t.Fatalf("epoch after reopen %d, want 9", s.CommittedEpoch())
	}
	if got := collect(t, ordersTable.Scan(s)); len(got) != 999 || !slices.EqualFunc(got, want, sameRow) {
		t.Fatalf("rows after reopen: %d, want 999 equal to before", len(got))
	}
	if v, ok, err := s.GetMeta("catalog/t1"); err != nil || !ok || string(v) != "orders" {
		t.Fatalf("meta after reopen: %q %v %v", v, ok, err)
	}
	if err := s.CommitEpoch(9, nil); !errors.Is(err, ErrEpochNotIncreasing) {
		t.Fatalf("re-committing epoch 9 after reopen: %v", err)
	}
}

func TestCommitEpochRules(t *testing.T) {
	s := openMem(t)
	commit(t, s, 3) // an epoch with no state writes still records the epoch
	if s.CommittedEpoch() != 3 {
		t.Fatalf("epoch %d", s.CommittedEpoch())
	}
	w := s.NewWriteBatch()
	mustDo(t, ordersTable.Insert(w, order(1, 1)))
	for _, e := range []uint64{3, 2} {
		if err := s.CommitEpoch(e, []*WriteBatch{w}); !errors.Is(err, ErrEpochNotIncreasing) {
			t.Fatalf("epoch %d after 3: %v", e, err)
		}
	}
	// The failed commit closed the batch and wrote nothing.
	if err := ordersTable.Insert(w, order(1, 2)); !errors.Is(err, ErrClosed) {
		t.Fatalf("insert into a batch closed by CommitEpoch: %v", err)
	}
	if got := mustGet(t, ordersTable, s, int64(1), int64(1)); got != nil {
		t.Fatalf("failed commit wrote %v", got)
	}
	if err := s.CommitEpoch(4, []*WriteBatch{w}); !errors.Is(err, ErrClosed) {
		t.Fatalf("committing a closed batch: %v", err)
	}
	other := openMem(t)
	if err := s.CommitEpoch(5, []*WriteBatch{other.NewWriteBatch()}); err == nil {
		t.Fatal("committed another store's batch")
	}
	if s.CommittedEpoch() != 3 {
		t.Fatalf("epoch moved on failures: %d", s.CommittedEpoch())
	}
}

// TestCommitEpochMerges: several batches (and nils) with disjoint keys
// land in one commit, whichever is largest.
func TestCommitEpochMerges(t *testing.T) {
	for big := range 3 {
		s := openMem(t)
		ws := []*WriteBatch{s.NewWriteBatch(), s.NewWriteBatch(), s.NewWriteBatch()}
		want := 0
		for i, w := range ws {
			n := 2
			if i == big {
				n = 100
			}
			for c := range n {
				mustDo(t, ordersTable.Insert(w, order(int64(i), int64(c))))
			}
			want += n
		}
		mustDo(t, ordersTable.Delete(ws[1], order(1, 0)))
		want--
		commit(t, s, 1, ws[0], nil, ws[1], s.NewWriteBatch(), ws[2])
		if got := mustGet(t, ordersTable, s, int64(1), int64(0)); got != nil {
			t.Fatalf("big=%d: deleted row present: %v", big, got)
		}
		if rows := collect(t, ordersTable.Scan(s)); len(rows) != want {
			t.Fatalf("big=%d: %d rows, want %d", big, len(rows), want)
		}
		for _, w := range ws {
			if !w.Empty() || w.Close() != nil {
				t.Fatal("batch not closed by CommitEpoch")
			}
		}
	}
}

// TestDropTable removes every row of one table id, in all vnodes, and
// leaves neighbouring ids and meta alone.
func TestDropTable(t *testing.T) {
	s := openMem(t)
	tables := map[uint32]*Table{}
	w := s.NewWriteBatch()
	for _, id := range []uint32{41, 42, 43, 0xFFFFFFFF} {
		tbl := *ordersTable
		tbl.ID = id
		tables[id] = &tbl
		for c := int64(0); c < 50; c++ {
			mustDo(t, tbl.Insert(w, order(c, 1)))
		}
	}
	commit(t, s, 1, w)
	mustDo(t, s.PutMeta("t", []byte("x")))
	mustDo(t, s.DropTable(42))
	mustDo(t, s.DropTable(0xFFFFFFFF))
	for id, tbl := range tables {
		want := 50
		if id == 42 || id == 0xFFFFFFFF {
			want = 0
		}
		if n := len(collect(t, tbl.Scan(s))); n != want {
			t.Errorf("table %d: %d rows after drop, want %d", id, n, want)
		}
	}
	if _, ok, _ := s.GetMeta("t"); !ok {
		t.Error("DropTable removed meta")
	}
	if s.CommittedEpoch() != 1 {
		t.Error("DropTable changed the epoch")
	}
}

func TestMeta(t *testing.T) {
	s := openMem(t)
	for _, k := range []string{"cat/b", "cat/a", "cat/", "cau", "ca", "id/next"} {
		mustDo(t, s.PutMeta(k, []byte("v:"+k)))
	}
	commit(t, s, 1) // writes the reserved epoch record
	keys, vals, err := s.ScanMeta("cat/")
	mustDo(t, err)
	if !slices.Equal(keys, []string{"cat/", "cat/a", "cat/b"}) || string(vals[1]) != "v:cat/a" {
		t.Fatalf("ScanMeta(cat/) = %q %q", keys, vals)
	}
	all, _, err := s.ScanMeta("")
	mustDo(t, err)
	if len(all) != 6 {
		t.Fatalf("ScanMeta(\"\") = %q (the epoch record must stay hidden)", all)
	}
	mustDo(t, s.DeleteMeta("cat/a"))
	if _, ok, err := s.GetMeta("cat/a"); ok || err != nil {
		t.Fatalf("deleted meta: %v %v", ok, err)
	}
	if err := s.PutMeta("\x00committed_epoch", []byte{0}); err == nil {
		t.Fatal("PutMeta overwrote the reserved epoch record")
	}
	if err := s.DeleteMeta("\x00committed_epoch"); err == nil {
		t.Fatal("DeleteMeta removed the reserved epoch record")
	}
}

func TestCloseReportsLeakedSnapshot(t *testing.T) {
	s, err := Open("", Options{InMemory: true})
	mustDo(t, err)
	closed := s.Snapshot()
	mustDo(t, closed.Close())
	mustDo(t, closed.Close())
	leaked := s.Snapshot()
	if err := s.Close(); !errors.Is(err, ErrLeaked) {
		t.Fatalf("Close with an open snapshot: %v", err)
	}
	if err := leaked.Close(); err != nil {
		t.Fatalf("closing a snapshot after the store: %v", err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

func TestUseAfterClose(t *testing.T) {
	s, err := Open(":memory:", Options{})
	mustDo(t, err)
	w := s.NewWriteBatch()
	mustDo(t, s.Close())
	checks := map[string]error{
		"CommitEpoch": s.CommitEpoch(1, []*WriteBatch{w}),
		"PutMeta":     s.PutMeta("k", nil),
		"DeleteMeta":  s.DeleteMeta("k"),
		"DropTable":   s.DropTable(1),
		"Insert":      ordersTable.Insert(s.NewWriteBatch(), order(1, 1)),
	}
	_, _, checks["GetMeta"] = s.GetMeta("k")
	_, _, checks["ScanMeta"] = s.ScanMeta("")
	_, _, checks["Get"] = ordersTable.Get(s, []types.Datum{int64(1), int64(1)})
	checks["Scan"] = ordersTable.Scan(s).Err()
	checks["Snapshot"] = ordersTable.Scan(s.Snapshot()).Err()
	for name, err := range checks {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	mustDo(t, os.WriteFile(file, nil, 0o644))
	if _, err := Open(file, Options{}); err == nil {
		t.Fatal("opened a store on a regular file")
	}
	s, err := Open(t.TempDir(), Options{NoSync: true, MemTableSize: 1 << 20})
	mustDo(t, err)
	mustDo(t, s.Close())
}

// TestBlockCacheKeepsBlocks: Pebble charges memtables to the block cache,
// so a cache no bigger than them keeps nothing and every point read goes
// to the file. CacheSize does not count them: with a cache the size of a
// memtable, reads of flushed rows must still hit the cache.
func TestBlockCacheKeepsBlocks(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoSync: true, MemTableSize: 4 << 20, CacheSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tbl := &Table{ID: 5, Types: []types.Type{types.TInt64, types.TInt64}, PK: []int{0}, DistKey: []int{0}}
	// Enough epochs for the memtables to grow to their full size.
	const rows = 300_000
	for e := int64(0); e < 10; e++ {
		w := s.NewWriteBatch()
		for i := e * rows / 10; i < (e+1)*rows/10; i++ {
			if err := tbl.Insert(w, []types.Datum{i, i * 2}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CommitEpoch(uint64(e+1), []*WriteBatch{w}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	defer snap.Close()
	for i := int64(0); i < 2*rows; i += 97 {
		row, ok, err := tbl.Get(snap, []types.Datum{i})
		if err != nil || ok != (i < rows) || ok && row[1] != i*2 {
			t.Fatalf("Get(%d) = %v, %v, %v", i, row, ok, err)
		}
	}
	m := s.db.Metrics()
	if m.BlockCache.Hits == 0 || m.BlockCache.Size == 0 {
		t.Fatalf("block cache kept nothing: %d hits, %d misses, %d bytes", m.BlockCache.Hits, m.BlockCache.Misses, m.BlockCache.Size)
	}
}

// TestCommitJob: a job's checkpoint lands whole, records no epoch, and
// survives a reopen once synced; a later epoch's commit is not held back
// by it and does not undo it.
func TestCommitJob(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	mustDo(t, err)
	commit(t, s, 4)
	ws := []*WriteBatch{s.NewWriteBatch(), nil, s.NewWriteBatch()}
	for i, w := range []*WriteBatch{ws[0], ws[2]} {
		for c := range 50 {
			mustDo(t, ordersTable.Insert(w, order(int64(i), int64(c))))
		}
	}
	mustDo(t, s.CommitJob(ws, false))
	if s.CommittedEpoch() != 4 {
		t.Fatalf("a job checkpoint moved the epoch to %d", s.CommittedEpoch())
	}
	if n := len(collect(t, ordersTable.Scan(s))); n != 100 {
		t.Fatalf("%d rows after the job checkpoint, want 100", n)
	}
	if err := ordersTable.Insert(ws[0], order(9, 9)); !errors.Is(err, ErrClosed) {
		t.Fatalf("insert into a batch CommitJob took: %v", err)
	}
	w := s.NewWriteBatch()
	mustDo(t, ordersTable.Delete(w, order(0, 0)))
	mustDo(t, s.CommitJob([]*WriteBatch{w}, true))
	w = s.NewWriteBatch()
	mustDo(t, ordersTable.Insert(w, order(5, 1)))
	commit(t, s, 5, w)
	mustDo(t, s.Close())

	s, err = Open(dir, Options{})
	mustDo(t, err)
	defer s.Close()
	if s.CommittedEpoch() != 5 {
		t.Fatalf("epoch after reopen %d, want 5", s.CommittedEpoch())
	}
	if n := len(collect(t, ordersTable.Scan(s))); n != 100 {
		t.Fatalf("%d rows after reopen, want 100 (100 - 1 + 1)", n)
	}
	if got := mustGet(t, ordersTable, s, int64(0), int64(0)); got != nil {
		t.Fatalf("the synced job checkpoint's delete was lost: %v", got)
	}
}
