package vec

import (
	"math/rand"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// numericEdges are the numerics the generator draws now and then: NaN,
// the infinities, zeros of several scales (and a negative zero),
// coefficients at and past 64 bits, and positive exponents (negative
// scales), which a constant keeps and a column holds expanded.
var numericEdges = func() []*apd.Decimal {
	big := func(s string) *apd.Decimal {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	return []*apd.Decimal{
		{Form: apd.NaN}, {Form: apd.Infinite}, {Form: apd.Infinite, Negative: true},
		apd.New(0, 0), apd.New(0, -2), apd.New(0, -7), {Negative: true, Exponent: -1},
		big("18446744073709551615"), big("18446744073709551616"), big("-18446744073709551615.5"),
		big("9223372036854775807"), big("-9223372036854775808"), big("4294967296"), big("4294967295.123"),
		big("123456789012345678901234567890.123456789"), big("1e-30"), big("-1e-19"), big("0.0000000000000000001"),
		apd.New(5, 3), apd.New(-12, 2), apd.New(1, 18), apd.New(7, 40),
		apd.New(908, -3), apd.New(-1, -1),
	}
}()

// numeric returns a random numeric: small values of a few scales, now
// and then an edge.
func (g *gen) numeric() *apd.Decimal {
	switch g.pick(10) {
	case 0, 1:
		return numericEdges[g.pick(len(numericEdges))]
	case 2:
		return apd.New(g.r.Int63()-g.r.Int63(), int32(-g.pick(25)))
	case 3: // near zero: divisors whose quotients need many digits
		return apd.New(int64(g.pick(3)-1)*int64(1+g.pick(9)), int32(-g.pick(22)))
	case 4: // halves, where rounding directions differ
		return apd.New(int64(g.pick(2)*2-1)*int64(10*g.pick(100)+5), int32(-1-g.pick(3)))
	}
	return apd.New(int64(g.pick(2001)-1000), int32(-g.pick(4)))
}

// TestNumericKernels compares numeric expressions (+ - * of columns,
// constants and cast integers, comparisons, CASE, COALESCE) compiled to
// kernels with the row evaluator on random chunks rich in numeric edges:
// the output bytes, NULLs and errors must be the same.
func TestNumericKernels(t *testing.T) {
	iters := 1500
	if testing.Short() {
		iters = 300
	}
	var st projStats
	for seed := range iters {
		g := &gen{r: rand.New(rand.NewSource(int64(seed)))}
		c := g.chunk([]int{1, 7, 64, 65, 130}[g.pick(5)])
		for range 3 {
			exprs := make([]expr.Expr, 1+g.pick(3))
			for j := range exprs {
				if g.pick(3) == 0 {
					exprs[j] = g.boolValue(3)
				} else {
					exprs[j] = g.valueOf(kNumeric, 3)
				}
			}
			checkProjection(t, exprs, c, g.pick(4) == 0, &st)
		}
		cond := g.boolValue(3)
		check(t, cond, c)
		c.Release()
	}
	if st.compiled < st.total/2 {
		t.Fatalf("too little compiled: %+v", st)
	}
	t.Logf("%+v", st)
}

// TestNumericNexmarkQ1 is Nexmark q1's projection, 0.908 * price over
// bigints of every size: it compiles, and gives the row evaluator's
// bytes (scale 3, the product exact).
func TestNumericNexmarkQ1(t *testing.T) {
	ts := []types.Type{types.TInt64}
	var rows [][]types.Datum
	for _, v := range []int64{0, 1, -1, 1000, 123456789, 1 << 62, -1 << 63, 1<<63 - 1} {
		rows = append(rows, []types.Datum{v})
	}
	rows = append(rows, []types.Datum{nil})
	c := chunk.FromRows(ts, chunk.Insert, rows)
	defer c.Release()
	e := mustBinary(t, "*", expr.NewConst(apd.New(908, -3), types.TNumeric), expr.NewColumn(0, types.TInt64, "price"))
	if p := CompileProjection([]expr.Expr{e}, ts, nil); p.Vectorized() != 1 {
		t.Fatal("0.908 * bigint did not compile")
	}
	checkProjection(t, []expr.Expr{e}, c, false, &projStats{})
}

// FuzzNumericKernels is TestNumericKernels driven by the fuzzer.
func FuzzNumericKernels(f *testing.F) {
	for _, s := range []int64{0, 1, 42, 1 << 40} {
		f.Add(s, uint8(3), uint16(65))
	}
	f.Fuzz(func(t *testing.T, seed int64, depth uint8, n uint16) {
		g := &gen{r: rand.New(rand.NewSource(seed))}
		c := g.chunk(1 + int(n)%512)
		defer c.Release()
		exprs := []expr.Expr{g.valueOf(kNumeric, int(depth%5)), g.boolValue(int(depth % 5))}
		checkProjection(t, exprs, c, seed%2 == 0, &projStats{})
	})
}

// numericTexts are the texts numericText casts to numeric: plain
// decimals the kernel reads, and those it leaves to the row evaluator
// (spaces, exponents, too many digits, words, bad syntax).
var numericTexts = []string{"0", "-0", "007", "12.50", "-0.000", "123456789012345678", "1234567890123456789",
	"12345678901234567890", "99999.995", "-4.5", "0.0000000000000000005", " 1.5 ", "1e3", "+2", ".5", "5.",
	"NaN", "-Infinity", "abc", "", "1.2.3", "--1"}

// numericText returns a text expression to cast to numeric: a constant
// of numericTexts or, now and then, a text column (mostly not a number:
// 22P02).
func (g *gen) numericText() expr.Expr {
	if g.pick(5) == 0 {
		return g.col(g.colOf(func(t types.Type) bool { return t.ID == types.IDText }))
	}
	return expr.NewConst(numericTexts[g.pick(len(numericTexts))], types.TText)
}

// numericScale returns the scale argument of round and trunc: a small
// constant, a far one, or an integer column.
func (g *gen) numericScale(depth int) expr.Expr {
	switch g.pick(4) {
	case 0:
		return g.valueOf(kInt, depth)
	case 1:
		return expr.NewConst(int64([]int{-2000, -25, 25, 1001}[g.pick(4)]), types.TInt32)
	}
	return expr.NewConst(int64(g.pick(12)-4), types.TInt32)
}
