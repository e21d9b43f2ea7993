package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// likeToken is one element of a compiled LIKE pattern.
type likeToken struct {
	kind byte // 'l' literal rune, '_' one rune, '%' any run
	r    rune
}

// compileLike parses a LIKE pattern: % matches any run of characters, _
// one character, and a backslash makes the next character literal.
// The pattern comes as runes: characters, or for bytea its bytes as runes
// of their values.
func compileLike(p []rune) ([]likeToken, error) {
	var toks []likeToken
	for i := 0; i < len(p); i++ {
		switch r := p[i]; r {
		case '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeToken{kind: '%'})
			}
		case '_':
			toks = append(toks, likeToken{kind: '_'})
		case '\\':
			if i+1 == len(p) {
				return nil, pgerr.New("22025", "LIKE pattern must not end with escape character")
			}
			i++
			toks = append(toks, likeToken{kind: 'l', r: p[i]})
		default:
			toks = append(toks, likeToken{kind: 'l', r: r})
		}
	}
	return toks, nil
}

// matchLike reports whether s matches the compiled pattern, backtracking
// only to the most recent %.
func matchLike(s []rune, p []likeToken) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi].kind == '%':
			starP, starS = pi, si
			pi++
		case pi < len(p) && (p[pi].kind == '_' || p[pi].r == s[si]):
			si++
			pi++
		case starP >= 0:
			starS++
			si, pi = starS, starP+1
		default:
			return false
		}
	}
	for pi < len(p) && p[pi].kind == '%' {
		pi++
	}
	return pi == len(p)
}

// like builds [NOT] LIKE / ILIKE over text operands (Postgres's ~~, ~~*).
func like(op string, l, r Expr) (Expr, error) {
	negate := strings.HasPrefix(op, "NOT ")
	fold := strings.HasSuffix(op, "ILIKE")
	pgName := map[string]string{"LIKE": "~~", "NOT LIKE": "!~~", "ILIKE": "~~*", "NOT ILIKE": "!~~*"}[op]
	// bpchar LIKE text matches the padded value (bpcharlike), blanks included.
	cands := []sig{{params: []types.ID{tText, tText}, result: tBool}, {params: []types.ID{tBpchar, tText}, result: tBool}}
	if !fold {
		// bytea LIKE bytea matches bytes, not characters.
		cands = append(cands, sig{params: []types.ID{tBytea, tBytea}, result: tBool})
	}
	e, err := newCall(pgName, styleInfix, cands, []Expr{l, r})
	if err != nil {
		return nil, err
	}
	c := e.(*call)
	c.name = op
	runes := toRunes
	if c.args[0].Type().ID == tBytea {
		runes = bytesAsRunes
	}
	var fixed []likeToken
	if k, ok := c.args[1].(*Const); ok && k.Value != nil {
		if fixed, err = compileLike(runes(foldCase(k.Value.(string), fold))); err != nil {
			return nil, err
		}
	}
	c.fn = func(a []types.Datum) (types.Datum, error) {
		p := fixed
		if p == nil {
			var err error
			if p, err = compileLike(runes(foldCase(a[1].(string), fold))); err != nil {
				return nil, err
			}
		}
		return matchLike(runes(foldCase(a[0].(string), fold)), p) != negate, nil
	}
	return c, nil
}

func toRunes(s string) []rune { return []rune(s) }

// bytesAsRunes gives each byte of s as a rune of its value, so that LIKE
// on bytea matches bytes.
func bytesAsRunes(s string) []rune {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return r
}

func foldCase(s string, fold bool) string {
	if fold {
		return strings.ToLower(s)
	}
	return s
}

// likeEscape is like_escape(pattern, escape): pattern rewritten so that
// backslash is its escape character, as x LIKE p ESCAPE e is x LIKE
// like_escape(p, e) in PostgreSQL. An empty escape means none.
func likeEscape(a []types.Datum) (types.Datum, error) {
	return rewriteEscape([]rune(a[0].(string)), []rune(a[1].(string)), func(b *strings.Builder, c rune) { b.WriteRune(c) })
}

// rewriteEscape writes pattern p with its escape character esc (none
// when empty) replaced by backslash: like_escape of text (runes) and of
// bytea (bytes).
func rewriteEscape[E rune | byte](p, esc []E, write func(*strings.Builder, E)) (types.Datum, error) {
	if len(esc) > 1 {
		e := pgerr.New("22025", "invalid escape string")
		e.Hint = "Escape string must be empty or one character."
		return nil, e
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case len(esc) == 1 && p[i] == esc[0]:
			if i+1 == len(p) {
				return nil, pgerr.New("22025", "LIKE pattern must not end with escape character")
			}
			i++
			b.WriteByte('\\')
			write(&b, p[i])
		case p[i] == '\\':
			b.WriteString(`\\`)
		default:
			write(&b, p[i])
		}
	}
	return b.String(), nil
}

func init() {
	register(overloads(fn2(tText, tText, tText, likeEscape), fn2(tBytea, tBytea, tBytea, likeEscapeBytea)), "like_escape")
}

// likeEscapeBytea is like_escape of bytea: the pattern's bytes as
// characters.
func likeEscapeBytea(a []types.Datum) (types.Datum, error) {
	return rewriteEscape([]byte(a[0].(string)), []byte(a[1].(string)), func(b *strings.Builder, c byte) { b.WriteByte(c) })
}
