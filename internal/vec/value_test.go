package vec

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// rowProject is the reference: each expression evaluated over each row
// with the row evaluator, row by row and column by column, up to the
// first error (its row and column).
func rowProject(exprs []expr.Expr, c *chunk.Chunk) (out [][]types.Datum, errRow, errCol int, err error) {
	var row []types.Datum
	for i := 0; i < c.NumRows(); i++ {
		row = c.Row(i, row)
		vals := make([]types.Datum, len(exprs))
		for j, e := range exprs {
			if vals[j], err = e.Eval(row); err != nil {
				return out, i, j, err
			}
		}
		out = append(out, vals)
	}
	return out, -1, -1, nil
}

// sameDatum compares Datums exactly: floats by their bits (so that -0
// and 0 differ, and NaN equals NaN), numerics by the bytes a column
// holds of them (the binary form of the plain value: 1.50 and 1.5
// differ).
func sameDatum(a, b types.Datum) bool {
	da, okA := a.(*apd.Decimal)
	db, okB := b.(*apd.Decimal)
	if okA && okB {
		return slices.Equal(types.AppendNumericBinary(nil, types.PlainNumeric(da)), types.AppendNumericBinary(nil, types.PlainNumeric(db)))
	}
	fa, okA := a.(float64)
	fb, okB := b.(float64)
	if okA && okB {
		return math.Float64bits(fa) == math.Float64bits(fb) || (fa != fa && fb != fb)
	}
	return reflect.DeepEqual(a, b)
}

// projStats counts what the differential tests exercised.
type projStats struct{ compiled, total, errs, guarded int }

// checkProjection compares Projection.Columns with the row evaluator on
// c, buffers from a checked allocator: the same values, NULLs, error
// (row order, then column order) and, for guarded expressions, the same
// errors handed to the sinks in the same order.
func checkProjection(t testing.TB, exprs []expr.Expr, c *chunk.Chunk, guard bool, st *projStats) {
	t.Helper()
	rowExprs, vecExprs := exprs, exprs
	var rowSink, vecSink recSink
	if guard {
		rowExprs, vecExprs = expr.GuardAll(exprs, &rowSink), expr.GuardAll(exprs, &vecSink)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := CompileProjection(vecExprs, c.Types, nil)
	p.SetAllocator(mem)
	defer p.Close()
	st.total += len(exprs)
	st.compiled += p.Vectorized()
	want, _, wantCol, wantErr := rowProject(rowExprs, c)
	cols, gotCol, gotErr := p.Columns(c)
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	if !slices.Equal(rowSink.errs, vecSink.errs) {
		i := 0
		for i < min(len(vecSink.errs), len(rowSink.errs)) && vecSink.errs[i] == rowSink.errs[i] {
			i++
		}
		t.Fatalf("%v: sink got %d errors, want %d; from #%d got %q, want %q", exprs, len(vecSink.errs), len(rowSink.errs),
			i, vecSink.errs[i:min(i+3, len(vecSink.errs))], rowSink.errs[i:min(i+3, len(rowSink.errs))])
	}
	st.guarded += len(rowSink.errs)
	if wantErr != nil || gotErr != nil {
		if !sameError(wantErr, gotErr) || gotCol != wantCol {
			t.Fatalf("%v over %d rows: error %v (column %d), want %v (column %d)", exprs, c.NumRows(), gotErr, gotCol, wantErr, wantCol)
		}
		st.errs++
		return
	}
	for j, e := range exprs {
		if cols[j].Len() != c.NumRows() {
			t.Fatalf("%s: %d rows, want %d", e, cols[j].Len(), c.NumRows())
		}
		for i := range want {
			got := chunk.Value(cols[j], e.Type(), i)
			if !sameDatum(got, want[i][j]) {
				t.Fatalf("%s (compiled %v) row %d %v: got %#v, want %#v", e, p.Compiled(j), i, c.Row(i, nil), got, want[i][j])
			}
		}
	}
}

// TestProjectionDifferential compares the value kernels with the row
// evaluator on random chunks and projections.
func TestProjectionDifferential(t *testing.T) {
	iters := 3000
	if testing.Short() {
		iters = 400
	}
	var st projStats
	for seed := range iters {
		g := &gen{r: rand.New(rand.NewSource(int64(seed)))}
		c := g.chunk([]int{1, 7, 64, 65, 130, 300}[g.pick(6)])
		for range 3 {
			exprs := make([]expr.Expr, 1+g.pick(4))
			for j := range exprs {
				exprs[j] = g.projExpr(3)
			}
			checkProjection(t, exprs, c, g.pick(4) == 0, &st)
		}
		c.Release()
	}
	if st.compiled < st.total*2/5 || st.errs < iters/50 || st.guarded < iters/50 {
		t.Fatalf("too little exercised: %+v", st)
	}
	t.Logf("%+v", st)
}

// FuzzProjection is TestProjectionDifferential driven by the fuzzer: a
// seed for the generator, the depth, the number of rows and expressions.
func FuzzProjection(f *testing.F) {
	for _, s := range []int64{0, 1, 2, 42, 1 << 40} {
		f.Add(s, uint8(3), uint16(65), uint8(2))
	}
	f.Add(int64(7), uint8(0), uint16(1), uint8(1))
	f.Add(int64(9), uint8(5), uint16(1000), uint8(4))
	f.Fuzz(func(t *testing.T, seed int64, depth uint8, n uint16, cols uint8) {
		g := &gen{r: rand.New(rand.NewSource(seed))}
		c := g.chunk(1 + int(n)%2048)
		defer c.Release()
		exprs := make([]expr.Expr, 1+int(cols)%5)
		for j := range exprs {
			exprs[j] = g.projExpr(int(depth % 5))
		}
		checkProjection(t, exprs, c, g.pick(4) == 0, &projStats{})
	})
}

// TestProjectionShapes pins down particular semantics: which shapes
// compile, and errors a CASE or COALESCE must not raise.
func TestProjectionShapes(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(3))}
	c := g.chunk(300)
	defer c.Release()
	col, k := g.col, expr.NewConst
	zero := k(int64(0), types.TInt32)
	div := mustBinary(t, "/", k(int64(10), types.TInt32), col(1))
	isZero := mustBinary(t, "=", col(1), zero)
	guarded := must(expr.Case(nil, []expr.Expr{isZero}, []expr.Expr{k(nil, types.TInt32)}, div))
	cases := []struct {
		name    string
		e       expr.Expr
		compile bool
	}{
		{"int division", div, true},
		{"CASE guarding a division by zero", guarded, true},
		{"COALESCE stops at the first non-NULL", must(expr.Func("coalesce", []expr.Expr{col(1), div})), true},
		{"float8 multiplication", mustBinary(t, "*", col(6), col(7)), true},
		{"real division", mustBinary(t, "/", col(5), col(5)), true},
		{"cast float to smallint", must(expr.Cast(col(6), types.TInt16)), true},
		{"cast bigint to integer", must(expr.Cast(col(2), types.TInt32)), true},
		{"int to text", must(expr.Cast(col(2), types.TText)), true},
		{"concat", must(expr.Func("concat", []expr.Expr{col(14), col(0), col(6)})), true},
		{"||", mustBinary(t, "||", col(14), col(2)), true},
		{"date + int", mustBinary(t, "+", col(10), col(1)), true},
		{"date_part year", must(expr.Func("date_part", []expr.Expr{k("year", types.TText), col(11)})), true},
		{"comparison of sums", mustBinary(t, "<", mustBinary(t, "+", col(6), col(7)), col(7)), true},
		{"numeric", mustBinary(t, "+", col(17), col(17)), true},
		{"numeric times a bigint", mustBinary(t, "*", k(apd.New(908, -3), types.TNumeric), col(2)), true},
		{"numeric with a typmod", must(expr.Cast(col(17), types.Type{ID: types.IDNumeric, Precision: 5, Scale: 1})), true},
		{"numeric division", mustBinary(t, "/", col(17), k(apd.New(3, 0), types.TNumeric)), true},
		{"numeric modulo", mustBinary(t, "%", col(17), col(17)), true},
		{"numeric to bigint", must(expr.Cast(col(17), types.TInt64)), true},
		{"numeric to float8", must(expr.Cast(col(17), types.TFloat64)), true},
		{"float8 to numeric", must(expr.Cast(col(6), types.TNumeric)), true},
		{"round of a numeric", must(expr.Func("round", []expr.Expr{col(17), k(int64(2), types.TInt32)})), true},
		{"numeric to text", must(expr.Cast(col(17), types.TText)), false},
		{"bool to text", must(expr.Cast(col(8), types.TText)), false},
		{"timestamptz to text", must(expr.Cast(col(12), types.TText)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := CompileProjection([]expr.Expr{tc.e}, c.Types, nil)
			if got := p.Vectorized() == 1; got != tc.compile {
				t.Fatalf("compiled %v, want %v", got, tc.compile)
			}
			checkProjection(t, []expr.Expr{tc.e}, c, false, &projStats{})
		})
	}
}

// TestProjectionCaseGuardsDivision checks a CASE guarding a division by
// zero raises nothing (the kernel evaluates the division on every row),
// and the unguarded division raises the row evaluator's error.
func TestProjectionCaseGuardsDivision(t *testing.T) {
	ts := []types.Type{types.TInt32}
	c := chunk.FromRows(ts, chunk.Insert, [][]types.Datum{{int64(2)}, {int64(0)}, {nil}, {int64(5)}})
	defer c.Release()
	a := expr.NewColumn(0, types.TInt32, "a")
	div := mustBinary(t, "/", expr.NewConst(int64(10), types.TInt32), a)
	safe := must(expr.Case(nil, []expr.Expr{mustBinary(t, "<>", a, expr.NewConst(int64(0), types.TInt32))}, []expr.Expr{div}, nil))
	p := CompileProjection([]expr.Expr{safe, div}, ts, nil)
	if p.Vectorized() != 2 {
		t.Fatalf("vectorized %d of 2", p.Vectorized())
	}
	arr, _, ce := p.Eval(c, 0, nil)
	if ce != nil {
		t.Fatalf("CASE raised %v", ce.Err)
	}
	defer arr.Release()
	var got []types.Datum
	for i := range 4 {
		got = append(got, chunk.Value(arr, types.TInt32, i))
	}
	if want := []types.Datum{int64(5), nil, nil, int64(2)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	_, _, ce = p.Eval(c, 1, nil)
	if ce == nil || ce.Row != 1 || ce.Err.Error() != "division by zero" {
		t.Fatalf("got %+v, want division by zero on row 1", ce)
	}
	if _, _, err := p.Columns(c); err == nil || fmt.Sprint(err) != "division by zero" {
		t.Fatalf("Columns: %v", err)
	}
}
