package planner

import (
	"testing"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestIntervalConjunct checks which conjuncts of a join of two tables
// (id, ts), ts their watermark column, let which side's rows go.
func TestIntervalConjunct(t *testing.T) {
	rel := func(id uint32, name string) *catalog.Relation {
		return &catalog.Relation{ID: id, Name: name, Columns: []catalog.Column{{Name: "id", Type: types.TInt64}, {Name: "ts", Type: types.TInt64}},
			PK: []int{0}, Watermark: &catalog.Watermark{Column: 1}}
	}
	a, b, c := rel(1, "a"), rel(1, "b"), rel(2, "c")
	col := func(i int) expr.Expr { return expr.NewColumn(i, types.TInt64, "") }
	num := func(v int64) expr.Expr { return expr.NewConst(v, types.TInt64) }
	bin := func(op string, l, r expr.Expr) expr.Expr {
		e, err := expr.Binary(op, l, r)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	aTS, bTS, aID := col(1), col(3), col(0)
	for _, tc := range []struct {
		name  string
		right *catalog.Relation
		cond  expr.Expr
		side  int // -1: none
	}{
		{"l >= r - c", b, bin(">=", aTS, bin("-", bTS, num(10))), 0},
		{"r - c <= l", b, bin("<=", bin("-", bTS, num(10)), aTS), 0},
		{"l + c > r", b, bin(">", bin("+", aTS, num(3)), bTS), 0},
		{"l < r + c", b, bin("<", aTS, bin("+", bTS, num(3))), 1},
		{"r >= l", b, bin(">=", bTS, aTS), 1},
		{"l = r", b, bin("=", aTS, bTS), -1},
		{"l >= c - r", b, bin(">=", aTS, bin("-", num(10), bTS)), -1},
		{"one side", b, bin(">=", aTS, aID), -1},
		{"unbound column", b, bin(">=", aID, bTS), -1},
		{"other table", c, bin(">=", aTS, bTS), -1},
	} {
		j := &Join{Left: ScanOf(a), Right: ScanOf(tc.right), Kind: InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, Cond: tc.cond}
		side, bound, _, ok := intervalConjunct(j, tc.cond)
		if !ok {
			side = -1
		}
		if side != tc.side {
			t.Errorf("%s: side %d, want %d", tc.name, side, tc.side)
			continue
		}
		if !ok {
			continue
		}
		if bound.Col != 1 || bound.OtherCol != 1 {
			t.Errorf("%s: columns %d, %d", tc.name, bound.Col, bound.OtherCol)
		}
		w := intervalWatermark(j)
		if w == nil || len(w.Sides[side]) != 1 || len(w.Sides[1-side]) != 0 {
			t.Errorf("%s: watermark %+v", tc.name, w)
		}
	}
	// l >= r - 10 over [left row, r]: a left row with ts 5 matches no
	// right row at 16 or later.
	j := &Join{Left: ScanOf(a), Right: ScanOf(b), Kind: InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}}
	_, bound, _, _ := intervalConjunct(j, bin(">=", aTS, bin("-", bTS, num(10))))
	for other, want := range map[int64]bool{15: true, 16: false} {
		if v, err := bound.Match.Eval([]types.Datum{int64(1), int64(5), other}); err != nil || v != want {
			t.Errorf("match at %d: %v, %v", other, v, err)
		}
	}
}

// TestIntervalFilter checks that an inner join takes the interval
// conjuncts of a WHERE over it (through a projection of its columns),
// and the WHERE keeps the others.
func TestIntervalFilter(t *testing.T) {
	rel := &catalog.Relation{ID: 1, Name: "a", Columns: []catalog.Column{{Name: "id", Type: types.TInt64}, {Name: "ts", Type: types.TInt64}},
		PK: []int{0}, Watermark: &catalog.Watermark{Column: 1}}
	col := func(i int) expr.Expr { return expr.NewColumn(i, types.TInt64, "") }
	bin := func(op string, l, r expr.Expr) expr.Expr {
		e, err := expr.Binary(op, l, r)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	j := &Join{Left: ScanOf(rel), Right: ScanOf(rel), Kind: InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}}
	// The projection swaps the sides: output 0, 1 are the right's.
	p := &Project{Input: j, Exprs: []expr.Expr{col(2), col(3), col(0), col(1)}}
	p.Cols = []Column{{Type: types.TInt64}, {Type: types.TInt64}, {Type: types.TInt64}, {Type: types.TInt64}}
	f := &Filter{Input: p, Cond: bin("AND", bin("<=", col(3), col(1)), bin(">", col(0), col(2)))}
	got, ok := intervalFilter(f)
	if !ok {
		t.Fatal("nothing moved")
	}
	rest, ok := got.(*Filter)
	if !ok || rest.Cond.String() != "($0 > $2)" {
		t.Fatalf("left %v", got)
	}
	nj := rest.Input.(*Project).Input.(*Join)
	if nj.Cond.String() != "($1 <= $3)" || intervalWatermark(nj) == nil {
		t.Fatalf("join condition %v", nj.Cond)
	}
	j.Kind = LeftJoin
	if _, ok := intervalFilter(f); ok {
		t.Fatal("a WHERE moved into a left join")
	}
}
