package jsonb

import (
	"strconv"
	"strings"
)

// The json type's values read as written, as PostgreSQL 15's json
// functions (jsonfuncs.c over the text, not over jsonb) read them: a
// sub-value is the text of the input from its first to its last token,
// so its white space, key order and duplicate keys are kept. The input is
// valid json text (a json datum); the functions that de-escape strings
// check its \u escapes first (CheckWritten), as PostgreSQL's do.

// CheckWritten checks s as PostgreSQL's json functions that de-escape
// its strings do: a \u0000 escape is 22P05.
func CheckWritten(s string) error { return checkDecoding(s) }

// WrittenKind is the first character of the value s: '{', '[', '"', 't',
// 'f', 'n', or '0' for a number.
func WrittenKind(s string) byte {
	p := skipSpace(s, 0)
	if p >= len(s) {
		return 0
	}
	switch c := s[p]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	}
	return '0'
}

// WrittenTypeof is json_typeof's name for the kind of s.
func WrittenTypeof(s string) string {
	switch WrittenKind(s) {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// WrittenElements returns the elements of the array s, each as written.
// ok is false when s is not an array.
func WrittenElements(s string) (elems []string, ok bool) {
	p := skipSpace(s, 0)
	if p >= len(s) || s[p] != '[' {
		return nil, false
	}
	p = skipSpace(s, p+1)
	if p < len(s) && s[p] == ']' {
		return nil, true
	}
	for p < len(s) {
		end := skipWritten(s, p)
		if end < 0 {
			break
		}
		elems = append(elems, s[p:end])
		switch p = skipSpace(s, end); {
		case p < len(s) && s[p] == ',':
			p = skipSpace(s, p+1)
		default:
			return elems, true
		}
	}
	return elems, true
}

// writtenMembers is Members without the check of escapes: the keys
// de-escaped and the values as written, of the object s (ok false when s
// is not an object).
func writtenMembers(s string) (keys, vals []string, ok bool) {
	p := skipSpace(s, 0)
	if p >= len(s) || s[p] != '{' {
		return nil, nil, false
	}
	p = skipSpace(s, p+1)
	if p < len(s) && s[p] == '}' {
		return nil, nil, true
	}
	for p < len(s) {
		key, val, next, ok := member(s, p)
		if !ok {
			break
		}
		keys, vals = append(keys, key), append(vals, val)
		switch p = skipSpace(s, next); {
		case p < len(s) && s[p] == ',':
			p = skipSpace(s, p+1)
		default:
			return keys, vals, true
		}
	}
	return keys, vals, true
}

// WrittenKeys are json_object_keys' keys of the object s: in order,
// duplicates kept. ok is false when s is not an object.
func WrittenKeys(s string) (keys []string, ok bool) {
	keys, _, ok = writtenMembers(s)
	return keys, ok
}

// WrittenPath returns the value at path in s as written, as PostgreSQL's
// json #> finds it: each step a member name of an object, or an index of
// an array (negative from its end) when the step reads as an integer
// (strtol's syntax); a repeated key is searched in every member of that
// name, the last value found winning. An empty path is s itself: a
// container without the white space around it, a scalar with the white
// space before it (as PostgreSQL returns it).
func WrittenPath(s string, path []string) (string, bool) {
	if len(path) == 0 {
		p := skipSpace(s, 0)
		end := skipWritten(s, p)
		if end < 0 {
			return "", false
		}
		switch s[p] {
		case '{', '[':
			return s[p:end], true
		}
		return s[:end], true
	}
	return writtenPath(strings.TrimLeft(s, " \t\n\r"), path)
}

func writtenPath(v string, path []string) (string, bool) {
	if len(path) == 0 {
		return v, true
	}
	switch WrittenKind(v) {
	case '{':
		keys, vals, _ := writtenMembers(v)
		var found string
		ok := false
		for i, k := range keys {
			if k != path[0] {
				continue
			}
			if r, hit := writtenPath(vals[i], path[1:]); hit {
				found, ok = r, true
			}
		}
		return found, ok
	case '[':
		i, valid := pathIndex(path[0])
		if !valid {
			return "", false
		}
		elems, _ := WrittenElements(v)
		if i < 0 && -i <= int64(len(elems)) {
			i += int64(len(elems))
		}
		if i < 0 || i >= int64(len(elems)) {
			return "", false
		}
		return writtenPath(elems[i], path[1:])
	}
	return "", false
}

// pathIndex reads a path step as an array index, as PostgreSQL's
// get_path_all does with strtol: white space, a sign, digits, nothing
// after; within int32.
func pathIndex(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	if t == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 32)
	if err != nil {
		return 0, false
	}
	return n, true
}

// WrittenField is s -> key: the (last) member key of the object s.
func WrittenField(s, key string) (string, bool) {
	if WrittenKind(s) != '{' {
		return "", false
	}
	return writtenPath(strings.TrimLeft(s, " \t\n\r"), []string{key})
}

// WrittenElem is s -> i: element i of the array s (negative from its
// end).
func WrittenElem(s string, i int) (string, bool) {
	if WrittenKind(s) != '[' {
		return "", false
	}
	elems, _ := WrittenElements(s)
	if i < 0 {
		i += len(elems)
	}
	if i < 0 || i >= len(elems) {
		return "", false
	}
	return elems[i], true
}

// WrittenValueText is ->>'s text of a value as written: a string
// de-escaped, null SQL NULL (ok false), anything else as written (white
// space before it kept).
func WrittenValueText(v string) (string, bool) {
	t := strings.TrimLeft(v, " \t\n\r")
	switch {
	case t == "null":
		return "", false
	case len(t) >= 2 && t[0] == '"':
		return unquoteCanonical(t[1 : len(t)-1]), true
	}
	return v, true
}

// WrittenStripNulls is json_strip_nulls(s): s re-emitted as PostgreSQL's
// json_strip_nulls does, without white space, strings re-escaped,
// numbers as written, members whose value is null dropped (array
// elements kept).
func WrittenStripNulls(s string) string {
	var b []byte
	b = stripNulls(b, strings.Trim(s, " \t\n\r"))
	return string(b)
}

func stripNulls(b []byte, v string) []byte {
	switch WrittenKind(v) {
	case '{':
		keys, vals, _ := writtenMembers(v)
		b = append(b, '{')
		n := 0
		for i, k := range keys {
			if vals[i] == "null" {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = appendQuoted(b, k)
			b = append(b, ':')
			b = stripNulls(b, vals[i])
		}
		return append(b, '}')
	case '[':
		elems, _ := WrittenElements(v)
		b = append(b, '[')
		for i, e := range elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = stripNulls(b, e)
		}
		return append(b, ']')
	case '"':
		return appendQuoted(b, unquoteCanonical(v[1:len(v)-1]))
	}
	return append(b, v...)
}

// Quote is s as a JSON string (PostgreSQL's escape_json).
func Quote(s string) string { return string(appendQuoted(nil, s)) }
