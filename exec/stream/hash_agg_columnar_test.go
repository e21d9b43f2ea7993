package stream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// colAggTypes: pk, g16 smallint, gs text, g64 bigint, x bigint, y int.
var colAggTypes = []types.Type{types.TInt64, types.TInt16, types.TText, types.TInt64, types.TInt64, types.TInt32}

var colAggCalls = []AggCall{
	{Kind: expr.AggCountStar},
	{Kind: expr.AggCount, Arg: 4},
	{Kind: expr.AggSum, Arg: 4},
	{Kind: expr.AggAvg, Arg: 4},
	{Kind: expr.AggSum, Arg: 5},
	{Kind: expr.AggAvg, Arg: 5},
	{Kind: expr.AggCount, Arg: 2},
}

// colAggBigint draws bigint values: small ones of both signs, NULLs, and
// values near the int64 limits (sums leave int64 range, runs overflow).
func colAggBigint(rng *rand.Rand) types.Datum {
	switch rng.IntN(6) {
	case 0:
		return nil
	case 1:
		return []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 62, -(1 << 62)}[rng.IntN(6)]
	case 2:
		return int64(rng.Uint64())
	}
	return int64(rng.IntN(21) - 10)
}

func colAggRow(rng *rand.Rand, pk int64) trow {
	gs := types.Datum(nil)
	if rng.IntN(5) > 0 {
		gs = fmt.Sprint("g", rng.IntN(3))
	}
	return trow{pk, randNullInt(rng, 0.2, -2, 2), gs, randNullInt(rng, 0.1, math.MaxInt64-2, math.MaxInt64),
		colAggBigint(rng), randNullInt(rng, 0.2, math.MinInt32, math.MaxInt32)}
}

// TestHashAggColumnarMatchesRows runs the same change streams through the
// columnar path and the row-at-a-time path and requires the same changes
// at every epoch (and the same errors). Some streams are inconsistent
// (deletes of rows never inserted), so sums cross zero mid-run.
func TestHashAggColumnarMatchesRows(t *testing.T) {
	groupBys := [][]int{{1}, {2, 3}, nil, {3}, {1, 2}, {0}} // {0}: many keys, colliding in intGroups
	for seed := range randomSeeds(4) {
		for _, gb := range groupBys {
			for _, consistent := range []bool{true, false} {
				t.Run(fmt.Sprintf("%v/consistent=%v/%d", gb, consistent, seed), func(t *testing.T) {
					spec := AggSpec{InTypes: colAggTypes, GroupBy: gb, Aggs: colAggCalls, InputPK: []int{0}}
					msgs := colAggScript(rand.New(rand.NewPCG(seed, 5)), consistent)
					col, colErr := runAggOutputs(t, spec, msgs, true)
					row, rowErr := runAggOutputs(t, spec, msgs, false)
					if (colErr == nil) != (rowErr == nil) {
						t.Fatalf("columnar error %v, row error %v", colErr, rowErr)
					}
					if len(col) != len(row) {
						t.Fatalf("columnar ran %d epochs, row path %d", len(col), len(row))
					}
					for e := range col {
						if col[e] != row[e] {
							t.Fatalf("epoch %d:\ncolumnar %s\nrow path %s", e, col[e], row[e])
						}
					}
				})
			}
		}
	}
}

func colAggScript(rng *rand.Rand, consistent bool) []Message {
	rel := newRandRel(rng, colAggRow)
	var msgs []Message
	for e := range 25 {
		for _, cs := range rel.epoch(40) {
			if !consistent && rng.IntN(3) == 0 {
				cs = append(cs, change{chunk.Delete, colAggRow(rng, -1)})
			}
			msgs = append(msgs, chunkMsg(colAggTypes, cs...))
		}
		msgs = append(msgs, barrierMsg(uint64(e+1)))
	}
	return msgs
}

// runAggOutputs returns the changes of each epoch, printed exactly, and
// the error that stopped the run, if any.
func runAggOutputs(t *testing.T, spec AggSpec, msgs []Message, columnar bool) ([]string, error) {
	out, _, err := runAggOutputsWith(t, spec, msgs, func(h *HashAgg) {
		if columnar && !h.columnar {
			t.Fatal("spec does not take the columnar path")
		}
		h.columnar = columnar
	})
	return out, err
}

// runAggOutputsWith is runAggOutputs of a HashAgg that setup prepares; it
// also returns the HashAgg.
func runAggOutputsWith(t *testing.T, spec AggSpec, msgs []Message, setup func(*HashAgg)) ([]string, *HashAgg, error) {
	st := newTestStore(t)
	sc := NewStateContext(st)
	for _, m := range msgs {
		if m.Chunk != nil {
			m.Chunk.Retain()
		}
	}
	h := newTestAgg(t, sc, spec, msgs)
	setup(h)
	var out []string
	var cur strings.Builder
	for {
		m, err := h.Next(context.Background())
		if errors.Is(err, errScriptEnd) {
			return out, h, nil
		}
		if err != nil {
			return out, h, err
		}
		if m.Chunk != nil {
			for _, c := range chunkChanges(t, m.Chunk) {
				fmt.Fprintf(&cur, "%s%v ", c.op, c.row)
			}
			m.Chunk.Release()
			continue
		}
		if err := st.CommitEpoch(m.Barrier.Prev, []*storage.WriteBatch{sc.TakeBatch()}); err != nil {
			t.Fatal(err)
		}
		out = append(out, cur.String())
		cur.Reset()
	}
}

// TestHashAggKeyFilter: a HashAgg that starts on an empty result table
// skips the state reads of groups it has not written (keyFilter); its
// changes must be those of one that reads every group, at every epoch
// (with a tiny cache of clean groups, so that most are read back).
func TestHashAggKeyFilter(t *testing.T) {
	defer func(n int) { aggCacheGroups = n }(aggCacheGroups)
	aggCacheGroups = 2 // groups are read back from the store, or not
	groupBys := [][]int{{1}, {2, 3}, {0}}
	for seed := range randomSeeds(3) {
		for _, gb := range groupBys {
			spec := AggSpec{InTypes: colAggTypes, GroupBy: gb, Aggs: colAggCalls, InputPK: []int{0}}
			msgs := colAggScript(rand.New(rand.NewPCG(seed, 5)), true)
			var outs [2][]string
			for i, filter := range []bool{true, false} {
				out, h, err := runAggOutputsWith(t, spec, msgs, func(h *HashAgg) {
					h.started = !filter // no start: no filter
				})
				if err != nil {
					t.Fatal(err)
				}
				if filter && h.seen == nil {
					t.Fatal("no key filter on an empty result table")
				}
				outs[i] = out
			}
			if !slices.Equal(outs[0], outs[1]) {
				t.Fatalf("seed %d, group by %v: with the key filter\n%q\nwithout\n%q", seed, gb, outs[0], outs[1])
			}
		}
	}
}
