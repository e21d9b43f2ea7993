package stream

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestHashAggSpecialSum: a view's numeric and float sum and avg count
// their NaN and infinite inputs apart from the finite sum, so deleting
// them gives back the sum of the rest (as PostgreSQL 15's query over what
// is left), across restarts that read every group's state back from the
// result table.
func TestHashAggSpecialSum(t *testing.T) {
	spec := AggSpec{
		InTypes: []types.Type{types.TInt64, types.TInt32, types.TNumeric, types.TFloat64},
		GroupBy: []int{1},
		Aggs: []AggCall{
			{Kind: expr.AggSum, Arg: 2}, {Kind: expr.AggAvg, Arg: 2},
			{Kind: expr.AggSum, Arg: 3}, {Kind: expr.AggAvg, Arg: 3},
		},
		InputPK: []int{0},
	}
	ts := spec.InTypes
	parse := func(s string, typ types.Type) types.Datum {
		d, err := types.Parse(s, typ)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	row := func(pk int64, x, f string) trow {
		return trow{pk, int64(1), parse(x, types.TNumeric), parse(f, types.TFloat64)}
	}
	epochs := []struct {
		changes []change
		want    string // sum(x), avg(x), sum(f), avg(f) of group 1
	}{
		{[]change{ins(row(1, "1.50", "1.5")...), ins(row(2, "NaN", "NaN")...), ins(row(3, "Infinity", "Infinity")...),
			ins(row(4, "-Infinity", "-Infinity")...), ins(row(5, "2.5", "2.25")...)}, "NaN NaN NaN NaN"},
		{[]change{del(row(2, "NaN", "NaN")...)}, "NaN NaN NaN NaN"},
		{[]change{del(row(4, "-Infinity", "-Infinity")...)}, "Infinity Infinity Infinity Infinity"},
		{[]change{del(row(3, "Infinity", "Infinity")...)}, "4.00 2.0000000000000000 3.75 1.875"},
		{[]change{ins(row(6, "-Infinity", "-Infinity")...)}, "-Infinity -Infinity -Infinity -Infinity"},
		{[]change{del(row(6, "-Infinity", "-Infinity")...), del(row(1, "1.50", "1.5")...)}, "2.5 2.5000000000000000 2.25 2.25"},
	}
	st := newTestStore(t)
	out := spec.OutTypes()
	var cur string
	for i, e := range epochs {
		// A new HashAgg each epoch: the state is read back from storage.
		sc := NewStateContext(st)
		r := &epochRunner{t: t, st: st, sc: sc, onEpoch: func(_ uint64, cs []change) {
			for _, c := range cs {
				if c.op != chunk.Insert && c.op != chunk.UpdateInsert {
					continue
				}
				var f []string
				for j, v := range c.row[1:] {
					f = append(f, types.Format(v, out[j+1]))
				}
				cur = strings.Join(f, " ")
			}
		}}
		if n := r.run(newTestAgg(t, sc, spec, []Message{chunkMsg(ts, e.changes...), barrierMsg(uint64(i + 1))})); n != 1 {
			t.Fatalf("epoch %d: %d epochs committed", i+1, n)
		}
		sc.TakeBatch().Close()
		if cur != e.want {
			t.Errorf("epoch %d: got %q, want %q", i+1, cur, e.want)
		}
		if i == 1 { // one Infinity and one -Infinity left, stored apart from the finite sums
			tab := newTestAgg(t, NewStateContext(st), spec, nil).StateTables()[0]
			rows := tableRows(t, st, tab)
			if tail := rows[0][len(tab.Types)-4:]; !slices.Equal(tail, []types.Datum{"0,1,1", "0,1,1", "0,1,1", "0,1,1"}) {
				t.Errorf("epoch 2: special counts %v", tail)
			}
		}
	}
	// The stored state of the last epoch: every sum and avg keeps its
	// special counts, after the numeric ones' scale counts; none is left.
	h := newTestAgg(t, NewStateContext(st), spec, nil)
	tab := h.StateTables()[0]
	rows := tableRows(t, st, tab)
	if len(rows) != 1 || len(tab.Types) != 1+1+4*2+2+4 {
		t.Fatalf("result table %v holds %v", tab.Types, rows)
	}
	if tail := rows[0][len(tab.Types)-4:]; slices.ContainsFunc(tail, func(v types.Datum) bool { return v != nil }) {
		t.Errorf("special counts %v, want none", tail)
	}
	if sc := rows[0][len(tab.Types)-6 : len(tab.Types)-4]; sc[0] != "1:1" || sc[1] != "1:1" {
		t.Errorf("scale counts %v", sc)
	}
}
