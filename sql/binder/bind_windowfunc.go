package binder

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// Window functions (f(...) OVER (PARTITION BY ... ORDER BY ... frame)) are
// computed after grouping and HAVING and before DISTINCT, ORDER BY and
// LIMIT, as in Postgres. Their arguments and window clauses bind like the
// select list; each distinct window (PARTITION BY and ORDER BY) becomes a
// planner.Window over a projection that adds the expressions they need,
// and a call then binds as a reference to its result column.

// windowCollector finds the window function calls of a clause, not
// looking into subqueries or into other calls (nesting is an error,
// reported when the inner call binds).
type windowCollector struct{ found []*ast.WindowFuncExpr }

func (v *windowCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.WindowFuncExpr:
		v.found = append(v.found, n)
		return n, true
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		return n, true
	}
	return n, false
}

func (v *windowCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// boundWindow is one distinct window of the query and its calls.
type boundWindow struct {
	partition []expr.Expr
	order     []expr.Expr
	keys      []ast.ByItem // desc and nulls of order
	nullsFst  []bool
	funcs     []window.Func
	args      [][]expr.Expr // per func: Arg, Default (nil when absent)
	calls     []*ast.WindowFuncExpr
}

// bindWindows adds the query's window functions above st.cur and makes
// st.ctx bind each call as its result column.
func (b *binder) bindWindows(st *selectState, s *ast.SelectStmt) error {
	v := &windowCollector{}
	for _, it := range st.items {
		if it.node != nil {
			it.node.Accept(v)
		}
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	if len(v.found) == 0 {
		return nil
	}
	defs := map[string]*ast.WindowSpec{}
	for i := range s.WindowSpecs {
		d := &s.WindowSpecs[i]
		if defs[d.Name.L] != nil {
			return pgerr.New(pgerr.WindowingError, "window %q is already defined", d.Name.O)
		}
		defs[d.Name.L] = d
	}
	var wins []*boundWindow
	ctx := *st.ctx
	ctx.clause, ctx.inWindow = "window function arguments", true
	for _, call := range v.found {
		spec, err := resolveWindowSpec(&call.Spec, defs)
		if err != nil {
			return err
		}
		w, err := b.bindWindowClause(&ctx, spec)
		if err != nil {
			return err
		}
		var same *boundWindow
		for _, o := range wins {
			if o.sameWindow(w) {
				same = o
				break
			}
		}
		if same == nil {
			wins = append(wins, w)
			same = w
		}
		f, args, err := b.bindWindowCall(&ctx, call, spec)
		if err != nil {
			return err
		}
		same.funcs = append(same.funcs, f)
		same.args = append(same.args, args)
		same.calls = append(same.calls, call)
	}
	// One projection adds every expression the windows need that is not
	// an input column; the windows then stack over it.
	in := st.cur.node
	inCols := in.Columns()
	pre := &planner.Project{Input: in}
	for i, c := range inCols {
		pre.Exprs = append(pre.Exprs, expr.NewColumn(i, c.Type, c.Name))
		pre.Cols = append(pre.Cols, c)
	}
	colOf := func(e expr.Expr) int {
		if c, ok := e.(*expr.Column); ok {
			return c.Index
		}
		for i := len(inCols); i < len(pre.Exprs); i++ {
			if exprEqual(pre.Exprs[i], e) {
				return i
			}
		}
		pre.Exprs = append(pre.Exprs, e)
		pre.Cols = append(pre.Cols, planner.Column{Name: "?column?", Type: e.Type(), Hidden: true})
		return len(pre.Exprs) - 1
	}
	specs := make([]*window.Spec, len(wins))
	for i, w := range wins {
		sp := &window.Spec{}
		for _, p := range w.partition {
			sp.Partition = append(sp.Partition, colOf(p))
		}
		for j, o := range w.order {
			sp.Order = append(sp.Order, window.SortKey{Col: colOf(o), Desc: w.keys[j].Desc, NullsFirst: w.nullsFst[j]})
		}
		for j, f := range w.funcs {
			f.Arg, f.Default = -1, -1
			if a := w.args[j]; a[0] != nil {
				f.Arg = colOf(a[0])
			}
			if a := w.args[j]; a[1] != nil {
				f.Default = colOf(a[1])
			}
			sp.Funcs = append(sp.Funcs, f)
		}
		specs[i] = sp
	}
	var node planner.Node = pre
	if len(pre.Exprs) == len(inCols) {
		node = in
	}
	refs := map[*ast.WindowFuncExpr]expr.Expr{}
	for i, w := range wins {
		names := make([]string, len(w.calls))
		for j, call := range w.calls {
			names[j] = strings.ToLower(call.Name)
		}
		base := len(node.Columns())
		node = planner.NewWindow(node, specs[i], names)
		for j, call := range w.calls {
			refs[call] = expr.NewColumn(base+j, w.funcs[j].Type, names[j])
		}
	}
	st.cur = &rel{node: node, scope: st.cur.scope}
	nc := *st.ctx
	nc.windows = refs
	st.ctx = &nc
	return nil
}

// resolveWindowSpec follows OVER w and OVER (w ...) to the WINDOW clause.
func resolveWindowSpec(spec *ast.WindowSpec, defs map[string]*ast.WindowSpec) (*ast.WindowSpec, error) {
	name := spec.Ref
	if spec.OnlyAlias {
		name = spec.Name
	}
	if name.L == "" {
		return spec, nil
	}
	d, ok := defs[name.L]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "window %q does not exist", name.O)
	}
	if spec.OnlyAlias {
		return d, nil
	}
	// OVER (w ORDER BY ... frame): w's PARTITION BY, and its ORDER BY
	// unless w has none.
	switch {
	case spec.PartitionBy != nil:
		return nil, pgerr.New(pgerr.WindowingError, "cannot override PARTITION BY clause of window %q", name.O)
	case spec.OrderBy != nil && d.OrderBy != nil:
		return nil, pgerr.New(pgerr.WindowingError, "cannot override ORDER BY clause of window %q", name.O)
	case d.Frame != nil:
		return nil, pgerr.New(pgerr.WindowingError, "cannot copy window %q because it has a frame clause", name.O)
	}
	out := *spec
	out.PartitionBy = d.PartitionBy
	if out.OrderBy == nil {
		out.OrderBy = d.OrderBy
	}
	return &out, nil
}

// windowItem binds an item of a window's PARTITION BY or ORDER BY, where
// an integer is a constant, not a position (the parser reads it as one).
func (b *binder) windowItem(c *exprCtx, n ast.ExprNode) (expr.Expr, error) {
	if p, ok := n.(*ast.PositionExpr); ok && p.P == nil {
		t := types.TInt32
		if int64(p.N) != int64(int32(p.N)) {
			t = types.TInt64
		}
		return expr.NewConst(int64(p.N), t), nil
	}
	e, err := b.bindExpr(c, n)
	if err != nil {
		return nil, err
	}
	return resolveUnknown(e)
}

// bindWindowClause binds a window's PARTITION BY and ORDER BY.
func (b *binder) bindWindowClause(c *exprCtx, spec *ast.WindowSpec) (*boundWindow, error) {
	w := &boundWindow{}
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			e, err := b.windowItem(c, it.Expr)
			if err != nil {
				return nil, err
			}
			w.partition = append(w.partition, e)
		}
	}
	if spec.OrderBy != nil {
		for _, it := range spec.OrderBy.Items {
			n, nullsFirst := unwrapNulls(it.Expr, it.Desc)
			e, err := b.windowItem(c, n)
			if err != nil {
				return nil, err
			}
			w.order = append(w.order, e)
			w.keys = append(w.keys, *it)
			w.nullsFst = append(w.nullsFst, nullsFirst)
		}
	}
	return w, nil
}

func (w *boundWindow) sameWindow(o *boundWindow) bool {
	if len(w.partition) != len(o.partition) || len(w.order) != len(o.order) {
		return false
	}
	for i := range w.partition {
		if !exprEqual(w.partition[i], o.partition[i]) {
			return false
		}
	}
	for i := range w.order {
		if !exprEqual(w.order[i], o.order[i]) || w.keys[i].Desc != o.keys[i].Desc || w.nullsFst[i] != o.nullsFst[i] {
			return false
		}
	}
	return true
}

// bindWindowCall binds a call's function, arguments and frame; args are
// its argument and lag's or lead's default (nil when absent).
func (b *binder) bindWindowCall(c *exprCtx, call *ast.WindowFuncExpr, spec *ast.WindowSpec) (window.Func, []expr.Expr, error) {
	if err := unwrapWindowAgg(call); err != nil {
		return window.Func{}, nil, err
	}
	name := strings.ToLower(call.Name)
	f := window.Func{Frame: window.DefaultFrame}
	args := make([]expr.Expr, 2)
	if call.IgnoreNull || call.FromLast {
		return f, nil, notSupported("IGNORE NULLS and FROM LAST in window functions")
	}
	if call.Distinct {
		return f, nil, notSupported("DISTINCT in window functions")
	}
	if spec.Frame != nil {
		fr, err := b.bindFrame(spec.Frame)
		if err != nil {
			return f, nil, err
		}
		if fr.Groups && (spec.OrderBy == nil || len(spec.OrderBy.Items) == 0) {
			return f, nil, pgerr.New(pgerr.WindowingError, "GROUPS mode requires an ORDER BY clause")
		}
		if !fr.Rows && !fr.Groups && (fr.Start.Value != nil || fr.End.Value != nil) {
			if err := b.bindRangeOffsets(c, spec, &fr); err != nil {
				return f, nil, err
			}
		}
		f.Frame = fr
	}
	argc := func(lo, hi int) error {
		if n := len(call.Args); n < lo || n > hi {
			return pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, n)
		}
		return nil
	}
	if kind, ok := window.KindByName(name); ok {
		f.Kind = kind
		switch kind {
		case window.RowNumber, window.Rank, window.DenseRank:
			f.Type = types.TInt64
			return f, args, argc(0, 0)
		case window.PercentRank, window.CumeDist:
			f.Type = types.TFloat64
			return f, args, argc(0, 0)
		case window.Ntile:
			f.Type = types.TInt32
			if err := argc(1, 1); err != nil {
				return f, nil, err
			}
			n, err := b.windowConst(c, call.Args[0], name)
			if err != nil {
				return f, nil, err
			}
			if n <= 0 {
				return f, nil, pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
			}
			f.N = n
			return f, args, nil
		}
		lo, hi := 1, 1
		switch kind {
		case window.Lag, window.Lead:
			hi = 3
		case window.NthValue:
			lo, hi = 2, 2
		}
		if err := argc(lo, hi); err != nil {
			return f, nil, err
		}
		arg, err := b.bindExpr(c, call.Args[0])
		if err != nil {
			return f, nil, err
		}
		var def expr.Expr
		var typ types.Type
		if (kind == window.Lag || kind == window.Lead) && len(call.Args) > 2 {
			if def, err = b.bindExpr(c, call.Args[2]); err != nil {
				return f, nil, err
			}
			if arg, def, typ, err = b.lagLeadTypes(c, call, arg, def); err != nil {
				return f, nil, err
			}
		}
		if arg.Type().ID == types.IDUnknown {
			// Their argument is anyelement, as in Postgres: lag('x').
			return f, nil, pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
		}
		args[0], f.ArgType, f.Type = arg, arg.Type(), arg.Type()
		switch kind {
		case window.Lag, window.Lead:
			f.N = 1
			if len(call.Args) > 1 {
				if f.N, err = b.windowConst(c, call.Args[1], name); err != nil {
					return f, nil, err
				}
				if f.N < 0 {
					// lag(x, -n) is lead(x, n), as in Postgres.
					f.N = -f.N
					f.Kind = window.Lag + window.Lead - kind
				}
			}
			if def != nil {
				args[1], f.Type = def, typ
			}
		case window.NthValue:
			if f.N, err = b.windowConst(c, call.Args[1], name); err != nil {
				return f, nil, err
			}
			if f.N <= 0 {
				return f, nil, pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
			}
		}
		return f, args, nil
	}
	// An aggregate over the frame.
	e, err := b.bindAggCall(c, &ast.AggregateFuncExpr{F: call.Name, Args: call.Args})
	if err != nil {
		return f, nil, err
	}
	if e.kind.IsList() && b.inView {
		return f, nil, notSupported("%s as a window function in a materialized view", e.name)
	}
	if e.filter != nil {
		return f, nil, notSupported("FILTER in %s as a window function", e.name)
	}
	f.Kind, f.Agg, f.Type, f.Sep = window.Agg, e.kind, e.typ, e.sep
	if e.arg != nil {
		args[0], f.ArgType = e.arg, e.arg.Type()
	}
	return f, args, nil
}

// lagLeadTypes converts lag's or lead's value and default to their
// common type, as PostgreSQL does (lag(anycompatible, integer,
// anycompatible)): lag(int, 1, 10000000000) is a bigint, lead(int, 1,
// 2.5) a numeric. Like any function result it has no type modifier, so
// lag(varchar(3), 1, 'abcdef') keeps the default whole.
func (b *binder) lagLeadTypes(c *exprCtx, call *ast.WindowFuncExpr, arg, def expr.Expr) (expr.Expr, expr.Expr, types.Type, error) {
	t, err := expr.CommonType([]types.Type{arg.Type(), def.Type()})
	if err != nil {
		offset := types.TInt32
		if o, err := b.bindExpr(c, call.Args[1]); err == nil {
			offset = o.Type()
		}
		err = &pgerr.Error{Code: pgerr.UndefinedFunction,
			Message: fmt.Sprintf("function %s(%s, %s, %s) does not exist", strings.ToLower(call.Name), arg.Type(), offset, def.Type()),
			Hint:    "No function matches the given name and argument types. You might need to add explicit type casts."}
		return nil, nil, t, b.at(err, call, call.Name)
	}
	t = types.Type{ID: t.ID, Elem: t.Elem}
	if a := arg.Type(); a.ID != t.ID || a.Elem != t.Elem {
		if arg, err = castTo(arg, t); err != nil {
			return nil, nil, t, err
		}
	}
	if def, err = castTo(def, t); err != nil {
		return nil, nil, t, b.atNode(err, call.Args[2])
	}
	return arg, def, t, nil
}

// windowConst binds a window function's constant integer argument.
func (b *binder) windowConst(c *exprCtx, n ast.ExprNode, name string) (int64, error) {
	e, err := b.bindExpr(c, n)
	if err != nil {
		return 0, err
	}
	if len(expr.Columns(e)) > 0 {
		return 0, notSupported("an argument of %s that is not a constant", name)
	}
	v, err := constInt(e)
	if err != nil || v == nil {
		if err == nil {
			err = notSupported("a NULL or non-constant argument of %s", name)
		}
		return 0, err
	}
	return *v, nil
}

// bindFrame binds a ROWS, RANGE or GROUPS frame clause.
func (b *binder) bindFrame(fc *ast.FrameClause) (window.Frame, error) {
	var fr window.Frame
	switch fc.Type {
	case ast.Rows:
		fr.Rows = true
	case ast.Ranges:
	case ast.Groups:
		fr.Groups = true
	default:
		return fr, notSupported("this window frame mode")
	}
	fr.Exclude = b.frameExcludes[fc]
	counted := fr.Rows || fr.Groups // offsets are counts of rows or groups
	var err error
	if fr.Start, err = b.bindBound(&fc.Extent.Start, counted, "starting"); err != nil {
		return fr, err
	}
	if fr.End, err = b.bindBound(&fc.Extent.End, counted, "ending"); err != nil {
		return fr, err
	}
	s, e := fr.Start.Kind, fr.End.Kind
	switch {
	case s == window.UnboundedFollowing:
		return fr, pgerr.New(pgerr.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING")
	case e == window.UnboundedPreceding:
		return fr, pgerr.New(pgerr.WindowingError, "frame end cannot be UNBOUNDED PRECEDING")
	case s == window.CurrentRow && e == window.Preceding:
		return fr, pgerr.New(pgerr.WindowingError, "frame starting from current row cannot have preceding rows")
	case s == window.Following && (e == window.Preceding || e == window.CurrentRow):
		return fr, pgerr.New(pgerr.WindowingError, "frame starting from following row cannot have preceding rows")
	}
	return fr, nil
}

func (b *binder) bindBound(fb *ast.FrameBound, rows bool, which string) (window.Bound, error) {
	var bd window.Bound
	switch {
	case fb.Type == ast.CurrentRow:
		bd.Kind = window.CurrentRow
		return bd, nil
	case fb.UnBounded && fb.Type == ast.Preceding:
		bd.Kind = window.UnboundedPreceding
		return bd, nil
	case fb.UnBounded:
		bd.Kind = window.UnboundedFollowing
		return bd, nil
	}
	bd.Kind = window.Preceding
	if fb.Type == ast.Following {
		bd.Kind = window.Following
	}
	if fb.Unit != ast.TimeUnitInvalid && fb.Unit != sql.FrameOffsetUnit {
		return bd, notSupported("a window frame offset with a MySQL time unit")
	}
	e, err := b.bindExpr(&exprCtx{scope: &scope{}, clause: "window frame"}, fb.Expr)
	if err != nil {
		return bd, err
	}
	if !rows {
		// RANGE: the offset's value, checked against the ORDER BY column
		// by bindRangeOffsets.
		return b.rangeOffset(bd, e, which)
	}
	v, err := constInt(e)
	if err != nil {
		return bd, err
	}
	if v == nil {
		if c, ok := e.(*expr.Const); ok && c.Value == nil {
			return bd, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
		}
		return bd, notSupported("a window frame offset that is not a constant")
	}
	if *v < 0 {
		return bd, pgerr.New(pgerr.InvalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
	}
	bd.N = *v
	return bd, nil
}

// bindWindowRef binds a window function call: its result column where
// the query computes it, an error elsewhere.
func (b *binder) bindWindowRef(c *exprCtx, n *ast.WindowFuncExpr) (expr.Expr, error) {
	if e, ok := c.windows[n]; ok && !c.inWindow {
		return e, nil
	}
	var err *pgerr.Error
	clause := c.winClause
	if clause == "" && c.clause != "nested" {
		clause = c.clause
	}
	switch {
	case c.inWindow:
		err = pgerr.New(pgerr.WindowingError, "window function calls cannot be nested")
	case clause != "":
		err = pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", clause)
	default:
		err = pgerr.New(pgerr.WindowingError, "window functions are not allowed here")
	}
	return nil, b.at(err, n, n.Name)
}
