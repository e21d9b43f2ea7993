package planner

import "github.com/streamdb/streamdb/internal/expr"

// lateralRow rewrites a LATERAL subquery without FROM, one row computed
// from the left row alone,
//
//	FROM t, LATERAL (SELECT t.x * 2 AS y [WHERE t.x > 0]) s
//
// into a projection of the left side: its columns, then the subquery's
// expressions over the left row. The subquery's WHERE filters the left
// rows of an inner join; in a LEFT JOIN it (and the ON condition) decide
// whether the subquery's columns are its values or NULLs. ok is false
// when the subquery is not of that shape (Projects and Filters over a
// VALUES of one row, reading no other outer query).
func lateralRow(n *LateralJoin) (Node, bool, error) {
	vals, conds, ok := rowExprs(n.Right, n.Outer)
	if !ok {
		return nil, false, nil
	}
	wl := len(n.Left.Columns())
	cols := n.Left.Columns()
	left := func(i int) expr.Expr { return expr.NewColumn(i, cols[i].Type, cols[i].Name) }
	in := n.Left
	if n.Kind == LeftJoin {
		if n.Cond != nil {
			conds = append(conds, inlineRow(n.Cond, nil, func(c *expr.Column) expr.Expr {
				if c.Index < wl {
					return left(c.Index)
				}
				return vals[c.Index-wl]
			}))
		}
		if match, ok := andExprs(conds); !ok {
			return nil, false, nil
		} else if match != nil {
			for i, v := range vals {
				var err error
				if vals[i], err = expr.Case(nil, []expr.Expr{match}, []expr.Expr{v}, expr.NewConst(nil, v.Type())); err != nil {
					return nil, false, err
				}
			}
		}
	} else if len(conds) > 0 {
		cond, ok := andExprs(conds)
		if !ok {
			return nil, false, nil
		}
		in = &Filter{Input: in, Cond: cond}
	}
	out := &Project{Input: in, Cols: n.Cols}
	for i := range wl {
		out.Exprs = append(out.Exprs, left(i))
	}
	out.Exprs = append(out.Exprs, vals...)
	if n.Cond != nil && n.Kind == InnerJoin {
		return &Filter{Input: out, Cond: n.Cond}, true, nil
	}
	return out, true, nil
}

// rowExprs returns, for a plan of Projects and Filters over a VALUES of
// one row, its columns' expressions and its conditions over the outer
// row (references to outer made columns of the left row); ok is false
// for any other plan, or one that reads another outer query.
func rowExprs(n Node, outer *expr.OuterRow) (vals, conds []expr.Expr, ok bool) {
	switch n := n.(type) {
	case *Values:
		if len(n.Rows) != 1 {
			return nil, nil, false
		}
		for _, e := range n.Rows[0] {
			vals = append(vals, inlineRow(e, outer, nil))
		}
	case *Project:
		in, conds, ok := rowExprs(n.Input, outer)
		if !ok {
			return nil, nil, false
		}
		for _, e := range n.Exprs {
			vals = append(vals, inlineRow(e, outer, func(c *expr.Column) expr.Expr { return in[c.Index] }))
		}
		return vals, conds, allOwn(vals) && allOwn(conds)
	case *Filter:
		in, conds, ok := rowExprs(n.Input, outer)
		if !ok {
			return nil, nil, false
		}
		conds = append(conds, inlineRow(n.Cond, outer, func(c *expr.Column) expr.Expr { return in[c.Index] }))
		return in, conds, allOwn(conds)
	default:
		return nil, nil, false
	}
	return vals, nil, allOwn(vals)
}

// allOwn reports whether no expression reads an outer query's row.
func allOwn(es []expr.Expr) bool {
	for _, e := range es {
		if expr.HasOuterRefs(e) {
			return false
		}
	}
	return true
}

// inlineRow returns e with each reference to outer's row made a column
// of it, and each column c replaced by col(c) (col nil: kept).
func inlineRow(e expr.Expr, outer *expr.OuterRow, col func(*expr.Column) expr.Expr) expr.Expr {
	switch x := e.(type) {
	case *expr.Column:
		if col != nil {
			return col(x)
		}
		return e
	case *expr.OuterRef:
		if outer != nil && x.Row == outer {
			return expr.NewColumn(x.Index, x.Typ, x.Name)
		}
		return e
	}
	ch := e.Children()
	if len(ch) == 0 {
		return e
	}
	out := make([]expr.Expr, len(ch))
	for i, c := range ch {
		out[i] = inlineRow(c, outer, col)
	}
	return e.WithChildren(out)
}
