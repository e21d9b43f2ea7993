package types

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// randomNumeric returns a numeric for tests: coefficients of 0 to ~40
// digits, both signs, zeros of every scale, exponents up to the extremes,
// NaN and ±Infinity.
func randomNumeric(r *rand.Rand) *apd.Decimal {
	switch r.IntN(12) {
	case 0:
		return &apd.Decimal{Form: apd.NaN}
	case 1:
		return &apd.Decimal{Form: apd.Infinite, Negative: r.IntN(2) == 0}
	case 2: // zero, signed, of some scale
		return &apd.Decimal{Negative: r.IntN(2) == 0, Exponent: -int32(r.IntN(20))}
	}
	d := new(apd.Decimal)
	switch r.IntN(4) {
	case 0:
		d.Coeff.SetUint64(r.Uint64() >> r.IntN(64))
	case 1:
		d.Coeff.SetUint64(math.MaxUint64 - uint64(r.IntN(3)))
	default: // huge
		digits := make([]byte, 1+r.IntN(60))
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		n, _ := new(big.Int).SetString(string(digits), 10)
		d.Coeff.SetMathBigInt(n)
	}
	d.Negative = r.IntN(2) == 0
	switch r.IntN(8) {
	case 0:
		d.Exponent = math.MinInt32 + int32(r.IntN(2))
	case 1:
		d.Exponent = math.MaxInt32 - int32(r.IntN(2))
	default:
		d.Exponent = -int32(r.IntN(40))
	}
	return d
}

// sameNumeric reports whether a and b are the same numeric: equal, and of
// the same form, sign, coefficient and exponent (scale).
func sameNumeric(a, b *apd.Decimal) bool {
	return a.Form == b.Form && a.Negative == b.Negative && a.Exponent == b.Exponent && a.Coeff.Cmp(&b.Coeff) == 0
}

func TestNumericBinaryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		d := randomNumeric(r)
		enc := AppendNumericBinary([]byte{0xAA}, d)[1:]
		enc = append(enc, 0x55) // the next value
		var got apd.Decimal
		rest, err := DecodeNumericBinary(&got, enc)
		if err != nil {
			t.Fatalf("%s (%x): %v", d, enc, err)
		}
		if !sameNumeric(&got, d) || !bytes.Equal(rest, []byte{0x55}) {
			t.Fatalf("%s (%x) came back as %s, rest %x", d, enc, &got, rest)
		}
		// The encoding is storage's: header, varint exponent, length-prefixed Coeff.Bytes.
		old := append([]byte{byte(d.Form)&3 | b2byte(d.Negative)<<2}, vbytes(d)...)
		if !bytes.Equal(old, enc[:len(enc)-1]) {
			t.Fatalf("%s encoded as %x, want %x", d, enc, old)
		}
	}
}

func vbytes(d *apd.Decimal) []byte {
	var b []byte
	b = appendVarint(b, int64(d.Exponent))
	c := d.Coeff.Bytes()
	b = appendUvarint(b, uint64(len(c)))
	return append(b, c...)
}

func appendVarint(b []byte, v int64) []byte {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	return appendUvarint(b, u)
}

func appendUvarint(b []byte, u uint64) []byte {
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// TestPlainNumericIsTextRoundTrip: a plain numeric is the value its text
// reads back as (what numeric columns of chunks held when they were
// text), and Plain reports it.
func TestPlainNumericIsTextRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := []*apd.Decimal{
		apd.New(1, 3), apd.New(-12, 2), {Negative: true, Exponent: 4},
		{Form: apd.Infinite, Exponent: 7}, {Form: apd.NaN, Negative: true},
		apd.New(10, -1), apd.New(100, -2), {Exponent: -2},
	}
	for range 5000 {
		d := randomNumeric(r)
		if d.Exponent > 30 || d.Exponent < -1000 {
			d.Exponent = int32(r.IntN(60)) - 30 // the text of 1E+2147483647 has 2^31 digits
		}
		vals = append(vals, d)
	}
	for _, d := range vals {
		want, _, err := apd.NewFromString(d.Text('f'))
		if err != nil {
			t.Fatal(err)
		}
		p := PlainNumeric(d)
		if !sameNumeric(p, want) {
			t.Fatalf("PlainNumeric(%s) = %s (%d), want %s (%d)", d, p, p.Exponent, want, want.Exponent)
		}
		v, _, err := SplitNumericBinary(AppendNumericBinary(nil, p))
		if err != nil || !v.Plain() {
			t.Fatalf("%s: plain %v, err %v", p, v.Plain(), err)
		}
		if v, _, _ := SplitNumericBinary(AppendNumericBinary(nil, d)); v.Plain() != sameNumeric(p, d) {
			t.Fatalf("%s: Plain() = %v", d, v.Plain())
		}
	}
}

func TestNumericBinaryCorrupt(t *testing.T) {
	good := AppendNumericBinary(nil, apd.New(123456789, -3))
	for _, b := range [][]byte{
		nil, {0}, {0, 0}, {8, 0, 0}, // header with high bits
		{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0}, // exponent past int32
		{0, 0, 5, 1}, // short coefficient
		good[:len(good)-1],
	} {
		var d apd.Decimal
		if _, err := DecodeNumericBinary(&d, b); err == nil {
			t.Errorf("DecodeNumericBinary(%x) = %s, want an error", b, &d)
		}
	}
}

// FuzzNumericBinary: whatever decodes re-encodes to the same value.
func FuzzNumericBinary(f *testing.F) {
	f.Add(AppendNumericBinary(nil, apd.New(-15, -1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d, again apd.Decimal
		if _, err := DecodeNumericBinary(&d, b); err != nil {
			return
		}
		enc := AppendNumericBinary(nil, &d)
		if rest, err := DecodeNumericBinary(&again, enc); err != nil || len(rest) != 0 || !sameNumeric(&d, &again) {
			t.Fatalf("%x decoded as %s re-encodes as %x: %s, %v", b, &d, enc, &again, err)
		}
	})
}

func BenchmarkNumericBinaryDecode(b *testing.B) {
	enc := AppendNumericBinary(nil, apd.New(-1234567, -3))
	var d apd.Decimal
	for b.Loop() {
		if _, err := DecodeNumericBinary(&d, enc); err != nil {
			b.Fatal(err)
		}
	}
}
