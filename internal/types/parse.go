package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

func parse(s string, t Type) (Datum, error) {
	switch t.ID {
	case IDBool:
		return ParseBool(s)
	case IDInt16, IDInt32, IDInt64:
		return ParseInt(s, t)
	case IDFloat32, IDFloat64:
		return ParseFloat(s, t)
	case IDNumeric:
		return ParseNumeric(s, t)
	case IDText, IDUnknown:
		return s, nil
	case IDVarchar:
		return CheckVarchar(s, t, false)
	case IDDate:
		return ParseDate(s)
	case IDTimestamp, IDTimestampTZ:
		return ParseTimestamp(s, t.ID == IDTimestampTZ)
	case IDInterval:
		return ParseInterval(s)
	}
	return parseExt(s, t)
}

// syntaxError is the 22P02 error of a malformed number or boolean.
func syntaxError(t Type, s string) error {
	return pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type %s: %q", t, s)
}

// rangeError is the 22003 error of a number too large for its type.
func rangeError(t Type, s string) error {
	return pgerr.New(pgerr.NumericOutOfRange, "value %q is out of range for type %s", s, t)
}

// ParseBool reads a boolean as boolin does: t, true, yes, on, 1 and f,
// false, no, off, 0, any unique prefix of them, in any case, with
// surrounding whitespace.
func ParseBool(s string) (bool, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v != "" {
		for _, w := range [...]string{"true", "yes"} {
			if strings.HasPrefix(w, v) {
				return true, nil
			}
		}
		for _, w := range [...]string{"false", "no"} {
			if strings.HasPrefix(w, v) {
				return false, nil
			}
		}
		switch v {
		case "on", "1":
			return true, nil
		case "of", "off", "0":
			return false, nil
		}
	}
	return false, syntaxError(TBool, s)
}

// ParseInt reads a smallint, integer or bigint: optional sign and decimal
// digits, surrounded by optional whitespace.
func ParseInt(s string, t Type) (int64, error) {
	v := strings.TrimSpace(s)
	digits := strings.TrimLeft(v, "+-")
	if len(v)-len(digits) > 1 || digits == "" || !allDigits(digits) {
		return 0, syntaxError(t, s)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || !IntFits(n, t) {
		return 0, rangeError(t, s)
	}
	return n, nil
}

// allDigits reports whether s holds only ASCII decimal digits (a loop:
// strings.Trim with a cutset builds the set on every call, a hot spot of
// COPY).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IntFits reports whether n is within the range of integer type t.
func IntFits(n int64, t Type) bool {
	switch t.ID {
	case IDInt16:
		return n >= math.MinInt16 && n <= math.MaxInt16
	case IDInt32:
		return n >= math.MinInt32 && n <= math.MaxInt32
	}
	return true
}

// ParseFloat reads a real or double precision: a decimal number with an
// optional exponent, or NaN, Infinity, inf with optional sign, in any case.
// Values beyond the type's range, including underflow to zero, are 22003.
func ParseFloat(s string, t Type) (float64, error) {
	v := strings.TrimSpace(s)
	switch strings.ToLower(strings.TrimPrefix(v, "+")) {
	case "nan":
		return math.NaN(), nil
	case "infinity", "inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	if !isDecimalSyntax(v) {
		return 0, syntaxError(t, s)
	}
	bits := 64
	if t.ID == IDFloat32 {
		bits = 32
	}
	f, err := strconv.ParseFloat(v, bits)
	if err != nil || (f == 0 && hasNonZeroMantissa(v)) {
		return 0, pgerr.New(pgerr.NumericOutOfRange, "%q is out of range for type %s", v, t)
	}
	return f, nil
}

// isDecimalSyntax reports whether s is [+-]digits[.digits][e[+-]digits]
// with at least one mantissa digit.
func isDecimalSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	n := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		n++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			n++
		}
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for ; i < len(s) && isDigit(s[i]); i++ {
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

func hasNonZeroMantissa(s string) bool {
	if e := strings.IndexAny(s, "eE"); e >= 0 {
		s = s[:e]
	}
	return strings.ContainsAny(s, "123456789")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// CheckVarchar returns s as a value of varchar type t. A string longer
// than the type's width is an error (22001) unless the excess is all
// spaces, or explicit is true (an explicit cast), in which case it is
// truncated. Lengths count characters, not bytes.
func CheckVarchar(s string, t Type, explicit bool) (string, error) {
	s, _, err := fitWidth(s, t, explicit)
	return s, err
}

// fitWidth cuts s to t's width in characters (none when t.Width is 0)
// and returns it with its length in characters: a longer string is 22001
// unless the excess is all blanks or explicit is true (an explicit
// cast), which truncate it. The length checks of character varying(n)
// and character(n).
func fitWidth(s string, t Type, explicit bool) (string, int, error) {
	if t.Width <= 0 {
		return s, 0, nil
	}
	n := 0
	for i := range s {
		if n == t.Width {
			if explicit || strings.TrimRight(s[i:], " ") == "" {
				return s[:i], n, nil
			}
			return "", 0, pgerr.New(pgerr.StringDataTooLong, "value too long for type %s", t)
		}
		n++
	}
	return s, n, nil
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
