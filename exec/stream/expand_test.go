package stream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// rowExpand is the reference Expand: every expression evaluated over
// every row with the row evaluator, row by row, projection by projection,
// column by column, appended to a builder.
type rowExpand struct {
	in    Executor
	projs [][]expr.Expr
	typs  []types.Type
	b     *chunk.Builder
}

func (e *rowExpand) Types() []types.Type { return e.typs }

func (e *rowExpand) Next(ctx context.Context) (Message, error) {
	msg, err := e.in.Next(ctx)
	if err != nil || msg.Chunk == nil {
		return msg, err
	}
	in := msg.Chunk
	defer in.Release()
	out := make([]types.Datum, len(e.typs))
	for i := 0; i < in.NumRows(); i++ {
		row := in.Row(i, nil)
		op := in.Op(i)
		switch op {
		case chunk.UpdateDelete:
			op = chunk.Delete
		case chunk.UpdateInsert:
			op = chunk.Insert
		}
		for _, proj := range e.projs {
			for j, x := range proj {
				v, err := x.Eval(row)
				if err != nil {
					e.b.Build().Release()
					return Message{}, fmt.Errorf("stream: expand %s: %w", x, err)
				}
				out[j] = v
			}
			e.b.Append(op, out)
		}
	}
	return Message{Chunk: e.b.Build()}, nil
}

// exTypes are the input columns of the Expand tests: a key, a time, a
// text, a small integer and a timestamptz.
var exTypes = []types.Type{types.TInt64, types.TTimestamp, types.TText, types.TInt32, types.TTimestampTZ}

// exEnd is the last microsecond of the timestamp range.
var exEnd = types.DaysFromCivil(294247, 1, 1)*types.MicrosPerDay - 1

// exScript returns chunks of random changes (update pairs among them),
// some with a column of NULLs only, with buffers from mem, barriers and
// an empty chunk between them; the same seed gives the same script.
func exScript(mem memory.Allocator, seed int64) []Message {
	r := rand.New(rand.NewSource(seed))
	tsVals := []int64{0, 1, 1_999_999, 2_000_000, -1, -2_000_001, exEnd, exEnd - 3_000_000,
		math.MaxInt64, math.MinInt64, 1_700_000_000_000_000}
	val := func(j int) types.Datum {
		if r.Intn(8) == 0 {
			return nil
		}
		switch j {
		case 0:
			return int64(r.Intn(50))
		case 1, 4:
			if r.Intn(3) == 0 {
				return types.Timestamp(tsVals[r.Intn(len(tsVals))])
			}
			return types.Timestamp(int64(r.Intn(20_000_000)) - 5_000_000)
		case 2:
			return []string{"", "a", "é", "xyz"}[r.Intn(4)]
		}
		return []int64{0, 1, -7, math.MaxInt32, math.MinInt32, int64(r.Intn(100))}[r.Intn(6)]
	}
	nullCol := -1 // a column of NULLs only in a chunk, as scans make unread columns
	row := func() trow {
		out := make(trow, len(exTypes))
		for j := range out {
			if j != nullCol {
				out[j] = val(j)
			}
		}
		return out
	}
	var msgs []Message
	for k := range 5 {
		nullCol = r.Intn(2 * len(exTypes))
		b := chunk.NewBuilderWith(mem, exTypes)
		for range 1 + r.Intn([]int{3, 70, 400}[r.Intn(3)]) {
			switch r.Intn(5) {
			case 0:
				b.Append(chunk.UpdateDelete, row())
				b.Append(chunk.UpdateInsert, row())
			case 1:
				b.Append(chunk.Delete, row())
			default:
				b.Append(chunk.Insert, row())
			}
		}
		msgs = append(msgs, Message{Chunk: b.Build()}, barrierMsg(uint64(k)))
		if k == 2 {
			msgs = append(msgs, Message{Chunk: b.Build()}) // no rows
		}
		b.Release()
	}
	return msgs
}

// exProjections returns np random projection lists over exTypes, with
// the output types: each output column is, in each projection, one of a
// few expressions of its type: the input column (repeated when all
// projections pass it), NULL, kernels (HOP's window bounds, arithmetic
// that overflows or divides by zero, ||, comparisons) and expressions
// the row evaluator evaluates (abs, upper, date_trunc).
func exProjections(t *testing.T, r *rand.Rand, np int) ([][]expr.Expr, []types.Type) {
	col := func(i int) expr.Expr { return expr.NewColumn(i, exTypes[i], fmt.Sprintf("c%d", i)) }
	must := func(e expr.Expr, err error) expr.Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ivl := func(us int64) expr.Expr { return expr.NewConst(types.Interval{Micros: us}, types.TInterval) }
	i32 := func(v int64) expr.Expr { return expr.NewConst(v, types.TInt32) }
	slide := []int64{2_000_000, 1, 3_000_000}[r.Intn(3)]
	size := slide * int64(1+r.Intn(5))
	window := func(k int, end bool) expr.Expr {
		start := must(expr.Func("tumble_start", []expr.Expr{col(1), ivl(slide)}))
		start = must(expr.Binary("-", start, ivl(int64(k)*slide)))
		if end {
			return must(expr.Binary("+", start, ivl(size)))
		}
		return start
	}
	outTypes := []types.Type{types.TInt64, types.TTimestamp, types.TText, types.TInt32, types.TTimestampTZ,
		types.TTimestamp, types.TTimestamp, types.TInt32, types.TBool, types.TText, types.TInt64}
	choices := func(j, k int) []expr.Expr {
		null := expr.NewConst(nil, outTypes[j])
		switch j {
		case 0, 1, 2, 4:
			return []expr.Expr{col(j), col(j), col(j), null}
		case 3:
			return []expr.Expr{col(3), col(3), null, must(expr.Func("abs", []expr.Expr{col(3)}))}
		case 5:
			return []expr.Expr{window(k, false), window(k, false), must(expr.Binary("-", col(1), expr.NewConst(types.Interval{Months: 1}, types.TInterval)))}
		case 6:
			return []expr.Expr{window(k, true), window(k, true), must(expr.Func("date_trunc", []expr.Expr{expr.NewConst("hour", types.TText), col(1)}))}
		case 7:
			return []expr.Expr{must(expr.Binary("/", i32(10), col(3))), must(expr.Binary("*", col(3), i32(1000))), i32(int64(k)), null}
		case 8:
			return []expr.Expr{must(expr.Binary(">", col(3), i32(0))), null}
		case 9:
			return []expr.Expr{must(expr.Binary("||", col(2), expr.NewConst("x", types.TText))), must(expr.Func("upper", []expr.Expr{col(2)})), null}
		}
		return []expr.Expr{must(expr.Binary("+", col(0), expr.NewConst(int64(math.MaxInt64-40), types.TInt64))), col(0)}
	}
	projs := make([][]expr.Expr, np)
	fixed := make([]bool, len(outTypes)) // the same choice in every projection
	pick := make([]int, len(outTypes))
	for j := range outTypes {
		fixed[j] = r.Intn(2) == 0
		pick[j] = r.Intn(len(choices(j, 0)))
	}
	for k := range projs {
		projs[k] = make([]expr.Expr, len(outTypes))
		for j := range outTypes {
			cs := choices(j, k)
			if fixed[j] {
				projs[k][j] = cs[pick[j]]
			} else {
				projs[k][j] = cs[r.Intn(len(cs))]
			}
		}
	}
	return projs, outTypes
}

// exDrain renders every message of ex (a chunk as its changes, ops and
// values, a barrier as its epoch) up to the first error other than the
// script's end.
func exDrain(ex Executor) ([]string, error) {
	var out []string
	for {
		m, err := ex.Next(context.Background())
		if errors.Is(err, errScriptEnd) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if m.Barrier != nil {
			out = append(out, fmt.Sprintf("|%d", m.Barrier.Prev))
			continue
		}
		var b strings.Builder
		for i := 0; i < m.Chunk.NumRows(); i++ {
			b.WriteString(m.Chunk.Op(i).String())
			b.WriteString(rowKey(m.Chunk.Row(i, nil)))
			b.WriteByte(';')
		}
		out = append(out, b.String())
		m.Chunk.Release()
	}
}

// TestExpandDifferential compares Expand with the row-at-a-time
// reference over random changes and projection lists: the same rows in
// the same order with the same ops, the same first error, and, for
// guarded expressions, the same errors reaching the sink in the same
// order; every buffer from the checked allocator is released once.
func TestExpandDifferential(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 60
	}
	errs, guarded := 0, 0
	for seed := range int64(iters) {
		r := rand.New(rand.NewSource(seed))
		np := []int{1, 2, 5, 6}[r.Intn(4)]
		projs, outTypes := exProjections(t, r, np)
		guard := r.Intn(2) == 0
		var wantSink, gotSink errorList
		wantProjs, gotProjs := projs, projs
		if guard {
			wantProjs, gotProjs = make([][]expr.Expr, np), make([][]expr.Expr, np)
			for k, p := range projs {
				wantProjs[k], gotProjs[k] = expr.GuardAll(p, &wantSink), expr.GuardAll(p, &gotSink)
			}
		}
		ref := &rowExpand{in: &scriptExec{typs: exTypes, msgs: exScript(memory.DefaultAllocator, seed)},
			projs: wantProjs, typs: outTypes, b: chunk.NewBuilder(outTypes)}
		want, wantErr := exDrain(ref)

		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		script := &scriptExec{typs: exTypes, msgs: exScript(mem, seed)}
		e := NewExpand(script, gotProjs, outTypes)
		e.setAllocator(mem)
		got, gotErr := exDrain(e)
		e.release()
		for _, m := range script.msgs { // those after an error
			if m.Chunk != nil {
				m.Chunk.Release()
			}
		}
		mem.AssertSize(t, 0)

		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("seed %d: error %v, want %v", seed, gotErr, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d (%d projections): got %d chunks, want %d; they differ", seed, np, len(got), len(want))
		}
		if !slices.Equal(gotSink, wantSink) {
			t.Fatalf("seed %d: sink got %d errors, want %d", seed, len(gotSink), len(wantSink))
		}
		if wantErr != nil {
			errs++
		}
		guarded += len(wantSink)
	}
	if errs < iters/10 || guarded < iters {
		t.Fatalf("too little exercised: %d errors, %d guarded errors", errs, guarded)
	}
	t.Logf("%d errors, %d guarded errors", errs, guarded)
}

// TestExpandHopVectorized checks that the expressions of a HOP compile
// to kernels, that its pass-through columns are repeated from the input
// and not evaluated, and the rows' order: each input row's windows in
// order, then the next row's.
func TestExpandHopVectorized(t *testing.T) {
	col := func(i int) expr.Expr { return expr.NewColumn(i, exTypes[i], fmt.Sprintf("c%d", i)) }
	ivl := func(us int64) expr.Expr { return expr.NewConst(types.Interval{Micros: us}, types.TInterval) }
	var projs [][]expr.Expr
	for k := range 3 {
		start, err := expr.Func("tumble_start", []expr.Expr{col(1), ivl(10)})
		if err != nil {
			t.Fatal(err)
		}
		if start, err = expr.Binary("-", start, ivl(int64(k)*10)); err != nil {
			t.Fatal(err)
		}
		end, err := expr.Binary("+", start, ivl(30))
		if err != nil {
			t.Fatal(err)
		}
		projs = append(projs, expr.GuardAll([]expr.Expr{col(0), col(1), start, end}, &errorList{}))
	}
	outTypes := []types.Type{types.TInt64, types.TTimestamp, types.TTimestamp, types.TTimestamp}
	in := chunkMsg(exTypes, ins(int64(1), types.Timestamp(25), "a", int64(0), nil),
		change{chunk.UpdateDelete, trow{int64(2), types.Timestamp(-1), "b", nil, nil}},
		change{chunk.UpdateInsert, trow{int64(2), types.Timestamp(40), "b", nil, nil}})
	e := NewExpand(&scriptExec{typs: exTypes, msgs: []Message{in}}, projs, outTypes)
	if !slices.Equal(e.repeat, []int{0, 1, -1, -1}) {
		t.Fatalf("repeated columns %v", e.repeat)
	}
	for k, p := range e.vecs {
		if p.Vectorized() != 2 {
			t.Fatalf("projection %d: %d kernels, want 2", k, p.Vectorized())
		}
	}
	got := drain(t, e)
	want := []string{
		"+ (1, 25, 20, 50)", "+ (1, 25, 10, 40)", "+ (1, 25, 0, 30)",
		"- (2, -1, -10, 20)", "- (2, -1, -20, 10)", "- (2, -1, -30, 0)",
		"+ (2, 40, 40, 70)", "+ (2, 40, 30, 60)", "+ (2, 40, 20, 50)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
