package jsonb

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// Numbers are kept as the text PostgreSQL's numeric_out prints: an optional
// minus sign (never on zero), the integer digits without leading zeros ("0"
// when there are none), and, when the display scale is positive, a point
// and exactly that many digits. No exponent.

// Limits of PostgreSQL's numeric format: at most 131072 digits before the
// decimal point (base-10000 weight 32767) and a display scale of at most
// 16383; exponents of INT_MAX/2 or more in magnitude are refused outright.
const (
	maxIntDigits = 131072
	maxDScale    = 16383
	maxExponent  = 1<<31/2 - 1 // INT_MAX / 2
)

func numericOverflow() error {
	return pgerr.New(pgerr.NumericOutOfRange, "value overflows numeric format")
}

// IsValidNumber reports whether s is exactly a JSON number
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), as PostgreSQL's
// IsValidJsonNumber decides.
func IsValidNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	end, ok := scanNumber(s, i)
	return ok && end == len(s)
}

// scanNumber scans a JSON number's digits from s[i:] (after any minus
// sign) as PostgreSQL's json_lex_number does: it returns the end of the
// token, which takes in any letters, digits, underscores and non-ASCII
// bytes that follow, and whether the token is a valid number.
func scanNumber(s string, i int) (int, bool) {
	ok := true
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	default:
		ok = false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !isDigit(s[i]) {
			ok = false
		} else {
			for i++; i < len(s) && isDigit(s[i]); i++ {
			}
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			ok = false
		} else {
			for i++; i < len(s) && isDigit(s[i]); i++ {
			}
		}
	}
	for ; i < len(s) && isAlnum(s[i]); i++ {
		ok = false
	}
	return i, ok
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isAlnum is PostgreSQL's JSON_ALPHANUMERIC_CHAR.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// canonicalNumber converts a valid JSON number token to numeric's output
// text, as numeric_in then numeric_out would: 1e2 is 100, 1.50e1 is 15.0,
// -0.0 is 0.0. It fails with 22003 where numeric_in does.
func canonicalNumber(tok string) (string, error) {
	neg := false
	i := 0
	if tok[0] == '-' {
		neg = true
		i = 1
	}
	// Split into integer digits, fraction digits and exponent.
	intStart := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	intPart := tok[intStart:i]
	fracPart := ""
	if i < len(tok) && tok[i] == '.' {
		i++
		fs := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		fracPart = tok[fs:i]
	}
	if i == len(tok) {
		// Fast path: no exponent. The grammar allows no leading zeros, so
		// only a negative zero needs rewriting.
		if len(intPart) > maxIntDigits || len(fracPart) > maxDScale {
			return "", numericOverflow()
		}
		if neg && intPart == "0" && strings.Trim(fracPart, "0") == "" {
			return tok[1:], nil
		}
		return tok, nil
	}
	exp := int64(0)
	if i < len(tok) {
		i++ // e or E
		eneg := false
		if tok[i] == '+' || tok[i] == '-' {
			eneg = tok[i] == '-'
			i++
		}
		for ; i < len(tok); i++ {
			exp = exp*10 + int64(tok[i]-'0')
			if exp >= maxExponent {
				return "", numericOverflow()
			}
		}
		if eneg {
			exp = -exp
		}
	}
	return buildNumber(neg, intPart, fracPart, exp)
}

// buildNumber formats the number (-)intPart.fracPart × 10^exp with
// numeric's display scale max(0, len(fracPart) - exp).
func buildNumber(neg bool, intPart, fracPart string, exp int64) (string, error) {
	dscale := int64(len(fracPart)) - exp
	if dscale < 0 {
		dscale = 0
	}
	if dscale > maxDScale {
		return "", numericOverflow()
	}
	// digits = intPart+fracPart; the point sits after p digits.
	nd := int64(len(intPart) + len(fracPart))
	p := int64(len(intPart)) + exp
	digit := func(k int64) byte { // k-th digit of intPart+fracPart
		if k < int64(len(intPart)) {
			return intPart[k]
		}
		return fracPart[k-int64(len(intPart))]
	}
	first := int64(-1) // first nonzero digit
	for k := int64(0); k < nd; k++ {
		if digit(k) != '0' {
			first = k
			break
		}
	}
	var b strings.Builder
	if first < 0 { // zero
		if dscale == 0 {
			return "0", nil
		}
		b.Grow(int(dscale) + 2)
		b.WriteString("0.")
		for k := int64(0); k < dscale; k++ {
			b.WriteByte('0')
		}
		return b.String(), nil
	}
	intDigits := p - first
	if intDigits > maxIntDigits {
		return "", numericOverflow()
	}
	if intDigits < 0 {
		intDigits = 0
	}
	b.Grow(int(intDigits + dscale + 3))
	if neg {
		b.WriteByte('-')
	}
	if intDigits == 0 {
		b.WriteByte('0')
	} else {
		for k := first; k < p; k++ {
			if k < nd {
				b.WriteByte(digit(k))
			} else {
				b.WriteByte('0')
			}
		}
	}
	if dscale > 0 {
		b.WriteByte('.')
		for k := p; k < p+dscale; k++ {
			if k >= 0 && k < nd {
				b.WriteByte(digit(k))
			} else {
				b.WriteByte('0')
			}
		}
	}
	return b.String(), nil
}

// decimalText is a finite Decimal's numeric output text.
func decimalText(d *apd.Decimal) string {
	digits := d.Coeff.String()
	exp := int64(d.Exponent)
	if exp >= 0 && !d.Negative && digits != "0" {
		if exp == 0 {
			return digits
		}
		return digits + strings.Repeat("0", int(exp))
	}
	s, err := buildNumber(d.Negative, digits, "", exp)
	if err != nil {
		// Beyond numeric's range: print it anyway rather than fail.
		s = d.Text('f')
	}
	return s
}

func formatInt(i int64) string { return strconv.FormatInt(i, 10) }

// compareNumText compares two numbers in canonical text numerically.
func compareNumText(a, b string) int {
	an, bn := a[0] == '-', b[0] == '-'
	switch {
	case an && !bn:
		return -1
	case !an && bn:
		return 1
	case an:
		return -compareAbsText(a[1:], b[1:])
	}
	return compareAbsText(a, b)
}

// compareAbsText compares two unsigned canonical numbers.
func compareAbsText(a, b string) int {
	ai, af := splitPoint(a)
	bi, bf := splitPoint(b)
	if len(ai) != len(bi) {
		if len(ai) < len(bi) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(ai, bi); c != 0 {
		return c
	}
	af = strings.TrimRight(af, "0")
	bf = strings.TrimRight(bf, "0")
	return strings.Compare(af, bf)
}

func splitPoint(s string) (string, string) {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}
