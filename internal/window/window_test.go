package window

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestEvalResumes checks Eval's contract with the stream OverWindow: the
// results of any part of a partition, computed from the part, the
// context Reach asks for and the stored results of the row before it,
// equal those of the whole partition.
func TestEvalResumes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	frames := []Frame{
		DefaultFrame,
		{Rows: true, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: CurrentRow}},
		{Rows: true, Start: Bound{Kind: Preceding, N: 2}, End: Bound{Kind: Following, N: 1}},
		{Rows: true, Start: Bound{Kind: Preceding, N: 3}, End: Bound{Kind: Preceding, N: 1}},
		{Rows: true, Start: Bound{Kind: Following, N: 1}, End: Bound{Kind: Following, N: 2}},
		{Rows: true, Start: Bound{Kind: CurrentRow}, End: Bound{Kind: UnboundedFollowing}},
		{Start: Bound{Kind: CurrentRow}, End: Bound{Kind: UnboundedFollowing}},
		{Rows: true, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: Preceding, N: 2}},
	}
	var funcs []Func
	for _, k := range []Kind{RowNumber, Rank, DenseRank, PercentRank, CumeDist} {
		funcs = append(funcs, Func{Kind: k, Arg: -1, Default: -1, Type: types.TInt64})
	}
	funcs = append(funcs,
		Func{Kind: Ntile, N: 3, Arg: -1, Default: -1},
		Func{Kind: Lag, N: 2, Arg: 1, Default: 2, ArgType: types.TInt64, Type: types.TInt64},
		Func{Kind: Lead, N: 1, Arg: 1, Default: -1, ArgType: types.TInt64, Type: types.TInt64})
	for _, fr := range frames {
		for _, k := range []Kind{FirstValue, LastValue, NthValue} {
			funcs = append(funcs, Func{Kind: k, N: 2, Arg: 1, Default: -1, Frame: fr, ArgType: types.TInt64, Type: types.TInt64})
		}
		for _, a := range []expr.AggKind{expr.AggCount, expr.AggCountStar, expr.AggSum, expr.AggAvg, expr.AggMin, expr.AggMax} {
			typ, err := expr.AggResultType(a, types.TInt64)
			if err != nil {
				t.Fatal(err)
			}
			funcs = append(funcs, Func{Kind: Agg, Agg: a, Arg: 1, Default: -1, Frame: fr, ArgType: types.TInt64, Type: typ})
		}
	}
	for iter := range 300 {
		n := 1 + rng.Intn(40)
		rows := make([][]types.Datum, n)
		for i := range rows {
			// Column 0 orders (few values: many peers), 1 is the
			// argument (some NULLs), 2 a default.
			var v types.Datum = int64(rng.Intn(50))
			if rng.Intn(6) == 0 {
				v = nil
			}
			rows[i] = []types.Datum{int64(rng.Intn(max(1, n/3))), v, int64(-i)}
		}
		spec := &Spec{Order: []SortKey{{Col: 0}}, InTypes: []types.Type{types.TInt64, types.TInt64, types.TInt64}}
		// Rows come sorted by the window order, as the callers give them.
		sortRows(spec, rows)
		f := funcs[rng.Intn(len(funcs))]
		spec.Funcs = []Func{f, funcs[rng.Intn(len(funcs))]}
		full, err := spec.Eval(Input{Rows: rows, To: n, AtStart: true, AtEnd: true})
		if err != nil {
			t.Fatal(err)
		}
		r := spec.Reach()
		// A part that starts and ends at peer group boundaries.
		a, b := rng.Intn(n), rng.Intn(n)
		if a > b {
			a, b = b, a
		}
		for a > 0 && spec.Peers(rows[a-1], rows[a]) {
			a--
		}
		for b < n-1 && spec.Peers(rows[b], rows[b+1]) {
			b++
		}
		b++
		if r.NeedsStart || r.Before == ReachAll {
			a = 0
		}
		if r.After == ReachAll {
			b = n
		}
		lo := max(0, a-int(max(r.CtxBefore, 1)))
		hi := min(n, b+int(r.CtxAfter))
		in := Input{Rows: rows[lo:hi], From: a - lo, To: b - lo, AtStart: lo == 0, AtEnd: hi == n}
		if !in.AtStart {
			in.Base = full[a-1]
		}
		got, err := spec.Eval(in)
		if err != nil {
			t.Fatalf("iteration %d, %v: %v", iter, spec.Funcs, err)
		}
		for i := a; i < b; i++ {
			if g, w := fmt.Sprint(got[i-a][:2]), fmt.Sprint(full[i][:2]); g != w {
				t.Fatalf("iteration %d, %s / %s over rows %d..%d of %d: row %d is %s, the whole partition gives %s",
					iter, describe(&spec.Funcs[0]), describe(&spec.Funcs[1]), a, b, n, i, g, w)
			}
		}
	}
}

func describe(f *Func) string {
	return fmt.Sprintf("%s/%s %s", f.Kind, f.Agg, f.Frame)
}

func sortRows(s *Spec, rows [][]types.Datum) {
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && s.CompareOrder(rows[j-1], rows[j]) > 0; j-- {
			rows[j-1], rows[j] = rows[j], rows[j-1]
		}
	}
}
