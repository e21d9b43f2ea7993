package stream

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

var pvTypes = []types.Type{types.TInt32, types.TText, types.TFloat64}

// pvScript returns a script of chunks of random changes (updates as
// pairs) with buffers from mem, and barriers between them; the rows are
// also returned with their ops, in order.
func pvScript(mem memory.Allocator, chunks int, seed int64) ([]Message, []change) {
	r := rand.New(rand.NewSource(seed))
	var msgs []Message
	var all []change
	for k := range chunks {
		b := chunk.NewBuilderWith(mem, pvTypes)
		for range 1 + r.Intn(700) {
			row := trow{int64(r.Intn(200) - 100), []string{"a", "", "é", "xyz"}[r.Intn(4)], float64(r.Intn(9)) / 4}
			if r.Intn(6) == 0 {
				row[r.Intn(3)] = nil
			}
			op := []chunk.Op{chunk.Insert, chunk.Delete}[r.Intn(2)]
			b.Append(op, row)
			all = append(all, change{op, row})
		}
		msgs = append(msgs, Message{Chunk: b.Build()})
		if k%2 == 1 {
			msgs = append(msgs, barrierMsg(uint64(k)))
		}
	}
	b := chunk.NewBuilderWith(mem, pvTypes) // an empty chunk
	msgs = append(msgs, Message{Chunk: b.Build()})
	b.Release()
	return msgs, all
}

// pvExprs mixes kernels, a column passed through and a row-evaluated
// expression (abs).
func pvExprs(t *testing.T) []expr.Expr {
	a := expr.NewColumn(0, types.TInt32, "a")
	s := expr.NewColumn(1, types.TText, "s")
	f := expr.NewColumn(2, types.TFloat64, "f")
	must := func(e expr.Expr, err error) expr.Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	k := func(v int64) expr.Expr { return expr.NewConst(v, types.TInt32) }
	return []expr.Expr{
		s,
		must(expr.Binary("*", a, k(3))),
		must(expr.Func("abs", []expr.Expr{a})),
		must(expr.Case(nil, []expr.Expr{must(expr.Binary("<>", a, k(0)))}, []expr.Expr{must(expr.Binary("/", f, must(expr.Cast(a, types.TFloat64))))}, nil)),
		must(expr.Func("concat", []expr.Expr{s, a})),
	}
}

// TestProjectVectorizedChecked runs a projection over chunks from a
// checked allocator and compares its changes with the row evaluator's:
// every buffer, the input columns passed through included, is released
// exactly once.
func TestProjectVectorizedChecked(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	msgs, all := pvScript(mem, 6, 1)
	exprs := pvExprs(t)
	p := NewProject(&scriptExec{typs: pvTypes, msgs: msgs}, exprs)
	p.setAllocator(mem)
	if p.proj.Vectorized() != 3 {
		t.Fatalf("vectorized %d expressions, want 3", p.proj.Vectorized())
	}
	var want []string
	for _, ch := range all {
		out := make(trow, len(exprs))
		for j, e := range exprs {
			var err error
			if out[j], err = e.Eval(ch.row); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, changeStrings([]change{{ch.op, out}})...)
	}
	var got []string
	for _, s := range drain(t, p) {
		if s[0] != '|' {
			got = append(got, s)
		}
	}
	p.proj.Close()
	if !slices.Equal(got, want) {
		t.Fatalf("got %d changes, want %d; they differ", len(got), len(want))
	}
}

// TestProjectVectorizedFirstError checks the error of the first row in
// row order is raised, with the expression that raised it, whether a
// kernel or the row evaluator found it, and that nothing leaks.
func TestProjectVectorizedFirstError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := chunk.NewBuilderWith(mem, pvTypes)
	for _, r := range []trow{{int64(2), "a", 1.0}, {int64(0), "b", 2.0}, {int64(-1), "c", 3.0}} {
		b.Append(chunk.Insert, r)
	}
	c := b.Build()
	b.Release()
	a := expr.NewColumn(0, types.TInt32, "a")
	div, _ := expr.Binary("/", expr.NewConst(int64(1), types.TInt32), a)
	sqrt, _ := expr.Func("sqrt", []expr.Expr{expr.NewColumn(2, types.TFloat64, "f")})
	p := NewProject(&scriptExec{typs: pvTypes, msgs: []Message{{Chunk: c}}}, []expr.Expr{sqrt, div})
	p.setAllocator(mem)
	_, err := p.Next(context.Background())
	if err == nil || err.Error() != fmt.Sprintf("stream: project %s: division by zero", div) {
		t.Fatalf("err %v", err)
	}
	p.proj.Close()
}

// TestFilterVectorizedChecked runs the stream filter over chunks from a
// checked allocator: each input chunk is released exactly once.
func TestFilterVectorizedChecked(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	msgs, _ := pvScript(mem, 6, 2)
	cond, err := expr.Binary(">", expr.NewColumn(0, types.TInt32, "a"), expr.NewConst(int64(0), types.TInt32))
	if err != nil {
		t.Fatal(err)
	}
	f := NewFilter(&scriptExec{typs: pvTypes, msgs: msgs}, cond)
	for {
		m, err := f.Next(context.Background())
		if errors.Is(err, errScriptEnd) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Chunk != nil {
			m.Chunk.Release()
		}
	}
}
