package stream

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// aggInTypes: pk, g (group), x (int argument), s (text argument).
var aggInTypes = []types.Type{types.TInt64, types.TInt32, types.TInt32, types.TText}

// aggTestCalls covers every aggregate kind, DISTINCT, and min/max over two
// columns (two min/max tables, each shared by a min and a max).
var aggTestCalls = []AggCall{
	{Kind: expr.AggCountStar, Type: types.TInt64},
	{Kind: expr.AggCount, Arg: 2, Type: types.TInt64},
	{Kind: expr.AggSum, Arg: 2, Type: types.TInt64},
	{Kind: expr.AggAvg, Arg: 2, Type: types.TNumeric},
	{Kind: expr.AggMin, Arg: 2, Type: types.TInt32},
	{Kind: expr.AggMax, Arg: 2, Type: types.TInt32},
	{Kind: expr.AggMin, Arg: 3, Type: types.TText},
	{Kind: expr.AggMax, Arg: 3, Type: types.TText},
	{Kind: expr.AggCount, Arg: 2, Distinct: true, Type: types.TInt64},
	{Kind: expr.AggSum, Arg: 2, Distinct: true, Type: types.TInt64},
	{Kind: expr.AggAvg, Arg: 2, Distinct: true, Type: types.TNumeric},
}

func aggTestSpec(groupBy []int, calls []AggCall) AggSpec {
	return AggSpec{InTypes: aggInTypes, GroupBy: groupBy, Aggs: calls, InputPK: []int{0}}
}

func tableIDs(n int) []uint32 {
	ids := make([]uint32, n)
	for i := range ids {
		ids[i] = uint32(100 + i)
	}
	return ids
}

func newTestAgg(t testing.TB, sc *StateContext, spec AggSpec, msgs []Message) *HashAgg {
	t.Helper()
	in := &scriptExec{typs: spec.InTypes, msgs: msgs}
	if spec.Partial {
		in.typs = spec.PartialTypes()
	}
	h, err := NewHashAgg(in, sc, spec, tableIDs(spec.NumStateTables()))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHashAggSpec(t *testing.T) {
	spec := aggTestSpec([]int{1}, aggTestCalls)
	// result + min/max of x and of s + distinct x.
	if n := spec.NumStateTables(); n != 4 {
		t.Fatalf("NumStateTables = %d, want 4", n)
	}
	want := []types.Type{types.TInt32, types.TInt64, types.TInt64, types.TInt64, types.TNumeric,
		types.TInt32, types.TInt32, types.TText, types.TText, types.TInt64, types.TInt64, types.TNumeric}
	if got := spec.OutTypes(); !slices.Equal(got, want) {
		t.Fatalf("OutTypes = %v, want %v", got, want)
	}
	zero := aggTestSpec(nil, []AggCall{{Kind: expr.AggSum, Arg: 1}, {Kind: expr.AggAvg, Arg: 1}, {Kind: expr.AggCount, Arg: 3}})
	if got := zero.OutTypes(); !slices.Equal(got, []types.Type{types.TInt64, types.TNumeric, types.TInt64}) {
		t.Fatalf("OutTypes with zero Types = %v", got)
	}
	st := newTestStore(t)
	if _, err := NewHashAgg(&scriptExec{}, NewStateContext(st), spec, tableIDs(3)); err == nil {
		t.Fatal("NewHashAgg with too few table ids succeeded")
	}
	bad := aggTestSpec(nil, []AggCall{{Kind: expr.AggCountStar, Distinct: true}})
	if _, err := NewHashAgg(&scriptExec{}, NewStateContext(st), bad, tableIDs(1)); pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Fatalf("count(DISTINCT *): err %v, want 0A000", err)
	}
	h := newTestAgg(t, NewStateContext(st), spec, nil)
	tabs := h.StateTables()
	if len(tabs) != 4 || !slices.Equal(tabs[1].DistKey, []int{0}) || len(tabs[1].PK) != 3 {
		t.Fatalf("unexpected state tables %+v", tabs)
	}
}

// TestHashAggChanges checks the exact changes emitted at each barrier.
func TestHashAggChanges(t *testing.T) {
	calls := []AggCall{
		{Kind: expr.AggCountStar, Type: types.TInt64},
		{Kind: expr.AggSum, Arg: 2, Type: types.TInt64},
		{Kind: expr.AggMin, Arg: 2, Type: types.TInt32},
	}
	spec := aggTestSpec([]int{1}, calls)
	ts := spec.InTypes
	i64 := func(v int64) types.Datum { return v }
	msgs := []Message{
		// epoch 1: two groups appear.
		chunkMsg(ts, ins(i64(1), i64(10), i64(5), "a"), ins(i64(2), i64(10), i64(3), "b"), ins(i64(3), i64(20), i64(7), "c")),
		barrierMsg(1),
		// epoch 2: delete group 10's min (3 -> 5); group 20 touched but unchanged.
		chunkMsg(ts, del(i64(2), i64(10), i64(3), "b"), ins(i64(4), i64(20), nil, "d")),
		chunkMsg(ts, del(i64(4), i64(20), nil, "d")),
		barrierMsg(2),
		// epoch 3: group 20 disappears, an update moves a row from 10 to 30.
		chunkMsg(ts, append([]change{del(i64(3), i64(20), i64(7), "c")},
			upd(trow{i64(1), i64(10), i64(5), "a"}, trow{i64(1), i64(30), i64(6), "a"})...)...),
		barrierMsg(3),
	}
	want := [][]string{
		{"+ (10, 2, 8, 3)", "+ (20, 1, 7, 7)"},
		{"U- (10, 2, 8, 3)", "U+ (10, 1, 5, 5)"},
		{"- (10, 1, 5, 5)", "- (20, 1, 7, 7)", "+ (30, 1, 6, 6)"},
	}
	st := newTestStore(t)
	sc := NewStateContext(st)
	var got [][]string
	r := &epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
		got = append(got, changeStrings(cs))
	}}
	r.run(newTestAgg(t, sc, spec, msgs))
	for i := range want {
		slices.Sort(got[i])
		slices.Sort(want[i])
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("epoch %d: got %q, want %q", i+1, got[i], want[i])
		}
	}
	h := newTestAgg(t, sc, spec, nil)
	if rows := tableRows(t, st, h.StateTables()[0]); len(rows) != 1 || rowKey(rows[0]) != "(30, 1, 1, 6, 1, 6)" {
		t.Errorf("result table holds %v, want the one row of group 30", rows)
	}
}

func changeStrings(cs []change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.op.String() + " " + rowKey(c.row)
	}
	return out
}

// TestHashAggGlobalInitial checks that a global aggregate emits its row at
// the first barrier without input, never deletes it, and that a rebuilt
// executor does not emit it again.
func TestHashAggGlobalInitial(t *testing.T) {
	calls := []AggCall{
		{Kind: expr.AggCountStar, Type: types.TInt64},
		{Kind: expr.AggSum, Arg: 2, Type: types.TInt64},
		{Kind: expr.AggMax, Arg: 2, Type: types.TInt32},
	}
	spec := aggTestSpec(nil, calls)
	ts := spec.InTypes
	st := newTestStore(t)
	var got [][]string
	onEpoch := func(_ uint64, cs []change) { got = append(got, changeStrings(cs)) }
	sc := NewStateContext(st)
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: onEpoch}).run(newTestAgg(t, sc, spec, []Message{
		barrierMsg(1),
		chunkMsg(ts, ins(int64(1), int64(1), int64(4), "a")),
		barrierMsg(2),
		chunkMsg(ts, del(int64(1), int64(1), int64(4), "a")),
		barrierMsg(3),
	}))
	sc = NewStateContext(st)
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: onEpoch}).run(newTestAgg(t, sc, spec, []Message{
		barrierMsg(4),
		chunkMsg(ts, ins(int64(2), int64(1), nil, "a")),
		barrierMsg(5),
	}))
	want := [][]string{
		{"+ (0, NULL, NULL)"},
		{"U- (0, NULL, NULL)", "U+ (1, 4, 4)"},
		{"U- (1, 4, 4)", "U+ (0, NULL, NULL)"},
		nil,
		{"U- (0, NULL, NULL)", "U+ (1, NULL, NULL)"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestHashAggLargeOutput checks that a barrier's output is cut into chunks
// of at most maxChunkRows rows (the runner checks the bound).
func TestHashAggLargeOutput(t *testing.T) {
	spec := aggTestSpec([]int{0}, []AggCall{{Kind: expr.AggCountStar, Type: types.TInt64}})
	var cs []change
	const n = 2*maxChunkRows + 10
	for i := range n {
		cs = append(cs, ins(int64(i), int64(0), int64(0), "x"))
	}
	st := newTestStore(t)
	sc := NewStateContext(st)
	got := multiset{}
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
		if err := got.apply(cs); err != nil {
			t.Fatal(err)
		}
	}}).run(newTestAgg(t, sc, spec, []Message{chunkMsg(spec.InTypes, cs...), barrierMsg(1)}))
	if len(got) != n {
		t.Fatalf("%d groups emitted, want %d", len(got), n)
	}
}

func aggTestRow(rng *rand.Rand, pk int64) trow {
	var s types.Datum
	if rng.IntN(8) > 0 {
		s = string(rune('a' + rng.IntN(4)))
	}
	return trow{pk, randNullInt(rng, 0.1, 0, 3), randNullInt(rng, 0.15, -4, 4), s}
}

func TestHashAggRandom(t *testing.T) {
	for _, tc := range []struct {
		name     string
		groupBy  []int
		restarts bool
	}{
		{"grouped", []int{1}, false},
		{"global", nil, false},
		{"two-keys", []int{1, 3}, false},
		{"grouped-restarts", []int{1}, true},
		{"global-restarts", nil, true},
	} {
		for seed := range randomSeeds(4) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				runAggRandom(t, seed, aggTestSpec(tc.groupBy, aggTestCalls), tc.restarts)
			})
		}
	}
}

func runAggRandom(t *testing.T, seed uint64, spec AggSpec, restarts bool) {
	runAggRandomWith(t, seed, spec, restarts, false)
}

// runAggRandomWith is runAggRandom, with insertsOnly a stream of inserts
// only; it returns the store, the aggregate's state table ids and the
// input relation at the end.
func runAggRandomWith(t *testing.T, seed uint64, spec AggSpec, restarts, insertsOnly bool) (*storage.Store, []uint32, *randRel) {
	rng := rand.New(rand.NewPCG(seed, 7))
	rel := newRandRel(rng, aggTestRow)
	const epochs = 40
	var script [][][]change
	var wants []multiset
	for e := range epochs {
		rel.pInsert = 0.6
		if e > epochs/2 {
			rel.pInsert = 0.35 // let groups drain and disappear
		}
		if insertsOnly {
			rel.pInsert = 1
		}
		script = append(script, rel.epoch(30))
		wants = append(wants, multisetOf(refAgg(rel.snapshot(), spec)))
	}
	st := newTestStore(t)
	ids := tableIDs(spec.NumStateTables())
	build := func(sc *StateContext, from, to int, partial bool) Executor {
		in := &scriptExec{typs: spec.InTypes, msgs: epochMessages(spec.InTypes, script, from, to, partial)}
		h, err := NewHashAgg(in, sc, spec, ids)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	runSegments(t, st, rng, epochs, restarts, build, func(e int) multiset { return wants[e] })
	return st, ids, rel
}

// refAgg computes the aggregation from scratch.
func refAgg(rows []trow, spec AggSpec) []trow {
	groups := map[string][]trow{}
	var keys []trow
	for _, r := range rows {
		key := make(trow, len(spec.GroupBy))
		for i, c := range spec.GroupBy {
			key[i] = r[c]
		}
		k := rowKey(key)
		if _, ok := groups[k]; !ok {
			keys = append(keys, key)
		}
		groups[k] = append(groups[k], r)
	}
	if len(spec.GroupBy) == 0 && len(keys) == 0 {
		keys = append(keys, trow{})
	}
	var out []trow
	for _, key := range keys {
		row := slices.Clone(key)
		for _, c := range spec.Aggs {
			row = append(row, refAggCall(groups[rowKey(key)], c))
		}
		out = append(out, row)
	}
	return out
}

func refAggCall(rows []trow, c AggCall) types.Datum {
	if c.Kind == expr.AggCountStar {
		return int64(len(rows))
	}
	var vals []types.Datum
	seen := map[string]bool{}
	for _, r := range rows {
		v := r[c.Arg]
		if v == nil || c.Distinct && seen[rowKey(trow{v})] {
			continue
		}
		seen[rowKey(trow{v})] = true
		vals = append(vals, v)
	}
	if c.Kind == expr.AggCount {
		return int64(len(vals))
	}
	if len(vals) == 0 {
		return nil
	}
	switch c.Kind {
	case expr.AggSum, expr.AggAvg:
		var sum int64
		for _, v := range vals {
			sum += v.(int64)
		}
		if c.Kind == expr.AggAvg {
			return float64(sum) / float64(len(vals))
		}
		return sum
	}
	best := vals[0]
	for _, v := range vals[1:] {
		if cmp := cmpTest(v, best); c.Kind == expr.AggMin && cmp < 0 || c.Kind == expr.AggMax && cmp > 0 {
			best = v
		}
	}
	return best
}

// TestHashAggNumericKeyStable checks that equal numeric keys written with
// different scales (1.0, 1.00) form one group whose output keeps the key
// downstream first saw.
func TestHashAggNumericKeyStable(t *testing.T) {
	dec := func(s string) types.Datum {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	spec := AggSpec{InTypes: []types.Type{types.TInt64, types.TNumeric}, GroupBy: []int{1},
		Aggs: []AggCall{{Kind: expr.AggCountStar}}, InputPK: []int{0}}
	ts := spec.InTypes
	st := newTestStore(t)
	sc := NewStateContext(st)
	var got []string
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
		for _, c := range cs {
			got = append(got, fmt.Sprintf("%s %s %d", c.op, c.row[0].(*apd.Decimal), c.row[1]))
		}
	}}).run(newTestAgg(t, sc, spec, []Message{
		chunkMsg(ts, ins(int64(1), dec("1.0"))), barrierMsg(1),
		chunkMsg(ts, ins(int64(2), dec("1.00"))), barrierMsg(2),
	}))
	want := []string{"+ 1.0 1", "U- 1.0 1", "U+ 1.0 2"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
