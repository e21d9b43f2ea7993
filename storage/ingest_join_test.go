package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestJoinIngests: ingests joined into one (their files' key ranges
// overlapping, their keys not) commit together; the parts, taken over,
// discard nothing; a discarded or nil part is left out; a joined ingest
// discarded removes every part's files.
func TestJoinIngests(t *testing.T) {
	fs := vfs.NewMem()
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	defer s.Close()

	if JoinIngests(nil, nil) != nil {
		t.Fatal("a join of nothing is not nil")
	}
	gone := stageKV(t, s, 2000, 2100)
	gone.Discard()
	a, b := stageKV(t, s, 0, 500), stageKV(t, s, 500, 1000)
	in := JoinIngests(a, nil, gone, b)
	if in.Rows() != 1000 || len(in.files) != len(a.files)+len(b.files) {
		t.Fatalf("joined: %d rows, %d files", in.Rows(), len(in.files))
	}
	a.Discard() // taken over: a no-op
	w := s.NewWriteOnlyBatch()
	mustDo(t, w.AddIngest(in))
	commit(t, s, 1, w)
	wantKV(t, s, 1000, nil)
	if f := stagedFiles(t, fs, "db"); len(f) != 0 {
		t.Fatalf("staged files left after the commit: %v", f)
	}

	dropped := JoinIngests(stageKV(t, s, 3000, 3100), stageKV(t, s, 3100, 3200))
	dropped.Discard()
	if f := stagedFiles(t, fs, "db"); len(f) != 0 {
		t.Fatalf("staged files left after discarding a join: %v", f)
	}
	wantKV(t, s, 1000, nil)
}
