package stream

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// appendOnlyCalls aggregate two columns by min and max (two min/max input
// tables), with counts and a sum beside them.
var appendOnlyCalls = []AggCall{
	{Kind: expr.AggCountStar, Type: types.TInt64},
	{Kind: expr.AggMin, Arg: 2, Type: types.TInt32},
	{Kind: expr.AggMax, Arg: 2, Type: types.TInt32},
	{Kind: expr.AggMin, Arg: 3, Type: types.TText},
	{Kind: expr.AggMax, Arg: 3, Type: types.TText},
	{Kind: expr.AggSum, Arg: 2, Type: types.TInt64},
}

// TestHashAggAppendOnly: over an insert-only input, an AppendOnly
// aggregate's min and max equal a recomputation from scratch after every
// epoch, with restarts from committed state between segments, while its
// min/max input tables stay empty; the same spec without AppendOnly fills
// them (so the emptiness check can fail).
func TestHashAggAppendOnly(t *testing.T) {
	for _, appendOnly := range []bool{true, false} {
		for _, restarts := range []bool{false, true} {
			for seed := range randomSeeds(3) {
				t.Run(fmt.Sprintf("append-only=%v/restarts=%v/%d", appendOnly, restarts, seed), func(t *testing.T) {
					spec := aggTestSpec([]int{1}, appendOnlyCalls)
					spec.AppendOnly = appendOnly
					st, ids, rel := runAggRandomWith(t, seed, spec, restarts, true)
					sizes, err := storage.TableSizes(st, ids[1:]) // the two min/max input tables
					if err != nil {
						t.Fatal(err)
					}
					var keys int64
					for _, s := range sizes {
						keys += s.Keys
					}
					if appendOnly && keys != 0 {
						t.Fatalf("append-only min/max input tables hold %d keys, want none", keys)
					}
					if !appendOnly && keys == 0 && len(rel.snapshot()) > 0 {
						t.Fatalf("min/max input tables empty over %d rows", len(rel.snapshot()))
					}
				})
			}
		}
	}
}

// TestHashAggAppendOnlyDelete: a delete reaching an AppendOnly aggregate
// fails it instead of leaving a wrong extreme.
func TestHashAggAppendOnlyDelete(t *testing.T) {
	spec := aggTestSpec([]int{1}, appendOnlyCalls)
	spec.AppendOnly = true
	row := trow{int64(1), int64(1), int64(5), "a"}
	msgs := []Message{
		chunkMsg(spec.InTypes, change{chunk.Insert, row}), barrierMsg(1),
		chunkMsg(spec.InTypes, change{chunk.Delete, row}), barrierMsg(2),
	}
	h := newTestAgg(t, NewStateContext(newTestStore(t)), spec, msgs)
	var err error
	for err == nil {
		_, err = h.Next(t.Context())
	}
	if !errors.Is(err, errAppendOnlyDelete) {
		t.Fatalf("got %v, want errAppendOnlyDelete", err)
	}
}

// TestTwoPhaseAppendOnlyMinMax: with an append-only input, min and max
// split into local and global phases (integer columns on their typed path,
// text on the general one), and two phases emit what one phase does at
// every epoch; without AppendOnly the spec does not split.
func TestTwoPhaseAppendOnlyMinMax(t *testing.T) {
	calls := []AggCall{
		{Kind: expr.AggCountStar},
		{Kind: expr.AggMin, Arg: 4}, {Kind: expr.AggMax, Arg: 4}, // bigint
		{Kind: expr.AggMax, Arg: 5}, {Kind: expr.AggMin, Arg: 1}, // int, smallint
		{Kind: expr.AggMin, Arg: 2}, {Kind: expr.AggMax, Arg: 2}, // text
		{Kind: expr.AggSum, Arg: 5},
	}
	if (AggSpec{InTypes: colAggTypes, GroupBy: []int{1}, Aggs: calls, InputPK: []int{0}}).Splittable() {
		t.Fatal("min and max split without an append-only input")
	}
	for _, cap := range []int{localAggGroups, 3} {
		for seed := range randomSeeds(3) {
			for _, gb := range [][]int{{1}, {2, 3}, nil} {
				t.Run(fmt.Sprintf("cap=%d/%v/%d", cap, gb, seed), func(t *testing.T) {
					defer func(n int) { localAggGroups = n }(localAggGroups)
					localAggGroups = cap
					spec := AggSpec{InTypes: colAggTypes, GroupBy: gb, Aggs: calls, InputPK: []int{0}, AppendOnly: true}
					if !spec.Splittable() {
						t.Fatal("append-only min and max do not split")
					}
					rng := rand.New(rand.NewPCG(seed, 9))
					rel := newRandRel(rng, colAggRow)
					rel.pInsert = 1
					var msgs []Message
					for e := range 20 {
						for _, cs := range rel.epoch(40) {
							msgs = append(msgs, chunkMsg(colAggTypes, cs...))
						}
						msgs = append(msgs, barrierMsg(uint64(e+1)))
					}
					one, oneErr := runAggOutputs(t, spec, msgs, false)
					partial := localPhase(t, spec, msgs)
					spec.Partial = true
					two, twoErr := runAggOutputs(t, spec, partial, false)
					if oneErr != nil || twoErr != nil {
						t.Fatalf("one phase: %v; two phases: %v", oneErr, twoErr)
					}
					if len(one) != len(two) {
						t.Fatalf("one phase ran %d epochs, two phases %d", len(one), len(two))
					}
					for e := range one {
						if sortedChanges(one[e]) != sortedChanges(two[e]) {
							t.Fatalf("epoch %d:\none phase  %s\ntwo phases %s", e, one[e], two[e])
						}
					}
				})
			}
		}
	}
}
