package literal

import (
	"encoding/hex"
	"errors"
	"strings"
)

// Decimal is an exact numeric literal, kept as the text the user wrote
// (digits with an optional '.'), so no precision is lost before the binder
// converts it.
type Decimal string

// String returns the literal's text.
func (d Decimal) String() string { return string(d) }

// BinaryLiteral is the value of an X'..' or B'..' literal. It implements
// ast.BinaryLiteral.
type BinaryLiteral []byte

// ToString returns the bytes as a string.
func (b BinaryLiteral) ToString() string { return string(b) }

// Errors returned to the parser for malformed literals.
var (
	ErrBadDecimal = errors.New("literal: invalid decimal literal")
	ErrBadHex     = errors.New("literal: invalid hexadecimal literal")
	ErrBadBit     = errors.New("literal: invalid bit literal")
)

// ParseDecimal validates s as digits with at most one '.' and returns it.
func ParseDecimal(s string) (Decimal, error) {
	digits, dots := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		case (c == '-' || c == '+') && i == 0:
		default:
			return "", ErrBadDecimal
		}
	}
	if digits == 0 || dots > 1 {
		return "", ErrBadDecimal
	}
	return Decimal(s), nil
}

// ParseHex parses x'ab', X'ab' or 0xab into bytes (an odd number of digits
// in the 0x form is padded with a leading zero, as MySQL does).
func ParseHex(s string) (BinaryLiteral, error) {
	var digits string
	switch {
	case len(s) >= 3 && (s[0] == 'x' || s[0] == 'X') && s[1] == '\'' && s[len(s)-1] == '\'':
		digits = s[2 : len(s)-1]
		if len(digits)%2 != 0 {
			return nil, ErrBadHex
		}
	case strings.HasPrefix(s, "0x"):
		digits = s[2:]
		if len(digits)%2 != 0 {
			digits = "0" + digits
		}
	default:
		return nil, ErrBadHex
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return nil, ErrBadHex
	}
	return BinaryLiteral(b), nil
}

// ParseBit parses b'0101', B'0101' or 0b0101 into bytes, big-endian, the
// first byte padded with leading zero bits.
func ParseBit(s string) (BinaryLiteral, error) {
	var bits string
	switch {
	case len(s) >= 3 && (s[0] == 'b' || s[0] == 'B') && s[1] == '\'' && s[len(s)-1] == '\'':
		bits = s[2 : len(s)-1]
	case strings.HasPrefix(s, "0b"):
		bits = s[2:]
	default:
		return nil, ErrBadBit
	}
	if pad := len(bits) % 8; pad != 0 {
		bits = strings.Repeat("0", 8-pad) + bits
	}
	out := make([]byte, len(bits)/8)
	for i := 0; i < len(bits); i++ {
		switch bits[i] {
		case '1':
			out[i/8] |= 1 << (7 - uint(i%8))
		case '0':
		default:
			return nil, ErrBadBit
		}
	}
	return BinaryLiteral(out), nil
}
