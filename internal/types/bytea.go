package types

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// bytea is a binary string. Its Datum is a Go string holding the raw
// bytes (any bytes, NUL and invalid UTF-8 included), kept in Arrow String
// arrays as they are, so that storage keys, comparisons (memcmp, then
// length: Go's string order) and hashing treat it as they treat text.
// Only its text forms differ: it reads PostgreSQL's hex ('\x0102') and
// escape ('ab\000\\') input formats and always prints hex, as PostgreSQL
// does with bytea_output = hex.

// ParseBytea reads bytea's text input format (byteain): \x then pairs of
// hex digits (whitespace between pairs), or else the escape format, where
// \\ is a backslash, \ooo (first digit 0-3) an octal byte and every other
// byte itself. The result never shares memory with s.
func ParseBytea(s string) (string, error) {
	if strings.HasPrefix(s, `\x`) {
		b, err := DecodeHex(s[2:])
		return string(b), err
	}
	b, ok := decodeEscape(s)
	if !ok {
		return "", pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type bytea")
	}
	return string(b), nil
}

// FormatBytea renders a bytea value as PostgreSQL's hex output: \x and
// two lower-case hex digits a byte.
func FormatBytea(v string) string {
	return string(AppendBytea(make([]byte, 0, 2+2*len(v)), v))
}

// AppendBytea appends FormatBytea(v) to buf.
func AppendBytea(buf []byte, v string) []byte {
	buf = append(buf, '\\', 'x')
	return AppendHex(buf, v)
}

const hexDigits = "0123456789abcdef"

// AppendHex appends two lower-case hex digits for each byte of v.
func AppendHex(buf []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		buf = append(buf, hexDigits[v[i]>>4], hexDigits[v[i]&15])
	}
	return buf
}

// DecodeHex reads pairs of hex digits of either case, skipping spaces,
// tabs and line breaks between pairs, as PostgreSQL's hex_decode does
// (for bytea input and decode(s, 'hex')).
func DecodeHex(s string) ([]byte, error) {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i < len(s); {
		if isHexSpace(s[i]) {
			i++
			continue
		}
		hi, err := hexValue(s, i)
		if err != nil {
			return nil, err
		}
		if i+1 >= len(s) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		lo, err := hexValue(s, i+1)
		if err != nil {
			return nil, err
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return out, nil
}

func isHexSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// hexValue is the value of the hex digit at s[i]; the error names the
// whole character there, as PostgreSQL's does.
func hexValue(s string, i int) (byte, error) {
	switch c := s[i]; {
	case c >= '0' && c <= '9':
		return c - '0', nil
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, nil
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, nil
	}
	return 0, pgerr.New(pgerr.InvalidParameterValue, `invalid hexadecimal digit: "%s"`, charAt(s, i))
}

// charAt is the (possibly multi-byte) character starting at s[i].
func charAt(s string, i int) string {
	_, n := utf8.DecodeRuneInString(s[i:])
	return s[i : i+n]
}

// decodeEscape reads the escape format: \\ and \ooo; ok is false for any
// other backslash.
func decodeEscape(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		switch {
		case s[i] != '\\':
			out = append(out, s[i])
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i += 2
		default:
			return nil, false
		}
	}
	return out, true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// DecodeEscape is decode(s, 'escape'): the escape format of bytea input.
func DecodeEscape(s string) ([]byte, error) {
	b, ok := decodeEscape(s)
	if !ok {
		return nil, pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type bytea")
	}
	return b, nil
}

// EncodeEscape is encode(v, 'escape'): NUL and bytes with the high bit
// set as \ooo, a backslash doubled, every other byte itself.
func EncodeEscape(v string) string {
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == 0 || c >= 0x80:
			b.Write([]byte{'\\', '0' + c>>6, '0' + (c>>3)&7, '0' + c&7})
		case c == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// base64LineLen is the length of the lines encode(v, 'base64') writes.
const base64LineLen = 76

// EncodeBase64 is encode(v, 'base64'): standard base64 with padding, a
// newline after every 76 characters (after the last one too when the
// output ends there), as PostgreSQL's pg_base64_encode writes it.
func EncodeBase64(v string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(v))
	if len(enc) < base64LineLen {
		return enc
	}
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/base64LineLen)
	for len(enc) >= base64LineLen {
		b.WriteString(enc[:base64LineLen])
		b.WriteByte('\n')
		enc = enc[base64LineLen:]
	}
	b.WriteString(enc)
	return b.String()
}

// DecodeBase64 is decode(s, 'base64') as PostgreSQL's pg_base64_decode
// does it: whitespace is skipped, '=' ends the data (bytes after it still
// decode, each group giving as many bytes as the first end did), and a
// final incomplete group is an error.
func DecodeBase64(s string) ([]byte, error) {
	out := make([]byte, 0, len(s)*3/4)
	var buf uint32
	pos, end := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var b uint32
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '=':
			if end == 0 {
				switch pos {
				case 2:
					end = 1
				case 3:
					end = 2
				default:
					return nil, pgerr.New(pgerr.InvalidParameterValue, `unexpected "=" while decoding base64 sequence`)
				}
			}
		default:
			v := base64Value(c)
			if v < 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, `invalid symbol "%s" found while decoding base64 sequence`, charAt(s, i))
			}
			b = uint32(v)
		}
		buf = buf<<6 | b
		if pos++; pos == 4 {
			out = append(out, byte(buf>>16))
			if end == 0 || end > 1 {
				out = append(out, byte(buf>>8))
			}
			if end == 0 || end > 2 {
				out = append(out, byte(buf))
			}
			buf, pos = 0, 0
		}
	}
	if pos != 0 {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid base64 end sequence")
		e.Hint = "Input data is missing padding, is truncated, or is otherwise corrupted."
		return nil, e
	}
	return out, nil
}

func base64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}
