package stream

import (
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestHashJoinRandomBatch runs the random joins with batches of chunks
// (HashJoin.gather) of every size from one chunk up: the random inputs
// queue every chunk before the join starts, so a batch takes as many
// chunks of one side as its bound allows, across updates split between
// chunks and across the rows a batch's first chunk shares keys with.
func TestHashJoinRandomBatch(t *testing.T) {
	defer func(n int) { joinBatchRows = n }(joinBatchRows)
	for _, rows := range []int{1, 7, 1 << 20} {
		joinBatchRows = rows
		for _, kind := range []JoinKind{JoinInner, JoinLeftOuter, JoinFullOuter, JoinLeftSemi, JoinLeftAnti} {
			for _, keys := range [][]int{{1}, {0}, {1, 2}} {
				for seed := range randomSeeds(2) {
					t.Run(fmt.Sprintf("%d/%s/%v/%d", rows, kind, keys, seed), func(t *testing.T) {
						runJoinRandom(t, seed, joinTestSpec(kind, keys, leftLEright), true)
					})
				}
			}
		}
	}
}

// TestHashJoinUpdateSameKey checks the state an epoch of updates leaves,
// through what later rows of the other side match: an update that keeps
// its row's key (written once, see joinSide.putPending), one that moves
// it, a deletion and re-insertion of one row in a chunk, and NULL keys.
func TestHashJoinUpdateSameKey(t *testing.T) {
	ts := joinSideTypes
	for _, kind := range []JoinKind{JoinInner, JoinRightOuter} {
		t.Run(kind.String(), func(t *testing.T) {
			spec := joinTestSpec(kind, []int{1}, nil)
			left := []Message{
				chunkMsg(ts, ins(int64(1), int64(7), int64(0)), ins(int64(2), int64(8), int64(0)), ins(int64(4), nil, int64(0))),
				barrierMsg(1),
				chunkMsg(ts, slices.Concat(
					upd(trow{int64(1), int64(7), int64(0)}, trow{int64(1), int64(7), int64(5)}), // keeps its key
					upd(trow{int64(2), int64(8), int64(0)}, trow{int64(2), int64(9), int64(0)}), // moves
					upd(trow{int64(4), nil, int64(0)}, trow{int64(4), nil, int64(1)}),           // NULL key
				)...),
				barrierMsg(2),
				chunkMsg(ts, del(int64(1), int64(7), int64(5)), ins(int64(3), int64(7), int64(1))),
				chunkMsg(ts, ins(int64(1), int64(7), int64(6))),
				barrierMsg(3),
				barrierMsg(4),
			}
			right := []Message{
				barrierMsg(1), barrierMsg(2), barrierMsg(3),
				chunkMsg(ts, ins(int64(10), int64(7), int64(9)), ins(int64(11), int64(8), int64(9)),
					ins(int64(12), int64(9), int64(9)), ins(int64(13), nil, int64(9))),
				barrierMsg(4),
			}
			want := []string{"+ (1, 7, 6, 10, 7, 9)", "+ (2, 9, 0, 12, 9, 9)", "+ (3, 7, 1, 10, 7, 9)"}
			if kind == JoinRightOuter {
				want = []string{"+ (1, 7, 6, 10, 7, 9)", "+ (2, 9, 0, 12, 9, 9)", "+ (3, 7, 1, 10, 7, 9)",
					"+ (NULL, NULL, NULL, 11, 8, 9)", "+ (NULL, NULL, NULL, 13, NULL, 9)"}
			}
			st := newTestStore(t)
			sc := NewStateContext(st)
			var got []string
			(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(e uint64, cs []change) {
				if e == 4 {
					got = changeStrings(cs)
				}
			}}).run(newTestJoin(t, sc, spec, left, right))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("epoch 4: got %q\nwant %q", got, want)
			}
		})
	}
}

// TestJoinSideDeferredDelete checks the writes stage leaves: a deletion
// followed by a write of the same key is replaced by it, any other
// deletion is written, and nothing is held back past link.
func TestJoinSideDeferredDelete(t *testing.T) {
	side := newJoinSide(7, joinSideTypes, []int{1}, []int{0}, false)
	row := func(pk, k int64) []types.Datum { return []types.Datum{pk, k, int64(0)} }
	steps := []struct {
		row   []types.Datum
		del   bool
		count int // writes staged once linked
	}{
		{row(1, 5), true, 0},  // held back
		{row(1, 5), false, 1}, // replaces it
		{row(2, 5), true, 1},
		{row(2, 6), false, 3}, // another key (the join key moved): both written
		{row(3, 5), true, 3},  // held back until link
	}
	for i, s := range steps {
		if err := side.stage(s.row, s.del, nil); err != nil {
			t.Fatal(err)
		}
		if side.epoch.n != s.count {
			t.Fatalf("step %d: %d writes staged, want %d", i, side.epoch.n, s.count)
		}
	}
	side.link()
	if side.epoch.n != 4 || side.epoch.value(3) != nil {
		t.Fatalf("after link: %d writes, the last %x; want 4, the last a deletion", side.epoch.n, side.epoch.value(3))
	}
}

// TestJoinProbeKeys checks the numbering of a chunk's keys: repeated
// keys, adjacent or not, share a number, NULL keys get none, and the
// keys come out in ascending order.
func TestJoinProbeKeys(t *testing.T) {
	st := newTestStore(t)
	me := newJoinSide(7, joinSideTypes, []int{1}, []int{0}, false)
	other := newJoinSide(8, joinSideTypes, []int{1}, []int{0}, false)
	var rows [][]types.Datum
	ks := []types.Datum{int64(3), int64(3), int64(1), nil, int64(2), int64(3), int64(1), nil, int64(2)}
	for i, k := range ks {
		rows = append(rows, []types.Datum{int64(i), k, int64(0)})
	}
	var p joinProbe
	if err := p.reset(other, st, rows, me.key); err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if len(p.keys) != 3 {
		t.Fatalf("%d keys, want 3", len(p.keys))
	}
	for i, k := range ks {
		for j := range i {
			same := ks[j] != nil && k != nil && ks[j] == k
			if (p.rowKey[i] == p.rowKey[j] && p.rowKey[i] >= 0) != same {
				t.Fatalf("rows %d and %d: numbers %d and %d", j, i, p.rowKey[j], p.rowKey[i])
			}
		}
		if (k == nil) != (p.rowKey[i] < 0) {
			t.Fatalf("row %d (key %v): number %d", i, k, p.rowKey[i])
		}
	}
	for i := 1; i < len(p.order); i++ {
		if string(p.keys[p.order[i-1]]) >= string(p.keys[p.order[i]]) {
			t.Fatalf("keys out of order: %x", p.keys)
		}
	}
}
