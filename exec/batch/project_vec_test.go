package batch

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// checkedChunks returns n rows of (a bigint, b text, d date) as vecChunks
// does, with buffers from mem.
func checkedChunks(mem memory.Allocator, n int, seed int64) []*chunk.Chunk {
	var out []*chunk.Chunk
	for _, c := range vecChunks(n, seed) {
		b := chunk.NewBuilderWith(mem, vecTypes)
		for _, row := range c.Rows() {
			b.Append(chunk.Insert, row)
		}
		c.Release()
		cc := b.Build()
		cc.Ops = nil
		b.Release()
		out = append(out, cc)
	}
	return out
}

// vecProjections are projections mixing kernels, a column passed
// through and an expression evaluated a row at a time (abs).
func vecProjections() map[string][]expr.Expr {
	a := expr.NewColumn(0, i64, "a")
	b := expr.NewColumn(1, text, "b")
	d := expr.NewColumn(2, types.TDate, "d")
	k := func(v int64) expr.Expr { return expr.NewConst(v, i32) }
	arith := mustExpr(expr.Binary("+", mustExpr(expr.Binary("*", a, k(3))), k(7)))
	safeDiv := mustExpr(expr.Case(nil, []expr.Expr{mustExpr(expr.Binary("<>", a, k(0)))},
		[]expr.Expr{mustExpr(expr.Binary("/", k(1000), a))}, k(-1)))
	concat := mustExpr(expr.Binary("||", b, mustExpr(expr.Cast(a, text))))
	year := mustExpr(expr.Func("date_part", []expr.Expr{expr.NewConst("year", text), d}))
	abs := mustExpr(expr.Func("abs", []expr.Expr{a}))
	return map[string][]expr.Expr{
		"arith":    {arith},
		"case_div": {safeDiv, a},
		"strings":  {concat, mustExpr(expr.Func("coalesce", []expr.Expr{b, expr.NewConst("none", text)}))},
		"mixed":    {abs, arith, d, year, mustExpr(expr.Binary(">", a, k(500)))},
	}
}

// drainRows runs ex to the end and returns its rows, releasing every
// chunk.
func drainRows(t testing.TB, ex Executor) [][]types.Datum {
	var rows [][]types.Datum
	for {
		c, err := ex.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			return rows
		}
		rows = append(rows, c.Rows()...)
		c.Release()
	}
}

// TestProjectVectorized checks the projection's rows against the row
// evaluator's, with every buffer from a checked allocator: inputs,
// outputs and the columns passed through are all released, once.
func TestProjectVectorized(t *testing.T) {
	for name, exprs := range vecProjections() {
		t.Run(name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			chunks := checkedChunks(mem, 3000, 5)
			var want [][]types.Datum
			for _, c := range chunks {
				for _, row := range c.Rows() {
					out := make([]types.Datum, len(exprs))
					for j, e := range exprs {
						var err error
						if out[j], err = e.Eval(row); err != nil {
							t.Fatal(err)
						}
					}
					want = append(want, out)
				}
			}
			ts := make([]types.Type, len(exprs))
			for j, e := range exprs {
				ts[j] = e.Type()
			}
			p := NewProject(&chunkList{ts: vecTypes, chunks: chunks}, exprs, ts)
			p.setAllocator(mem)
			got := drainRows(t, p)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				c.Release()
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rows differ from the row evaluator's")
			}
		})
	}
}

// TestProjectVectorizedError checks the first error in row order wins,
// across vectorized and row-evaluated columns, and nothing leaks.
func TestProjectVectorizedError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows := [][]types.Datum{{int64(4), "x", nil}, {int64(0), "y", nil}, {int64(-5), "z", nil}}
	b := chunk.NewBuilderWith(mem, vecTypes)
	for _, r := range rows {
		b.Append(chunk.Insert, r)
	}
	c := b.Build()
	b.Release()
	a := expr.NewColumn(0, i64, "a")
	div := mustExpr(expr.Binary("/", expr.NewConst(int64(10), i64), a))
	// sqrt of a negative fails a row later than the division, and is
	// evaluated a row at a time.
	sqrt := mustExpr(expr.Func("sqrt", []expr.Expr{mustExpr(expr.Cast(a, types.TFloat64))}))
	p := NewProject(&chunkList{ts: vecTypes, chunks: []*chunk.Chunk{c}}, []expr.Expr{sqrt, div}, []types.Type{types.TFloat64, i64})
	p.setAllocator(mem)
	_, err := p.Next(context.Background())
	if fmt.Sprint(err) != "division by zero" {
		t.Fatalf("err %v, want division by zero", err)
	}
	p.Close()
	c.Release()
}

// TestFilterCheckedAllocator runs the vectorized and row filters over
// chunks from a checked allocator: each input chunk is released once,
// whether it is handed on whole, copied from or dropped.
func TestFilterCheckedAllocator(t *testing.T) {
	for name, cond := range vecConds() {
		for _, vectorized := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/vec=%v", name, vectorized), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				chunks := checkedChunks(mem, 3000, 6)
				f := NewFilter(&chunkList{ts: vecTypes, chunks: chunks}, cond)
				if !vectorized {
					f.pred = nil
				}
				drainRows(t, f)
				f.Close()
				for _, c := range chunks {
					c.Release()
				}
			})
		}
	}
}

// BenchmarkProject projects 1M rows in chunks of 1024, a row at a time
// (the kernels disabled) and vectorized:
//
//	go test -run XXX -bench BenchmarkProject -benchmem ./exec/batch/
func BenchmarkProject(b *testing.B) {
	const n = 1 << 20
	chunks := vecChunks(n, 1)
	defer func() {
		for _, c := range chunks {
			c.Release()
		}
	}()
	for _, name := range []string{"arith", "case_div", "strings"} {
		exprs := vecProjections()[name]
		ts := make([]types.Type, len(exprs))
		for j, e := range exprs {
			ts[j] = e.Type()
		}
		for _, mode := range []string{"row", "vec"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				run := exprs
				if mode == "row" {
					run = rowOnly(exprs)
				}
				for b.Loop() {
					p := NewProject(&chunkList{ts: vecTypes, chunks: chunks}, run, ts)
					for {
						c, err := p.Next(context.Background())
						if err != nil {
							b.Fatal(err)
						}
						if c == nil {
							break
						}
						c.Release()
					}
					p.Close()
				}
			})
		}
	}
}

// rowOnly hides each expression from the kernels (a Native wrapper the
// compiler does not know), so that it is evaluated a row at a time as
// before vectorization.
func rowOnly(es []expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(es))
	for i, e := range es {
		out[i] = opaque{e}
	}
	return out
}

// opaque is an expression package vec does not compile.
type opaque struct{ expr.Expr }

func (o opaque) WithChildren(ch []expr.Expr) expr.Expr { return opaque{o.Expr.WithChildren(ch)} }
