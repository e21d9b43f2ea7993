package binder

import (
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/sql"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// grouping is what expressions above an Aggregate can refer to: its group
// keys (output columns 0..len(keys)-1) and its aggregates (the columns
// after).
type grouping struct {
	in    *exprCtx // the Aggregate's input
	keys  []expr.Expr
	aggs  []aggEntry
	byAST map[ast.ExprNode]int
	cols  []planner.Column // the Aggregate's output columns
	// sets, for a GROUP BY of grouping sets, are the sets as indexes into
	// keys; the Aggregate's output then has the set's number after the
	// keys (see bind_groupingsets.go).
	sets [][]int
}

// aggBase is the output column of the first aggregate.
func (g *grouping) aggBase() int {
	if g.sets != nil {
		return len(g.keys) + 1
	}
	return len(g.keys)
}

// aggEntry is one distinct aggregate call of the query.
type aggEntry struct {
	kind     expr.AggKind
	distinct bool
	arg      expr.Expr // nil for count(*)
	typ      types.Type
	name     string
	sep      string    // string_agg's delimiter
	filter   expr.Expr // FILTER's condition, for an aggregate keeping NULLs
	order    []aggOrder
}

// aggOrder is one ORDER BY key of string_agg or array_agg.
type aggOrder struct {
	e                expr.Expr
	desc, nullsFirst bool
}

func sameOrder(a, b []aggOrder) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].desc != b[i].desc || a[i].nullsFirst != b[i].nullsFirst || !exprEqual(a[i].e, b[i].e) {
			return false
		}
	}
	return true
}

// aggCollector finds the aggregate calls of a clause, not looking into
// subqueries or into other aggregates' arguments. The parser knows
// string_agg and array_agg as plain functions: their calls are collected
// too.
type aggCollector struct{ found []ast.ExprNode }

// funcAggs are the aggregates the parser reads as function calls.
var funcAggs = map[string]bool{"string_agg": true, "array_agg": true, "bool_and": true, "bool_or": true, "every": true,
	"stddev": true, "variance": true, "jsonb_agg": true, "json_agg": true,
	// TiDB's own aggregates, when sql.rewriteAggOrder made plain calls of them.
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "bit_and": true, "bit_or": true, "bit_xor": true,
	"var_pop": true, "var_samp": true, "stddev_pop": true, "stddev_samp": true,
	// The ordered-set aggregates, made plain calls by sql.rewriteWithinGroup.
	"percentile_cont": true, "percentile_disc": true, "mode": true}

func isFuncAgg(n ast.Node) bool {
	f, ok := n.(*ast.FuncCallExpr)
	return ok && funcAggs[f.FnName.L]
}

func (v *aggCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.AggregateFuncExpr:
		v.found = append(v.found, n)
		return n, true
	case *ast.FuncCallExpr:
		if isFuncAgg(n) {
			v.found = append(v.found, n)
			return n, true
		}
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		return n, true
	}
	return n, false
}

func (v *aggCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func collectAggs(nodes ...ast.Node) []ast.ExprNode {
	v := &aggCollector{}
	for _, n := range nodes {
		if n != nil {
			n.Accept(v)
		}
	}
	return v.found
}

// bindGrouped binds n above the Aggregate when n is an aggregate call or
// equals a group key; ok is false for anything else (bound piecewise by
// the caller).
func (b *binder) bindGrouped(c *exprCtx, n ast.ExprNode) (expr.Expr, bool, error) {
	g := c.grouped
	if isFuncAgg(n) {
		return b.groupedAgg(g, n)
	}
	if isGroupingCall(n) {
		e, err := b.bindGroupingCall(g, n.(*ast.FuncCallExpr))
		return e, true, err
	}
	switch n := n.(type) {
	case *ast.AggregateFuncExpr:
		return b.groupedAgg(g, n)
	case ast.ValueExpr, *ast.ParenthesesExpr:
		return nil, false, nil
	}
	if len(g.keys) == 0 {
		return nil, false, nil
	}
	e, err := b.bindExpr(g.in.noAggs("nested"), n)
	if err != nil {
		return nil, false, nil // contains an aggregate or a later error: bind piecewise
	}
	for i, k := range g.keys {
		if exprEqual(e, k) {
			return expr.NewColumn(i, g.cols[i].Type, g.cols[i].Name), true, nil
		}
	}
	return nil, false, nil
}

// groupedAgg binds an aggregate call above the Aggregate: a reference to
// its output column.
func (b *binder) groupedAgg(g *grouping, n ast.ExprNode) (expr.Expr, bool, error) {
	i, ok := g.byAST[n]
	if !ok {
		return nil, true, pgerr.New(pgerr.Internal, "binder: aggregate not collected")
	}
	col := g.cols[g.aggBase()+i]
	return expr.NewColumn(g.aggBase()+i, col.Type, col.Name), true, nil
}

// exprEqual reports whether two bound expressions compute the same thing.
func exprEqual(a, b expr.Expr) bool {
	if a.Type() != b.Type() || a.String() != b.String() {
		return false
	}
	switch x := a.(type) {
	case *expr.Column:
		y, ok := b.(*expr.Column)
		return ok && x.Index == y.Index
	case *expr.Const:
		_, ok := b.(*expr.Const)
		return ok
	}
	ac, bc := a.Children(), b.Children()
	if len(ac) != len(bc) {
		return false
	}
	for i := range ac {
		if !exprEqual(ac[i], bc[i]) {
			return false
		}
	}
	return true
}

// bindAggregate adds a pre-projection of group keys and aggregate
// arguments, and the Aggregate, on top of in.
func (b *binder) bindAggregate(in *rel, keys []expr.Expr, sets [][]int, calls []ast.ExprNode) (*rel, *grouping, error) {
	inCtx := &exprCtx{scope: in.scope}
	g := &grouping{in: inCtx, keys: keys, byAST: map[ast.ExprNode]int{}, sets: sets}
	for _, call := range calls {
		e, err := b.bindAggCall(inCtx, call)
		if err != nil {
			return nil, nil, err
		}
		g.byAST[call] = g.addAgg(e)
	}
	node := g.plan(in)
	return &rel{node: node, scope: scopeOf(node.Columns(), "")}, g, nil
}

// addAgg returns the index of e among g's aggregates, adding it if new.
func (g *grouping) addAgg(e aggEntry) int {
	for i, a := range g.aggs {
		if a.kind == e.kind && a.distinct == e.distinct && a.sep == e.sep && (a.arg == nil) == (e.arg == nil) &&
			(a.arg == nil || exprEqual(a.arg, e.arg)) && (a.filter == nil) == (e.filter == nil) &&
			(a.filter == nil || exprEqual(a.filter, e.filter)) && sameOrder(a.order, e.order) {
			return i
		}
	}
	g.aggs = append(g.aggs, e)
	return len(g.aggs) - 1
}

// plan builds Project(keys, args) -> Aggregate and sets g.cols.
func (g *grouping) plan(in *rel) planner.Node {
	var exprs []expr.Expr
	var pcols []planner.Column
	for _, k := range g.keys {
		exprs = append(exprs, k)
		pcols = append(pcols, keyColumn(k, in.scope))
	}
	agg := &planner.Aggregate{}
	for i := range g.keys {
		agg.GroupBy = append(agg.GroupBy, i)
	}
	g.cols = append([]planner.Column{}, pcols...)
	if g.sets != nil {
		g.cols = append(g.cols, planner.Column{Name: "?grouping set?", Type: types.TInt64})
	}
	for _, a := range g.aggs {
		call := planner.AggCall{Kind: a.kind, Arg: -1, Distinct: a.distinct, Type: a.typ, Sep: a.sep}
		if a.arg != nil {
			call.Arg = len(exprs)
			exprs = append(exprs, a.arg)
			pcols = append(pcols, planner.Column{Name: a.name, Type: a.arg.Type()})
		}
		if a.filter != nil {
			call.Filtered, call.FilterCol = true, len(exprs)
			exprs = append(exprs, a.filter)
			pcols = append(pcols, planner.Column{Name: "filter", Type: types.TBool})
		}
		for _, k := range a.order {
			call.Order = append(call.Order, planner.SortKey{Col: len(exprs), Desc: k.desc, NullsFirst: k.nullsFirst})
			exprs = append(exprs, k.e)
			pcols = append(pcols, planner.Column{Name: "order", Type: k.e.Type()})
		}
		agg.Aggs = append(agg.Aggs, call)
		g.cols = append(g.cols, planner.Column{Name: a.name, Type: a.typ})
	}
	p := &planner.Project{Input: in.node, Exprs: exprs, Cols: pcols}
	agg.Input = p
	agg.Cols = g.cols
	if g.sets != nil {
		return g.planGroupingSets(p, agg)
	}
	return agg
}

// keyColumn names a group key column after the column it is, if any.
func keyColumn(k expr.Expr, s *scope) planner.Column {
	if c, ok := k.(*expr.Column); ok {
		sc := s.cols[c.Index]
		return planner.Column{Name: sc.name, Table: sc.table, Type: sc.typ}
	}
	return planner.Column{Name: "?column?", Type: k.Type()}
}

// bindAggCall binds an aggregate call's argument over the input.
func (b *binder) bindAggCall(c *exprCtx, node ast.ExprNode) (aggEntry, error) {
	var name, written string
	var args []ast.ExprNode
	var distinct bool
	switch n := node.(type) {
	case *ast.AggregateFuncExpr:
		name, written, args, distinct = strings.ToLower(n.F), n.F, n.Args, n.Distinct
	case *ast.FuncCallExpr:
		name, written, args = n.FnName.L, n.FnName.O, n.Args
	}
	if name == "approx_count_distinct" {
		// RisingWave's estimate of count(DISTINCT x); the exact count is
		// within any error bound it promises.
		name, distinct = "count", true
	}
	kind, ok := expr.AggByName(name)
	if !ok {
		return aggEntry{}, b.at(notSupported("aggregate function %s", name), node, written)
	}
	var orderBy, within []*ast.FuncCallExpr
	if _, ok := node.(*ast.FuncCallExpr); ok {
		// DISTINCT and ORDER BY, as sql.rewriteAggOrder marked them.
		kept := make([]ast.ExprNode, 0, len(args))
		for _, a := range args {
			if f, ok := a.(*ast.FuncCallExpr); ok {
				switch f.FnName.L {
				case sql.AggDistinctFunc:
					distinct = true
					continue
				case sql.AggOrderFunc:
					orderBy = append(orderBy, f)
					continue
				case sql.AggWithinFunc:
					within = append(within, f)
					continue
				}
			}
			kept = append(kept, a)
		}
		args = kept
	}
	if kind.IsOrderedSet() || len(within) > 0 {
		return b.bindOrderedSetAgg(c, node, name, written, kind, args, within)
	}
	want := 1
	if kind == expr.AggStringAgg || sql.PairAggs[name] {
		want = 2
	}
	var filter ast.ExprNode
	if n := len(args); n == want+1 {
		if f, ok := args[n-1].(*ast.FuncCallExpr); ok && f.FnName.L == sql.AggFilterFunc && len(f.Args) == 1 {
			filter, args = f.Args[0], args[:n-1]
		}
	}
	if len(args) != want {
		return aggEntry{}, b.at(pgerr.New(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), node, written)
	}
	e := aggEntry{kind: kind, distinct: distinct, name: name}
	arg, err := b.bindExpr(c.noAggs("nested"), args[0])
	if err != nil {
		return e, err
	}
	if e.order, err = b.bindAggOrder(c, orderBy, arg, distinct, false); err != nil {
		return e, b.at(err, node, written)
	}
	if !kind.IsList() {
		e.order = nil // the order of the inputs cannot change the value
	}
	if filter != nil {
		if e.filter, err = b.bindCond(c.noAggs("FILTER"), filter, "FILTER"); err != nil {
			return e, err
		}
	}
	if kind == expr.AggStringAgg {
		if arg, e.sep, err = b.stringAggArgs(c, arg, args[1]); err != nil {
			return e, b.at(err, node, written)
		}
	}
	if sql.PairAggs[name] {
		if arg, err = b.aggPairArg(c, &e, name, arg, args[1]); err != nil {
			return e, b.at(err, node, written)
		}
	}
	if kind == expr.AggCount && !distinct && isNonNullConst(arg) {
		e.kind = expr.AggCountStar // count(*) reaches us as count(1)
	} else {
		if arg.Type().ID == types.IDUnknown {
			// As PostgreSQL resolves it; where it cannot, the unknown
			// type stays for AggResultType's error.
			if t, ok := expr.AggUnknownArg(kind); ok {
				if arg, err = expr.Cast(arg, t); err != nil {
					return e, b.atNode(err, args[0])
				}
			}
		}
		if t, ok := expr.AggArgCoercion(kind, arg.Type()); ok {
			if arg, err = expr.Coerce(arg, t); err != nil {
				return e, b.atNode(err, args[0])
			}
		}
		e.arg = arg
	}
	argType := types.TInt64
	if e.arg != nil {
		argType = e.arg.Type()
	}
	if e.typ, err = expr.AggResultType(e.kind, argType); err != nil {
		// Name the function as written (variance, not var_samp).
		if pe, ok := err.(*pgerr.Error); ok && name != e.kind.String() {
			c := *pe
			c.Message = strings.Replace(c.Message, "function "+e.kind.String()+"(", "function "+name+"(", 1)
			err = &c
		}
		return e, b.at(err, node, written)
	}
	return e, nil
}

// bindAggOrder binds the ORDER BY keys of string_agg or array_agg (the
// sql.AggOrderFunc markers). Under DISTINCT each key must be the
// argument, as in Postgres (the values are sorted to find the distinct
// ones). A WITHIN GROUP key (within) of unknown type stays unknown, for
// the ordered-set aggregate to resolve.
func (b *binder) bindAggOrder(c *exprCtx, marks []*ast.FuncCallExpr, arg expr.Expr, distinct, within bool) ([]aggOrder, error) {
	var out []aggOrder
	for _, m := range marks {
		if len(m.Args) != 3 {
			return nil, pgerr.New(pgerr.Internal, "binder: malformed ORDER BY marker")
		}
		e, err := b.bindExpr(c.noAggs("nested"), m.Args[0])
		if err != nil {
			return nil, err
		}
		if e.Type().ID == types.IDUnknown && !within {
			if e, err = expr.Cast(e, types.TText); err != nil {
				return nil, err
			}
		}
		if distinct && !exprEqual(e, arg) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
		}
		flag := func(i int) int64 {
			v, _ := m.Args[i].(ast.ValueExpr)
			if v == nil {
				return 0
			}
			n, _ := v.GetValue().(int64)
			return n
		}
		desc := flag(1) == 1
		nullsFirst := desc // Postgres: NULLS FIRST is the default for DESC
		switch flag(2) {
		case 1:
			nullsFirst = true
		case 2:
			nullsFirst = false
		}
		out = append(out, aggOrder{e: e, desc: desc, nullsFirst: nullsFirst})
	}
	return out, nil
}

// stringAggArgs binds string_agg's value (as text, or bytea for
// string_agg(bytea, bytea)) and its delimiter, which must be a constant.
func (b *binder) stringAggArgs(c *exprCtx, arg expr.Expr, delim ast.ExprNode) (expr.Expr, string, error) {
	d, err := b.bindExpr(c.noAggs("nested"), delim)
	if err != nil {
		return nil, "", err
	}
	k, ok := d.(*expr.Const)
	if !ok {
		return nil, "", notSupported("string_agg with a delimiter that is not a constant")
	}
	if arg.Type().ID == types.IDBytea {
		return byteaAggArgs(arg, k)
	}
	sep := ""
	if k.Value != nil {
		sep = types.Format(k.Value, k.Typ)
	}
	if !arg.Type().IsString() {
		if arg, err = expr.Cast(arg, types.TText); err != nil {
			return nil, "", err
		}
	}
	return arg, sep, nil
}

// byteaAggArgs is stringAggArgs of string_agg(bytea, bytea): the
// delimiter's bytes.
func byteaAggArgs(arg expr.Expr, delim *expr.Const) (expr.Expr, string, error) {
	if delim.Typ.ID != types.IDBytea && delim.Typ.ID != types.IDUnknown {
		return nil, "", pgerr.New(pgerr.UndefinedFunction, "function string_agg(bytea, %s) does not exist", delim.Typ)
	}
	d, err := expr.Cast(delim, types.TBytea)
	if err != nil {
		return nil, "", err
	}
	sep := ""
	if k, ok := d.(*expr.Const); ok {
		sep, _ = k.Value.(string)
	}
	return arg, sep, nil
}

func isNonNullConst(e expr.Expr) bool {
	c, ok := e.(*expr.Const)
	return ok && c.Value != nil
}

// addDependentKeys adds, for every table whose whole primary key is among
// the group keys, the table's other columns as keys: they are functionally
// dependent on the key, so the groups do not change, and Postgres lets the
// query use them ungrouped.
func addDependentKeys(keys []expr.Expr, s *scope) []expr.Expr {
	grouped := map[int]bool{}
	for _, k := range keys {
		if c, ok := k.(*expr.Column); ok {
			grouped[c.Index] = true
		}
	}
	for _, table := range pkGroupedTables(s, grouped) {
		for i, c := range s.cols {
			if c.table == table && c.rel != nil && !grouped[i] {
				grouped[i] = true
				keys = append(keys, expr.NewColumn(i, c.typ, c.name))
			}
		}
	}
	return keys
}

// pkGroupedTables returns the qualifiers of scanned tables (with a real
// primary key) whose primary key columns are all grouped.
func pkGroupedTables(s *scope, grouped map[int]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range s.cols {
		if c.rel == nil || c.rel.RowID || len(c.rel.PK) == 0 || seen[c.table] {
			continue
		}
		seen[c.table] = true
		if pkGrouped(s, c.table, c.rel, grouped) {
			out = append(out, c.table)
		}
	}
	return out
}

func pkGrouped(s *scope, table string, r *catalog.Relation, grouped map[int]bool) bool {
	for _, pk := range r.PK {
		found := false
		for i, c := range s.cols {
			if c.table == table && c.rel == r && c.relCol == pk && grouped[i] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
