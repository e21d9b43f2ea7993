package sql

import "strings"

// rendered is the text handed to the TiDB parser, with what is needed to
// map its offsets back to the user's query.
type rendered struct {
	text   string
	toks   []Token     // the tokens rendered
	starts []int       // starts[k]: offset of toks[k] in text
	params map[int]int // offset of each '?' in text -> its $N
}

// render writes tokens as TiDB SQL: one space between tokens (none around
// '.'), identifiers quoted when TiDB would read them as something else,
// strings in standard '..' form, $N as '?'.
func render(toks []Token) *rendered {
	r := &rendered{toks: toks, starts: make([]int, len(toks)), params: map[int]int{}}
	var b strings.Builder
	for k, t := range toks {
		if k > 0 && spaceBetween(toks[k-1], t) {
			b.WriteByte(' ')
		}
		r.starts[k] = b.Len()
		if t.Kind == TokParam {
			r.params[b.Len()] = t.N
		}
		b.WriteString(renderToken(toks, k))
	}
	r.text = b.String()
	return r
}

// spaceBetween reports whether the rendering separates a and b: not
// around '.', and not between a name and '(' (TiDB, like MySQL without
// IGNORE_SPACE, reads "count (" as an identifier, not a call), LATERAL
// before its subquery excepted ("lateral(" would be a call).
func spaceBetween(a, b Token) bool {
	if a.isPunct(".") || b.isPunct(".") {
		return false
	}
	isName := a.Kind == TokIdent && !a.isWord("lateral") || (a.Kind == tokRaw && strings.HasPrefix(a.Text, markerPrefix))
	return !(b.isPunct("(") && isName)
}

func renderToken(toks []Token, k int) string {
	t := toks[k]
	switch t.Kind {
	case TokIdent:
		if t.Quoted || needsQuotes(toks, k) {
			return quoteIdent(t.Text)
		}
		return t.Text
	case TokString:
		return renderString(t)
	case TokParam:
		return "?"
	}
	return t.Text
}

func renderString(t Token) string {
	switch t.Prefix {
	case 'B':
		return "b'" + t.Text + "'"
	case 'X':
		return "x'" + t.Text + "'"
	}
	return "'" + strings.ReplaceAll(t.Text, "'", "''") + "'"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// tokenAt returns the index of the token covering text offset off, or
// len(toks) when off is past the last token.
func (r *rendered) tokenAt(off int) int {
	k := len(r.starts) - 1
	for k >= 0 && r.starts[k] > off {
		k--
	}
	if k < 0 {
		return 0
	}
	if off >= r.starts[k]+len(renderToken(r.toks, k)) && k == len(r.toks)-1 {
		return len(r.toks)
	}
	return k
}
