package stream

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// joinSideTypes: pk, k (join key), v (value used by the residual condition).
var joinSideTypes = []types.Type{types.TInt64, types.TInt32, types.TInt32}

// leftLEright is the residual condition left.v <= right.v over left ++ right.
var leftLEright = &fnExpr{typ: types.TBool, name: "l.v <= r.v", f: func(row []types.Datum) types.Datum {
	l, r := row[2], row[5]
	if l == nil || r == nil {
		return nil
	}
	return l.(int64) <= r.(int64)
}}

func joinTestSpec(kind JoinKind, keys []int, cond expr.Expr) JoinSpec {
	return JoinSpec{Kind: kind, LeftTypes: joinSideTypes, RightTypes: joinSideTypes,
		LeftKeys: keys, RightKeys: keys, LeftPK: []int{0}, RightPK: []int{0}, Cond: cond}
}

func newTestJoin(t testing.TB, sc *StateContext, spec JoinSpec, left, right []Message) *HashJoin {
	t.Helper()
	j, err := NewHashJoin(scriptReceiver(spec.LeftTypes, left), scriptReceiver(spec.RightTypes, right),
		sc, spec, tableIDs(spec.NumStateTables()))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestHashJoinSpec(t *testing.T) {
	spec := joinTestSpec(JoinFullOuter, []int{1}, nil)
	if spec.NumStateTables() != 2 || len(spec.OutTypes()) != 6 || !slices.Equal(spec.OutPK(), []int{0, 3}) {
		t.Fatalf("spec: %d tables, out %v, pk %v", spec.NumStateTables(), spec.OutTypes(), spec.OutPK())
	}
	st := newTestStore(t)
	j := newTestJoin(t, NewStateContext(st), spec, nil, nil)
	l := j.StateTables()[0]
	if !slices.Equal(l.PK, []int{1, 0}) || !slices.Equal(l.DistKey, []int{1}) || len(l.Types) != 4 {
		t.Fatalf("left state table %+v", l)
	}
	inner := newTestJoin(t, NewStateContext(st), joinTestSpec(JoinInner, []int{0}, nil), nil, nil)
	if r := inner.StateTables()[1]; !slices.Equal(r.PK, []int{0}) || len(r.Types) != 3 {
		t.Fatalf("inner right state table %+v", r)
	}
	bad := spec
	bad.RightKeys = []int{1, 2}
	if _, err := NewHashJoin(scriptReceiver(nil, nil), scriptReceiver(nil, nil), NewStateContext(st), bad, tableIDs(2)); err == nil {
		t.Fatal("mismatched key counts accepted")
	}
}

// TestHashJoinOuterPadding checks the exact changes of a left outer join
// as a left row gains and loses its matches.
func TestHashJoinOuterPadding(t *testing.T) {
	spec := joinTestSpec(JoinLeftOuter, []int{1}, nil)
	ts := joinSideTypes
	left := []Message{
		chunkMsg(ts, ins(int64(1), int64(7), int64(0)), ins(int64(2), nil, int64(0))),
		barrierMsg(1), barrierMsg(2), barrierMsg(3),
		chunkMsg(ts, del(int64(2), nil, int64(0))),
		barrierMsg(4),
	}
	right := []Message{
		barrierMsg(1),
		chunkMsg(ts, ins(int64(10), int64(7), int64(1)), ins(int64(11), int64(7), int64(2))),
		barrierMsg(2),
		chunkMsg(ts, del(int64(10), int64(7), int64(1))),
		barrierMsg(3),
		chunkMsg(ts, del(int64(11), int64(7), int64(2))),
		barrierMsg(4),
	}
	want := [][]string{
		{"+ (1, 7, 0, NULL, NULL, NULL)", "+ (2, NULL, 0, NULL, NULL, NULL)"},
		{"- (1, 7, 0, NULL, NULL, NULL)", "+ (1, 7, 0, 10, 7, 1)", "+ (1, 7, 0, 11, 7, 2)"},
		{"- (1, 7, 0, 10, 7, 1)"},
		// epoch 4's order between sides is up to Align; check as a set.
		{"+ (1, 7, 0, NULL, NULL, NULL)", "- (1, 7, 0, 11, 7, 2)", "- (2, NULL, 0, NULL, NULL, NULL)"},
	}
	st := newTestStore(t)
	sc := NewStateContext(st)
	var got [][]string
	(&epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
		got = append(got, changeStrings(cs))
	}}).run(newTestJoin(t, sc, spec, left, right))
	slices.Sort(got[3])
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func joinTestRow(rng *rand.Rand, pk int64) trow {
	return trow{pk, randNullInt(rng, 0.15, 0, 3), randNullInt(rng, 0.1, 0, 5)}
}

func TestHashJoinRandom(t *testing.T) {
	conds := []struct {
		name string
		keys []int
		cond expr.Expr
	}{
		{"key", []int{1}, nil},
		{"key+cond", []int{1}, leftLEright},
		{"two-keys", []int{1, 2}, nil},
		{"pk", []int{0}, leftLEright}, // the key is the state's pk: point lookups
	}
	for _, kind := range []JoinKind{JoinInner, JoinLeftOuter, JoinRightOuter, JoinFullOuter, JoinLeftSemi, JoinLeftAnti} {
		for _, c := range conds {
			for _, restarts := range []bool{false, true} {
				for seed := range randomSeeds(2) {
					name := fmt.Sprintf("%s/%s/restarts=%v/%d", kind, c.name, restarts, seed)
					t.Run(name, func(t *testing.T) {
						runJoinRandom(t, seed, joinTestSpec(kind, c.keys, c.cond), restarts)
					})
				}
			}
		}
	}
}

func runJoinRandom(t *testing.T, seed uint64, spec JoinSpec, restarts bool) {
	rng := rand.New(rand.NewPCG(seed, 11))
	rels := [2]*randRel{newRandRel(rng, joinTestRow), newRandRel(rng, joinTestRow)}
	const epochs = 30
	var scripts [2][][][]change
	var wants []multiset
	for e := range epochs {
		for s, rel := range rels {
			rel.pInsert = 0.6
			if e > epochs/2 {
				rel.pInsert = 0.4
			}
			scripts[s] = append(scripts[s], rel.epoch(12))
		}
		wants = append(wants, multisetOf(refJoin(spec, rels[0].snapshot(), rels[1].snapshot())))
	}
	st := newTestStore(t)
	ids := tableIDs(spec.NumStateTables())
	build := func(sc *StateContext, from, to int, partial bool) Executor {
		l := scriptReceiver(spec.LeftTypes, epochMessages(spec.LeftTypes, scripts[0], from, to, partial))
		r := scriptReceiver(spec.RightTypes, epochMessages(spec.RightTypes, scripts[1], from, to, partial))
		j, err := NewHashJoin(l, r, sc, spec, ids)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	runSegments(t, st, rng, epochs, restarts, build, func(e int) multiset { return wants[e] })
}

// refJoin computes the join from scratch with nested loops (a semi or
// anti join's rows are the left rows with at least one match, or none).
func refJoin(spec JoinSpec, left, right []trow) []trow {
	nullsL, nullsR := make(trow, len(spec.LeftTypes)), make(trow, len(spec.RightTypes))
	matched := make([]bool, len(right))
	var out []trow
	for _, l := range left {
		n := 0
		for i, r := range right {
			if refJoinMatch(spec, l, r) {
				if !spec.Kind.filtersLeft() {
					out = append(out, slices.Concat(l, r))
				}
				matched[i] = true
				n++
			}
		}
		switch {
		case spec.Kind == JoinLeftSemi && n > 0, spec.Kind == JoinLeftAnti && n == 0:
			out = append(out, slices.Clone(l)) // once, however many matches
			continue
		case spec.Kind.filtersLeft():
			continue
		}
		if n == 0 && spec.Kind.preserves(0) {
			out = append(out, slices.Concat(l, nullsR))
		}
	}
	if spec.Kind.preserves(1) {
		for i, r := range right {
			if !matched[i] {
				out = append(out, slices.Concat(nullsL, r))
			}
		}
	}
	return out
}

func refJoinMatch(spec JoinSpec, l, r trow) bool {
	for i := range spec.LeftKeys {
		a, b := l[spec.LeftKeys[i]], r[spec.RightKeys[i]]
		if a == nil || b == nil || cmpTest(a, b) != 0 {
			return false
		}
	}
	if spec.Cond == nil {
		return true
	}
	v, _ := spec.Cond.Eval(slices.Concat(l, r))
	return v == true
}

// TestHashJoinRandomProbeBudget runs the random joins with a probe budget
// of one row, so most keys of a chunk are fetched when their row is
// applied, out of key order, instead of up front.
func TestHashJoinRandomProbeBudget(t *testing.T) {
	defer func(b int) { joinProbeBudget = b }(joinProbeBudget)
	joinProbeBudget = 1
	for _, kind := range []JoinKind{JoinInner, JoinFullOuter, JoinLeftSemi, JoinLeftAnti} {
		for _, keys := range [][]int{{1}, {0}} {
			for seed := range randomSeeds(2) {
				t.Run(fmt.Sprintf("%s/%v/%d", kind, keys, seed), func(t *testing.T) {
					runJoinRandom(t, seed, joinTestSpec(kind, keys, leftLEright), true)
				})
			}
		}
	}
}

// TestHashJoinRandomIngest runs the random joins with every epoch's state
// writes ingested as sstables (as a backfill's are): deletions,
// overwrites and degree changes included.
func TestHashJoinRandomIngest(t *testing.T) {
	defer func(b int) { epochIngestBytes = b }(epochIngestBytes)
	epochIngestBytes = 0
	for _, kind := range []JoinKind{JoinInner, JoinLeftOuter, JoinFullOuter, JoinLeftSemi, JoinLeftAnti} {
		for _, keys := range [][]int{{1}, {0}, {1, 2}} {
			for seed := range randomSeeds(2) {
				t.Run(fmt.Sprintf("%s/%v/%d", kind, keys, seed), func(t *testing.T) {
					runJoinRandom(t, seed, joinTestSpec(kind, keys, leftLEright), true)
				})
				// Right key columns of other types: the sides' state keys
				// are encoded each for itself.
				spec := joinTestSpec(kind, keys, leftLEright)
				spec.RightTypes = []types.Type{types.TInt32, types.TInt64, types.TInt64}
				t.Run(fmt.Sprintf("%s/%v/%d/mixed", kind, keys, seed), func(t *testing.T) {
					runJoinRandom(t, seed, spec, true)
				})
			}
		}
	}
}
