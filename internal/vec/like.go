package vec

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/expr"
)

// like compiles s [NOT] LIKE 'pattern' for a pattern of literal
// characters followed by nothing but %: a prefix test (or, with no %,
// equality). The row evaluator matches runes; bytes give the same answer
// because the literal is valid UTF-8 without U+FFFD, the rune an invalid
// byte of s decodes to.
func (c *compiler) like(not bool, l, r expr.Expr) (boolNode, bool) {
	k, ok := r.(*expr.Const)
	if !ok {
		return nil, false
	}
	pattern, ok := k.Value.(string)
	if !ok {
		return nil, false
	}
	lit, prefix, ok := likePrefix(pattern)
	if !ok || !utf8.ValidString(lit) || strings.ContainsRune(lit, utf8.RuneError) {
		return nil, false
	}
	idx, ok := c.stringColumn(l, famString)
	if !ok {
		return nil, false
	}
	return &likeNode{idx: idx, lit: lit, prefix: prefix, not: not}, true
}

// likePrefix splits a LIKE pattern into its literal characters, with
// backslash escapes resolved, and whether it ends in % (prefix); ok is
// false for a pattern with _ or a % before the end.
func likePrefix(p string) (lit string, prefix, ok bool) {
	var b strings.Builder
	i := 0
	for ; i < len(p) && p[i] != '%'; i++ {
		switch p[i] {
		case '_':
			return "", false, false
		case '\\':
			if i+1 == len(p) {
				return "", false, false
			}
			i++
		}
		b.WriteByte(p[i])
	}
	rest := p[i:]
	if strings.Trim(rest, "%") != "" {
		return "", false, false
	}
	return b.String(), rest != "", true
}

// likeNode is a prefix (or equality) LIKE over string column idx.
type likeNode struct {
	idx    int
	lit    string
	prefix bool
	not    bool
}

func (n *likeNode) eval(x *evalCtx) bvec {
	res := x.bits()
	a := x.c.Rec.Column(n.idx).(*array.String)
	if !n.prefix {
		stringConst(a, n.lit, kEQ, res)
		return truthOf(res, x.validOf(n.idx), x.bits(), x.n, n.not)
	}
	offs, data := stringsOf(a)
	base := offs[0]
	forWords(x.n, res, func(lo, hi int) uint64 {
		var word uint64
		for i := lo; i < hi; i++ {
			v := data[offs[i]-base : offs[i+1]-base]
			word |= b2u(len(v) >= len(n.lit) && string(v[:len(n.lit)]) == n.lit) << uint(i-lo)
		}
		return word
	})
	return truthOf(res, x.validOf(n.idx), x.bits(), x.n, n.not)
}
