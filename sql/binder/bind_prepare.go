package binder

import (
	"strconv"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// PrepareTypes resolves the declared parameter types of PREPARE name
// (types) AS ...; an unknown type is 42704 at its name (st is the
// PREPARE statement).
func PrepareTypes(st *sql.Statement, p *sql.PrepareStmt) ([]types.Type, error) {
	out := make([]types.Type, len(p.Types))
	for i, name := range p.Types {
		t, err := parseCastType(name)
		if err != nil {
			pe := pgerr.As(err)
			if off := p.TypeOffsets[i] - st.Offset; pe.Position == 0 && off >= 0 && off <= len(st.Text) {
				pe = pe.WithPosition(st.Offset + utf8.RuneCountInString(st.Text[:off]) + 1)
			}
			return nil, pe
		}
		out[i] = t
	}
	return out, nil
}

// BindExecuteArgs binds the arguments of EXECUTE name (args), st being
// e.Args (SELECT args), as PostgreSQL evaluates them: constant
// expressions (no column, subquery or aggregate), each assignment-cast
// to its parameter's type in targets (42804 where there is no such
// cast). The result is a query of one row, the values to execute with,
// and the types of the EXECUTE's own parameters ($n in its arguments,
// when it is itself prepared by the extended protocol), which opts give.
func BindExecuteArgs(cat catalog.Reader, st *sql.Statement, targets []types.Type, opts Options) (*planner.Query, []types.Type, error) {
	sel, ok := st.Node.(*sql.SelectStmt)
	s, ok2 := sel.AST.(*ast.SelectStmt)
	if !ok || !ok2 || s.From != nil || s.Where != nil || s.GroupBy != nil || s.Having != nil || s.OrderBy != nil || s.Limit != nil {
		return nil, nil, pgerr.New(pgerr.SyntaxError, "syntax error in EXECUTE parameters")
	}
	b := newBinder(cat, st, opts)
	c := &exprCtx{scope: &scope{}, clause: "EXECUTE parameters"}
	row := make([]expr.Expr, len(s.Fields.Fields))
	cols := make([]planner.Column, len(row))
	for i, f := range s.Fields.Fields {
		if f.Expr == nil || f.AsName.O != "" {
			return nil, nil, pgerr.New(pgerr.SyntaxError, "syntax error in EXECUTE parameters")
		}
		if hasSubquery(f.Expr) {
			return nil, nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in EXECUTE parameter"), f.Expr)
		}
		e, err := b.bindExpr(c, f.Expr)
		if err != nil {
			return nil, nil, err
		}
		if row[i], err = b.executeArg(e, i, targets[i], f.Expr); err != nil {
			return nil, nil, err
		}
		cols[i] = planner.Column{Name: "$" + strconv.Itoa(i+1), Type: targets[i]}
	}
	q := &planner.Query{Plan: &planner.Values{Rows: [][]expr.Expr{row}, Cols: cols}}
	at := opts.Time
	if !b.readsClock {
		at = nil
	}
	finishExprs(q, b.zone, at)
	return q, b.finalParamTypes(), nil
}

// executeArg assignment-casts the argument e of parameter $i+1 to t.
func (b *binder) executeArg(e expr.Expr, i int, t types.Type, node ast.Node) (expr.Expr, error) {
	out, err := b.assignCast(e, catalog.Column{Type: t})
	if err == nil {
		return out, nil
	}
	if pe := pgerr.As(err); pe.Code == pgerr.DatatypeMismatch || pe.Code == "42846" {
		from := e.Type()
		if out != nil {
			from = out.Type()
		}
		err = &pgerr.Error{Code: pgerr.DatatypeMismatch,
			Message: "parameter $" + strconv.Itoa(i+1) + " of type " + from.String() + " cannot be coerced to the expected type " + t.String(),
			Hint:    "You will need to rewrite or cast the expression."}
	}
	return nil, b.atNode(err, node)
}
