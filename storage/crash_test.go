package storage

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/streamdb/streamdb/internal/types"
)

// kvTable: (k bigint, v bigint), pk k, dist k.
var kvTable = &Table{ID: 3, Types: []types.Type{types.TInt64, types.TInt64}, PK: []int{0}, DistKey: []int{0}}

// TestCrashAtomicity commits epochs spread over several batches on a
// crashable memory FS, some synced and some not, and after each commit
// simulates a crash that keeps a random part of the unsynced data. The
// recovered store must hold exactly the state of its CommittedEpoch, which
// is never older than the last synced commit.
func TestCrashAtomicity(t *testing.T) {
	fs := vfs.NewCrashableMem()
	rng := rand.New(rand.NewPCG(1, 2))
	s, err := open("db", Options{}, fs)
	mustDo(t, err)
	defer s.Close()
	model := map[int64]int64{}
	states := map[uint64]map[int64]int64{0: {}}
	lastSynced := uint64(0)
	for epoch := uint64(1); epoch <= 30; epoch++ {
		sync := rng.IntN(2) == 0
		s.writeOpts = syncOpt(sync)
		commitRandomEpoch(t, s, rng, epoch, model)
		states[epoch] = maps(model)
		if sync {
			lastSynced = epoch
		}
		clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rng})
		r, err := open("db", Options{}, clone)
		mustDo(t, err)
		got := r.CommittedEpoch()
		if got < lastSynced || got > epoch {
			t.Fatalf("after crash at epoch %d (last synced %d): recovered epoch %d", epoch, lastSynced, got)
		}
		if rows := readKV(t, r); !equalMaps(rows, states[got]) {
			t.Fatalf("recovered epoch %d holds %v, want %v", got, rows, states[got])
		}
		mustDo(t, r.Close())
	}
}

// commitRandomEpoch writes random upserts and deletes to three batches
// with disjoint keys (as actors' batches are: each owns its vnodes),
// commits them as epoch and applies them to model.
func commitRandomEpoch(t *testing.T, s *Store, rng *rand.Rand, epoch uint64, model map[int64]int64) {
	type op struct {
		k, v int64
		del  bool
	}
	ws := []*WriteBatch{s.NewWriteBatch(), s.NewWriteBatch(), s.NewWriteBatch()}
	ops := make([][]op, len(ws))
	for range 50 {
		i := rng.IntN(len(ws))
		o := op{k: int64(rng.IntN(34)*len(ws) + i), v: rng.Int64(), del: rng.IntN(4) == 0}
		ops[i] = append(ops[i], o)
		if o.del {
			mustDo(t, kvTable.Delete(ws[i], []types.Datum{o.k, nil}))
		} else {
			mustDo(t, kvTable.Insert(ws[i], []types.Datum{o.k, o.v}))
		}
	}
	commit(t, s, epoch, ws...)
	for _, batchOps := range ops {
		for _, o := range batchOps {
			if o.del {
				delete(model, o.k)
			} else {
				model[o.k] = o.v
			}
		}
	}
	if rows := readKV(t, s); !equalMaps(rows, model) {
		t.Fatalf("epoch %d: store holds %v, model %v", epoch, rows, model)
	}
}

func syncOpt(sync bool) *pebble.WriteOptions {
	if sync {
		return pebble.Sync
	}
	return pebble.NoSync
}

func readKV(t *testing.T, s *Store) map[int64]int64 {
	out := map[int64]int64{}
	for _, row := range collect(t, kvTable.Scan(s)) {
		out[row[0].(int64)] = row[1].(int64)
	}
	return out
}

func maps(m map[int64]int64) map[int64]int64 {
	c := make(map[int64]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func equalMaps(a, b map[int64]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestConcurrentReadersSeeWholeEpochs: a committer moves amounts between
// accounts, each transfer's debit and credit in different batches of one
// epoch; concurrent snapshot and store readers must always see the total.
func TestConcurrentReadersSeeWholeEpochs(t *testing.T) {
	s := openMem(t)
	const accounts, total = 10, 1000
	w := s.NewWriteBatch()
	for k := range int64(accounts) {
		mustDo(t, kvTable.Insert(w, []types.Datum{k, int64(total / accounts)}))
	}
	commit(t, s, 1, w)

	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for r := range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				var rd Reader = s
				if r%2 == 0 {
					rd = s.Snapshot()
				}
				sum := int64(0)
				it := kvTable.Scan(rd)
				for it.Next() {
					sum += it.Row()[1].(int64)
				}
				if err := it.Close(); err != nil || it.Err() != nil || sum != total {
					errs <- "torn read"
					return
				}
				if snap, ok := rd.(*Snapshot); ok {
					snap.Close()
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for epoch := uint64(2); epoch < 200; epoch++ {
		from := int64(rng.IntN(accounts))
		to := (from + 1 + int64(rng.IntN(accounts-1))) % accounts
		debit, credit := s.NewWriteBatch(), s.NewWriteBatch()
		moveAmount(t, s, debit, from, -7)
		moveAmount(t, s, credit, to, 7)
		commit(t, s, epoch, debit, credit)
	}
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// moveAmount stages account k's committed balance plus delta.
func moveAmount(t *testing.T, s *Store, w *WriteBatch, k, delta int64) {
	row := mustGet(t, kvTable, s, k)
	mustDo(t, kvTable.Insert(w, []types.Datum{k, row[1].(int64) + delta}))
}
