package stream

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestDynamicFilterRandom: under random changes of its rows and of its
// threshold (moved, removed, NULL, moved twice in one epoch), a dynamic
// filter's output equals the rows that pass the current threshold, for
// every operator, across restarts and crashes mid-epoch.
func TestDynamicFilterRandom(t *testing.T) {
	for _, op := range []string{"<", "<=", ">", ">="} {
		for _, restarts := range []bool{false, true} {
			for seed := range randomSeeds(3) {
				t.Run(fmt.Sprintf("%s/restarts=%v/%d", op, restarts, seed), func(t *testing.T) {
					runDynamicFilterRandom(t, seed, op, restarts)
				})
			}
		}
	}
}

func runDynamicFilterRandom(t *testing.T, seed uint64, op string, restarts bool) {
	rng := rand.New(rand.NewPCG(seed, 23))
	inTypes := []types.Type{types.TInt64, types.TInt64}
	thrTypes := []types.Type{types.TInt64}
	spec := DynamicFilterSpec{InTypes: inTypes, InputPK: []int{0}, Op: op, Type: types.TInt64,
		Left: expr.NewColumn(1, types.TInt64, "v"), Right: expr.NewColumn(0, types.TInt64, "t")}
	rel := newRandRel(rng, func(rng *rand.Rand, pk int64) trow { return trow{pk, randNullInt(rng, 0.1, 0, 40)} })
	const epochs = 40
	var rows, thr [][][]change
	var wants []multiset
	var cur types.Datum // the threshold row's value
	present := false
	for e := range epochs {
		rows = append(rows, rel.epoch(15))
		var cs [][]change
		for range rng.IntN(3) { // none, one or two moves in the epoch
			var c []change
			if present {
				c = append(c, change{chunk.Delete, trow{cur}})
			}
			present = rng.IntN(8) > 0
			if present {
				cur = randNullInt(rng, 0.1, 0, 40)
				c = append(c, change{chunk.Insert, trow{cur}})
			}
			if len(c) > 0 {
				cs = append(cs, c)
			}
		}
		thr = append(thr, cs)
		want := multiset{}
		for _, r := range rel.snapshot() {
			if present && cur != nil && r[1] != nil && dynamicPasses(op, r[1].(int64), cur.(int64)) {
				want[rowKey(r)]++
			}
		}
		wants = append(wants, want)
		_ = e
	}
	st := newTestStore(t)
	ids := tableIDs(2)
	build := func(sc *StateContext, from, to int, partial bool) Executor {
		l := scriptReceiver(inTypes, epochMessages(inTypes, rows, from, to, partial))
		r := scriptReceiver(thrTypes, epochMessages(thrTypes, thr, from, to, partial))
		d, err := NewDynamicFilter([]*Receiver{l}, []*Receiver{r}, sc, spec, ids)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	runSegments(t, st, rng, epochs, restarts, build, func(e int) multiset { return wants[e] })
}

func dynamicPasses(op string, v, t int64) bool {
	switch op {
	case "<":
		return v < t
	case "<=":
		return v <= t
	case ">":
		return v > t
	}
	return v >= t
}

// TestDynamicFilterMonotonic: with a threshold that only rises (a temporal
// filter's), the output is the same as above, and the state keeps only
// the rows whose fate may still change: under > and >= those that pass,
// under < and <= those that fail (never NULLs).
func TestDynamicFilterMonotonic(t *testing.T) {
	for _, op := range []string{"<", "<=", ">", ">="} {
		for _, restarts := range []bool{false, true} {
			for seed := range randomSeeds(3) {
				t.Run(fmt.Sprintf("%s/restarts=%v/%d", op, restarts, seed), func(t *testing.T) {
					runDynamicFilterMonotonic(t, seed, op, restarts)
				})
			}
		}
	}
}

func runDynamicFilterMonotonic(t *testing.T, seed uint64, op string, restarts bool) {
	rng := rand.New(rand.NewPCG(seed, 29))
	inTypes := []types.Type{types.TInt64, types.TInt64}
	thrTypes := []types.Type{types.TInt64}
	spec := DynamicFilterSpec{InTypes: inTypes, InputPK: []int{0}, Op: op, Type: types.TInt64, Monotonic: true,
		Left: expr.NewColumn(1, types.TInt64, "v"), Right: expr.NewColumn(0, types.TInt64, "t")}
	rel := newRandRel(rng, func(rng *rand.Rand, pk int64) trow { return trow{pk, randNullInt(rng, 0.1, 0, 60)} })
	const epochs = 40
	var rows, thr [][][]change
	var wants []multiset
	cur, present := int64(-5), false
	for e := range epochs {
		rows = append(rows, rel.epoch(15))
		var cs [][]change
		// Unset for the first epochs, then a row that moves up (or
		// stays) at most once or twice an epoch, as now() at barriers.
		if e >= 3 {
			for range 1 + rng.IntN(2) {
				var c []change
				if present {
					c = append(c, change{chunk.Delete, trow{cur}})
				}
				cur += int64(rng.IntN(4))
				present = true
				c = append(c, change{chunk.Insert, trow{cur}})
				cs = append(cs, c)
			}
		}
		thr = append(thr, cs)
		want := multiset{}
		for _, r := range rel.snapshot() {
			if present && r[1] != nil && dynamicPasses(op, r[1].(int64), cur) {
				want[rowKey(r)]++
			}
		}
		wants = append(wants, want)
	}
	st := newTestStore(t)
	ids := tableIDs(2)
	var d *DynamicFilter
	build := func(sc *StateContext, from, to int, partial bool) Executor {
		l := scriptReceiver(inTypes, epochMessages(inTypes, rows, from, to, partial))
		r := scriptReceiver(thrTypes, epochMessages(thrTypes, thr, from, to, partial))
		var err error
		if d, err = NewDynamicFilter([]*Receiver{l}, []*Receiver{r}, sc, spec, ids); err != nil {
			t.Fatal(err)
		}
		return d
	}
	runSegments(t, st, rng, epochs, restarts, build, func(e int) multiset { return wants[e] })
	// The state holds the rows that may change, and only those.
	want := 0
	for _, r := range rel.snapshot() {
		if r[1] == nil {
			continue
		}
		pass := dynamicPasses(op, r[1].(int64), cur)
		if pass == (op == ">" || op == ">=") {
			want++
		}
	}
	snap := st.Snapshot()
	defer snap.Close()
	it := d.rows.ScanPrefix(snap, nil, false)
	got := 0
	for it.Next() {
		got++
	}
	if err := closeIter(it); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("state holds %d rows, want the %d whose fate may change (of %d)", got, want, len(rel.snapshot()))
	}
}
