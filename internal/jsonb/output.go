package jsonb

// String returns v as jsonb's output function prints it:
// {"a": 1, "b": [1, 2, "x"]}, strings escaped as PostgreSQL's escape_json
// escapes them. It is the normal form: Parse(v.String()) equals v and
// prints the same text.
func (v Value) String() string {
	switch v.kind {
	case Null:
		return "null"
	case Bool:
		if v.b {
			return "true"
		}
		return "false"
	case Number:
		return v.s
	case String:
		if !needsEscape(v.s) {
			return `"` + v.s + `"`
		}
	}
	return string(v.AppendText(make([]byte, 0, v.sizeHint())))
}

// AppendText appends v.String() to dst.
func (v Value) AppendText(dst []byte) []byte {
	switch v.kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return append(dst, v.s...)
	case String:
		return appendQuoted(dst, v.s)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.c.vals {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = e.AppendText(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, k := range v.c.keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = appendQuoted(dst, k)
		dst = append(dst, ": "...)
		dst = v.c.vals[i].AppendText(dst)
	}
	return append(dst, '}')
}

// sizeHint estimates the length of v's text.
func (v Value) sizeHint() int {
	switch v.kind {
	case Number, String:
		return len(v.s) + 2
	case Array:
		n := 2
		for _, e := range v.c.vals {
			n += e.sizeHint() + 2
		}
		return n
	case Object:
		n := 2
		for i, k := range v.c.keys {
			n += len(k) + 6 + v.c.vals[i].sizeHint()
		}
		return n
	}
	return 5
}

// needsEscape reports whether escape_json changes s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a JSON string, escaped as escape_json does:
// \b \f \n \r \t \" \\ and \u00XX for other control characters.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch c {
		case '\b':
			dst = append(dst, `\b`...)
		case '\f':
			dst = append(dst, `\f`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '"':
			dst = append(dst, `\"`...)
		case '\\':
			dst = append(dst, `\\`...)
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Pretty returns jsonb_pretty(v): one member per line, indented by four
// spaces per level; an empty array or object spans two lines.
func (v Value) Pretty() string {
	if v.IsScalar() {
		return v.String()
	}
	return string(v.appendPretty(make([]byte, 0, v.sizeHint()*2), 0))
}

func appendIndent(dst []byte, level int) []byte {
	dst = append(dst, '\n')
	for i := 0; i < level; i++ {
		dst = append(dst, "    "...)
	}
	return dst
}

func (v Value) appendPretty(dst []byte, level int) []byte {
	switch v.kind {
	case Array:
		dst = append(dst, '[')
		for i, e := range v.c.vals {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendIndent(dst, level+1)
			dst = e.appendPretty(dst, level+1)
		}
		dst = appendIndent(dst, level)
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, k := range v.c.keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendIndent(dst, level+1)
			dst = appendQuoted(dst, k)
			dst = append(dst, ": "...)
			dst = v.c.vals[i].appendPretty(dst, level+1)
		}
		dst = appendIndent(dst, level)
		return append(dst, '}')
	}
	return v.AppendText(dst)
}
