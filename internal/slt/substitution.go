package slt

import (
	"fmt"
	"strings"
)

// testDirVar is the variable that names a directory private to the file.
const testDirVar = "__TEST_DIR__"

// substitute replaces $NAME, ${NAME} and ${NAME:default} in sql with the
// values lookup gives. \$ is a literal $. A $ not followed by a name or a
// brace (as in $1) is kept, and so are Postgres dollar quotes: $$ and a
// name directly followed by $ ($body$) are not variables.
func substitute(sql string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for i := 0; i < len(sql); {
		switch {
		case strings.HasPrefix(sql[i:], `\$`):
			b.WriteByte('$')
			i += 2
		case sql[i] == '$':
			n, err := substituteVar(&b, sql[i:], lookup)
			if err != nil {
				return "", err
			}
			i += n
		default:
			b.WriteByte(sql[i])
			i++
		}
	}
	return b.String(), nil
}

// substituteVar writes the value of the variable at the start of s (which
// begins with $) and returns how many bytes of s it consumed.
func substituteVar(b *strings.Builder, s string, lookup func(string) (string, bool)) (int, error) {
	if strings.HasPrefix(s, "${") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, fmt.Errorf("substitution: unterminated ${ in %q", s)
		}
		name, def, hasDef := strings.Cut(s[2:end], ":")
		v, ok := lookup(name)
		if !ok && !hasDef {
			return 0, fmt.Errorf("substitution: undefined variable %q", name)
		}
		if !ok {
			v = def
		}
		b.WriteString(v)
		return end + 1, nil
	}
	if strings.HasPrefix(s, "$$") {
		b.WriteString("$$")
		return 2, nil
	}
	n := nameLen(s[1:])
	if n == 0 || strings.HasPrefix(s[1+n:], "$") {
		b.WriteString(s[:1+n])
		return 1 + n, nil
	}
	v, ok := lookup(s[1 : 1+n])
	if !ok {
		return 0, fmt.Errorf("substitution: undefined variable %q", s[1:1+n])
	}
	b.WriteString(v)
	return 1 + n, nil
}

// nameLen is the length of the variable name at the start of s: a letter or
// underscore, then letters, digits and underscores.
func nameLen(s string) int {
	n := 0
	for n < len(s) && (s[n] == '_' || isLetter(s[n]) || (n > 0 && s[n] >= '0' && s[n] <= '9')) {
		n++
	}
	return n
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
