package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanEscapeString reads the body of an E'..' string starting at i (after
// the quote) and decodes its backslash escapes: \b \f \n \r \t, \ooo
// (octal), \xh[h] (hex), \uXXXX, \UXXXXXXXX, and \c for any other c. ”
// is a quote. start is the token start, for errors.
func scanEscapeString(src string, start, i int) (string, int, error) {
	var b strings.Builder
	for i < len(src) {
		switch c := src[i]; c {
		case '\'':
			if i+1 < len(src) && src[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			if !utf8.ValidString(b.String()) {
				return "", 0, lexErrorCode(src, start, "22021", "invalid byte sequence for encoding \"UTF8\"")
			}
			return b.String(), i + 1, nil
		case '\\':
			n, err := decodeEscape(src, start, i, &b)
			if err != nil {
				return "", 0, err
			}
			i = n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, lexError(src, start, "unterminated quoted string")
}

// decodeEscape decodes the escape whose backslash is at i into b and
// returns the offset after it.
func decodeEscape(src string, start, i int, b *strings.Builder) (int, error) {
	if i+1 >= len(src) {
		return 0, lexError(src, start, "unterminated quoted string")
	}
	c := src[i+1]
	if r, ok := simpleEscape(c); ok {
		b.WriteByte(r)
		return i + 2, nil
	}
	switch {
	case c >= '0' && c <= '7':
		return decodeRadix(src, i+1, 3, 8, b), nil
	case c == 'x' && i+2 < len(src) && isHexDigit(src[i+2]):
		return decodeRadix(src, i+2, 2, 16, b), nil
	case c == 'u' || c == 'U':
		return decodeUnicode(src, start, i, b)
	}
	_, n := utf8.DecodeRuneInString(src[i+1:])
	b.WriteString(src[i+1 : i+1+n])
	return i + 1 + n, nil
}

func simpleEscape(c byte) (byte, bool) {
	switch c {
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// decodeRadix reads up to max digits of the given base at i as one byte.
func decodeRadix(src string, i, max, base int, b *strings.Builder) int {
	v, n := 0, 0
	for n < max && i+n < len(src) && digitVal(src[i+n], base) >= 0 {
		v = v*base + digitVal(src[i+n], base)
		n++
	}
	b.WriteByte(byte(v))
	return i + n
}

func digitVal(c byte, base int) int {
	var v int
	switch {
	case c >= '0' && c <= '9':
		v = int(c - '0')
	case c >= 'a' && c <= 'f':
		v = int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		v = int(c-'A') + 10
	default:
		return -1
	}
	if v >= base {
		return -1
	}
	return v
}

func isHexDigit(c byte) bool { return digitVal(c, 16) >= 0 }

// decodeUnicode decodes \uXXXX or \UXXXXXXXX at i.
func decodeUnicode(src string, start, i int, b *strings.Builder) (int, error) {
	n := 4
	if src[i+1] == 'U' {
		n = 8
	}
	hex := src[i+2 : min(len(src), i+2+n)]
	v, err := strconv.ParseUint(hex, 16, 32)
	if len(hex) != n || err != nil || !utf8.ValidRune(rune(v)) || v == 0 {
		return 0, lexError(src, start, "invalid Unicode escape")
	}
	b.WriteRune(rune(v))
	return i + 2 + n, nil
}
