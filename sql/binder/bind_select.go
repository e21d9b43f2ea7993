package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"math"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// bindResultSet binds a query: a SELECT, a set operation, or VALUES.
func (b *binder) bindResultSet(n ast.Node) (*rel, error) {
	switch n := n.(type) {
	case *ast.SelectStmt:
		return b.bindSelect(n)
	case *ast.SetOprStmt:
		return b.bindSetOpr(n.With, n.SelectList, n.OrderBy, n.Limit)
	case *ast.SetOprSelectList:
		return b.bindSetOpr(n.With, n, n.OrderBy, n.Limit)
	case *ast.SubqueryExpr:
		return b.bindResultSet(n.Query)
	}
	return nil, notSupported("query %T", n)
}

// selItem is one output column of a select list, after * expansion.
type selItem struct {
	node  ast.ExprNode // nil for a column of a * expansion
	col   int          // the input column of a * item
	name  string
	table string
}

// selectState carries a SELECT through its clauses.
type selectState struct {
	cur    *rel
	ctx    *exprCtx // how the select list and ORDER BY bind
	items  []selItem
	exprs  []expr.Expr
	extras []expr.Expr // ORDER BY expressions not in the select list
	// keepUnknown: a set operation's branch, whose unknown-typed outputs
	// the set operation resolves (binder.setOpBranch).
	keepUnknown bool
	keys        []planner.SortKey
	// distinctOn holds DISTINCT ON's expressions.
	distinctOn []ast.ExprNode
}

func (b *binder) bindSelect(s *ast.SelectStmt) (*rel, error) {
	if err := b.takeFrameExcludes(s); err != nil {
		return nil, err
	}
	// Taken before the CTEs bind: their queries are not the branch.
	branch := b.setOpBranch
	b.setOpBranch = false
	pop, err := b.pushWith(s.With)
	if err != nil {
		return nil, err
	}
	defer pop()
	if s.Kind == ast.SelectStmtKindValues {
		return b.bindValuesQuery(s)
	}
	if s.Kind == ast.SelectStmtKindTable {
		// TABLE name is SELECT * FROM name (with the ORDER BY and LIMIT
		// the parser attached).
		t := *s
		t.Kind = ast.SelectStmtKindSelect
		t.Fields = &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}
		s = &t
	}
	s, on := splitDistinctOn(s)
	st, err := b.bindSelectCore(s)
	if err != nil {
		return nil, err
	}
	st.distinctOn = on
	st.keepUnknown = branch && !s.Distinct && s.OrderBy == nil && s.Limit == nil
	return b.finishSelect(st, s.Distinct, s.OrderBy, s.Limit)
}

// bindSelectCore binds FROM, WHERE, grouping, HAVING and the select list.
func (b *binder) bindSelectCore(s *ast.SelectStmt) (*selectState, error) {
	from, err := b.bindFromClause(s.From)
	if err != nil {
		return nil, err
	}
	if from, err = b.bindWhere(from, s.Where); err != nil {
		return nil, err
	}
	st := &selectState{cur: from, ctx: &exprCtx{scope: from.scope}}
	if st.items, err = b.expandSelect(s.Fields, from.scope, s.From == nil); err != nil {
		return nil, err
	}
	if err = b.bindGrouping(st, s); err != nil {
		return nil, err
	}
	if err = b.bindWindows(st, s); err != nil {
		return nil, err
	}
	st.ctx.subs = newSubqueries(st.cur.node) // the select list's and ORDER BY's
	if st.ctx.grouped == nil && len(st.ctx.windows) == 0 {
		st.ctx.srf = &srfSlot{base: len(st.cur.node.Columns())}
	}
	for _, it := range st.items {
		e, err := b.bindSelItem(st.ctx, it)
		if err != nil {
			return nil, err
		}
		st.exprs = append(st.exprs, e)
	}
	return st, nil
}

func (b *binder) bindWhere(from *rel, where ast.ExprNode) (*rel, error) {
	if where == nil {
		return from, nil
	}
	c := &exprCtx{scope: from.scope, clause: "WHERE", subs: newSubqueries(from.node)}
	// The equalities between joined columns first, wherever they stand:
	// a view's semi join (below) hides the inner joins under it.
	var rest []ast.ExprNode
	for _, conj := range splitAnd(where, nil) {
		if !pushJoinKey(from.node, from.scope, conj) {
			pushOrJoinKeys(from.node, from.scope, conj)
			rest = append(rest, conj)
		}
	}
	var conds []expr.Expr
	for _, conj := range rest {
		// [NOT] EXISTS and IN as semi and anti joins: a view needs them
		// (it cannot run a subquery per row); a batch query runs them as
		// hash joins when it can, and otherwise through an Apply.
		r, ok, err := b.semiJoin(from, conj)
		if err != nil && b.inView {
			return nil, err
		}
		if err == nil && ok {
			from = r
			continue
		}
		e, err := b.bindCond(c, conj, "WHERE")
		if err != nil {
			return nil, err
		}
		conds = append(conds, e)
	}
	in := from.node
	if c.subs.wrapped() {
		// The conjuncts without subqueries filter the rows before the
		// subqueries run for them.
		var below, above []expr.Expr
		for _, e := range conds {
			if planner.InputOnly(e, c.subs.base) {
				below = append(below, e)
			} else {
				above = append(above, e)
			}
		}
		cond, err := andAll(below)
		if err != nil {
			return nil, err
		}
		if cond != nil {
			in = &planner.Filter{Input: in, Cond: cond}
		}
		conds = above
	}
	cond, err := andAll(conds)
	if err != nil || cond == nil {
		return &rel{node: in, scope: from.scope}, err
	}
	var node planner.Node = &planner.Filter{Input: c.subs.wrap(in), Cond: cond}
	if c.subs.wrapped() {
		node = keepFirst(node, c.subs.base)
	}
	return &rel{node: node, scope: from.scope}, nil
}

// bindCond binds a boolean condition (WHERE, HAVING, ON).
func (b *binder) bindCond(c *exprCtx, n ast.ExprNode, clause string) (expr.Expr, error) {
	e, err := b.bindExpr(c, n)
	if err != nil {
		return nil, err
	}
	if e, err = b.decideParam(e, types.TBool); err != nil {
		return nil, err
	}
	switch e.Type().ID {
	case types.IDBool:
		return e, nil
	case types.IDUnknown:
		return expr.Cast(e, types.TBool)
	}
	return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, e.Type())
}

// bindGrouping adds the Aggregate and HAVING when the query aggregates.
func (b *binder) bindGrouping(st *selectState, s *ast.SelectStmt) error {
	var nodes []ast.Node
	for _, it := range st.items {
		if it.node != nil {
			nodes = append(nodes, it.node)
		}
	}
	if s.Having != nil {
		nodes = append(nodes, s.Having.Expr)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			nodes = append(nodes, it.Expr)
		}
	}
	calls := collectAggs(nodes...)
	if len(calls) == 0 && s.GroupBy == nil && s.Having == nil {
		return nil
	}
	// A set-returning function may be grouped by: it runs before the
	// aggregate (SELECT unnest(tags) AS tag, count(*) ... GROUP BY 1).
	slot := &srfSlot{base: len(st.cur.node.Columns())}
	keys, sets, err := b.bindGroupBy(s.GroupBy, st.cur.scope, st.items, slot)
	if err != nil {
		return err
	}
	if r := slot.projectSet(st.cur); r != nil {
		st.cur = r
	}
	if sets == nil {
		keys = addDependentKeys(keys, st.cur.scope)
	}
	agg, g, err := b.bindAggregate(st.cur, keys, sets, calls)
	if err != nil {
		return err
	}
	if len(slot.fns) > 0 {
		g.in.srf = slot
	}
	st.cur = agg
	st.ctx = &exprCtx{scope: g.in.scope, grouped: g}
	if s.Having == nil {
		return nil
	}
	hc := *st.ctx
	hc.subs = newSubqueries(agg.node)
	hc.winClause = "HAVING"
	cond, err := b.bindCond(&hc, s.Having.Expr, "HAVING")
	if err != nil {
		return err
	}
	var node planner.Node = &planner.Filter{Input: hc.subs.wrap(agg.node), Cond: cond}
	if hc.subs.wrapped() {
		node = keepFirst(node, hc.subs.base)
	}
	st.cur = &rel{node: node, scope: agg.scope}
	return nil
}

// bindGroupBy binds the GROUP BY items over the input: an ordinal or an
// output column name not naming an input column stands for that select
// list expression, as in Postgres.
//
// A GROUP BY of grouping sets (ROLLUP, CUBE, GROUPING SETS) also returns
// the sets, as indexes into the keys; a single set is a plain GROUP BY.
func (b *binder) bindGroupBy(gb *ast.GroupByClause, in *scope, items []selItem, srf *srfSlot) ([]expr.Expr, [][]int, error) {
	if gb == nil {
		return nil, nil, nil
	}
	if gb.Rollup {
		return nil, nil, notSupported("WITH ROLLUP")
	}
	c := &exprCtx{scope: in, clause: "GROUP BY", srf: srf}
	if call, ok := groupingSetsCall(gb); ok {
		keys, sets, err := b.bindGroupingSets(c, call, items)
		if err != nil || len(sets) > 1 {
			return keys, sets, err
		}
		var plain []expr.Expr
		for _, i := range sets[0] {
			plain = append(plain, keys[i])
		}
		return plain, nil, nil
	}
	var keys []expr.Expr
	for _, item := range gb.Items {
		k, err := b.bindGroupItem(c, item.Expr, items)
		if err != nil {
			return nil, nil, err
		}
		if !containsExpr(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, nil, nil
}

func (b *binder) bindGroupItem(c *exprCtx, n ast.ExprNode, items []selItem) (expr.Expr, error) {
	n = outputPosition(n) // GROUP BY (1), ROLLUP (1, 2)
	if err := b.nonIntegerConstant(n, "GROUP BY"); err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *ast.PositionExpr:
		if x.P == nil && x.N > math.MaxInt32 {
			return nil, b.atNode(pgerr.New(pgerr.SyntaxError, "non-integer constant in GROUP BY"), n)
		}
		if x.P != nil || x.N < 1 || x.N > len(items) {
			err := pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", x.N)
			return nil, b.atOrdinal(err, x, "GROUP BY")
		}
		return b.bindSelItem(c, items[x.N-1])
	case *ast.ColumnNameExpr:
		if x.Name.Table.O == "" {
			if _, perr := c.scope.resolve("", x.Name.Name.O); perr != nil && perr.Code == pgerr.UndefinedColumn {
				if it, ok := itemNamed(items, x.Name.Name.O); ok {
					return b.bindSelItem(c, it)
				}
			}
		}
	}
	return b.bindExpr(c, n)
}

func itemNamed(items []selItem, name string) (selItem, bool) {
	for _, it := range items {
		if it.name == name {
			return it, true
		}
	}
	return selItem{}, false
}

func containsExpr(list []expr.Expr, e expr.Expr) bool {
	for _, x := range list {
		if exprEqual(x, e) {
			return true
		}
	}
	return false
}

// expandSelect expands * and t.* and names every output column.
func (b *binder) expandSelect(fl *ast.FieldList, s *scope, noFrom bool) ([]selItem, error) {
	var items []selItem
	for _, f := range fl.Fields {
		if f.WildCard == nil {
			name := f.AsName.O
			if name == "" {
				name = figureName(f.Expr)
			}
			items = append(items, selItem{node: f.Expr, name: name, table: columnTable(f.Expr)})
			continue
		}
		table := f.WildCard.Table.O
		if noFrom && table == "" {
			return nil, pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid")
		}
		idx, ok := s.starColumns(table)
		if !ok {
			err := pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
			return nil, b.at(err, f, table)
		}
		for _, i := range idx {
			items = append(items, selItem{col: i, name: s.cols[i].name, table: s.cols[i].table})
		}
	}
	return items, nil
}

func columnTable(n ast.ExprNode) string {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		return c.Name.Table.O
	}
	return ""
}

// bindSelItem binds one output column.
func (b *binder) bindSelItem(c *exprCtx, it selItem) (expr.Expr, error) {
	if it.node != nil {
		return b.bindExpr(c, it.node)
	}
	sc := c.scope.cols[it.col]
	if c.grouped == nil {
		return expr.NewColumn(it.col, sc.typ, sc.name), nil
	}
	for i, k := range c.grouped.keys {
		if kc, ok := k.(*expr.Column); ok && kc.Index == it.col {
			return expr.NewColumn(i, sc.typ, sc.name), nil
		}
	}
	return nil, ungrouped(sc)
}

// finishSelect adds the projection, DISTINCT, ORDER BY and LIMIT.
func (b *binder) finishSelect(st *selectState, distinct bool, ob *ast.OrderByClause, lim *ast.Limit) (*rel, error) {
	if err := b.bindOrderBy(st, ob, distinct); err != nil {
		return nil, err
	}
	onCols, err := b.bindDistinctOn(st)
	if err != nil {
		return nil, err
	}
	if s := st.ctx.srf; s != nil && len(s.fns) > 0 {
		if st.ctx.subs.wrapped() {
			return nil, notSupported("a set-returning function and a subquery in one select list")
		}
		st.cur = &rel{node: s.projectSet(st.cur).node, scope: st.cur.scope}
	}
	if st.ctx.subs.wrapped() {
		st.cur = &rel{node: st.ctx.subs.wrap(st.cur.node), scope: st.cur.scope}
	}
	proj, err := b.project(st)
	if err != nil {
		return nil, err
	}
	node := planner.Node(proj)
	if distinct {
		node = distinctOf(node)
	}
	if len(onCols) > 0 {
		node = distinctOnOf(node, onCols, st.keys)
	}
	if len(st.keys) > 0 {
		node = &planner.Sort{Input: node, Keys: st.keys}
	}
	if node, err = b.bindLimit(node, lim); err != nil {
		return nil, err
	}
	if len(st.extras) > 0 || len(onCols) > 0 {
		node = dropExtras(node, len(st.items))
	}
	return &rel{node: node, scope: scopeOf(node.Columns(), "")}, nil
}

// project builds the select list's Project (ORDER BY extras hidden at the
// end); unknown-typed outputs become text, as in Postgres.
func (b *binder) project(st *selectState) (*planner.Project, error) {
	p := &planner.Project{Input: st.cur.node}
	for i, e := range st.exprs {
		e, err := resolveUnknown(e)
		if st.keepUnknown {
			e, err = st.exprs[i], nil
		}
		if err != nil {
			return nil, err
		}
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, planner.Column{Name: st.items[i].name, Table: st.items[i].table, Type: e.Type()})
	}
	for _, e := range st.extras {
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, planner.Column{Name: "?column?", Type: e.Type(), Hidden: true})
	}
	return p, nil
}

// resolveUnknown casts an unknown-typed expression to text.
func resolveUnknown(e expr.Expr) (expr.Expr, error) {
	if e.Type().ID != types.IDUnknown {
		return e, nil
	}
	if c, ok := e.(*expr.Const); ok && c.Value == nil {
		return expr.NewConst(nil, types.TText), nil
	}
	return expr.Cast(e, types.TText)
}

// distinctOf groups by every column, with no aggregates.
func distinctOf(n planner.Node) planner.Node {
	cols := n.Columns()
	agg := &planner.Aggregate{Input: n, Cols: cols}
	for i := range cols {
		agg.GroupBy = append(agg.GroupBy, i)
	}
	return agg
}

// dropExtras keeps the first n columns.
func dropExtras(node planner.Node, n int) planner.Node {
	cols := node.Columns()[:n]
	p := &planner.Project{Input: node, Cols: append([]planner.Column{}, cols...)}
	for i, c := range cols {
		p.Exprs = append(p.Exprs, expr.NewColumn(i, c.Type, c.Name))
	}
	return p
}
