package vec

import (
	"math/rand"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// BenchmarkNumericProjection projects numeric / % and casts over a
// 4096-row chunk of (price bigint, amount numeric with two decimals),
// a row at a time (Eval and a chunk.Builder, as Projection.Columns does
// for what does not compile) and with the kernels:
//
//	go test -run XXX -bench NumericProjection -benchmem ./internal/vec/
func BenchmarkNumericProjection(b *testing.B) {
	ts := []types.Type{types.TInt64, types.TNumeric}
	r := rand.New(rand.NewSource(1))
	rows := make([][]types.Datum, 4096)
	for i := range rows {
		rows[i] = []types.Datum{int64(r.Intn(10_000_000)), apd.New(int64(r.Intn(100_000_000)), -2)}
	}
	ch := chunk.FromRows(ts, chunk.Insert, rows)
	defer ch.Release()
	price := expr.NewColumn(0, types.TInt64, "price")
	amount := expr.NewColumn(1, types.TNumeric, "amount")
	k := func(v int64, exp int32) expr.Expr { return expr.NewConst(apd.New(v, exp), types.TNumeric) }
	cases := []struct {
		name string
		e    expr.Expr
	}{
		{"0.908*price/3", must(expr.Binary("/", must(expr.Binary("*", k(908, -3), price)), k(3, 0)))},
		{"amount%7", must(expr.Binary("%", amount, k(7, 0)))},
		{"price::numeric(10,2)", must(expr.Cast(price, types.Type{ID: types.IDNumeric, Precision: 10, Scale: 2}))},
		{"amount::numeric(10,1)", must(expr.Cast(amount, types.Type{ID: types.IDNumeric, Precision: 10, Scale: 1}))},
		{"amount::float8", must(expr.Cast(amount, types.TFloat64))},
		{"round(amount)", must(expr.Func("round", []expr.Expr{amount}))},
	}
	for _, c := range cases {
		b.Run(c.name+"/row", func(b *testing.B) {
			bld := chunk.NewBuilder([]types.Type{c.e.Type()})
			defer bld.Release()
			var row []types.Datum
			out := make([]types.Datum, 1)
			for b.Loop() {
				for i := 0; i < ch.NumRows(); i++ {
					row = ch.Row(i, row)
					v, err := c.e.Eval(row)
					if err != nil {
						b.Fatal(err)
					}
					out[0] = v
					bld.Append(chunk.Insert, out)
				}
				bld.Build().Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ch.NumRows()), "ns/row")
		})
		b.Run(c.name+"/vec", func(b *testing.B) {
			p := CompileProjection([]expr.Expr{c.e}, ts, nil)
			defer p.Close()
			if p.Vectorized() != 1 {
				b.Fatal("not compiled")
			}
			for b.Loop() {
				cols, _, err := p.Columns(ch)
				if err != nil {
					b.Fatal(err)
				}
				cols[0].Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ch.NumRows()), "ns/row")
		})
	}
}
