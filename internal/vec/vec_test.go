package vec

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// rowSelect is the reference: the rows for which cond.Eval over
// chunk.Row is true, or the error of the first row that raises one.
func rowSelect(cond expr.Expr, c *chunk.Chunk) ([]int, error) {
	var sel []int
	var row []types.Datum
	for i := 0; i < c.NumRows(); i++ {
		row = c.Row(i, row)
		v, err := cond.Eval(row)
		if err != nil {
			return nil, err
		}
		if v == true {
			sel = append(sel, i)
		}
	}
	return sel, nil
}

// stats counts what the differential tests exercised.
type stats struct{ compiled, errs, partial int }

// check compares the kernels with the row evaluator on c; it reports
// whether cond compiled.
func check(t testing.TB, cond expr.Expr, c *chunk.Chunk) bool {
	return checkStats(t, cond, c, &stats{})
}

func checkStats(t testing.TB, cond expr.Expr, c *chunk.Chunk, st *stats) bool {
	t.Helper()
	return checkGuarded(t, cond, c, st, false)
}

// recSink records the errors a guarded condition hands it.
type recSink struct{ errs []string }

func (s *recSink) EvalError(err error) { s.errs = append(s.errs, err.Error()) }

// checkGuarded is checkStats, with cond guarded (expr.Guard) when guard
// is set: the sinks of both evaluators must then see the same errors.
func checkGuarded(t testing.TB, cond expr.Expr, c *chunk.Chunk, st *stats, guard bool) bool {
	t.Helper()
	rowCond, vecCond := cond, cond
	var rowSink, vecSink recSink
	if guard {
		rowCond, vecCond = expr.Guard(cond, &rowSink), expr.Guard(cond, &vecSink)
	}
	p, ok := Compile(vecCond, c.Types)
	if !ok {
		return false
	}
	st.compiled++
	want, wantErr := rowSelect(rowCond, c)
	got, gotErr := p.Select(c, nil)
	if !slices.Equal(rowSink.errs, vecSink.errs) {
		t.Fatalf("%s: sink got %q, want %q", cond, vecSink.errs, rowSink.errs)
	}
	if wantErr != nil || gotErr != nil {
		if !sameError(wantErr, gotErr) {
			t.Fatalf("%s over %d rows: error %v, want %v", cond, c.NumRows(), gotErr, wantErr)
		}
		st.errs++
		return true
	}
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("%s over %d rows:\n got %v\nwant %v\n%s", cond, c.NumRows(), got, want, firstDiff(cond, c, got, want))
	}
	if len(want) > 0 && len(want) < c.NumRows() {
		st.partial++
	}
	return true
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	var pa, pb *pgerr.Error
	if errors.As(a, &pa) != errors.As(b, &pb) {
		return false
	}
	if pa != nil && pa.Code != pb.Code {
		return false
	}
	return a.Error() == b.Error()
}

func firstDiff(cond expr.Expr, c *chunk.Chunk, got, want []int) string {
	in := map[int]bool{}
	for _, i := range got {
		in[i] = true
	}
	for _, i := range want {
		in[i] = !in[i]
	}
	for i, diff := range in {
		if diff {
			row := c.Row(i, nil)
			v, err := cond.Eval(row)
			return fmt.Sprintf("row %d %v: row evaluator %v %v", i, row, v, err)
		}
	}
	return ""
}

// TestDifferential compares the kernels with the row evaluator on random
// chunks and predicates.
func TestDifferential(t *testing.T) {
	iters := 4000
	if testing.Short() {
		iters = 500
	}
	var st stats
	for seed := range iters {
		g := &gen{r: rand.New(rand.NewSource(int64(seed)))}
		c := g.chunk([]int{1, 7, 64, 65, 130, 300}[g.pick(6)])
		for range 5 {
			checkGuarded(t, g.zoned(g.pred(3)), c, &st, g.pick(4) == 0)
		}
		c.Release()
	}
	if st.compiled < iters || st.errs < iters/100 || st.partial < iters/2 {
		t.Fatalf("too little exercised: %+v of %d predicates", st, 5*iters)
	}
	t.Logf("%+v of %d predicates", st, 5*iters)
}

// FuzzPredicate is TestDifferential driven by the fuzzer: a seed for the
// generator, the depth and the number of rows.
func FuzzPredicate(f *testing.F) {
	for _, s := range []int64{0, 1, 2, 42, 1 << 40} {
		f.Add(s, uint8(3), uint16(65))
	}
	f.Add(int64(7), uint8(0), uint16(1))
	f.Add(int64(9), uint8(5), uint16(1000))
	f.Fuzz(func(t *testing.T, seed int64, depth uint8, n uint16) {
		g := &gen{r: rand.New(rand.NewSource(seed))}
		c := g.chunk(1 + int(n)%2048)
		defer c.Release()
		checkGuarded(t, g.zoned(g.pred(int(depth%6))), c, &stats{}, g.pick(4) == 0)
	})
}

func mustBinary(t testing.TB, op string, l, r expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.Binary(op, l, r)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestShapes pins down particular semantics against the row evaluator.
func TestShapes(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(1))}
	c := g.chunk(200)
	defer c.Release()
	col := g.col
	k := expr.NewConst
	notE := func(e expr.Expr) expr.Expr { n, _ := expr.Unary("NOT", e); return n }
	cases := []struct {
		name    string
		cond    expr.Expr
		compile bool
	}{
		{"int > const", mustBinary(t, ">", col(2), k(int64(500), types.TInt32)), true},
		{"not of null", notE(mustBinary(t, ">", col(0), k(int64(1), types.TInt32))), true},
		{"smallint vs bigint const out of range", mustBinary(t, "<", col(0), k(int64(1)<<40, types.TInt64)), true},
		{"float NaN", mustBinary(t, ">=", col(6), k(fltVals[0], types.TFloat64)), true},
		{"float -0", mustBinary(t, "=", col(5), k(fltVals[2], types.TFloat64)), true},
		{"date vs timestamp", mustBinary(t, "<", col(10), col(11)), true},
		{"varchar vs text", mustBinary(t, ">", col(16), col(14)), true},
		{"overflow guarded by AND", mustBinary(t, "AND", mustBinary(t, "<", col(0), k(int64(0), types.TInt32)),
			mustBinary(t, ">", mustBinary(t, "*", col(0), col(3)), k(int64(0), types.TInt32))), true},
		{"overflow", mustBinary(t, ">", mustBinary(t, "+", col(2), col(4)), k(int64(0), types.TInt32)), true},
		{"numeric", mustBinary(t, ">", col(17), k(g.value(types.TNumeric), types.TNumeric)), true},
		{"numeric against a bigint", mustBinary(t, "<=", col(17), col(2)), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, tc.cond, c); got != tc.compile {
				t.Fatalf("compiled %v, want %v", got, tc.compile)
			}
		})
	}
}

// TestPredicateReuse evaluates each predicate over chunks of changing
// sizes, as a filter does: the scratch buffers it reuses must not leak
// values from one chunk into the next.
func TestPredicateReuse(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(99))}
	for range 200 {
		cond := g.pred(3)
		p, ok := Compile(cond, genTypes)
		if !ok {
			continue
		}
		var sel []int
		for range 6 {
			c := g.chunk(1 + g.pick(300))
			want, wantErr := rowSelect(cond, c)
			var err error
			sel, err = p.Select(c, sel)
			if !sameError(err, wantErr) || err == nil && !slices.Equal(sel, want) && len(sel)+len(want) > 0 {
				t.Fatalf("%s: got %v %v, want %v %v", cond, sel, err, want, wantErr)
			}
			c.Release()
		}
	}
}
