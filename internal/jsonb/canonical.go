package jsonb

import (
	"strings"
	"unicode/utf8"
)

// Fast paths for -> and ->> on stored jsonb text.
//
// The engine stores a jsonb value as its normal form's text, exactly what
// Value.String prints. The functions here read such canonical text
// directly, without building a Value: they walk the top-level container
// and return the member's text, a substring of the input (->), or its
// Value.Text (->>), which allocates only to de-escape a string with
// escapes.
//
// They require canonical input: s must be v.String() for some Value v
// (as Parse(x).String() is for any accepted x). On canonical input they
// equal Parse(s) followed by Field or Elem and then String or Text. On any
// other input (white space other than String's, unsorted or duplicate
// keys, non-canonical numbers, trailing text, invalid JSON) the result is
// unspecified, but they never panic and return a substring of s or a
// de-escaped string.
//
// Canonical text in short: null, true, false; numbers as numeric prints
// them (no exponent, no white space); strings quoted, escaped as
// appendQuoted escapes them (\b \f \n \r \t \" \\ and \u00XX for other
// control characters; everything else raw); arrays [a, b]; objects
// {"k": v, "l": w} with keys in jsonb's key order (shorter first, then
// bytewise, of the de-escaped keys) and unique; ", " and ": " the only
// white space outside strings.

// FieldCanonical returns the text of v -> key, where s is the canonical
// text of v (v.String(); see above): the member's canonical text, as
// v.Field(key) then String would give it, as a substring of s. ok is false
// (SQL NULL) when s is not an object or has no such key.
func FieldCanonical(s, key string) (value string, ok bool) {
	start, end := fieldCanonical(s, key)
	if start < 0 {
		return "", false
	}
	return s[start:end], true
}

// FieldTextCanonical returns v ->> key, where s is the canonical text of v
// (v.String()): v.Field(key) then Text. ok is false (SQL NULL) when s is
// not an object, has no such key, or the member is JSON null. The result
// is a substring of s unless it is a string with escapes.
func FieldTextCanonical(s, key string) (text string, ok bool) {
	start, end := fieldCanonical(s, key)
	if start < 0 {
		return "", false
	}
	return textCanonical(s[start:end])
}

// ElemCanonical returns the text of v -> i, where s is the canonical text
// of v (v.String()): as v.Elem(i) then String would give it, as a
// substring of s. That is the i-th element (from 0) of an array, counting
// from the end when i is negative (-1 is the last); ok is false (SQL NULL)
// out of range or when v is an object. As in PostgreSQL 15 (and Elem) a
// scalar acts as a one-element array: it is its own element 0 and -1.
func ElemCanonical(s string, i int) (value string, ok bool) {
	start, end := elemCanonical(s, i)
	if start < 0 {
		return "", false
	}
	return s[start:end], true
}

// ElemTextCanonical returns v ->> i, where s is the canonical text of v
// (v.String()): v.Elem(i) then Text. ok is false (SQL NULL) where
// ElemCanonical's is and when the element is JSON null.
func ElemTextCanonical(s string, i int) (text string, ok bool) {
	start, end := elemCanonical(s, i)
	if start < 0 {
		return "", false
	}
	return textCanonical(s[start:end])
}

// textCanonical is Value.Text of the value whose canonical text is v.
func textCanonical(v string) (string, bool) {
	if v == "null" {
		return "", false
	}
	if len(v) >= 2 && v[0] == '"' {
		return unquoteCanonical(v[1 : len(v)-1]), true
	}
	return v, true
}

// fieldCanonical returns the bounds of the value of key in the canonical
// object text s, or -1, -1.
func fieldCanonical(s, key string) (start, end int) {
	if len(s) < 3 || s[0] != '{' {
		return -1, -1 // not an object, or {}
	}
	p := 1
	for p < len(s) && s[p] == '"' {
		// The key: s[p+1:q].
		q := skipString(s, p) - 1
		if q < 0 || q+2 >= len(s) {
			return -1, -1
		}
		c := compareRawKey(s[p+1:q], key)
		if c > 0 {
			// Keys are sorted: key would have come before.
			return -1, -1
		}
		v := q + 3 // after `": `
		e := skipValue(s, v)
		if e < 0 {
			return -1, -1
		}
		if c == 0 {
			return v, e
		}
		if e >= len(s) || s[e] != ',' {
			return -1, -1 // the end of the object
		}
		p = e + 2 // after ", "
	}
	return -1, -1
}

// elemCanonical returns the bounds of the i-th element in the canonical
// text s, or -1, -1.
func elemCanonical(s string, i int) (start, end int) {
	if len(s) == 0 {
		return -1, -1
	}
	switch s[0] {
	case '{':
		return -1, -1
	case '[':
	default:
		// A scalar is a one-element array.
		if i == 0 || i == -1 {
			return 0, len(s)
		}
		return -1, -1
	}
	if len(s) < 3 {
		return -1, -1 // []
	}
	if i < 0 {
		n := 0
		for p := 1; ; n++ {
			e := skipValue(s, p)
			if e < 0 {
				return -1, -1
			}
			if e >= len(s) || s[e] != ',' {
				n++
				break
			}
			p = e + 2
		}
		if i < -n {
			return -1, -1
		}
		i += n
	}
	for p, k := 1, 0; ; k++ {
		e := skipValue(s, p)
		if e < 0 {
			return -1, -1
		}
		if k == i {
			return p, e
		}
		if e >= len(s) || s[e] != ',' {
			return -1, -1
		}
		p = e + 2
	}
}

// skipString returns the index after the string whose opening quote is at
// s[p], or -1 if it does not end.
func skipString(s string, p int) int {
	k := p + 1
	// Most strings (keys above all) are short: a plain loop over their
	// first bytes beats IndexByte's call.
	for lim := min(k+16, len(s)); k < lim; k++ {
		switch s[k] {
		case '"':
			return k + 1
		case '\\':
			k++ // the escaped byte
		}
	}
	if k > len(s) {
		return -1
	}
	for {
		j := strings.IndexByte(s[k:], '"')
		if j < 0 {
			return -1
		}
		j += k
		// The quote is escaped if an odd number of backslashes precede it
		// (a backslash in a string's text is always an escape's first
		// byte or an escaped backslash).
		n := 0
		for b := j - 1; b > p && s[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		k = j + 1
	}
}

// skipValue returns the index after the value starting at s[p], or -1 if
// there is none or it does not end.
func skipValue(s string, p int) int {
	if p >= len(s) {
		return -1
	}
	switch s[p] {
	case '"':
		return skipString(s, p)
	case '[', '{':
		depth := 0
		for k := p; k < len(s); k++ {
			switch s[k] {
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					return k + 1
				}
			case '"':
				e := skipString(s, k)
				if e < 0 {
					return -1
				}
				k = e - 1
			}
		}
		return -1
	case ',', ']', '}':
		return -1
	}
	// A number, true, false or null: up to the next separator.
	k := p + 1
	for k < len(s) && s[k] != ',' && s[k] != ']' && s[k] != '}' {
		k++
	}
	return k
}

// compareRawKey compares the key whose escaped text (between the quotes)
// is raw with key, in jsonb's key order (compareKeys).
func compareRawKey(raw, key string) int {
	// De-escaping never lengthens a string.
	if len(raw) < len(key) {
		return -1
	}
	if strings.IndexByte(raw, '\\') < 0 {
		return compareKeys(raw, key)
	}
	n := 0
	var b [utf8.UTFMax]byte
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			n++
			i++
			continue
		}
		m, next := unescapeAt(raw, i, &b)
		n += m
		i = next
	}
	if n != len(key) {
		if n < len(key) {
			return -1
		}
		return 1
	}
	j := 0
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			if raw[i] != key[j] {
				return cmpByte(raw[i], key[j])
			}
			i++
			j++
			continue
		}
		m, next := unescapeAt(raw, i, &b)
		for _, c := range b[:m] {
			if c != key[j] {
				return cmpByte(c, key[j])
			}
			j++
		}
		i = next
	}
	return 0
}

func cmpByte(a, b byte) int {
	if a < b {
		return -1
	}
	return 1
}

// unquoteCanonical de-escapes a string's text (between the quotes).
func unquoteCanonical(raw string) string {
	i := strings.IndexByte(raw, '\\')
	if i < 0 {
		return raw
	}
	var sb strings.Builder
	sb.Grow(len(raw) - 1)
	var b [utf8.UTFMax]byte
	for i >= 0 {
		sb.WriteString(raw[:i])
		m, next := unescapeAt(raw, i, &b)
		sb.Write(b[:m])
		raw = raw[next:]
		i = strings.IndexByte(raw, '\\')
	}
	sb.WriteString(raw)
	return sb.String()
}

// unescapeAt de-escapes the escape at s[i] (a backslash) as Parse does:
// it puts the bytes it stands for in b[:n] and returns n and the index
// after the escape. (Canonical text has only \b \f \n \r \t \" \\ and
// \u00XX; the others are read too. A malformed escape stands for its
// backslash.)
func unescapeAt(s string, i int, b *[utf8.UTFMax]byte) (n, next int) {
	if i+1 >= len(s) {
		b[0] = '\\'
		return 1, i + 1
	}
	switch c := s[i+1]; c {
	case 'b':
		b[0] = '\b'
	case 'f':
		b[0] = '\f'
	case 'n':
		b[0] = '\n'
	case 'r':
		b[0] = '\r'
	case 't':
		b[0] = '\t'
	case 'u':
		r, ok := hex4(s, i+2)
		if !ok {
			b[0] = '\\'
			return 1, i + 1
		}
		next = i + 6
		if r >= 0xd800 && r <= 0xdbff {
			if lo, ok := hex4(s, i+8); ok && s[i+6] == '\\' && s[i+7] == 'u' && lo >= 0xdc00 && lo <= 0xdfff {
				r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
				next = i + 12
			}
		}
		return utf8.EncodeRune(b[:], r), next
	default: // " \ / and malformed escapes
		b[0] = c
	}
	return 1, i + 2
}

// hex4 reads the four hexadecimal digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, h := range []byte(s[i : i+4]) {
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a' && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case h >= 'A' && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
