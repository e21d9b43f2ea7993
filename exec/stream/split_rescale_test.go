package stream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// splitFragment drives the SplitSources of one source fragment of n
// actors over a shared store, one epoch at a time, as the coordinator
// does: every actor passes the barrier, then their batches commit
// together.
type splitFragment struct {
	t       *testing.T
	st      *storage.Store
	readers []*fakeSplitReader
	ins     []chan Message
	srcs    []*SplitSource
	scs     []*StateContext
}

func newSplitFragment(t *testing.T, st *storage.Store, n int, progress, skipped *atomic.Int64) *splitFragment {
	f := &splitFragment{t: t, st: st}
	typ := []types.Type{types.TInt64}
	totals := NewSplitTotals(n, progress, skipped)
	for i := range n {
		r := newFakeSplitReader()
		in := make(chan Message, 4)
		sc := NewStateContext(st)
		s := NewSplitSource(&Receiver{C: in, Typ: typ}, r, sc, typ, SplitSourceOptions{Job: 7, State: 900, RowID: -1,
			Totals: totals, Owner: connector.SplitOwner{Actor: i, Actors: n}})
		f.readers, f.ins, f.srcs, f.scs = append(f.readers, r), append(f.ins, in), append(f.srcs, s), append(f.scs, sc)
	}
	return f
}

func (f *splitFragment) next(i int) (Message, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return f.srcs[i].Next(ctx)
}

// barrier passes barrier epoch through actor i and returns its batch.
func (f *splitFragment) barrier(i int, epoch uint64) *storage.WriteBatch {
	f.ins[i] <- barrierMsg(epoch)
	m, err := f.next(i)
	if err != nil || m.Barrier == nil {
		f.t.Fatalf("actor %d: want barrier %d, got %+v, %v", i, epoch, m, err)
	}
	return f.scs[i].TakeBatch()
}

// epoch passes barrier epoch through every actor and commits the epoch.
func (f *splitFragment) epoch(epoch uint64) {
	var batches []*storage.WriteBatch
	for i := range f.srcs {
		batches = append(batches, f.barrier(i, epoch))
	}
	if err := f.st.CommitEpoch(epoch, batches); err != nil {
		f.t.Fatal(err)
	}
}

func (f *splitFragment) close() {
	for _, s := range f.srcs {
		s.Close()
	}
}

// TestSplitSourceRescale: a source fragment rescaled 2 -> 3 -> 1 -> 4
// over five splits. In every generation each split is read by exactly
// one actor, which starts it at the offset its previous owner
// committed; the counters (rows emitted, messages skipped) of the
// actors add up to what the fragment emitted and skipped, published
// only once every actor has loaded its share; and the counter rows of
// actors that no longer exist fold into their new owner's slot.
func TestSplitSourceRescale(t *testing.T) {
	st := newTestStore(t)
	const splits = 5
	produced := map[int32]int64{} // next offset of each split
	var rows, bad int64
	epoch := uint64(1)
	for _, n := range []int{2, 3, 1, 4} {
		progress, skipped := new(atomic.Int64), new(atomic.Int64)
		progress.Store(-1)
		f := newSplitFragment(t, st, n, progress, skipped)
		// The first barrier loads each actor's splits and starts its
		// reader; the totals wait for the last actor.
		var batches []*storage.WriteBatch
		for i := range n {
			batches = append(batches, f.barrier(i, epoch))
			if got := progress.Load(); i < n-1 && got != -1 {
				t.Fatalf("n=%d: rows published (%d) after %d of %d actors loaded", n, got, i+1, n)
			}
		}
		if err := st.CommitEpoch(epoch, batches); err != nil {
			t.Fatal(err)
		}
		epoch++
		if progress.Load() != rows || skipped.Load() != bad {
			t.Fatalf("n=%d: loaded totals %d rows %d skipped, want %d %d", n, progress.Load(), skipped.Load(), rows, bad)
		}
		owners := map[int32]int{}
		for i, r := range f.readers {
			for p := int32(0); p < splits; p++ {
				if !(connector.SplitOwner{Actor: i, Actors: n}).Owns(p) {
					if _, ok := r.started[p]; ok {
						t.Fatalf("n=%d: actor %d started split %d, not its own", n, i, p)
					}
					continue
				}
				owners[p]++
				if got, ok := r.started[p]; produced[p] > 0 && (!ok || got != produced[p]) {
					t.Fatalf("n=%d: actor %d starts split %d at %d (%v), want %d", n, i, p, got, ok, produced[p])
				}
			}
		}
		for p := int32(0); p < splits; p++ {
			if owners[p] != 1 {
				t.Fatalf("n=%d: split %d has %d owners", n, p, owners[p])
			}
		}
		// Each actor reads three messages of each of its splits, the
		// second of split 0 malformed.
		for i, r := range f.readers {
			var recs []connector.SplitRecord
			want := 0
			for p := int32(0); p < splits; p++ {
				if !f.srcs[i].opts.Owner.Owns(p) {
					continue
				}
				for j := range int64(3) {
					rec := connector.SplitRecord{Split: p, Offset: produced[p] + j, Row: []types.Datum{int64(p)<<20 | produced[p] + j}}
					if p == 0 && j == 1 {
						rec.Row, rec.Err = nil, errors.New("bad")
						bad++
					} else {
						want++
					}
					recs = append(recs, rec)
				}
				produced[p] += 3
			}
			if len(recs) == 0 {
				continue
			}
			r.c <- recs
			m, err := f.next(i)
			if err != nil || m.Chunk == nil || m.Chunk.NumRows() != want {
				t.Fatalf("n=%d actor %d: want a chunk of %d rows, got %+v, %v", n, i, want, m, err)
			}
			m.Chunk.Release()
			rows += int64(want)
		}
		if progress.Load() != rows || skipped.Load() != bad {
			t.Fatalf("n=%d: totals %d rows %d skipped, want %d %d", n, progress.Load(), skipped.Load(), rows, bad)
		}
		f.epoch(epoch) // the rescale barrier: the offsets commit with the rows
		epoch++
		f.close()
	}
	// After the last generation (4 actors, slots 0-3) the table holds
	// every split's offset and the counters of slots 0-3 only, which
	// add up. Slot 1 was folded into slot 0 by the generation of one
	// actor and written again by the last.
	got := splitStateRows(t, st)
	want := fmt.Sprintf("splits map[0:%d 1:%d 2:%d 3:%d 4:%d] slots [0 1 2 3] emitted %d skipped %d",
		produced[0], produced[1], produced[2], produced[3], produced[4], rows, bad)
	if got != want {
		t.Fatalf("state table:\n got %s\nwant %s", got, want)
	}
}

// splitStateRows renders the committed position table of
// TestSplitSourceRescale.
func splitStateRows(t *testing.T, st *storage.Store) string {
	it := ConnectorStateTable(900).Scan(st)
	defer it.Close()
	offs := map[int32]int64{}
	slots := map[int]bool{}
	var counts [2]int64
	for it.Next() {
		row := it.Row()
		split, n := int32(row[0].(int64)), row[1].(int64)
		if split >= 0 {
			offs[split] = n
			continue
		}
		k, which := counterSlot(split)
		slots[k] = true
		counts[which] += n
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	var ks []int
	for k := range slots {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return fmt.Sprintf("splits %v slots %v emitted %d skipped %d", offs, ks, counts[0], counts[1])
}

// TestSplitSourceForeignSplit: a reader that hands its source a split
// the actor does not own fails the actor instead of emitting the rows a
// second time.
func TestSplitSourceForeignSplit(t *testing.T) {
	st := newTestStore(t)
	f := newSplitFragment(t, st, 2, nil, nil)
	defer f.close()
	f.epoch(1)
	f.readers[1].c <- []connector.SplitRecord{{Split: 2, Offset: 0, Row: []types.Datum{int64(1)}}}
	_, err := f.next(1)
	if err == nil || !strings.Contains(err.Error(), "split 2, which is not its own") {
		t.Fatalf("want an error for a foreign split, got %v", err)
	}
}

// TestCounterKeys: counter slots and split ids do not meet, and slot 0
// keeps the ids a source of one actor always used.
func TestCounterKeys(t *testing.T) {
	if counterKey(0, 0) != splitRowsEmitted || counterKey(0, 1) != splitRowsSkipped {
		t.Fatalf("slot 0 is %d %d", counterKey(0, 0), counterKey(0, 1))
	}
	seen := map[int32]bool{}
	for k := range 64 {
		for which := range 2 {
			id := counterKey(k, which)
			if id >= 0 || seen[id] {
				t.Fatalf("slot %d counter %d: id %d", k, which, id)
			}
			seen[id] = true
			if gk, gw := counterSlot(id); gk != k || gw != which {
				t.Fatalf("counterSlot(%d) = %d %d, want %d %d", id, gk, gw, k, which)
			}
		}
	}
}
