package vec

import (
	"bytes"
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// numBytes is v's binary form, as an output column holds it.
func numBytes(v num) []byte { return appendNum(nil, &v) }

// datumNumBytes is the binary form a chunk.Builder gives d.
func datumNumBytes(d *apd.Decimal) []byte {
	return types.AppendNumericBinary(nil, types.PlainNumeric(d))
}

// opsCase is one scalar kernel checked against the row evaluator's
// operator or conversion e: fast computes the kernel's answer for the
// inputs (ok false: it declined), and the row evaluator's must be the
// same value, or no error where the kernel answered.
type opsCase struct {
	name string
	e    expr.Expr
	fast func(in []types.Datum) (types.Datum, bool)
}

func mustExpr(e expr.Expr, err error) expr.Expr {
	if err != nil {
		panic(err)
	}
	return e
}

// TestNumericOpsExact checks the scalar numeric kernels (/, %, round,
// trunc, ceil, floor, abs, -, casts to numeric(p,s), integers and
// floats, from floats and text) one value at a time against the row
// evaluator's own operator or conversion on random operands rich in
// edges, byte for byte, and that the kernels answer most rows
// themselves (else a differential test would only test the fallback).
func TestNumericOpsExact(t *testing.T) {
	col := func(i int, typ types.Type) expr.Expr { return expr.NewColumn(i, typ, "c"+strconv.Itoa(i)) }
	nt := types.TNumeric
	bin := func(op string) expr.Expr { return mustExpr(expr.Binary(op, col(0, nt), col(1, nt))) }
	fn := func(name string, args ...expr.Expr) expr.Expr { return mustExpr(expr.Func(name, args)) }
	cast := func(from, to types.Type) expr.Expr { return mustExpr(expr.Cast(col(0, from), to)) }
	n2 := func(f func(p, q num) (num, bool)) func([]types.Datum) (types.Datum, bool) {
		return func(in []types.Datum) (types.Datum, bool) {
			p, q := numOf(in[0].(*apd.Decimal)), numOf(in[1].(*apd.Decimal))
			if !p.small() || !q.small() {
				return nil, false
			}
			r, ok := f(p, q)
			return r, ok
		}
	}
	n1 := func(f func(p num) (num, bool)) func([]types.Datum) (types.Datum, bool) {
		return func(in []types.Datum) (types.Datum, bool) {
			r, ok := f(numOf(in[0].(*apd.Decimal)))
			return r, ok
		}
	}
	var cases []opsCase
	cases = append(cases,
		opsCase{"/", bin("/"), n2(numDiv)},
		opsCase{"%", bin("%"), n2(numMod)},
		opsCase{"ceil", fn("ceil", col(0, nt)), n1(func(p num) (num, bool) { return numToward(p, true) })},
		opsCase{"floor", fn("floor", col(0, nt)), n1(func(p num) (num, bool) { return numToward(p, false) })},
		opsCase{"round", fn("round", col(0, nt)), n1(func(p num) (num, bool) { return numRound(p, 0, false) })},
		opsCase{"trunc", fn("trunc", col(0, nt)), n1(func(p num) (num, bool) { return numRound(p, 0, true) })},
	)
	for _, name := range []string{"round", "trunc"} {
		trunc := name == "trunc"
		cases = append(cases, opsCase{name + "(x, s)", fn(name, col(0, nt), col(1, types.TInt32)),
			func(in []types.Datum) (types.Datum, bool) {
				return numRound(numOf(in[0].(*apd.Decimal)), in[1].(int64), trunc)
			}})
	}
	for _, tm := range []types.Type{{ID: types.IDNumeric, Precision: 10, Scale: 2}, {ID: types.IDNumeric, Precision: 3, Scale: 0},
		{ID: types.IDNumeric, Precision: 19, Scale: 19}, {ID: types.IDNumeric, Precision: 5, Scale: 4}, {ID: types.IDNumeric, Precision: 18, Scale: 6}} {
		cases = append(cases, opsCase{"::" + tm.String(), cast(nt, tm), func(in []types.Datum) (types.Datum, bool) {
			p := numOf(in[0].(*apd.Decimal))
			if !p.small() {
				return nil, false
			}
			r, ok := numTypmod(p, tm)
			return r, ok
		}})
	}
	for _, it := range intTypes {
		lo, hi := intRange(it)
		cases = append(cases, opsCase{"::" + it.String(), cast(nt, it), func(in []types.Datum) (types.Datum, bool) {
			r, ok := numRound(numOf(in[0].(*apd.Decimal)), 0, false)
			if !ok || (!r.neg && r.coeff > uint64(hi)) || (r.neg && r.coeff > -uint64(lo)) {
				return nil, false
			}
			if r.neg {
				return -int64(r.coeff), true
			}
			return int64(r.coeff), true
		}})
	}
	cases = append(cases, opsCase{"::float8", cast(nt, types.TFloat64), func(in []types.Datum) (types.Datum, bool) {
		f, ok := numFloat(numOf(in[0].(*apd.Decimal)))
		return f, ok
	}})
	for _, ft := range floatTypes {
		digits := map[types.ID]int{types.IDFloat32: 6, types.IDFloat64: 15}[ft.ID]
		cases = append(cases, opsCase{ft.String() + "::numeric", cast(ft, nt), func(in []types.Datum) (types.Datum, bool) {
			f := in[0].(float64)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, false
			}
			r, ok := parseNum(strconv.AppendFloat(nil, f, 'g', digits, 64), true)
			return r, ok
		}})
	}
	cases = append(cases, opsCase{"text::numeric", cast(types.TText, nt), func(in []types.Datum) (types.Datum, bool) {
		r, ok := parseNum(in[0].(string), false)
		return r, ok
	}})

	r := rand.New(rand.NewSource(1))
	g := &gen{r: r}
	for _, c := range cases {
		fast, total := 0, 0
		for range 20000 {
			in := opsInputs(g, c.e)
			want, wantErr, _ := expr.ApplyCall(c.e, in)
			if _, _, isCast := expr.CastParts(c.e); isCast {
				want, wantErr, _ = expr.ApplyCast(c.e, in[0])
			}
			got, ok := c.fast(in)
			total++
			if !ok {
				continue
			}
			fast++
			if wantErr != nil {
				t.Fatalf("%s %v: kernel gave %v, row evaluator %v", c.name, in, got, wantErr)
			}
			var same bool
			switch w := want.(type) {
			case *apd.Decimal:
				same = bytes.Equal(numBytes(got.(num)), datumNumBytes(w))
			case float64:
				same = math.Float64bits(w) == math.Float64bits(got.(float64))
			default:
				same = want == got
			}
			if !same {
				if v, isNum := got.(num); isNum {
					got = v.decimal()
				}
				t.Fatalf("%s %v: kernel gave %v, row evaluator %v", c.name, in, got, want)
			}
		}
		if fast < total/3 {
			t.Fatalf("%s: the kernel answered %d of %d", c.name, fast, total)
		}
		t.Logf("%s: kernel answered %d of %d", c.name, fast, total)
	}
}

// opsInputs draws the inputs of e's operator or conversion.
func opsInputs(g *gen, e expr.Expr) []types.Datum {
	ch := e.Children()
	in := make([]types.Datum, len(ch))
	for i, a := range ch {
		switch t := a.Type(); {
		case t.ID == types.IDNumeric:
			in[i] = g.numeric()
		case t.IsInteger():
			in[i] = int64(g.pick(50) - 25)
			if g.pick(10) == 0 {
				in[i] = int64([]int{-2000, 1001, 1000, -1000}[g.pick(4)])
			}
		case t.IsFloat():
			f := g.value(t).(float64)
			if g.pick(3) == 0 {
				f = float64(g.r.Int63n(2000000)-1000000) / math.Pow(10, float64(g.pick(25)))
			}
			if t.ID == types.IDFloat32 {
				f = float64(float32(f))
			}
			in[i] = f
		default:
			if g.pick(2) == 0 {
				in[i] = numericTexts[g.pick(len(numericTexts))]
			} else {
				in[i] = g.numeric().Text('f')
			}
		}
	}
	return in
}
