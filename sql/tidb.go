package sql

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql/literal"
)

// parseTiDB renders rewritten tokens (table functions included), parses
// them with the TiDB parser, and sets the order of every placeholder.
func (s *stmtParser) parseTiDB(toks []Token) (ast.StmtNode, error) {
	toks, err := s.rewriteTableFuncs(toks)
	if err != nil {
		return nil, err
	}
	if toks, err = s.rewriteDerivedColumns(toks); err != nil {
		return nil, err
	}
	r := render(toks)
	s.last = r
	stmts, _, err := s.p.tidb.ParseSQL(r.text)
	if err != nil {
		return nil, r.translateError(s.query, err)
	}
	if len(stmts) != 1 {
		return nil, syntaxErrorAt(s.query, toks[0])
	}
	if err := r.orderParams(stmts[0]); err != nil {
		return nil, err
	}
	return stmts[0], nil
}

// parseExprs parses a list of rewritten expressions (the arguments of a
// table function, a DEFAULT) by parsing SELECT e1, e2, ...
// at stands for the list in errors about an empty expression.
func (s *stmtParser) parseExprs(exprs [][]Token, at Token) ([]ast.ExprNode, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	for _, e := range exprs {
		if len(e) == 0 {
			return nil, syntaxErrorAt(s.query, at)
		}
	}
	toks := []Token{raw("select", exprs[0][0])}
	for k, e := range exprs {
		if k > 0 {
			toks = append(toks, punct(",", e[0]))
		}
		toks = append(toks, e...)
	}
	node, err := s.parseTiDB(toks)
	if err != nil {
		return nil, err
	}
	sel, ok := node.(*ast.SelectStmt)
	if !ok || sel.From != nil || len(sel.Fields.Fields) != len(exprs) {
		return nil, syntaxErrorAt(s.query, exprs[0][0])
	}
	out := make([]ast.ExprNode, len(exprs))
	for k, f := range sel.Fields.Fields {
		if f.Expr == nil || f.AsName.O != "" {
			return nil, syntaxErrorAt(s.query, exprs[k][0])
		}
		out[k] = f.Expr
	}
	return out, nil
}

// tidbErrPattern matches the TiDB parser's syntax error message.
var tidbErrPattern = regexp.MustCompile(`^line \d+ column \d+ near "`)

var totalLength = regexp.MustCompile(`\(total length (\d+)\)\s*$`)

// translateError turns a TiDB parse error into a 42601 pointing at the
// user's token: `syntax error at or near "x"` or `at end of input`.
func (r *rendered) translateError(query string, err error) error {
	msg := err.Error()
	loc := tidbErrPattern.FindStringIndex(msg)
	if loc == nil {
		return syntaxErrorAt(query, r.toks[0])
	}
	off := r.nearOffset(msg[loc[1]:], msg)
	if off < 0 {
		return syntaxErrorAt(query, r.toks[0])
	}
	k := r.tokenAt(off)
	if strings.TrimSpace(r.text[off:]) == "" || k >= len(r.toks) {
		return syntaxErrorAtEnd(query, r.toks[len(r.toks)-1].End)
	}
	return syntaxErrorAt(query, r.toks[k])
}

// nearOffset finds where in r.text the error's `near "..."` text starts:
// TiDB quotes the rest of its input from the offending token on, cut at
// 2048 bytes and then followed by "(total length N)".
func (r *rendered) nearOffset(rest, msg string) int {
	if m := totalLength.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n <= len(r.text) {
			return len(r.text) - n
		}
	}
	for off := max(0, len(r.text)-2048); off <= len(r.text); off++ {
		if strings.HasPrefix(rest, r.text[off:]+`"`) {
			return off
		}
	}
	return -1
}

// orderParams sets each placeholder's Order to N-1 for the $N it came from.
func (r *rendered) orderParams(n ast.Node) error {
	v := &paramVisitor{params: r.params}
	n.Accept(v)
	if v.missing {
		return pgerr.New(pgerr.Internal, "sql: placeholder without a $N in rewritten text %q", r.text)
	}
	return nil
}

type paramVisitor struct {
	params  map[int]int
	missing bool
}

func (v *paramVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if pm, ok := n.(*literal.ParamMarkerExpr); ok {
		num, found := v.params[pm.Offset]
		v.missing = v.missing || !found
		pm.Order = num - 1
	}
	return n, false
}

func (v *paramVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
