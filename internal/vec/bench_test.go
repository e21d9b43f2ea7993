package vec

import (
	"math/rand"
	"testing"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

var benchTypes = []types.Type{types.TInt64, types.TText, types.TDate}

// benchChunks returns 1M rows of (a bigint, b text, d date) in chunks of
// 1024 rows, a tenth of each column NULL.
func benchChunks() []*chunk.Chunk {
	r := rand.New(rand.NewSource(1))
	words := []string{"x", "y", "", "é", "xx", "abc"}
	var out []*chunk.Chunk
	for range 1024 {
		rows := make([][]types.Datum, 1024)
		for i := range rows {
			rows[i] = []types.Datum{int64(r.Intn(1000)), words[r.Intn(len(words))], types.Date(19000 + r.Intn(365))}
			if r.Intn(10) < 3 {
				rows[i][r.Intn(3)] = nil
			}
		}
		out = append(out, chunk.FromRows(benchTypes, chunk.Insert, rows))
	}
	return out
}

func must(e expr.Expr, err error) expr.Expr {
	if err != nil {
		panic(err)
	}
	return e
}

// BenchmarkSelect evaluates conditions over 1M rows a row at a time
// (Eval over chunk.Row) and with the kernels (Select):
//
//	go test -run XXX -bench Select -benchmem ./internal/vec/
func BenchmarkSelect(b *testing.B) {
	chunks := benchChunks()
	a := expr.NewColumn(0, types.TInt64, "a")
	s := expr.NewColumn(1, types.TText, "b")
	d := expr.NewColumn(2, types.TDate, "d")
	lit := func(v string) expr.Expr { return expr.NewConst(v, types.TUnknown) }
	conds := []struct {
		name string
		e    expr.Expr
	}{
		{"int_and_text", must(expr.Binary("AND",
			must(expr.Binary(">", a, expr.NewConst(int64(500), types.TInt32))),
			must(expr.Binary("<>", s, lit("x")))))},
		{"date_range", must(expr.Binary("AND",
			must(expr.Binary(">=", d, lit("2022-03-01"))),
			must(expr.Binary("<", d, lit("2022-06-01")))))},
		{"arith", must(expr.Binary(">", must(expr.Binary("*", a, expr.NewConst(int64(3), types.TInt32))), expr.NewConst(int64(1500), types.TInt32)))},
	}
	for _, c := range conds {
		b.Run(c.name+"/row", func(b *testing.B) {
			var row []types.Datum
			var sel []int
			for b.Loop() {
				for _, ch := range chunks {
					sel = sel[:0]
					for i := 0; i < ch.NumRows(); i++ {
						row = ch.Row(i, row)
						if v, _ := c.e.Eval(row); v == true {
							sel = append(sel, i)
						}
					}
				}
			}
		})
		b.Run(c.name+"/vec", func(b *testing.B) {
			p, ok := Compile(c.e, benchTypes)
			if !ok {
				b.Fatal("not compiled")
			}
			var sel []int
			for b.Loop() {
				for _, ch := range chunks {
					var err error
					if sel, err = p.Select(ch, sel); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
