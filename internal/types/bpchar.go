package types

import (
	"strings"
	"unicode/utf8"
)

// A character(n) Datum is a string blank-padded to n characters, as
// Postgres stores bpchar; a bare bpchar (Width 0) keeps its value as
// given. Trailing blanks are insignificant: values compare, key, hash
// and convert to text without them (BpcharTrim), so 'a '::char(3) =
// 'a'::char(3) and length() ignores them.

// BpcharTrim returns s without its trailing blanks: the value bpchar
// compares by and converts to text as.
func BpcharTrim(s string) string { return strings.TrimRight(s, " ") }

// CheckBpchar returns s as a value of character type t, padded with
// blanks to its width. A longer string is an error (22001) unless the
// excess is all blanks, or explicit is true (an explicit cast), in which
// case it is truncated. Lengths count characters, not bytes.
func CheckBpchar(s string, t Type, explicit bool) (string, error) {
	s, n, err := fitWidth(s, t, explicit)
	if err != nil || n >= t.Width {
		return s, err
	}
	return s + strings.Repeat(" ", t.Width-n), nil
}

// BpcharLength is length() of a bpchar: characters without the trailing
// blanks.
func BpcharLength(s string) int { return utf8.RuneCountInString(BpcharTrim(s)) }
