package batch

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

func TestApplySubqueries(t *testing.T) {
	i8 := []types.Type{types.TInt64}
	in := rowsOf(i8, row(int64(1)), row(int64(2)), row(nil))
	probe := expr.NewColumn(0, types.TInt64, "x")
	subs := []SubquerySpec{
		{Kind: ScalarSubquery, Plan: rowsOf(i8, row(int64(7)))},
		{Kind: InSubquery, Plan: rowsOf(i8, row(int64(1)), row(int64(3))), Probe: probe},
		{Kind: InSubquery, Plan: rowsOf(i8, row(int64(1)), row(nil)), Probe: probe, Not: true},
		{Kind: InSubquery, Plan: rowsOf(i8), Probe: probe},
		{Kind: ExistsSubquery, Plan: rowsOf(i8)},
		{Kind: ScalarSubquery, Plan: rowsOf(i8)},
	}
	ts := []types.Type{types.TInt64, types.TInt64, types.TBool, types.TBool, types.TBool, types.TBool, types.TInt64}
	got := run(t, NewApply(in, subs, ts))
	// x | scalar 7 | x IN (1, 3) | x NOT IN (1, NULL) | x IN () | EXISTS () | scalar of no row
	want := "1 7 true false false false NULL\n" +
		"2 7 false NULL false false NULL\n" +
		"NULL 7 NULL NULL false false NULL\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestApplyScalarCardinality(t *testing.T) {
	i8 := []types.Type{types.TInt64}
	a := NewApply(rowsOf(i8, row(int64(1))),
		[]SubquerySpec{{Kind: ScalarSubquery, Plan: rowsOf(i8, row(int64(1)), row(int64(2)))}},
		[]types.Type{types.TInt64, types.TInt64})
	_, err := a.Next(context.Background())
	if pgerr.Code(err) != CardinalityViolation {
		t.Errorf("got %v, want 21000", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
