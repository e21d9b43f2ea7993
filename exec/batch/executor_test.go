package batch

import (
	"context"
	"errors"
	"testing"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

func TestScanChunksAndClose(t *testing.T) {
	rel := &catalog.Relation{Name: "t", Columns: []catalog.Column{{Name: "a", Type: i64}, {Name: "b", Type: text}}}
	var rows [][]types.Datum
	for i := range 2500 {
		rows = append(rows, row(int64(i), "x"))
	}
	s := NewScan(MemSource{"t": rows}, rel)
	ctx := context.Background()
	var sizes []int
	for {
		c, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		sizes = append(sizes, c.NumRows())
		c.Release()
	}
	if len(sizes) != 3 || sizes[0] != 1024 || sizes[1] != 1024 || sizes[2] != 452 {
		t.Fatalf("chunk sizes %v", sizes)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestScanMissingRelation(t *testing.T) {
	s := NewScan(MemSource{}, &catalog.Relation{Name: "nope"})
	_, err := s.Next(context.Background())
	if pgerr.Code(err) != pgerr.UndefinedTable {
		t.Fatalf("err %v", err)
	}
	s.Close()
}

func TestFilterProject(t *testing.T) {
	in := rowsOf([]types.Type{i64, text}, row(int64(1), "a"), row(int64(5), "b"), row(nil, "c"), row(int64(7), nil))
	f := NewFilter(in, intGreater{col: 0, k: 2})
	p := NewProject(f, []expr.Expr{expr.NewColumn(1, text, "b"), expr.NewColumn(0, i64, "a")}, []types.Type{text, i64})
	expect(t, run(t, p), `
b 5
NULL 7
`)
}

func TestFilterDropsEmptyChunks(t *testing.T) {
	g := NewGenerateSeries(expr.NewConst(int64(1), i64), expr.NewConst(int64(5000), i64), expr.NewConst(int64(1), i64), i64)
	f := NewFilter(g, intGreater{col: 0, k: 4998})
	expect(t, run(t, f), `
4999
5000
`)
}

func TestProjectOverZeroColumns(t *testing.T) {
	v := NewValues([][]expr.Expr{{}}, nil)
	p := NewProject(v, []expr.Expr{expr.NewConst(int64(42), i32)}, []types.Type{i32})
	expect(t, run(t, p), "42\n")
}

func TestGenerateSeries(t *testing.T) {
	k := func(v int64) expr.Expr { return expr.NewConst(v, i64) }
	expect(t, run(t, NewGenerateSeries(k(1), k(10), k(4), i64)), "1\n5\n9\n")
	expect(t, run(t, NewGenerateSeries(k(3), k(1), k(-1), i64)), "3\n2\n1\n")
	expect(t, run(t, NewGenerateSeries(k(5), k(1), k(1), i64)), "")
	expect(t, run(t, NewGenerateSeries(expr.NewConst(nil, i64), k(1), k(1), i64)), "")
	// An int4 series stops at the type's maximum instead of overflowing.
	top := expr.NewConst(int64(2147483646), i32)
	expect(t, run(t, NewGenerateSeries(top, expr.NewConst(int64(2147483647), i32), expr.NewConst(int64(5), i32), i32)), "2147483646\n")

	g := NewGenerateSeries(k(1), k(2), k(0), i64)
	_, err := g.Next(context.Background())
	if pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Fatalf("step 0: %v", err)
	}
}

// TestGenerateSeriesStreams checks a long series arrives in bounded chunks
// rather than at once.
func TestGenerateSeriesStreams(t *testing.T) {
	n := int64(1_000_000)
	if testing.Short() {
		n = 100_000
	}
	g := NewGenerateSeries(expr.NewConst(int64(1), i64), expr.NewConst(n, i64), expr.NewConst(int64(1), i64), i64)
	ctx := context.Background()
	var total int64
	for {
		c, err := g.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		if c.NumRows() > ChunkSize {
			t.Fatalf("chunk of %d rows", c.NumRows())
		}
		total += int64(c.NumRows())
		c.Release()
	}
	if total != n {
		t.Fatalf("got %d rows, want %d", total, n)
	}
}

func TestLimitOffset(t *testing.T) {
	k := func(v int64) expr.Expr { return expr.NewConst(v, i64) }
	series := func() Executor { return NewGenerateSeries(k(1), k(3000), k(1), i64) }
	rows, err := ReadAll(context.Background(), NewLimit(series(), 3, 1500))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, render(rows), "1501\n1502\n1503\n")
	expect(t, run(t, NewLimit(series(), 0, 0)), "")
	rows, _ = ReadAll(context.Background(), NewLimit(series(), -1, 2998))
	expect(t, render(rows), "2999\n3000\n")
	rows, _ = ReadAll(context.Background(), NewLimit(series(), 5, 4000))
	expect(t, render(rows), "")
}

// TestLimitStopsPulling checks Limit does not read past what it needs, so
// LIMIT over an endless input ends.
func TestLimitStopsPulling(t *testing.T) {
	in := &counting{Executor: NewGenerateSeries(expr.NewConst(int64(1), i64), expr.NewConst(int64(1<<62), i64), expr.NewConst(int64(1), i64), i64)}
	l := NewLimit(in, 2000, 10)
	rows, err := ReadAll(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2000 || rows[0][0] != int64(11) || rows[1999][0] != int64(2010) {
		t.Fatalf("got %d rows, first %v", len(rows), rows[0])
	}
	if in.calls != 2 {
		t.Fatalf("input pulled %d times, want 2", in.calls)
	}
}

func TestUnionAll(t *testing.T) {
	a := rowsOf([]types.Type{i64}, row(int64(1)), row(int64(2)))
	b := rowsOf([]types.Type{i64})
	c := rowsOf([]types.Type{i64}, row(nil))
	expect(t, run(t, NewUnionAll([]Executor{a, b, c}, []types.Type{i64})), "1\n2\nNULL\n")
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	execs := []Executor{
		rowsOf([]types.Type{i64}, row(int64(1))),
		NewHashAgg(rowsOf([]types.Type{i64}, row(int64(1))), nil, []AggSpec{{Kind: expr.AggCountStar, Arg: -1, Type: i64}}),
		NewLimit(rowsOf([]types.Type{i64}, row(int64(1))), 1, 0),
	}
	for _, e := range execs {
		if _, err := e.Next(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("%T: %v", e, err)
		}
		e.Close()
	}
}
