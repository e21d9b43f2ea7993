package stream

import (
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// intervalTestJoin returns the spec of an inner join of joinSideTypes
// rows on k with l.v BETWEEN r.v - 2 AND r.v, whose v columns the
// watermark of table 7 bounds (v itself): left rows with v below
// min(wm, wm - 2) go, right rows with v below wm.
func intervalTestJoin(t *testing.T, kind JoinKind) JoinSpec {
	t.Helper()
	must := func(e expr.Expr, err error) expr.Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	col := func(i int) expr.Expr { return expr.NewColumn(i, types.TInt32, "") }
	two := expr.NewConst(int64(2), types.TInt32)
	lo := must(expr.Binary(">=", col(2), must(expr.Binary("-", col(5), two)))) // l.v >= r.v - 2
	hi := must(expr.Binary("<=", col(2), col(5)))                              // l.v <= r.v
	wm := []expr.Expr{col(0)}
	spec := joinTestSpec(kind, []int{1}, must(expr.Binary("AND", lo, hi)))
	spec.Interval = &IntervalWatermark{Table: 7, Sides: [2][]IntervalBound{
		{{Col: 2, OtherCol: 2, Bounds: wm, OtherBounds: wm, Match: expr.Remap(lo, func(i int) int { return min(i, 3) })}},
		{{Col: 2, OtherCol: 2, Bounds: wm, OtherBounds: wm, Match: expr.Remap(hi, func(i int) int {
			if i < 3 {
				return 3
			}
			return i - 3
		})}},
	}}
	return spec
}

// wmBarrier is barrierMsg with the watermark wm of table 7.
func wmBarrier(epoch uint64, wm int64) Message {
	m := barrierMsg(epoch)
	m.Watermarks = []Watermark{{Table: 7, Type: types.TInt32, Value: wm}}
	return m
}

// TestHashJoinIntervalClean checks the changes of an interval join and
// the rows its state keeps as the watermark moves: a row goes once no
// row still to come can match it, and a row that can stays.
func TestHashJoinIntervalClean(t *testing.T) {
	ts := joinSideTypes
	for _, kind := range []JoinKind{JoinInner, JoinLeftOuter} {
		t.Run(kind.String(), func(t *testing.T) {
			left := []Message{
				chunkMsg(ts, ins(int64(1), int64(1), int64(0)), ins(int64(2), int64(1), int64(5))),
				wmBarrier(1, 0),
				chunkMsg(ts, ins(int64(3), int64(2), int64(9))),
				wmBarrier(2, 4), wmBarrier(3, 4),
			}
			right := []Message{
				chunkMsg(ts, ins(int64(10), int64(1), int64(1))),
				wmBarrier(1, 0),
				chunkMsg(ts, ins(int64(12), int64(3), int64(8))),
				wmBarrier(2, 4),
				chunkMsg(ts, ins(int64(11), int64(1), int64(6))),
				wmBarrier(3, 4),
			}
			// Then the watermark passes every row, and no row comes: the
			// state waits for rows to come, intervalMaxSkips barriers.
			for e := uint64(4); e < 5+intervalMaxSkips; e++ {
				left, right = append(left, wmBarrier(e, 20)), append(right, wmBarrier(e, 20))
			}
			st := newTestStore(t)
			sc := NewStateContext(st)
			j := newTestJoin(t, sc, intervalTestJoin(t, kind), left, right)
			j.SetOwned(storage.AllVnodes())
			var got []string
			(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
				got = append(got, fmt.Sprintf("%v state %d/%d", netChanges(cs), countRows(t, st, j.StateTables()[0]), countRows(t, st, j.StateTables()[1])))
			}}).run(j)
			// Watermark 4: left row 1 (v 0 < 4 - 2) and right row 10
			// (v 1 < 4) go; left row 2 (v 5) still matches right row 11.
			want := []string{
				"[+ (1, 1, 0, 10, 1, 1)] state 2/1",
				"[] state 2/1",
				"[+ (2, 1, 5, 11, 1, 6)] state 2/2",
				"[] state 2/0",
				"[] state 0/0",
			}
			if kind == JoinLeftOuter {
				want[0] = "[+ (1, 1, 0, 10, 1, 1) + (2, 1, 5, NULL, NULL, NULL)] state 2/1"
				want[1] = "[+ (3, 2, 9, NULL, NULL, NULL)] state 2/1"
				want[2] = "[+ (2, 1, 5, 11, 1, 6) - (2, 1, 5, NULL, NULL, NULL)] state 2/2"
			}
			got = slices.Delete(got, 4, len(got)-1) // the skipped barriers but the first
			if !slices.Equal(got, want) {
				t.Fatalf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// TestHashJoinIntervalCleanIngested checks that rows an epoch ingested
// (out of the sight of the cleaning at its barrier) go at the next
// barrier, although the watermark did not move.
func TestHashJoinIntervalCleanIngested(t *testing.T) {
	defer func(b int) { epochIngestBytes = b }(epochIngestBytes)
	epochIngestBytes = 0
	ts := joinSideTypes
	left := []Message{
		chunkMsg(ts, ins(int64(1), int64(1), int64(0))), wmBarrier(1, 0),
		chunkMsg(ts, ins(int64(2), int64(1), int64(1))), wmBarrier(2, 20),
		wmBarrier(3, 20), wmBarrier(4, 20),
	}
	right := []Message{wmBarrier(1, 0), wmBarrier(2, 20), wmBarrier(3, 20), wmBarrier(4, 20)}
	st := newTestStore(t)
	sc := NewStateContext(st)
	j := newTestJoin(t, sc, intervalTestJoin(t, JoinInner), left, right)
	j.SetOwned(storage.AllVnodes())
	var got []int
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(uint64, []change) {
		got = append(got, countRows(t, st, j.StateTables()[0]))
	}}).run(j)
	// Epoch 2's cleaning deletes row 1 but cannot see row 2, which
	// epoch 3's does.
	if want := []int{1, 1, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("left state rows %v, want %v", got, want)
	}
}

// netChanges returns the changes of an epoch netted (the order of the
// two sides' rows within an epoch is Align's), sorted.
func netChanges(cs []change) []string {
	n := map[string]int{}
	for _, c := range cs {
		if c.op.IsInsert() {
			n[rowKey(c.row)]++
		} else {
			n[rowKey(c.row)]--
		}
	}
	var out []string
	for k, v := range n {
		switch {
		case v > 0:
			out = append(out, "+ "+k)
		case v < 0:
			out = append(out, "- "+k)
		}
	}
	slices.Sort(out)
	return out
}

func countRows(t *testing.T, st *storage.Store, tbl *storage.Table) int {
	t.Helper()
	it := tbl.Scan(st)
	n := 0
	for it.Next() {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHashJoinCloseKeysIngested checks that a join closing its first key
// by a watermark (JoinSpec.Watermark) deletes the rows an epoch ingested
// (out of the sight of the close at its barrier) at its next close.
func TestHashJoinCloseKeysIngested(t *testing.T) {
	defer func(b int) { epochIngestBytes = b }(epochIngestBytes)
	epochIngestBytes = 0
	ts := joinSideTypes
	spec := joinTestSpec(JoinInner, []int{1}, nil)
	spec.Watermark = &KeyWatermark{Table: 7, Bounds: []expr.Expr{expr.NewColumn(0, types.TInt32, "")}}
	left := []Message{
		chunkMsg(ts, ins(int64(1), int64(1), int64(0))), wmBarrier(1, 0),
		chunkMsg(ts, ins(int64(2), int64(3), int64(0))), wmBarrier(2, 5),
		wmBarrier(3, 5), wmBarrier(4, 6),
	}
	right := []Message{wmBarrier(1, 0), wmBarrier(2, 5), wmBarrier(3, 5), wmBarrier(4, 6)}
	st := newTestStore(t)
	sc := NewStateContext(st)
	j := newTestJoin(t, sc, spec, left, right)
	j.SetOwned(storage.AllVnodes())
	var got []int
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(uint64, []change) {
		got = append(got, countRows(t, st, j.StateTables()[0]))
	}}).run(j)
	// Epoch 2's close deletes row 1 but cannot see row 2 (key 3 < 5),
	// which the next close, at epoch 4, does.
	if want := []int{1, 1, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("left state rows %v, want %v", got, want)
	}
}
