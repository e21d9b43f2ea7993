package storage

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
)

// stageKV writes kvTable rows k -> k*10 for keys [from, to) into an
// Ingest.
func stageKV(t *testing.T, s *Store, from, to int64) *Ingest {
	t.Helper()
	type kv struct{ k, v []byte }
	var kvs []kv
	for k := from; k < to; k++ {
		row := []types.Datum{k, k * 10}
		key, err := kvTable.AppendRowKey(nil, row)
		mustDo(t, err)
		val, err := EncodeRow(nil, kvTable.Types, row)
		mustDo(t, err)
		kvs = append(kvs, kv{key, val})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	w, err := s.NewIngestWriter()
	mustDo(t, err)
	for _, e := range kvs {
		mustDo(t, w.Add(e.k, e.v))
	}
	in, err := w.Finish()
	mustDo(t, err)
	return in
}

func wantKV(t *testing.T, s *Store, n int64, extra map[int64]int64) {
	t.Helper()
	want := map[int64]int64{}
	for k := int64(0); k < n; k++ {
		want[k] = k * 10
	}
	for k, v := range extra {
		want[k] = v
	}
	if got := readKV(t, s); !equalMaps(got, want) {
		t.Fatalf("store holds %d rows, want %d (%v)", len(got), len(want), got)
	}
}

func stagedFiles(t *testing.T, fs vfs.FS, dir string) []string {
	t.Helper()
	names, err := fs.List(fs.PathJoin(dir, ingestDirName))
	if err != nil {
		return nil // no staging directory
	}
	return names
}

// TestIngestCommit: an ingest attached to a batch commits with the
// batch's epoch, next to the batch's own writes, and its staged files
// are gone afterwards; snapshots taken before do not see it.
func TestIngestCommit(t *testing.T) {
	fs := vfs.NewMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	defer s.Close()
	in := stageKV(t, s, 0, 1000)
	if in.Rows() != 1000 {
		t.Fatalf("Rows() = %d", in.Rows())
	}
	before := s.Snapshot()
	defer before.Close()
	w := s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(in))
	mustDo(t, w.AddIngest(in)) // twice is once
	mustDo(t, kvTable.Insert(w, []types.Datum{int64(5000), int64(1)}))
	commit(t, s, 1, w)
	wantKV(t, s, 1000, map[int64]int64{5000: 1})
	if rows := collect(t, kvTable.Scan(before)); len(rows) != 0 {
		t.Fatalf("a snapshot from before the commit sees %d rows", len(rows))
	}
	if f := stagedFiles(t, fs, "db"); len(f) != 0 {
		t.Fatalf("staged files left after the commit: %v", f)
	}
	if _, ok, _ := s.getMeta(pendingIngestKey); ok {
		t.Fatal("pending ingest record left after the commit")
	}
}

// TestIngestDiscard: an ingest whose batch is closed uncommitted is
// dropped with its files, and a discarded ingest cannot commit.
func TestIngestDiscard(t *testing.T) {
	fs := vfs.NewMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	defer s.Close()
	in := stageKV(t, s, 0, 100)
	w := s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(in))
	mustDo(t, w.Close())
	if f := stagedFiles(t, fs, "db"); len(f) != 0 {
		t.Fatalf("staged files left after a discard: %v", f)
	}
	w = s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(in))
	if err := s.CommitEpoch(1, []*WriteBatch{w}); err == nil {
		t.Fatal("a discarded ingest committed")
	}
	wantKV(t, s, 0, nil)

	// A writer aborted half way leaves nothing either.
	iw, err := s.NewIngestWriter()
	mustDo(t, err)
	key, _ := kvTable.AppendRowKey(nil, []types.Datum{int64(1), int64(1)})
	mustDo(t, iw.Add(key, []byte{1}))
	iw.Abort()
	if f := stagedFiles(t, fs, "db"); len(f) != 0 {
		t.Fatalf("staged files left after an abort: %v", f)
	}
}

// TestIngestStrayFilesRemovedAtOpen: files staged for a statement that
// never committed are removed when the store reopens.
func TestIngestStrayFilesRemovedAtOpen(t *testing.T) {
	fs := vfs.NewCrashableMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	stageKV(t, s, 0, 100) // never attached: a crash before the commit
	clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	mustDo(t, s.Close())
	r, err := open("db", Options{}, clone)
	mustDo(t, err)
	defer r.Close()
	wantKV(t, r, 0, nil)
	if f := stagedFiles(t, clone, "db"); len(f) != 0 {
		t.Fatalf("stray staged files after reopen: %v", f)
	}
}

// TestIngestCrashBeforeIngest: a crash after an epoch with an ingest
// committed but before its files were ingested (failpoint
// storage/ingest) loses nothing: Open redoes the ingest. So does a crash
// at the same point of that redo.
func TestIngestCrashBeforeIngest(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	fs := vfs.NewCrashableMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	w := s.NewWriteOnlyBatch()
	mustDo(t, kvTable.Insert(w, []types.Datum{int64(-1), int64(7)}))
	commit(t, s, 1, w)

	off, err := failpoint.Enable(failpoint.StorageIngest, failpoint.Spec{Action: failpoint.Error, Times: 2})
	mustDo(t, err)
	defer off()
	w = s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(stageKV(t, s, 0, 3000)))
	mustDo(t, kvTable.Insert(w, []types.Datum{int64(-2), int64(8)}))
	err = s.CommitEpoch(2, []*WriteBatch{w})
	if !errors.Is(err, ErrStoreFailed) {
		t.Fatalf("CommitEpoch with a failed ingest: %v, want ErrStoreFailed", err)
	}
	crash := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	s.Close()

	// The redo fails too (the point's second hit): still nothing lost.
	if _, err := open("db", Options{}, crash); err == nil {
		t.Fatal("open with a failing redo succeeded")
	}
	again := crash.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	r, err := open("db", Options{}, again)
	mustDo(t, err)
	defer r.Close()
	if got := r.CommittedEpoch(); got != 2 {
		t.Fatalf("recovered epoch %d, want 2", got)
	}
	wantKV(t, r, 3000, map[int64]int64{-1: 7, -2: 8})
	if f := stagedFiles(t, again, "db"); len(f) != 0 {
		t.Fatalf("staged files left after the redo: %v", f)
	}
	// Later epochs build on it as usual.
	w = r.NewWriteOnlyBatch()
	mustDo(t, kvTable.Delete(w, []types.Datum{int64(0), nil}))
	commit(t, r, 3, w)
	got := readKV(t, r)
	if _, ok := got[0]; ok || len(got) != 3001 {
		t.Fatalf("after deleting row 0: %d rows (row 0 there: %v)", len(got), ok)
	}
}

// TestIngestManyFiles: an ingest larger than ingestFileBytes is split
// into several files that commit together.
func TestIngestManyFiles(t *testing.T) {
	defer func(n uint64) { ingestFileBytes = n }(ingestFileBytes)
	ingestFileBytes = 16 << 10
	fs := vfs.NewMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	defer s.Close()
	in := stageKV(t, s, 0, 20000)
	if len(in.files) < 2 {
		t.Fatalf("%d files, want several", len(in.files))
	}
	w := s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(in))
	commit(t, s, 1, w)
	wantKV(t, s, 20000, nil)
}

// TestJobIngestCrashBeforeIngest: a creating job's checkpoint with an
// ingest commits without the epoch lock; when its ingest fails (the store
// stops) the checkpoint is still whole after a crash and reopen, which
// redoes the ingest, and an epoch committed meanwhile is kept.
func TestJobIngestCrashBeforeIngest(t *testing.T) {
	if !failpoint.Enabled {
		t.Skip("failpoints need -tags invariants")
	}
	fs := vfs.NewCrashableMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	w := s.NewWriteOnlyBatch()
	mustDo(t, kvTable.Insert(w, []types.Datum{int64(-1), int64(7)}))
	commit(t, s, 1, w)
	w = s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(stageKV(t, s, 0, 100)))
	mustDo(t, s.CommitJob([]*WriteBatch{w}, false)) // ingested at once
	wantKV(t, s, 100, map[int64]int64{-1: 7})

	off, err := failpoint.Enable(failpoint.StorageIngest, failpoint.Spec{Action: failpoint.Error, Times: 1})
	mustDo(t, err)
	defer off()
	w = s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(stageKV(t, s, 100, 3000)))
	mustDo(t, kvTable.Insert(w, []types.Datum{int64(-2), int64(8)}))
	if err := s.CommitJob([]*WriteBatch{w}, false); !errors.Is(err, ErrStoreFailed) {
		t.Fatalf("CommitJob with a failed ingest: %v, want ErrStoreFailed", err)
	}
	crash := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	s.Close()

	r, err := open("db", Options{}, crash)
	mustDo(t, err)
	defer r.Close()
	if got := r.CommittedEpoch(); got != 1 {
		t.Fatalf("recovered epoch %d, want 1", got)
	}
	wantKV(t, r, 3000, map[int64]int64{-1: 7, -2: 8})
	if f := stagedFiles(t, crash, "db"); len(f) != 0 {
		t.Fatalf("staged files left after the redo: %v", f)
	}
}

// TestIngestSnapshotsSeeWholeEpochs: each epoch ingests new rows and,
// in its batch, records how many there are; a snapshot taken at any
// moment sees both or neither.
func TestIngestSnapshotsSeeWholeEpochs(t *testing.T) {
	s, err := open("", Options{NoSync: true}, vfs.NewMem())
	mustDo(t, err)
	defer s.Close()
	done := make(chan struct{})
	errs := make(chan string, 4)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				snap := s.Snapshot()
				rows, recorded := int64(0), int64(0)
				for _, row := range collect(t, kvTable.Scan(snap)) {
					if k := row[0].(int64); k < 0 {
						recorded = row[1].(int64)
					} else {
						rows++
					}
				}
				snap.Close()
				if rows != recorded {
					errs <- fmt.Sprintf("a snapshot saw %d ingested rows, its epoch recorded %d", rows, recorded)
					return
				}
			}
		})
	}
	const per = 200
	for epoch := uint64(1); epoch <= 40; epoch++ {
		w := s.NewWriteOnlyBatch()
		n := int64(epoch) * per
		mustDo(t, w.AddIngest(stageKV(t, s, n-per, n)))
		mustDo(t, kvTable.Insert(w, []types.Datum{int64(-1), n}))
		commit(t, s, epoch, w)
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// stageKVWrites writes, for the keys of vnodes [lo, hi) among [0, n),
// k -> v for the keys in vals and deletions for the keys in dels, into
// an Ingest: the files of two such writers overlap in range when their
// vnodes interleave, though their keys do not.
func stageKVWrites(t *testing.T, s *Store, n int64, keep func(vnode uint16) bool, vals map[int64]int64, dels map[int64]bool) *Ingest {
	t.Helper()
	type kv struct {
		k, v []byte
		del  bool
	}
	var kvs []kv
	for k := int64(0); k < n; k++ {
		v, set := vals[k]
		if !set && !dels[k] || !keep(kvTable.Vnode([]types.Datum{k, int64(0)})) {
			continue
		}
		row := []types.Datum{k, v}
		key, err := kvTable.AppendRowKey(nil, row)
		mustDo(t, err)
		val, err := EncodeRow(nil, kvTable.Types, row)
		mustDo(t, err)
		kvs = append(kvs, kv{key, val, !set})
	}
	slices.SortFunc(kvs, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	w, err := s.NewIngestWriter()
	mustDo(t, err)
	for _, e := range kvs {
		if e.del {
			mustDo(t, w.Delete(e.k))
		} else {
			mustDo(t, w.Add(e.k, e.v))
		}
	}
	in, err := w.Finish()
	mustDo(t, err)
	return in
}

// TestIngestDeletesAndOverlap: ingested files may delete and overwrite
// committed rows, and the files of one epoch may overlap in range (two
// writers whose vnodes interleave) as long as their keys are disjoint.
func TestIngestDeletesAndOverlap(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		t.Run(fmt.Sprintf("redo=%v", reopen), func(t *testing.T) {
			if reopen && !failpoint.Enabled {
				t.Skip("failpoints need -tags invariants")
			}
			fs := vfs.NewCrashableMem()
			s, err := open("db", Options{}, fs)
			mustDo(t, err)
			defer func() { s.Close() }()
			w := s.NewWriteBatch()
			for k := int64(0); k < 100; k++ {
				mustDo(t, kvTable.Insert(w, []types.Datum{k, k * 10}))
			}
			mustDo(t, s.CommitEpoch(1, []*WriteBatch{w}))
			vals, dels := map[int64]int64{}, map[int64]bool{}
			want := readKV(t, s)
			for k := int64(0); k < 150; k += 3 {
				vals[k], want[k] = -k, -k
			}
			for k := int64(1); k < 150; k += 5 {
				if _, ok := vals[k]; !ok {
					dels[k] = true
					delete(want, k)
				}
			}
			even := func(v uint16) bool { return v%2 == 0 }
			odd := func(v uint16) bool { return v%2 == 1 }
			a := stageKVWrites(t, s, 150, even, vals, dels)
			b := stageKVWrites(t, s, 150, odd, vals, dels)
			wa, wb := s.NewWriteBatch(), s.NewWriteBatch()
			mustDo(t, wa.AddIngest(a))
			mustDo(t, wb.AddIngest(b))
			if reopen {
				// The commit stops after the batch: Open redoes the ingest
				// without the files' bounds.
				off, err := failpoint.Enable(failpoint.StorageIngest, failpoint.Spec{Action: failpoint.Error, Times: 1})
				mustDo(t, err)
				if err := s.CommitEpoch(2, []*WriteBatch{wa, wb}); !errors.Is(err, ErrStoreFailed) {
					t.Fatalf("CommitEpoch with a failed ingest: %v, want ErrStoreFailed", err)
				}
				off()
				crash := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
				s.Close()
				s, err = open("db", Options{}, crash)
				mustDo(t, err)
			} else {
				mustDo(t, s.CommitEpoch(2, []*WriteBatch{wa, wb}))
			}
			if got := readKV(t, s); !equalMaps(got, want) {
				t.Fatalf("store holds %v\nwant %v", got, want)
			}
		})
	}
}
