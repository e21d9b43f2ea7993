package batch

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// recursiveCount returns the executor of
// WITH RECURSIVE r(n) AS (SELECT 1 UNION [ALL] SELECT f(n) FROM r) over
// the working table, f given as an expression over n.
func recursiveCount(t *testing.T, distinct bool, f expr.Expr) *RecursiveUnion {
	t.Helper()
	i8 := []types.Type{types.TInt64}
	work := &WorkTable{}
	build := func() (Executor, error) {
		return NewProject(NewWorkTableScan(work, i8), []expr.Expr{f}, i8), nil
	}
	return NewRecursiveUnion("r", rowsOf(i8, row(int64(1))), build, work, distinct, i8)
}

func TestRecursiveUnion(t *testing.T) {
	n := expr.NewColumn(0, types.TInt64, "n")
	lt3, err := expr.Binary("<", n, expr.NewConst(int64(3), types.TInt64))
	if err != nil {
		t.Fatal(err)
	}
	plus1, err := expr.Binary("+", n, expr.NewConst(int64(1), types.TInt64))
	if err != nil {
		t.Fatal(err)
	}
	// n + 1 while n < 3, else 1: the cycle 1 2 3 1 2 3 ...
	next, err := expr.Case(nil, []expr.Expr{lt3}, []expr.Expr{plus1}, expr.NewConst(int64(1), types.TInt64))
	if err != nil {
		t.Fatal(err)
	}
	// UNION: 1, 2, 3, then 1 again, which is dropped, and the recursion ends.
	if got := run(t, recursiveCount(t, true, next)); got != "1\n2\n3\n" {
		t.Errorf("UNION: got\n%s", got)
	}
	// UNION ALL of the same cycle never ends: the bound stops it.
	r := recursiveCount(t, false, next)
	r.limit = 10
	ctx := context.Background()
	rows := 0
	for {
		c, err := r.Next(ctx)
		if err != nil {
			if pgerr.Code(err) != "54001" {
				t.Errorf("got %v, want 54001", err)
			}
			break
		}
		if c == nil {
			t.Fatal("an endless recursion ended")
		}
		rows += c.NumRows()
		c.Release()
	}
	if rows != 11 {
		t.Errorf("%d rows before the bound, want 11 (the base and 10 iterations)", rows)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	// A cancelled context stops it too.
	r = recursiveCount(t, false, next)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Next(cctx); err == nil {
		t.Error("a cancelled recursion went on")
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
}
