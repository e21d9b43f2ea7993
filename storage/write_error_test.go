package storage

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestWriteErrorFailsStore: when the WAL cannot be written (a full disk,
// an I/O error) the commit fails with ErrStoreFailed and the matching
// SQLSTATE, instead of Pebble exiting the process; every later write
// fails the same way at once; reads keep working; and after a reopen the
// store holds exactly the state of its committed epoch, never older than
// the last commit that succeeded.
func TestWriteErrorFailsStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code string
	}{
		{"disk full", &os.PathError{Op: "write", Path: "wal", Err: syscall.ENOSPC}, pgerr.DiskFull},
		{"io error", &os.PathError{Op: "write", Path: "wal", Err: syscall.EIO}, pgerr.IOError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toggle := &errorfs.Toggle{Injector: errorfs.InjectorFunc(func(op errorfs.Op) error {
				if op.Kind.ReadOrWrite() == errorfs.OpIsWrite && strings.HasSuffix(op.Path, ".log") {
					return tc.err
				}
				return nil
			})}
			fs := errorfs.Wrap(vfs.NewMem(), toggle)
			s, err := open("db", Options{}, fs)
			mustDo(t, err)
			rng := rand.New(rand.NewPCG(3, 4))
			model := map[int64]int64{}
			states := map[uint64]map[int64]int64{}
			for epoch := uint64(1); epoch <= 3; epoch++ {
				commitRandomEpoch(t, s, rng, epoch, model)
				states[epoch] = maps(model)
			}

			toggle.On()
			w := s.NewWriteBatch()
			mustDo(t, kvTable.Insert(w, []types.Datum{int64(1000), int64(1)}))
			err = s.CommitEpoch(4, []*WriteBatch{w})
			if !errors.Is(err, ErrStoreFailed) || pgerr.Code(err) != tc.code || !errors.Is(err, tc.err.(*os.PathError).Err) {
				t.Fatalf("commit with the WAL failing: [%s] %v; want ErrStoreFailed, %s", pgerr.Code(err), err, tc.code)
			}
			states[4] = maps(model)
			states[4][1000] = 1
			toggle.Off() // the store stays failed all the same
			if err := s.PutMeta("k", []byte("v")); !errors.Is(err, ErrStoreFailed) {
				t.Fatalf("PutMeta after the failure: %v", err)
			}
			if err := s.CommitEpoch(5, []*WriteBatch{s.NewWriteBatch()}); !errors.Is(err, ErrStoreFailed) {
				t.Fatalf("commit after the failure: %v", err)
			}
			if got := readKV(t, s); !equalMaps(got, states[3]) && !equalMaps(got, states[4]) {
				t.Fatalf("reads after the failure: %v", got)
			}
			_ = s.Close() // it may report the WAL's error

			r, err := open("db", Options{}, fs)
			mustDo(t, err)
			defer r.Close()
			got := r.CommittedEpoch()
			if got != 3 && got != 4 {
				t.Fatalf("reopened at epoch %d, want 3 (or 4)", got)
			}
			if rows := readKV(t, r); !equalMaps(rows, states[got]) {
				t.Fatalf("reopened epoch %d holds %v, want %v", got, rows, states[got])
			}
			commitRandomEpoch(t, r, rng, got+1, states[got])
		})
	}
}
