package batch

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// chunkList is an executor yielding fixed chunks (each retained once per
// run, so that a list can be read again).
type chunkList struct {
	ts     []types.Type
	chunks []*chunk.Chunk
	pos    int
}

func (l *chunkList) Types() []types.Type { return l.ts }
func (l *chunkList) Close() error        { return nil }

func (l *chunkList) Next(context.Context) (*chunk.Chunk, error) {
	if l.pos == len(l.chunks) {
		return nil, nil
	}
	c := l.chunks[l.pos]
	l.pos++
	c.Retain()
	return c, nil
}

var vecTypes = []types.Type{i64, text, types.TDate}

// vecChunks returns n rows of (a bigint, b text, d date) in chunks of
// ChunkSize, a fifth of them NULL.
func vecChunks(n int, seed int64) []*chunk.Chunk {
	r := rand.New(rand.NewSource(seed))
	words := []string{"x", "y", "", "é", "xx"}
	var out []*chunk.Chunk
	for lo := 0; lo < n; lo += ChunkSize {
		rows := make([][]types.Datum, min(ChunkSize, n-lo))
		for i := range rows {
			rows[i] = []types.Datum{int64(r.Intn(1000)), words[r.Intn(len(words))], types.Date(19000 + r.Intn(365))}
			if r.Intn(5) == 0 {
				rows[i][r.Intn(3)] = nil
			}
		}
		out = append(out, chunk.FromRows(vecTypes, chunk.Insert, rows))
	}
	return out
}

func mustExpr(e expr.Expr, err error) expr.Expr {
	if err != nil {
		panic(err)
	}
	return e
}

// vecConds are conditions package vec compiles: a > 500 AND b <> 'x',
// a date range, and an IN list.
func vecConds() map[string]expr.Expr {
	a := expr.NewColumn(0, i64, "a")
	b := expr.NewColumn(1, text, "b")
	d := expr.NewColumn(2, types.TDate, "d")
	lit := func(s string) expr.Expr { return expr.NewConst(s, types.TUnknown) }
	gt := mustExpr(expr.Binary(">", a, expr.NewConst(int64(500), i32)))
	ne := mustExpr(expr.Binary("<>", b, lit("x")))
	from := mustExpr(expr.Binary(">=", d, lit("2022-03-01")))
	to := mustExpr(expr.Binary("<", d, lit("2022-06-01")))
	in := mustExpr(expr.In(a, []expr.Expr{expr.NewConst(int64(1), i32), expr.NewConst(int64(7), i32), expr.NewConst(nil, i32)}, false))
	return map[string]expr.Expr{
		"int_and_text": mustExpr(expr.Binary("AND", gt, ne)),
		"date_range":   mustExpr(expr.Binary("AND", from, to)),
		"in_list":      in,
		"all":          mustExpr(expr.Binary("OR", expr.IsNull(a, true), expr.IsNull(a, false))),
		"none":         mustExpr(expr.Binary("<", a, expr.NewConst(int64(-1), i32))),
	}
}

// TestFilterVectorized checks that the vectorized filter returns the rows
// the row filter does, chunk by chunk.
func TestFilterVectorized(t *testing.T) {
	chunks := vecChunks(5000, 1)
	defer func() {
		for _, c := range chunks {
			c.Release()
		}
	}()
	for name, cond := range vecConds() {
		t.Run(name, func(t *testing.T) {
			vf := NewFilter(&chunkList{ts: vecTypes, chunks: chunks}, cond)
			if vf.pred == nil {
				t.Fatalf("%s did not compile", cond)
			}
			rf := NewFilter(&chunkList{ts: vecTypes, chunks: chunks}, cond)
			rf.pred = nil
			got, want := run(t, vf), run(t, rf)
			if got != want {
				t.Fatalf("%s: vectorized and row filters differ", cond)
			}
		})
	}
}

// TestFilterVectorizedPassesWholeChunks checks that a chunk whose rows
// all pass is handed on, not copied.
func TestFilterVectorizedPassesWholeChunks(t *testing.T) {
	chunks := vecChunks(100, 2)
	defer chunks[0].Release()
	f := NewFilter(&chunkList{ts: vecTypes, chunks: chunks}, vecConds()["all"])
	c, err := f.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c != chunks[0] {
		t.Fatal("the chunk was copied")
	}
	c.Release()
}

// TestFilterVectorizedError checks that an overflow fails the filter with
// the row evaluator's error.
func TestFilterVectorizedError(t *testing.T) {
	chunks := vecChunks(100, 3)
	defer chunks[0].Release()
	a := expr.NewColumn(0, i64, "a")
	mul := mustExpr(expr.Binary("*", a, expr.NewConst(int64(1)<<60, i64)))
	cond := mustExpr(expr.Binary(">", mul, expr.NewConst(int64(0), i32)))
	f := NewFilter(&chunkList{ts: vecTypes, chunks: chunks}, cond)
	if f.pred == nil {
		t.Fatal("did not compile")
	}
	_, err := f.Next(context.Background())
	if fmt.Sprint(err) != "bigint out of range" {
		t.Fatalf("err %v, want bigint out of range", err)
	}
}

// BenchmarkFilter filters 1M rows a row at a time and vectorized:
//
//	go test -run XXX -bench BenchmarkFilter -benchmem ./exec/batch/
func BenchmarkFilter(b *testing.B) {
	const n = 1 << 20
	chunks := vecChunks(n, 1)
	defer func() {
		for _, c := range chunks {
			c.Release()
		}
	}()
	for _, name := range []string{"int_and_text", "date_range", "in_list"} {
		cond := vecConds()[name]
		for _, mode := range []string{"row", "vec"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				for b.Loop() {
					f := NewFilter(&chunkList{ts: vecTypes, chunks: chunks}, cond)
					if mode == "row" {
						f.pred = nil
					}
					for {
						c, err := f.Next(context.Background())
						if err != nil {
							b.Fatal(err)
						}
						if c == nil {
							break
						}
						c.Release()
					}
					f.Close()
				}
			})
		}
	}
}
