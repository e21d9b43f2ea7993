package storage

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// Numeric keys, after the CockroachDB scheme. A finite non-zero value is
// written as 0.d1d2d3...dk × 10^E with d1 != 0 and dk != 0 (trailing zeros
// of the coefficient dropped, so 1.0 and 1.00 encode equal):
//
//	tag | E (ordered varint) | base-100 digit pairs, each as 1+pair | 0x00
//
// An odd digit count pads the last pair with a 0 digit; that is
// unambiguous because dk != 0. A shorter mantissa with equal leading digits
// is the smaller value, and its 0x00 terminator sorts below any pair byte.
// A negative value writes its tag and then every following byte
// complemented, reversing the order of magnitudes. Tags order the classes
// as Postgres does: -Inf < negative < 0 < positive < +Inf < NaN.
const (
	numNegInf byte = 0x10
	numNeg    byte = 0x11
	numZero   byte = 0x12
	numPos    byte = 0x13
	numPosInf byte = 0x14
	numNaN    byte = 0x15
)

func appendNumericKey(buf []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(buf, numNaN)
	case apd.Infinite:
		if d.Negative {
			return append(buf, numNegInf)
		}
		return append(buf, numPosInf)
	}
	if d.Coeff.Sign() == 0 {
		return append(buf, numZero)
	}
	neg := d.Negative != (d.Coeff.Sign() < 0)
	var digitBuf [40]byte
	var abs apd.BigInt
	digits := abs.Abs(&d.Coeff).Append(digitBuf[:0], 10)
	k := len(digits)
	for digits[k-1] == '0' {
		k--
	}
	e := int64(len(digits)) + int64(d.Exponent)
	tag := numPos
	if neg {
		tag = numNeg
	}
	buf = append(buf, tag)
	start := len(buf)
	buf = appendOrderedVarint(buf, e)
	buf = appendDigitPairs(buf, digits[:k])
	if neg {
		complement(buf[start:])
	}
	return buf
}

func appendDigitPairs(buf []byte, digits []byte) []byte {
	for i := 0; i < len(digits); i += 2 {
		pair := (digits[i] - '0') * 10
		if i+1 < len(digits) {
			pair += digits[i+1] - '0'
		}
		buf = append(buf, 1+pair)
	}
	return append(buf, 0)
}

func complement(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

func decodeNumericKey(buf []byte) (types.Datum, []byte, error) {
	if len(buf) == 0 {
		return nil, nil, errCorrupt("numeric key", "empty")
	}
	d := new(apd.Decimal)
	switch buf[0] {
	case numNaN:
		d.Form = apd.NaN
		return d, buf[1:], nil
	case numNegInf, numPosInf:
		d.Form, d.Negative = apd.Infinite, buf[0] == numNegInf
		return d, buf[1:], nil
	case numZero:
		return d, buf[1:], nil
	case numPos, numNeg:
	default:
		return nil, nil, errCorrupt("numeric key", "bad tag")
	}
	var flip byte
	if buf[0] == numNeg {
		flip = 0xFF
	}
	rest, err := decodeFiniteNumeric(d, buf[1:], flip)
	d.Negative = flip != 0
	return d, rest, err
}

// decodeFiniteNumeric reads E and the digit pairs, XOR-ing every byte with
// flip (0xFF for negative values).
func decodeFiniteNumeric(d *apd.Decimal, buf []byte, flip byte) ([]byte, error) {
	e, buf, err := decodeOrderedVarint(buf, flip)
	if err != nil {
		return nil, err
	}
	var digits []byte
	for {
		if len(buf) == 0 {
			return nil, errCorrupt("numeric key", "unterminated")
		}
		b := buf[0] ^ flip
		buf = buf[1:]
		if b == 0 {
			break
		}
		if b > 100 {
			return nil, errCorrupt("numeric key", "bad digit pair")
		}
		digits = append(digits, '0'+(b-1)/10, '0'+(b-1)%10)
	}
	if len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 || digits[0] == '0' {
		return nil, errCorrupt("numeric key", "bad mantissa")
	}
	exp := e - int64(len(digits))
	if exp < math.MinInt32 || exp > math.MaxInt32 {
		return nil, errCorrupt("numeric key", "exponent out of range")
	}
	d.Exponent = int32(exp)
	if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return nil, errCorrupt("numeric key", "bad digits")
	}
	return buf, nil
}

// appendOrderedVarint writes v so that byte order is integer order: a tag
// 0x80+n for v >= 0 or 0x7F-n for v < 0, then the low n bytes of v (n
// minimal: bytes of v for v >= 0, of ^v for v < 0), big-endian.
func appendOrderedVarint(buf []byte, v int64) []byte {
	if v >= 0 {
		n := byteLen(uint64(v))
		return appendLowBytes(append(buf, 0x80+byte(n)), uint64(v), n)
	}
	n := byteLen(uint64(^v))
	return appendLowBytes(append(buf, 0x7F-byte(n)), uint64(v), n)
}

func byteLen(u uint64) int {
	n := 0
	for ; u != 0; u >>= 8 {
		n++
	}
	return n
}

func appendLowBytes(buf []byte, u uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		buf = append(buf, byte(u>>(8*i)))
	}
	return buf
}

func decodeOrderedVarint(buf []byte, flip byte) (int64, []byte, error) {
	if len(buf) == 0 {
		return 0, nil, errCorrupt("numeric key", "missing exponent")
	}
	tag := buf[0] ^ flip
	neg := tag < 0x80
	n := int(tag) - 0x80
	if neg {
		n = 0x7F - int(tag)
	}
	if n > 8 || len(buf) < 1+n {
		return 0, nil, errCorrupt("numeric key", "bad exponent")
	}
	var u uint64
	for _, b := range buf[1 : 1+n] {
		u = u<<8 | uint64(b^flip)
	}
	if neg && n < 8 {
		u |= ^uint64(0) << (8 * n)
	}
	return int64(u), buf[1+n:], nil
}
