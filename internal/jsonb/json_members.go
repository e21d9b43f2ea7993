package jsonb

// The json type's object members as written, for json_each and
// json_each_text. Unlike jsonb, json keeps its input's text: PostgreSQL's
// json_each yields the members in written order, duplicate keys kept,
// each value's text as written (nested white space included).

// Members returns the members of the object whose json text is s, as
// PostgreSQL 15's json_each reads them: keys de-escaped, values' text as
// written without the white space around them. An array is 22023
// "cannot deconstruct an array as an object", a scalar 22023 "cannot
// deconstruct a scalar". s is checked first as PostgreSQL's json
// functions check it: the grammar's errors, and 22P05 for a \u0000
// escape, which they cannot turn into text.
func Members(s string) (keys, vals []string, err error) {
	if err := checkDecoding(s); err != nil {
		return nil, nil, err
	}
	p := skipSpace(s, 0)
	switch {
	case p < len(s) && s[p] == '[':
		return nil, nil, invalidParam("cannot deconstruct an array as an object")
	case p >= len(s) || s[p] != '{':
		return nil, nil, invalidParam("cannot deconstruct a scalar")
	}
	keys, vals, _ = writtenMembers(s)
	return keys, vals, nil
}

// member reads the member "key": value at s[p] (valid JSON): the key
// de-escaped, the value's text and the index after it.
func member(s string, p int) (key, val string, next int, ok bool) {
	if s[p] != '"' {
		return "", "", 0, false
	}
	e := skipString(s, p)
	if e < 0 {
		return "", "", 0, false
	}
	key = unquoteCanonical(s[p+1 : e-1])
	p = skipSpace(s, e)
	if p >= len(s) || s[p] != ':' {
		return "", "", 0, false
	}
	p = skipSpace(s, p+1)
	end := skipWritten(s, p)
	if end < 0 {
		return "", "", 0, false
	}
	return key, s[p:end], end, true
}

// skipWritten returns the index after the value starting at s[p] in
// JSON text with white space (skipValue's scalars end only at a
// separator), or -1.
func skipWritten(s string, p int) int {
	if p >= len(s) {
		return -1
	}
	switch s[p] {
	case '"', '[', '{':
		return skipValue(s, p)
	}
	k := p
	for k < len(s) && !isJSONSpace(s[k]) && s[k] != ',' && s[k] != ']' && s[k] != '}' {
		k++
	}
	if k == p {
		return -1
	}
	return k
}

// WrittenText returns json_each_text's value for a value's text as
// written: a string de-escaped, JSON null SQL NULL (ok false), anything
// else as written.
func WrittenText(v string) (text string, ok bool) {
	switch {
	case v == "null":
		return "", false
	case len(v) >= 2 && v[0] == '"':
		return unquoteCanonical(v[1 : len(v)-1]), true
	}
	return v, true
}

func skipSpace(s string, p int) int {
	for p < len(s) && isJSONSpace(s[p]) {
		p++
	}
	return p
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// checkDecoding checks s as json's input does, and its \u escapes as
// PostgreSQL's json functions that de-escape strings check them.
func checkDecoding(s string) error {
	p := parser{}
	p.lex = lexer{in: s, line: 1, decode: true}
	_, err := p.parse()
	return err
}
