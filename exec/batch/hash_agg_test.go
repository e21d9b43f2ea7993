package batch

import (
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

func aggInput() Executor {
	return rowsOf([]types.Type{text, i64},
		row("a", int64(1)), row("b", int64(2)), row("a", nil), row("a", int64(1)), row(nil, int64(7)), row("b", int64(3)))
}

func TestHashAggCounts(t *testing.T) {
	h := NewHashAgg(aggInput(), []int{0}, []AggSpec{
		{Kind: expr.AggCountStar, Arg: -1, Type: i64},
		{Kind: expr.AggCount, Arg: 1, Type: i64},
		{Kind: expr.AggCount, Arg: 1, Distinct: true, Type: i64},
	})
	expect(t, run(t, h), `
a 3 2 1
b 2 2 2
NULL 1 1 1
`)
}

func TestHashAggEmptyInput(t *testing.T) {
	specs := []AggSpec{{Kind: expr.AggCountStar, Arg: -1, Type: i64}, {Kind: expr.AggCount, Arg: 1, Type: i64}}
	empty := func() Executor { return rowsOf([]types.Type{text, i64}) }
	// A global aggregate yields one row even for no input...
	expect(t, run(t, NewHashAgg(empty(), nil, specs)), "0 0\n")
	// ...a grouped one none.
	expect(t, run(t, NewHashAgg(empty(), []int{0}, specs)), "")
}

func TestHashAggDistinctRows(t *testing.T) {
	h := NewHashAgg(aggInput(), []int{0, 1}, nil)
	expect(t, run(t, h), `
a 1
b 2
a NULL
NULL 7
b 3
`)
}
