package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// Time windows in FROM, as RisingWave writes them:
//
//	TUMBLE(t, col, size)       t's rows, each with the size-long window
//	                           holding col: window_start, window_end
//	HOP(t, col, slide, size)   t's rows, each once per size-long window,
//	                           starting every slide, that holds col
//
// t is a table, view or source; col a timestamp column of it. Windows are
// aligned to 1970-01-01 00:00 UTC; size and slide are constant intervals
// without months, and a HOP's size is a multiple of its slide.

// bindWindow binds TUMBLE or HOP.
func (b *binder) bindWindow(name string, args []ast.ExprNode, alias string) (*rel, error) {
	want := 3
	if name == "hop" {
		want = 4
	}
	if len(args) != want {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	cn, ok := args[0].(*ast.ColumnNameExpr)
	if !ok || cn.Name.Table.O != "" {
		return nil, pgerr.New(pgerr.SyntaxError, "the first argument of %s must name a table, materialized view or source", name)
	}
	tn := &ast.TableName{Name: cn.Name.Name}
	if cn.Name.Schema.O != "" {
		tn.Schema = cn.Name.Schema
	}
	// Without an alias (the front end then passes the function's name)
	// the columns are qualified by the relation's name, as in RisingWave.
	table := alias
	if table == "" || table == name {
		table = tn.Name.O
	}
	in, err := b.bindTableName(tn, table)
	if err != nil {
		return nil, err
	}
	tsExpr, err := b.bindExpr(&exprCtx{scope: in.scope, clause: name}, args[1])
	if err != nil {
		return nil, err
	}
	ts, ok := tsExpr.(*expr.Column)
	if !ok || (ts.Type().ID != types.IDTimestamp && ts.Type().ID != types.IDTimestampTZ) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "the time column of %s must be a timestamp or timestamptz column, not %s", name, tsExpr)
	}
	sizes := make([]int64, 0, 2)
	var consts []expr.Expr
	for _, a := range args[2:] {
		e, err := b.bindExpr(&exprCtx{scope: &scope{}, clause: name}, a)
		if err != nil {
			return nil, err
		}
		if e, err = castTo(e, types.TInterval); err != nil {
			return nil, err
		}
		v, err := e.Eval(nil)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "the window size of %s must not be NULL", name)
		}
		us, err := expr.WindowSize(v.(types.Interval))
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, us)
		consts = append(consts, expr.NewConst(v, types.TInterval))
	}
	inCols := in.node.Columns()
	cols := make([]planner.Column, 0, len(inCols)+2)
	pass := make([]expr.Expr, 0, len(inCols))
	for i, c := range inCols {
		c.Table = table
		cols = append(cols, c)
		pass = append(pass, expr.NewColumn(i, c.Type, c.Name))
	}
	tt := ts.Type()
	cols = append(cols, planner.Column{Name: "window_start", Type: tt, Table: table},
		planner.Column{Name: "window_end", Type: tt, Table: table})
	windowExprs := func(startShift int64, size expr.Expr) ([]expr.Expr, error) {
		start, err := expr.Func("tumble_start", []expr.Expr{ts, consts[0]})
		if err != nil {
			return nil, err
		}
		if startShift != 0 {
			if start, err = expr.Binary("-", start, expr.NewConst(types.Interval{Micros: startShift}, types.TInterval)); err != nil {
				return nil, err
			}
		}
		end, err := expr.Binary("+", start, size)
		if err != nil {
			return nil, err
		}
		return append(append([]expr.Expr(nil), pass...), start, end), nil
	}
	if name == "tumble" {
		exprs, err := windowExprs(0, consts[0])
		if err != nil {
			return nil, err
		}
		node := &planner.Project{Input: in.node, Exprs: exprs, Cols: cols}
		return &rel{node: node, scope: scopeOf(cols, table)}, nil
	}
	slide, size := sizes[0], sizes[1]
	if size%slide != 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "the size of a HOP window must be a multiple of its slide")
	}
	n := size / slide
	if n > 1024 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "a HOP window of %d slides is too many (at most 1024)", n)
	}
	// A row belongs to the n windows that start at the slide-aligned start
	// holding it and the n-1 slides before.
	node := &planner.Expand{Input: in.node, Cols: cols, Branch: len(inCols)}
	for k := int64(0); k < n; k++ {
		exprs, err := windowExprs(k*slide, consts[1])
		if err != nil {
			return nil, err
		}
		node.Projections = append(node.Projections, exprs)
	}
	return &rel{node: node, scope: scopeOf(cols, table)}, nil
}
