package batch

import (
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

func sortInput() Executor {
	return rowsOf([]types.Type{i64, text},
		row(int64(2), "b"), row(nil, "n1"), row(int64(1), "a"), row(int64(2), "a"), row(nil, "n2"), row(int64(3), "c"))
}

func TestSortOrders(t *testing.T) {
	cases := []struct {
		name string
		keys []SortKey
		want string
	}{
		{"asc nulls last (stable)", []SortKey{{Col: 0}}, "1 a\n2 b\n2 a\n3 c\nNULL n1\nNULL n2\n"},
		{"asc nulls first", []SortKey{{Col: 0, NullsFirst: true}}, "NULL n1\nNULL n2\n1 a\n2 b\n2 a\n3 c\n"},
		{"desc nulls first", []SortKey{{Col: 0, Desc: true, NullsFirst: true}}, "NULL n1\nNULL n2\n3 c\n2 b\n2 a\n1 a\n"},
		{"desc nulls last", []SortKey{{Col: 0, Desc: true}}, "3 c\n2 b\n2 a\n1 a\nNULL n1\nNULL n2\n"},
		{"two keys", []SortKey{{Col: 0, Desc: true, NullsFirst: true}, {Col: 1}}, "NULL n1\nNULL n2\n3 c\n2 a\n2 b\n1 a\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { expect(t, run(t, NewSort(sortInput(), c.keys)), c.want) })
	}
}

func TestSortManyChunks(t *testing.T) {
	k := func(v int64) expr.Expr { return expr.NewConst(v, i64) }
	s := NewSort(NewGenerateSeries(k(1), k(5000), k(1), i64), []SortKey{{Col: 0, Desc: true}})
	rows, err := ReadAll(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if len(rows) != 5000 || rows[0][0] != int64(5000) || rows[4999][0] != int64(1) {
		t.Fatalf("got %d rows, first %v last %v", len(rows), rows[0], rows[len(rows)-1])
	}
}

func TestHashAggSumAvgMinMax(t *testing.T) {
	num := types.TNumeric
	h := NewHashAgg(aggInput(), []int{0}, []AggSpec{
		{Kind: expr.AggSum, Arg: 1, Type: num},
		{Kind: expr.AggAvg, Arg: 1, Type: num},
		{Kind: expr.AggMin, Arg: 1, Type: i64},
		{Kind: expr.AggMax, Arg: 1, Type: i64},
		{Kind: expr.AggSum, Arg: 1, Distinct: true, Type: num},
		{Kind: expr.AggMax, Arg: 0, Type: text},
	})
	got := run(t, h)
	expect(t, got, `
a 2 1.00000000000000000000 1 1 1 a
b 5 2.5000000000000000 2 3 5 b
NULL 7 7.0000000000000000 7 7 7 NULL
`)
}

func TestHashAggEmptySum(t *testing.T) {
	h := NewHashAgg(rowsOf([]types.Type{i64}), nil, []AggSpec{
		{Kind: expr.AggSum, Arg: 0, Type: types.TNumeric},
		{Kind: expr.AggMin, Arg: 0, Type: i64},
		{Kind: expr.AggCountStar, Arg: -1, Type: i64},
	})
	expect(t, run(t, h), "NULL NULL 0\n")
}
