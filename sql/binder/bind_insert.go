package binder

import (
	"fmt"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindInsert binds INSERT INTO t [(cols)] VALUES ... | SELECT ...: the
// source yields one column per catalog column of t, each assignment-cast
// to the column's type; columns not inserted into (and the hidden row id)
// are NULL.
func (b *binder) bindInsert(st *sql.InsertStmt) (*planner.Insert, error) {
	s := st.AST
	if s.IsReplace || len(s.OnDuplicate) > 0 && st.OnConflict == nil || s.Setlist {
		return nil, notSupported("this form of INSERT")
	}
	tn, _, err := singleTable(s.Table)
	if err != nil {
		return nil, err
	}
	r, err := b.writableRelation(tn)
	if err != nil {
		return nil, err
	}
	targets, err := b.insertTargets(r, s.Columns)
	if err != nil {
		return nil, err
	}
	var src planner.Node
	if lists, with, ok := withValues(s.Select); ok {
		// WITH ctes INSERT ... VALUES: the rows are a VALUES list, typed
		// by their columns, with the CTEs in scope.
		var pop func()
		if pop, err = b.pushWith(with); err != nil {
			return nil, err
		}
		src, err = b.insertValues(r, targets, lists, len(s.Columns) > 0)
		pop()
	} else if s.Select != nil {
		src, err = b.insertSelect(r, targets, s.Select, len(s.Columns) > 0)
	} else {
		src, err = b.insertValues(r, targets, s.Lists, len(s.Columns) > 0)
	}
	if err != nil {
		return nil, err
	}
	ins := &planner.Insert{Rel: r, Source: src}
	if ins.Rules, err = b.rowRules(r); err != nil {
		return nil, err
	}
	q := firstNonEmpty(st.Alias, tn.Name.O)
	if st.OnConflict == nil && r.OnConflict != "" {
		ins.OnConflict = tableConflict(r)
	}
	if st.OnConflict != nil {
		if r.AppendOnly && !st.OnConflict.DoNothing {
			return nil, b.appendOnlyError(r, "update", tn)
		}
		if ins.OnConflict, err = b.bindOnConflict(r, st, q); err != nil {
			return nil, err
		}
	}
	ins.Returning, err = b.bindReturning(st.Returning, r, q)
	return ins, err
}

// withValues recognizes the query the front end makes of WITH ctes
// INSERT INTO t VALUES (..): a VALUES query with a WITH clause and
// nothing else. It returns the rows and the WITH clause.
func withValues(q ast.ResultSetNode) ([][]ast.ExprNode, *ast.WithClause, bool) {
	sel, ok := q.(*ast.SelectStmt)
	if !ok || sel.Kind != ast.SelectStmtKindValues || sel.With == nil || sel.OrderBy != nil || sel.Limit != nil {
		return nil, nil, false
	}
	rows := make([][]ast.ExprNode, len(sel.Lists))
	for i, r := range sel.Lists {
		rows[i] = r.Values
	}
	return rows, sel.With, true
}

// singleTable returns the table (and alias) of a one-table DML statement.
func singleTable(refs *ast.TableRefsClause) (*ast.TableName, string, error) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil, "", notSupported("a statement over more than one table")
	}
	switch x := refs.TableRefs.Left.(type) {
	case *ast.TableSource:
		if tn, ok := x.Source.(*ast.TableName); ok {
			return tn, x.AsName.O, nil
		}
	case *ast.TableName:
		return x, "", nil
	}
	return nil, "", notSupported("this target table")
}

// writableRelation looks up the target of INSERT, UPDATE or DELETE.
func (b *binder) writableRelation(tn *ast.TableName) (*catalog.Relation, error) {
	r, err := b.relation(tn)
	if err != nil {
		return nil, err
	}
	switch r.Kind {
	case catalog.KindMaterializedView, catalog.KindSource, catalog.KindSystem, catalog.KindView, catalog.KindSequence:
		err := pgerr.New(WrongObjectType, "cannot change %s %q", r.Kind, r.Name)
		if r.Kind == catalog.KindSource {
			err.Detail = "A source's rows come from its connector."
		}
		return nil, b.at(err, tn, tn.Name.O)
	}
	return r, nil
}

// insertTargets returns the catalog indexes of the target columns: the
// listed ones, or every visible column.
func (b *binder) insertTargets(r *catalog.Relation, cols []*ast.ColumnName) ([]int, error) {
	if len(cols) == 0 {
		return r.VisibleColumns(), nil
	}
	targets := make([]int, len(cols))
	for i, c := range cols {
		idx, err := b.targetColumn(r, c)
		if err != nil {
			return nil, err
		}
		for _, prev := range targets[:i] {
			if prev == idx {
				err := pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", c.Name.O)
				return nil, b.at(err, c, c.Name.O)
			}
		}
		targets[i] = idx
	}
	return targets, nil
}

// targetColumn finds a visible column of r named by an INSERT or UPDATE.
func (b *binder) targetColumn(r *catalog.Relation, c *ast.ColumnName) (int, error) {
	for i, col := range r.Columns {
		if col.Name == c.Name.O && !col.Hidden {
			return i, nil
		}
	}
	err := pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", c.Name.O, r.Name)
	return 0, b.at(err, c, c.Name.O)
}

// checkArity enforces INSERT's count of values against its targets.
func checkArity(nvals, ntargets int, explicit bool) error {
	if nvals > ntargets {
		return pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if nvals < ntargets && explicit {
		return pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	return nil
}

func (b *binder) insertValues(r *catalog.Relation, targets []int, lists [][]ast.ExprNode, explicit bool) (planner.Node, error) {
	v := &planner.Values{Cols: relColumns(r, r.Name)}
	c := &exprCtx{scope: &scope{}, clause: "VALUES"}
	for _, row := range lists {
		if err := checkArity(len(row), len(targets), explicit); err != nil {
			return nil, err
		}
		vals := make([]expr.Expr, len(row))
		for k, n := range row {
			var err error
			if vals[k], err = b.bindInsertValue(c, n); err != nil {
				return nil, err
			}
		}
		nodes := make([]ast.Node, len(row))
		for k, n := range row {
			nodes[k] = n
		}
		full, err := b.assignRow(r, targets[:len(row)], vals, nodes)
		if err != nil {
			return nil, err
		}
		v.Rows = append(v.Rows, full)
	}
	return v, nil
}

// bindInsertValue binds one VALUES entry; DEFAULT is nil (the column's
// default: see assignRow).
func (b *binder) bindInsertValue(c *exprCtx, n ast.ExprNode) (expr.Expr, error) {
	if _, ok := n.(*ast.DefaultExpr); ok {
		return nil, nil
	}
	return b.bindExpr(c, n)
}

// bindDefault binds a column's DEFAULT expression, which may name no
// column, and casts it for storing into col.
func (b *binder) bindDefault(n ast.ExprNode, col catalog.Column) (expr.Expr, error) {
	e, err := b.bindExpr(&exprCtx{scope: &scope{}, clause: "DEFAULT expressions"}, n)
	if err != nil {
		if pe := pgerr.As(err); pe != nil && pe.Code == pgerr.UndefinedColumn {
			return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression"), n)
		}
		return nil, err
	}
	return b.castDefault(e, col, n)
}

// castDefault casts e, the DEFAULT or generation expression n of col,
// for storing into col (42804 when it cannot be, as PostgreSQL's
// cookDefault says it).
func (b *binder) castDefault(e expr.Expr, col catalog.Column, n ast.ExprNode) (expr.Expr, error) {
	c, err := b.assignCast(e, col)
	if err != nil {
		if pe := pgerr.As(err); pe != nil && pe.Code == pgerr.DatatypeMismatch {
			err = &pgerr.Error{Code: pgerr.DatatypeMismatch,
				Message: fmt.Sprintf("column %q is of type %s but default expression is of type %s", col.Name, col.Type, e.Type()),
				Hint:    "You will need to rewrite or cast the expression."}
		}
		return nil, b.atNode(err, n)
	}
	return c, nil
}

// columnDefault returns column col's default value: its DEFAULT
// expression, or NULL.
func (b *binder) columnDefault(col catalog.Column) (expr.Expr, error) {
	if col.Identity != "" {
		return b.identityDefault(col)
	}
	if col.Default == "" || col.Generated != "" {
		return expr.NewConst(nil, col.Type), nil
	}
	n, err := sql.ParseExpr(col.Default)
	if err != nil {
		return nil, err
	}
	return b.bindDefault(n, col)
}

// assignRow builds a full row of r: vals[k] cast into column targets[k],
// the column's default elsewhere (and for nil vals entries: DEFAULT).
// nodes, when not nil, holds the AST of each value, for error positions.
func (b *binder) assignRow(r *catalog.Relation, targets []int, vals []expr.Expr, nodes []ast.Node) ([]expr.Expr, error) {
	full := make([]expr.Expr, len(r.Columns))
	set := make([]bool, len(r.Columns))
	for k, idx := range targets {
		set[idx] = vals[k] != nil
		if !set[idx] {
			continue
		}
		var node ast.Node
		if nodes != nil {
			node = nodes[k]
		}
		override, err := b.checkWritable(r.Columns[idx], node)
		if err != nil {
			return nil, err
		}
		set[idx] = !override
	}
	for i, col := range r.Columns {
		if set[i] {
			continue
		}
		// Parsed and bound once per statement, not per VALUES row.
		key := fmt.Sprintf("%d/%d", r.ID, i)
		d, ok := b.defaults[key]
		if !ok {
			var err error
			if d, err = b.columnDefault(col); err != nil {
				return nil, err
			}
			if b.defaults == nil {
				b.defaults = map[string]expr.Expr{}
			}
			b.defaults[key] = d
		}
		full[i] = d
	}
	for k, idx := range targets {
		if vals[k] == nil || !set[idx] {
			continue
		}
		var node ast.Node
		if nodes != nil {
			node = nodes[k]
		}
		e, err := b.assign(vals[k], r.Columns[idx], node)
		if err != nil {
			return nil, err
		}
		full[idx] = e
	}
	return full, nil
}

// assign converts e for storing into col; errors point at node (the
// value's AST, nil when unknown) and name the column, as in Postgres:
// column "x" is of type integer but expression is of type text.
func (b *binder) assign(e expr.Expr, col catalog.Column, node ast.Node) (expr.Expr, error) {
	e, err := b.assignCast(e, col)
	if err == nil {
		return e, nil
	}
	if pe := pgerr.As(err); pe.Code == pgerr.DatatypeMismatch && e != nil {
		err = &pgerr.Error{Code: pgerr.DatatypeMismatch,
			Message: fmt.Sprintf("column %q is of type %s but expression is of type %s", col.Name, col.Type, e.Type()),
			Hint:    "You will need to rewrite or cast the expression."}
	}
	return nil, b.atNode(err, node)
}

// assignCast returns e assignment-cast to col's type; on error, it also
// returns e with its parameters decided.
func (b *binder) assignCast(e expr.Expr, col catalog.Column) (expr.Expr, error) {
	e, err := b.decideParam(e, col.Type)
	if err != nil {
		return nil, err
	}
	if e.Type() == col.Type {
		return e, nil
	}
	if c, ok := e.(*expr.Const); ok && c.Value == nil {
		return expr.NewConst(nil, col.Type), nil
	}
	cast, err := expr.AssignCast(e, col.Type)
	if err != nil {
		return e, err
	}
	return cast, nil
}

func (b *binder) insertSelect(r *catalog.Relation, targets []int, q ast.ResultSetNode, explicit bool) (planner.Node, error) {
	b.presetSelectParams(r, targets, q)
	// An untyped literal or NULL in the select list takes its target
	// column's type, as in PostgreSQL (INSERT INTO t SELECT 1, NULL).
	_, b.setOpBranch = q.(*ast.SelectStmt)
	src, err := b.bindResultSet(q)
	b.setOpBranch = false
	if err != nil {
		return nil, err
	}
	vis := visibleCols(src.node)
	if err := checkArity(len(vis), len(targets), explicit); err != nil {
		return nil, err
	}
	ts := make([]types.Type, len(vis))
	for k := range vis {
		ts[k] = r.Columns[targets[k]].Type
	}
	resolved, err := resolveBranch(src.node, ts)
	if err != nil {
		return nil, err
	}
	node := visibleNode(resolved)
	cols := node.Columns()
	vals := make([]expr.Expr, len(cols))
	for k, c := range cols {
		vals[k] = expr.NewColumn(k, c.Type, c.Name)
	}
	full, err := b.assignRow(r, targets[:len(cols)], vals, nil)
	if err != nil {
		return nil, err
	}
	return &planner.Project{Input: node, Exprs: full, Cols: relColumns(r, r.Name)}, nil
}

// presetSelectParams gives the parameters of unknown type that a plain
// SELECT feeding an INSERT outputs as bare columns ($1 in INSERT INTO t
// (a) SELECT $1) the type of their target column, as PostgreSQL infers it.
func (b *binder) presetSelectParams(r *catalog.Relation, targets []int, q ast.ResultSetNode) {
	sel, ok := q.(*ast.SelectStmt)
	if !ok || sel.Fields == nil {
		return
	}
	for k, f := range sel.Fields.Fields {
		if f.WildCard != nil || k >= len(targets) {
			return
		}
		p, ok := f.Expr.(ast.ParamMarkerExpr)
		if !ok {
			continue
		}
		if i := paramOrder(p); i >= 0 && i < len(b.params) && b.params[i].ID == types.IDUnknown {
			b.params[i] = r.Columns[targets[k]].Type
		}
	}
}

// ColumnDefaults returns, for each column of r that COPY's targets leave
// out, its default (nil entries: NULL, and for the targets), evaluated at
// the instants at (see Options.Time).
func ColumnDefaults(cat catalog.Reader, r *catalog.Relation, targets []int, at *expr.Instants) ([]expr.Expr, error) {
	b := newBinder(cat, &sql.Statement{}, Options{})
	out := make([]expr.Expr, len(r.Columns))
	for i, col := range r.Columns {
		if col.Default == "" && col.Identity == "" || slices.Contains(targets, i) {
			continue
		}
		d, err := b.columnDefault(col)
		if err != nil {
			return nil, err
		}
		out[i] = finishExpr(d, b.zone, at)
	}
	return out, nil
}
