package expr

import (
	"strings"
	"unicode/utf8"

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
func compileLike(p string) ([]likeToken, error) {
	var toks []likeToken
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		switch r {
		case '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeToken{kind: '%'})
			}
		case '_':
			toks = append(toks, likeToken{kind: '_'})
		case '\\':
			if i == len(p) {
				return nil, pgerr.New("22025", "LIKE pattern must not end with escape character")
			}
			r, n = utf8.DecodeRuneInString(p[i:])
			i += n
			toks = append(toks, likeToken{kind: 'l', r: r})
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
	cands := []sig{{params: []types.ID{tText, tText}, result: tBool}}
	e, err := newCall(pgName, styleInfix, cands, []Expr{l, r})
	if err != nil {
		return nil, err
	}
	c := e.(*call)
	c.name = op
	var fixed []likeToken
	if k, ok := c.args[1].(*Const); ok && k.Value != nil {
		if fixed, err = compileLike(foldCase(k.Value.(string), fold)); err != nil {
			return nil, err
		}
	}
	c.fn = func(a []types.Datum) (types.Datum, error) {
		p := fixed
		if p == nil {
			var err error
			if p, err = compileLike(foldCase(a[1].(string), fold)); err != nil {
				return nil, err
			}
		}
		return matchLike([]rune(foldCase(a[0].(string), fold)), p) != negate, nil
	}
	return c, nil
}

func foldCase(s string, fold bool) string {
	if fold {
		return strings.ToLower(s)
	}
	return s
}
