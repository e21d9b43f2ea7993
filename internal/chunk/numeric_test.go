package chunk

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/types"
)

// testNumerics returns numerics of every kind: small and huge
// coefficients, both signs, zeros of several scales, NaN, ±Infinity,
// extreme negative exponents and (made plain in a chunk) positive ones.
func testNumerics(r *rand.Rand, n int) []*apd.Decimal {
	vals := []*apd.Decimal{
		apd.New(10, -1), apd.New(100, -2), apd.New(1, 0), {Exponent: -2}, {Negative: true},
		{Negative: true, Exponent: -3}, {Form: apd.NaN}, {Form: apd.Infinite}, {Form: apd.Infinite, Negative: true},
		apd.New(math.MaxInt64, math.MinInt32), apd.New(math.MinInt64, -5), apd.New(7, 3),
	}
	for range n {
		d := new(apd.Decimal)
		switch r.IntN(3) {
		case 0:
			d.Coeff.SetUint64(r.Uint64() >> r.IntN(64))
		case 1:
			digits := make([]byte, 1+r.IntN(80))
			for i := range digits {
				digits[i] = byte('0' + r.IntN(10))
			}
			c, _ := new(big.Int).SetString(string(digits), 10)
			d.Coeff.SetMathBigInt(c)
		}
		d.Negative = r.IntN(2) == 0
		d.Exponent = -int32(r.IntN(40))
		if r.IntN(20) == 0 {
			d.Exponent = math.MinInt32 + int32(r.IntN(5))
		}
		vals = append(vals, d)
	}
	return vals
}

// sameNumeric reports whether a and b are equal and of one form, sign and
// exponent (scale).
func sameNumeric(a, b *apd.Decimal) bool {
	return a.Cmp(b) == 0 && a.Form == b.Form && a.Negative == b.Negative && a.Exponent == b.Exponent && a.Coeff.Cmp(&b.Coeff) == 0
}

// TestNumericRoundTrip: a numeric comes out of a chunk (Value, Take) as it
// went in, scale and sign of zero included; one with a positive exponent
// comes out as its text reads back (1E+3 as 1000), as when chunks held
// numerics as text.
func TestNumericRoundTrip(t *testing.T) {
	vals := testNumerics(rand.New(rand.NewPCG(5, 6)), 3000)
	rows := make([][]types.Datum, 0, len(vals)+1)
	for _, v := range vals {
		rows = append(rows, []types.Datum{v})
	}
	rows = append(rows, []types.Datum{nil})
	c := FromRows([]types.Type{types.TNumeric}, Insert, rows)
	defer c.Release()
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = len(rows) - 1 - i
	}
	tk := Take(c, idx, make([]Op, len(idx)))
	defer tk.Release()
	for i, v := range vals {
		want := v
		if v.Exponent > 0 {
			want, _, _ = apd.NewFromString(v.Text('f'))
		}
		got := Value(c.Rec.Column(0), types.TNumeric, i).(*apd.Decimal)
		if !sameNumeric(got, want) {
			t.Fatalf("%s (exponent %d) came back as %s (exponent %d)", v, v.Exponent, got, got.Exponent)
		}
		if got := Value(tk.Rec.Column(0), types.TNumeric, len(rows)-1-i).(*apd.Decimal); !sameNumeric(got, want) {
			t.Fatalf("Take: %s came back as %s", v, got)
		}
	}
	if Value(c.Rec.Column(0), types.TNumeric, len(vals)) != nil || Value(tk.Rec.Column(0), types.TNumeric, 0) != nil {
		t.Fatal("NULL numeric came back not NULL")
	}
}

// TestAppendNumericBinary: a value in storage's bytes goes into a
// column as Builder.Append of its Decimal puts it there.
func TestAppendNumericBinary(t *testing.T) {
	vals := testNumerics(rand.New(rand.NewPCG(7, 8)), 1000)
	vals = append(vals, &apd.Decimal{Form: apd.Infinite, Exponent: 4}, &apd.Decimal{Form: apd.NaN, Exponent: -1})
	ts := []types.Type{types.TNumeric}
	direct, generic := NewBuilder(ts), NewBuilder(ts)
	defer direct.Release()
	defer generic.Release()
	for _, v := range vals {
		enc := append(types.AppendNumericBinary(nil, v), 1, 2)
		rest, err := AppendNumericBinary(direct.Columns()[0].(*array.BinaryBuilder), enc)
		if err != nil || len(rest) != 2 {
			t.Fatalf("%s: rest %x, err %v", v, rest, err)
		}
		direct.AppendedRow(Insert)
		generic.Append(Insert, []types.Datum{v})
	}
	got, want := direct.Build(), generic.Build()
	defer got.Release()
	defer want.Release()
	ga, wa := got.Rec.Column(0).(*array.Binary), want.Rec.Column(0).(*array.Binary)
	for i, v := range vals {
		if string(ga.Value(i)) != string(wa.Value(i)) {
			t.Fatalf("%s: appended %x, want %x", v, ga.Value(i), wa.Value(i))
		}
	}
	if _, err := AppendNumericBinary(direct.Columns()[0].(*array.BinaryBuilder), []byte{0xff, 0, 0}); err == nil {
		t.Fatal("corrupt numeric appended")
	}
}
