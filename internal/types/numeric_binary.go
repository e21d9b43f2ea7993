package types

import (
	"encoding/binary"
	"errors"

	"github.com/cockroachdb/apd/v3"
)

// A numeric's binary form, the one encoding of a numeric as bytes: storage
// keeps row values in it and internal/chunk's Arrow numeric columns hold
// it, so a scan copies a stored numeric into a chunk without parsing it:
//
//	header byte (Form | Negative<<2) | zigzag varint exponent |
//	uvarint length | big-endian coefficient
//
// The coefficient has no leading zero byte (zero is empty), so the scale
// survives (1.50 is 150e-2, 1.5 is 15e-1) and two values with the same
// form, sign, coefficient and exponent have the same bytes.

// ErrNumericBinary is the error of a corrupt binary numeric.
var ErrNumericBinary = errors.New("types: corrupt binary numeric")

// NumericBinary is one value in the binary form, split into its fields;
// Coeff aliases the bytes it was read from.
type NumericBinary struct {
	Form     apd.Form
	Negative bool
	Exponent int32
	Coeff    []byte // big-endian
}

// AppendNumericBinary appends d in the binary form, exactly as it is.
func AppendNumericBinary(buf []byte, d *apd.Decimal) []byte {
	buf = append(buf, byte(d.Form)&3|b2byte(d.Negative)<<2)
	buf = binary.AppendVarint(buf, int64(d.Exponent))
	if d.Coeff.IsUint64() {
		u := d.Coeff.Uint64()
		n := 8 - leadingZeroBytes(u)
		buf = append(buf, byte(n))
		for i := n - 1; i >= 0; i-- {
			buf = append(buf, byte(u>>(8*i)))
		}
		return buf
	}
	coeff := d.Coeff.Bytes()
	buf = binary.AppendUvarint(buf, uint64(len(coeff)))
	return append(buf, coeff...)
}

func leadingZeroBytes(u uint64) int {
	n := 0
	for n < 8 && u>>(56-8*n) == 0 {
		n++
	}
	return n
}

func b2byte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// SplitNumericBinary reads the value at the start of buf and returns it
// and the rest of buf.
func SplitNumericBinary(buf []byte) (NumericBinary, []byte, error) {
	if len(buf) < 3 || buf[0]>>3 != 0 {
		return NumericBinary{}, nil, ErrNumericBinary
	}
	v := NumericBinary{Form: apd.Form(buf[0] & 3), Negative: buf[0]&4 != 0}
	var exp int64
	var k int
	if b := buf[1]; b < 0x80 { // the usual one-byte exponent
		exp, k = int64(b>>1)^-int64(b&1), 1
	} else if exp, k = binary.Varint(buf[1:]); k <= 0 || exp != int64(int32(exp)) {
		return NumericBinary{}, nil, ErrNumericBinary
	}
	v.Exponent = int32(exp)
	buf = buf[1+k:]
	var n uint64
	if len(buf) > 0 && buf[0] < 0x80 {
		n, k = uint64(buf[0]), 1
	} else {
		n, k = binary.Uvarint(buf)
	}
	if k <= 0 || n > uint64(len(buf)-k) {
		return NumericBinary{}, nil, ErrNumericBinary
	}
	end := k + int(n)
	v.Coeff = buf[k:end]
	return v, buf[end:], nil
}

// DecodeNumericBinary reads the value at the start of buf into d and
// returns the rest of buf. A coefficient of up to 8 bytes is set without
// allocating.
func DecodeNumericBinary(d *apd.Decimal, buf []byte) ([]byte, error) {
	v, rest, err := SplitNumericBinary(buf)
	if err != nil {
		return nil, err
	}
	v.Decimal(d)
	return rest, nil
}

// Decimal sets d to v.
func (v NumericBinary) Decimal(d *apd.Decimal) {
	d.Form, d.Negative, d.Exponent = v.Form, v.Negative, v.Exponent
	if len(v.Coeff) <= 8 {
		var u uint64
		for _, b := range v.Coeff {
			u = u<<8 | uint64(b)
		}
		d.Coeff.SetUint64(u)
		return
	}
	d.Coeff.SetBytes(v.Coeff)
}

// Plain reports whether v is in the plain form: finite with no positive
// exponent and no leading zero byte, or NaN or ±Infinity with a zero
// exponent and no coefficient. PlainNumeric gives every value's.
func (v NumericBinary) Plain() bool {
	if v.Form != apd.Finite {
		return v.Exponent == 0 && len(v.Coeff) == 0
	}
	return v.Exponent <= 0 && (len(v.Coeff) == 0 || v.Coeff[0] != 0)
}

// PlainNumeric returns d with no positive exponent (1E+3 becomes 1000)
// and, if it is NaN or ±Infinity, nothing but its form and sign: the value
// its text (Text('f')) reads back as, with scale and a negative zero's
// sign kept. d is not modified.
func PlainNumeric(d *apd.Decimal) *apd.Decimal {
	switch {
	case d.Form != apd.Finite:
		if d.Exponent == 0 && d.Coeff.Sign() == 0 {
			return d
		}
		return &apd.Decimal{Form: d.Form, Negative: d.Negative}
	case d.Exponent <= 0:
		return d
	}
	r := new(apd.Decimal).Set(d)
	r.Coeff.Mul(&r.Coeff, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(r.Exponent)), nil))
	r.Exponent = 0
	return r
}
