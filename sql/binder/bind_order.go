package binder

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// InvalidRowCountInLimit and InvalidRowCountInOffset are the SQLSTATEs of
// a negative LIMIT or OFFSET.
const (
	InvalidRowCountInLimit  = "2201W"
	InvalidRowCountInOffset = "2201X"
)

// bindOrderBy binds ORDER BY into st.keys. An item is an output column
// ordinal, an output column name, or an expression over the input; an
// expression not in the select list becomes a hidden extra column.
func (b *binder) bindOrderBy(st *selectState, ob *ast.OrderByClause, distinct bool) error {
	if ob == nil {
		return nil
	}
	for _, item := range ob.Items {
		n, nullsFirst := unwrapNulls(item.Expr, item.Desc)
		col, err := b.orderColumn(st, n, distinct)
		if err != nil {
			return err
		}
		st.keys = append(st.keys, planner.SortKey{Col: col, Desc: item.Desc, NullsFirst: nullsFirst})
	}
	return nil
}

// unwrapNulls undoes the NULLS FIRST/LAST markers; the default is NULLS
// FIRST for DESC and LAST for ASC, as Postgres sorts NULL as largest.
func unwrapNulls(n ast.ExprNode, desc bool) (ast.ExprNode, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && len(f.Args) == 1 {
		switch f.FnName.L {
		case markerNullsFirst:
			return positionOf(f.Args[0]), true
		case markerNullsLast:
			return positionOf(f.Args[0]), false
		}
	}
	return n, desc
}

// nonIntegerConstant refuses a constant other than an integer (which is
// a position) as a GROUP BY or ORDER BY item, as PostgreSQL does (SQL92's
// rule): GROUP BY false or ORDER BY 'x' would otherwise silently group or
// sort by nothing. A cast constant ('x'::text) is an expression, allowed.
func (b *binder) nonIntegerConstant(n ast.ExprNode, clause string) error {
	if v, ok := n.(ast.ValueExpr); ok {
		if _, isInt := v.GetValue().(int64); !isInt {
			return b.atNode(pgerr.New(pgerr.SyntaxError, "non-integer constant in %s", clause), n)
		}
	}
	// A negative integer is a constant to Postgres, hence a position,
	// and never one in the select list (GROUP BY -2).
	if u, ok := n.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		v := u.V
		for {
			p, ok := v.(*ast.ParenthesesExpr)
			if !ok {
				break
			}
			v = p.Expr // -(7) is -7 to Postgres
		}
		if v, ok := v.(ast.ValueExpr); ok {
			if i, isInt := v.GetValue().(int64); isInt && i > math.MaxInt32 {
				return b.atNode(pgerr.New(pgerr.SyntaxError, "non-integer constant in %s", clause), n)
			} else if isInt {
				return b.atNode(pgerr.New(pgerr.InvalidColumnReference, "%s position %d is not in select list", clause, -i), n)
			}
		}
	}
	return nil
}

// positionOf reads an integer literal as an output column position, as the
// parser does for an ORDER BY item that is not inside a NULLS marker.
func positionOf(n ast.ExprNode) ast.ExprNode {
	if _, isParam := n.(ast.ParamMarkerExpr); isParam {
		return n
	}
	if v, ok := n.(ast.ValueExpr); ok {
		if i, ok := v.GetValue().(int64); ok {
			p := &ast.PositionExpr{N: int(i)}
			p.SetOriginTextPosition(v.OriginTextPosition())
			return p
		}
	}
	return n
}

// outputPosition reads an integer constant, parenthesized or not, as an
// output column position, as PostgreSQL does in GROUP BY (also inside
// ROLLUP, CUBE and GROUPING SETS) and DISTINCT ON, whose parentheses its
// grammar drops: the parser makes a position only of a bare integer
// directly in GROUP BY or ORDER BY. Another constant is unwrapped too, for
// nonIntegerConstant to refuse.
func outputPosition(n ast.ExprNode) ast.ExprNode {
	inner := n
	for {
		p, ok := inner.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		inner = p.Expr
	}
	switch inner.(type) {
	case ast.ParamMarkerExpr:
		return n
	case ast.ValueExpr:
		return positionOf(inner)
	case *ast.PositionExpr:
		return inner
	}
	return n
}

// orderColumn returns the index, in the projection, of an ORDER BY item.
func (b *binder) orderColumn(st *selectState, n ast.ExprNode, distinct bool) (int, error) {
	if col, ok, err := b.outputColumn(st.items, st.exprs, n, "ORDER BY"); ok || err != nil {
		return col, err
	}
	e, err := b.bindExpr(st.ctx, n)
	if err != nil {
		return 0, err
	}
	for i, x := range st.exprs {
		if exprEqual(x, e) {
			return i, nil
		}
	}
	if distinct {
		return 0, pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
	}
	if e, err = resolveUnknown(e); err != nil {
		return 0, err
	}
	for i, x := range st.extras {
		if exprEqual(x, e) {
			return len(st.items) + i, nil
		}
	}
	st.extras = append(st.extras, e)
	return len(st.items) + len(st.extras) - 1, nil
}

// outputColumn resolves an ordinal or a bare output column name; ok is
// false when n is neither.
func (b *binder) outputColumn(items []selItem, exprs []expr.Expr, n ast.ExprNode, clause string) (int, bool, error) {
	if err := b.nonIntegerConstant(n, clause); err != nil {
		return 0, true, err
	}
	switch x := n.(type) {
	case *ast.PositionExpr:
		if x.P == nil && x.N > math.MaxInt32 {
			// Not an int4 to Postgres: a constant, and not an integer.
			return 0, true, b.atNode(pgerr.New(pgerr.SyntaxError, "non-integer constant in %s", clause), n)
		}
		if x.P != nil || x.N < 1 || x.N > len(items) {
			err := pgerr.New(pgerr.InvalidColumnReference, "%s position %d is not in select list", clause, x.N)
			return 0, true, b.atOrdinal(err, x, clause)
		}
		return x.N - 1, true, nil
	case *ast.ColumnNameExpr:
		if x.Name.Table.O != "" {
			return 0, false, nil
		}
		return b.outputNamed(items, exprs, x)
	}
	return 0, false, nil
}

func (b *binder) outputNamed(items []selItem, exprs []expr.Expr, x *ast.ColumnNameExpr) (int, bool, error) {
	found := -1
	for i, it := range items {
		if it.name != x.Name.Name.O {
			continue
		}
		if found >= 0 && (exprs == nil || !exprEqual(exprs[found], exprs[i])) {
			err := pgerr.New(pgerr.AmbiguousColumn, "ORDER BY %q is ambiguous", x.Name.Name.O)
			return 0, true, b.at(err, x, x.Name.Name.O)
		}
		if found < 0 {
			found = i
		}
	}
	return found, found >= 0, nil
}

// bindLimit adds LIMIT/OFFSET, whose values are constants or parameters.
func (b *binder) bindLimit(node planner.Node, lim *ast.Limit) (planner.Node, error) {
	if lim == nil {
		return node, nil
	}
	count, err := b.limitValue(lim.Count, -1, "LIMIT", InvalidRowCountInLimit)
	if err != nil {
		return nil, err
	}
	if count == math.MaxInt64 {
		// The front end writes OFFSET n without LIMIT as LIMIT max OFFSET n.
		count = -1
	}
	offset, err := b.limitValue(lim.Offset, 0, "OFFSET", InvalidRowCountInOffset)
	if err != nil {
		return nil, err
	}
	return &planner.Limit{Input: node, Count: count, Offset: offset}, nil
}

// limitValue evaluates a LIMIT or OFFSET expression (NULL: def).
func (b *binder) limitValue(n ast.ExprNode, def int64, clause, code string) (int64, error) {
	if n == nil {
		return def, nil
	}
	e, err := b.bindExpr(&exprCtx{scope: &scope{}, clause: clause}, n)
	if err != nil {
		return 0, err
	}
	if e, err = b.decideParam(e, types.TInt64); err != nil {
		return 0, err
	}
	v, err := constInt(e)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return def, nil
	}
	if *v < 0 {
		return 0, pgerr.New(code, "%s must not be negative", clause)
	}
	return *v, nil
}

// constInt evaluates a constant expression as a bigint (nil for NULL).
func constInt(e expr.Expr) (*int64, error) {
	if c, ok := e.(*expr.Const); ok {
		if c.Value == nil {
			return nil, nil
		}
		if v, ok := c.Value.(int64); ok {
			return &v, nil
		}
	}
	if len(expr.Columns(e)) > 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "argument of LIMIT must not contain variables")
	}
	if e.Type().ID != types.IDInt64 {
		var err error
		if e, err = expr.Cast(e, types.TInt64); err != nil {
			return nil, err
		}
	}
	v, err := e.Eval(nil)
	if err != nil || v == nil {
		return nil, err
	}
	i := v.(int64)
	return &i, nil
}

// atOrdinal positions an error about an ORDER BY or GROUP BY ordinal at
// the number, as Postgres does. The parser leaves a PositionExpr without
// an offset, so the number is looked for in the clause's text.
func (b *binder) atOrdinal(err error, x *ast.PositionExpr, clause string) error {
	if x.OriginTextPosition() > 0 {
		return b.atNode(err, x)
	}
	pe := pgerr.As(err)
	if pe.Position != 0 {
		return err
	}
	if i := ordinalIndex(b.st.Text, clause, x.N); i >= 0 {
		return pe.WithPosition(b.st.Offset + utf8.RuneCountInString(b.st.Text[:i]) + 1)
	}
	return err
}

var ordinalClauses = map[string]*regexp.Regexp{
	"ORDER BY": regexp.MustCompile(`(?i)\border\s+by\b`),
	"GROUP BY": regexp.MustCompile(`(?i)\bgroup\s+by\b`),
}

// clauseEnd matches what ends an ORDER BY or GROUP BY list.
var clauseEnd = regexp.MustCompile(`(?i)\b(having|limit|offset|fetch|window|union|intersect|except|order|group)\b|[;)]`)

// ordinalIndex returns the byte index in text of the number n as a whole
// word in the first clause (ORDER BY or GROUP BY) list holding it, or -1.
func ordinalIndex(text, clause string, n int) int {
	re, ok := ordinalClauses[clause]
	if !ok {
		return -1
	}
	num := strconv.Itoa(n)
	for _, m := range re.FindAllStringIndex(text, -1) {
		list := text[m[1]:]
		if e := clauseEnd.FindStringIndex(list); e != nil {
			list = list[:e[0]]
		}
		for from := 0; ; {
			j := strings.Index(list[from:], num)
			if j < 0 {
				break
			}
			at := from + j
			if wordAt(list, at, len(num)) && (at == 0 || list[at-1] != '.') {
				return m[1] + at
			}
			from = at + 1
		}
	}
	return -1
}
