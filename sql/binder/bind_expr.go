package binder

import (
	"reflect"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// exprCtx says what an expression may refer to.
type exprCtx struct {
	scope *scope
	// grouped is set when binding above an Aggregate: expressions then
	// refer to group keys and aggregate results only.
	grouped *grouping
	// clause names where aggregates are not allowed ("WHERE", "JOIN
	// conditions", ...) for the 42803 message; "" where they are.
	clause string
	// subs collects the uncorrelated subqueries of clauses that allow
	// them (see bind_subquery.go); nil elsewhere.
	subs *subqueries
	// windows maps the query's window function calls to their result
	// columns (bind_windowfunc.go); inWindow is set while a call's
	// arguments and window bind.
	windows  map[*ast.WindowFuncExpr]expr.Expr
	inWindow bool
	// winClause names the clause for the message refusing a window
	// function where clause is "" (HAVING).
	winClause string
	// srf, in a select list, takes its set-returning function call
	// (bind_srf.go); nil where none is allowed.
	srf *srfSlot
}

// noAggs returns a copy of c where aggregate calls are an error.
func (c *exprCtx) noAggs(clause string) *exprCtx {
	n := *c
	n.clause = clause
	return &n
}

// bindExpr binds a scalar expression.
func (b *binder) bindExpr(c *exprCtx, n ast.ExprNode) (expr.Expr, error) {
	if w, ok := n.(*ast.WindowFuncExpr); ok {
		return b.bindWindowRef(c, w)
	}
	if c.grouped != nil {
		if e, ok, err := b.bindGrouped(c, n); ok || err != nil {
			return e, err
		}
	}
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		return b.bindExpr(c, n.Expr)
	case ast.ParamMarkerExpr:
		return b.bindParam(paramOrder(n))
	case ast.ValueExpr:
		return bindLiteral(n)
	case *ast.ColumnNameExpr:
		return b.bindColumn(c, n)
	case *ast.BinaryOperationExpr:
		return b.bindBinary(c, n)
	case *ast.UnaryOperationExpr:
		return b.bindUnary(c, n)
	case *ast.IsNullExpr:
		if elems, ok := rowElems(n.Expr); ok {
			return b.bindRowIsNull(c, elems, n.Not)
		}
		e, err := b.bindExpr(c, n.Expr)
		if err != nil {
			return nil, err
		}
		return expr.IsNull(e, n.Not), nil
	case *ast.IsTruthExpr:
		return b.bindIsTruth(c, n)
	case *ast.BetweenExpr:
		return b.bindBetween(c, n)
	case *ast.PatternInExpr:
		return b.bindIn(c, n)
	case *ast.PatternLikeOrIlikeExpr:
		return b.bindLike(c, n)
	case *ast.CaseExpr:
		return b.bindCase(c, n)
	case *ast.FuncCallExpr:
		return b.bindFunc(c, n)
	case *ast.AggregateFuncExpr:
		return nil, b.misplacedAgg(c, n)
	case *ast.SubqueryExpr:
		return b.bindScalarSubquery(c, n)
	case *ast.ExistsSubqueryExpr:
		return b.bindExists(c, n)
	case *ast.CompareSubqueryExpr:
		return b.bindCompareSubquery(c, n)
	case *ast.PatternRegexpExpr:
		return b.bindRegexp(c, n)
	case *ast.RowExpr:
		return nil, notSupported("a row constructor as a value (only in a comparison, IN or IS NULL)")
	case *ast.DefaultExpr:
		return nil, pgerr.New(pgerr.SyntaxError, "DEFAULT is not allowed in this context")
	}
	return nil, notSupported("expression %T", n)
}

// paramOrder returns the 0-based index of a parameter marker.
func paramOrder(p ast.ParamMarkerExpr) int {
	if o, ok := p.(interface{ GetOrder() int }); ok {
		return o.GetOrder()
	}
	v := reflect.ValueOf(p)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if f := v.FieldByName("Order"); f.IsValid() && f.CanInt() {
		return int(f.Int())
	}
	return -1
}

// bindColumn resolves a column reference.
func (b *binder) bindColumn(c *exprCtx, n *ast.ColumnNameExpr) (expr.Expr, error) {
	table, name := n.Name.Table.O, n.Name.Name.O
	if n.Name.Schema.O != "" {
		return nil, b.at(notSupported("schema-qualified column reference"), n, n.Name.Schema.O)
	}
	idx, perr := c.scope.resolve(table, name)
	if perr != nil {
		if perr.Code == pgerr.UndefinedColumn || perr.Code == pgerr.UndefinedTable {
			e, ok, oerr := b.outerColumn(table, name)
			if ok && oerr == nil {
				return e, nil
			}
			if ok {
				perr = oerr
			} else if e, ok, err := b.sqlValueFunction(table, name); ok {
				return e, err
			}
		}
		return nil, b.at(perr, n, firstName(table, name))
	}
	col := c.scope.cols[idx]
	if c.grouped != nil {
		return nil, b.at(ungrouped(col), n, firstName(table, name))
	}
	return expr.NewColumn(idx, col.typ, name), nil
}

func firstName(table, name string) string {
	if table != "" {
		return table
	}
	return name
}

// ungrouped is the error for a column used outside an aggregate and not
// grouped by.
func ungrouped(col scopeCol) *pgerr.Error {
	return pgerr.New(pgerr.GroupingError,
		"column %q must appear in the GROUP BY clause or be used in an aggregate function",
		qualified(col.table, col.name))
}

// binaryOps maps the parser's operators to expr.Binary's.
var binaryOps = map[opcode.Op]string{
	opcode.LogicAnd: "AND", opcode.LogicOr: "OR",
	opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.LE: "<=", opcode.GT: ">", opcode.GE: ">=",
	opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.Div: "/", opcode.Mod: "%",
	opcode.Xor:    "^", // Postgres's ^ is exponentiation; the parser reads it as xor
	opcode.NullEQ: "IS NOT DISTINCT FROM",
	// The bitwise operators: the parser gives them MySQL's precedence
	// (| below & below << >>), where PostgreSQL has them all at one
	// level, left to right; # (xor) comes as a marker call (sql's
	// JSONOpFunc) at PostgreSQL's.
	opcode.And: "&", opcode.Or: "|", opcode.LeftShift: "<<", opcode.RightShift: ">>",
}

func (b *binder) bindBinary(c *exprCtx, n *ast.BinaryOperationExpr) (expr.Expr, error) {
	op, ok := binaryOps[n.Op]
	if !ok {
		return nil, notSupported("operator %s", n.Op)
	}
	_, lrow := rowElems(n.L)
	_, rrow := rowElems(n.R)
	if lrow || rrow {
		return b.bindRowCompare(c, n, op, n.L, n.R)
	}
	if f, ok := n.R.(*ast.FuncCallExpr); ok && (f.FnName.L == markerAny || f.FnName.L == markerAll) {
		return b.bindAnyAll(c, op, n.L, f)
	}
	l, err := b.bindExpr(c, n.L)
	if err != nil {
		return nil, err
	}
	r, err := b.bindExpr(c, n.R)
	if err != nil {
		return nil, err
	}
	if l, r, err = mzNowMillis(op, n, l, r); err != nil {
		return nil, err
	}
	return b.binary(op, l, r)
}

// binary builds l op r, first deciding unknown parameters from the other
// operand (booleans for AND/OR).
func (b *binder) binary(op string, l, r expr.Expr) (expr.Expr, error) {
	var err error
	if op == "AND" || op == "OR" {
		if l, err = b.decideParam(l, types.TBool); err != nil {
			return nil, err
		}
		if r, err = b.decideParam(r, types.TBool); err != nil {
			return nil, err
		}
	} else if op == "+" && b.isUnknownParam(r) && isTimestamp(l.Type()) {
		// timestamp + $1 has no timestamp + timestamp: PostgreSQL picks
		// timestamp + interval.
		if r, err = b.decideParam(r, types.TInterval); err != nil {
			return nil, err
		}
	} else if op == "+" && b.isUnknownParam(l) && isTimestamp(r.Type()) {
		if l, err = b.decideParam(l, types.TInterval); err != nil {
			return nil, err
		}
	} else if l, r, err = b.decidePair(l, r); err != nil {
		return nil, err
	}
	if op == "||" {
		// anynonarray || text (anytextcat, textanycat): a reg* operand
		// concatenates as its name, the other as text.
		if l, r, err = b.regConcat(l, r); err != nil {
			return nil, err
		}
	} else if l, r, err = b.regLiteral(l, r); err != nil {
		return nil, err
	}
	return expr.Binary(op, l, r)
}

// regConcat converts a reg* operand of || whose other operand is a
// string (or an untyped literal, which is then text) to its name, as
// PostgreSQL's anytextcat and textanycat print it with its output
// function.
func (b *binder) regConcat(l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	isStr := func(t types.Type) bool { return t.IsString() || t.ID == types.IDUnknown }
	var err error
	switch {
	case l.Type().IsReg() && isStr(r.Type()):
		l, err = b.convert(l, types.TText)
	case r.Type().IsReg() && isStr(l.Type()):
		r, err = b.convert(r, types.TText)
	}
	return l, r, err
}

// regLiteral reads a string literal compared with a reg* value as that
// type, as Postgres does (an unknown literal takes the other operand's
// type): aggtransfn = 'int8inc' looks the function up, where reading the
// literal as an oid would fail.
func (b *binder) regLiteral(l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	var err error
	switch {
	case l.Type().IsReg() && r.Type().ID == types.IDUnknown:
		r, err = b.convert(r, l.Type())
	case r.Type().IsReg() && l.Type().ID == types.IDUnknown:
		l, err = b.convert(l, r.Type())
	}
	return l, r, err
}

func (b *binder) bindUnary(c *exprCtx, n *ast.UnaryOperationExpr) (expr.Expr, error) {
	e, err := b.bindExpr(c, n.V)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.Minus:
		if k, ok := e.(*expr.Const); ok && !b.isParam(k) {
			if neg, ok := negateLiteral(k); ok {
				return neg, nil
			}
		}
		return expr.Unary("-", e)
	case opcode.Plus:
		return expr.Unary("+", e)
	case opcode.BitNeg:
		return expr.Unary("~", e)
	case opcode.Not, opcode.Not2:
		if e, err = b.decideParam(e, types.TBool); err != nil {
			return nil, err
		}
		return expr.Unary("NOT", e)
	}
	return nil, notSupported("operator %s", n.Op)
}

func (b *binder) isParam(c *expr.Const) bool {
	_, ok := b.unknownParams[c]
	return ok
}

func (b *binder) bindIsTruth(c *exprCtx, n *ast.IsTruthExpr) (expr.Expr, error) {
	e, err := b.bindExpr(c, n.Expr)
	if err != nil {
		return nil, err
	}
	if e, err = b.decideParam(e, types.TBool); err != nil {
		return nil, err
	}
	return expr.IsBool(e, n.True != 0, n.Not)
}

// bindBetween binds x BETWEEN a AND b as x >= a AND x <= b (NOT: x < a OR
// x > b).
func (b *binder) bindBetween(c *exprCtx, n *ast.BetweenExpr) (expr.Expr, error) {
	x, err := b.bindExpr(c, n.Expr)
	if err != nil {
		return nil, err
	}
	left, symmetric := n.Left, false
	if f, ok := left.(*ast.FuncCallExpr); ok && f.FnName.L == markerSymmetric && len(f.Args) == 1 {
		left, symmetric = f.Args[0], true
	}
	lo, err := b.bindExpr(c, left)
	if err != nil {
		return nil, err
	}
	hi, err := b.bindExpr(c, n.Right)
	if err != nil {
		return nil, err
	}
	if !symmetric {
		return b.between(x, lo, hi, n.Not)
	}
	// x BETWEEN SYMMETRIC a AND b is x BETWEEN a AND b OR x BETWEEN b AND
	// a; NOT BETWEEN SYMMETRIC is neither.
	ab, err := b.between(x, lo, hi, n.Not)
	if err != nil {
		return nil, err
	}
	ba, err := b.between(x, hi, lo, n.Not)
	if err != nil {
		return nil, err
	}
	if n.Not {
		return expr.Binary("AND", ab, ba)
	}
	return expr.Binary("OR", ab, ba)
}

// between is x [NOT] BETWEEN lo AND hi.
func (b *binder) between(x, lo, hi expr.Expr, not bool) (expr.Expr, error) {
	geOp, leOp, join := ">=", "<=", "AND"
	if not {
		geOp, leOp, join = "<", ">", "OR"
	}
	ge, err := b.binary(geOp, x, lo)
	if err != nil {
		return nil, err
	}
	le, err := b.binary(leOp, x, hi)
	if err != nil {
		return nil, err
	}
	return expr.Binary(join, ge, le)
}

func (b *binder) bindIn(c *exprCtx, n *ast.PatternInExpr) (expr.Expr, error) {
	if n.Sel != nil {
		return b.bindInSubquery(c, n)
	}
	if elems, ok := rowElems(n.Expr); ok {
		return b.bindRowIn(c, n, elems)
	}
	x, err := b.bindExpr(c, n.Expr)
	if err != nil {
		return nil, err
	}
	list := make([]expr.Expr, len(n.List))
	for i, item := range n.List {
		if list[i], err = b.bindExpr(c, item); err != nil {
			return nil, err
		}
	}
	for i := range list {
		if x, err = b.decideParam(x, list[i].Type()); err != nil {
			return nil, err
		}
	}
	for i := range list {
		if list[i], err = b.decideParam(list[i], x.Type()); err != nil {
			return nil, err
		}
	}
	return expr.In(x, list, n.Not)
}

func (b *binder) bindLike(c *exprCtx, n *ast.PatternLikeOrIlikeExpr) (expr.Expr, error) {
	x, err := b.bindExpr(c, n.Expr)
	if err != nil {
		return nil, err
	}
	p, err := b.bindExpr(c, n.Pattern)
	if err != nil {
		return nil, err
	}
	if n.EscapeExplicit && n.Escape != '\\' {
		// x LIKE p ESCAPE e is x LIKE like_escape(p, e); the parser
		// keeps e as one byte, 0 for ESCAPE ''.
		esc := ""
		if n.Escape != 0 {
			esc = string(rune(n.Escape))
		}
		if p, err = expr.Func("like_escape", []expr.Expr{p, expr.NewConst(esc, types.TUnknown)}); err != nil {
			return nil, err
		}
	}
	op := "LIKE"
	if !n.IsLike {
		op = "ILIKE"
	}
	if n.Not {
		op = "NOT " + op
	}
	return b.binary(op, x, p)
}

func (b *binder) bindCase(c *exprCtx, n *ast.CaseExpr) (expr.Expr, error) {
	var operand, els expr.Expr
	var err error
	if n.Value != nil {
		if operand, err = b.bindExpr(c, n.Value); err != nil {
			return nil, err
		}
	}
	whens := make([]expr.Expr, len(n.WhenClauses))
	thens := make([]expr.Expr, len(n.WhenClauses))
	for i, w := range n.WhenClauses {
		if whens[i], err = b.bindExpr(c, w.Expr); err != nil {
			return nil, err
		}
		if thens[i], err = b.bindExpr(c, w.Result); err != nil {
			return nil, err
		}
	}
	if n.ElseClause != nil {
		if els, err = b.bindExpr(c, n.ElseClause); err != nil {
			return nil, err
		}
	}
	if operand, els, err = b.decideCaseParams(operand, whens, thens, els); err != nil {
		return nil, err
	}
	return expr.Case(operand, whens, thens, els)
}

// misplacedAggCall is misplacedAgg for the aggregates the parser reads as
// function calls.
func (b *binder) misplacedAggCall(c *exprCtx, n *ast.FuncCallExpr) error {
	msg := "aggregate function calls cannot be nested"
	if c.clause != "" && c.clause != "nested" {
		msg = "aggregate functions are not allowed in " + c.clause
	}
	return b.at(pgerr.New(pgerr.GroupingError, "%s", msg), n, n.FnName.O)
}

// misplacedAgg is the error for an aggregate call where none is allowed.
func (b *binder) misplacedAgg(c *exprCtx, n *ast.AggregateFuncExpr) error {
	msg := "aggregate function calls cannot be nested"
	if c.clause != "" && c.clause != "nested" {
		msg = "aggregate functions are not allowed in " + c.clause
	}
	return b.at(pgerr.New(pgerr.GroupingError, "%s", msg), n, n.F)
}

func isTimestamp(t types.Type) bool {
	return t.ID == types.IDTimestamp || t.ID == types.IDTimestampTZ
}
