package binder

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// tableFuncPrefix is the reserved table name the front end gives the N-th
// table function in FROM: __sdb_tf_N.
const tableFuncPrefix = "__sdb_tf_"

// bindFromClause binds FROM; no FROM is a single row of no columns.
func (b *binder) bindFromClause(from *ast.TableRefsClause) (*rel, error) {
	if from == nil || from.TableRefs == nil {
		node := &planner.Values{Rows: [][]expr.Expr{{}}}
		return &rel{node: node, scope: &scope{}}, nil
	}
	return b.bindTableRef(from.TableRefs)
}

// bindTableRef binds one FROM item: a join, a table, a subquery.
func (b *binder) bindTableRef(n ast.ResultSetNode) (*rel, error) {
	switch n := n.(type) {
	case *ast.Join:
		if n.Right == nil {
			return b.bindTableRef(n.Left)
		}
		return b.bindJoin(n)
	case *ast.TableSource:
		return b.bindTableSource(n)
	case *ast.TableName:
		return b.bindTableName(n, "")
	}
	return nil, notSupported("FROM item %T", n)
}

func (b *binder) bindTableSource(ts *ast.TableSource) (*rel, error) {
	alias, names, lateral := ts.AsName.O, ts.ColumnNames, ts.Lateral
	if lateral && len(names) > 0 && names[0].O == markerDerived {
		// The front end's form of column aliases: not LATERAL.
		lateral, names = false, names[1:]
	}
	// Only a table function right after the items it reads sees them.
	lat := b.lateralScope
	b.lateralScope = nil
	defer func() { b.lateralScope = lat }()
	_, isFn := ts.Source.(*ast.TableName)
	switch src := ts.Source.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		if lateral {
			return b.bindLateralDerived(src, alias, names, lat)
		}
	}
	if lateral && !(isFn && lat != nil) {
		return nil, notSupported("LATERAL")
	}
	switch src := ts.Source.(type) {
	case *ast.TableName:
		b.lateralScope = lat
		r, err := b.bindTableName(src, alias)
		b.lateralScope = nil
		if err != nil || len(names) == 0 {
			return r, err
		}
		return renameRel(r, names, firstNonEmpty(alias, src.Name.O))
	case *ast.SelectStmt, *ast.SetOprStmt:
		return b.bindDerived(src, alias, names)
	case *ast.Join:
		return b.bindTableRef(src)
	}
	return nil, notSupported("FROM item %T", ts.Source)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// bindDerived binds a subquery in FROM.
func (b *binder) bindDerived(q ast.ResultSetNode, alias string, names []ast.CIStr) (*rel, error) {
	r, err := b.bindResultSet(q)
	if err != nil {
		return nil, err
	}
	node := visibleNode(r.node)
	cols, err := renameColumns(node.Columns(), names, alias)
	if err != nil {
		return nil, err
	}
	return &rel{node: node, scope: scopeOf(cols, alias)}, nil
}

// renameRel applies a column alias list to a bound FROM item.
func renameRel(r *rel, names []ast.CIStr, table string) (*rel, error) {
	cols, err := renameColumns(r.node.Columns(), names, table)
	if err != nil {
		return nil, err
	}
	s := scopeOf(cols, table)
	for i := range s.cols {
		s.cols[i].hidden = r.scope.cols[i].hidden
	}
	return &rel{node: r.node, scope: s}, nil
}

// visibleNode projects away hidden columns, if n has any.
func visibleNode(n planner.Node) planner.Node {
	cols := n.Columns()
	vis := visibleCols(n)
	if len(vis) == len(cols) {
		return n
	}
	p := &planner.Project{Input: n, Cols: vis}
	for i, c := range cols {
		if !c.Hidden {
			p.Exprs = append(p.Exprs, expr.NewColumn(i, c.Type, c.Name))
		}
	}
	return p
}

// bindTableName binds a table, materialized view, CTE or table function.
func (b *binder) bindTableName(tn *ast.TableName, alias string) (*rel, error) {
	name := tn.Name.O
	if tn.Schema.O == "" {
		if def, ok := b.lookupCTE(name); ok {
			if def.rec != nil {
				if err := def.rec.use(len(b.outer)); err != nil {
					return nil, b.at(err, tn, name)
				}
			}
			q := firstNonEmpty(alias, name)
			return &rel{node: def.node, scope: scopeOf(def.cols, q)}, nil
		}
		if strings.HasPrefix(name, tableFuncPrefix) {
			return b.bindTableFunc(tn, alias)
		}
	}
	r, err := b.relation(tn)
	if err != nil {
		return nil, err
	}
	b.noteRef(r)
	if r.Kind == catalog.KindView {
		return b.bindViewRef(r, alias)
	}
	if r.Kind == catalog.KindSequence {
		return b.bindSequenceRow(tn, r, firstNonEmpty(alias, name))
	}
	if r.Kind == catalog.KindSystem && b.inView {
		// Its rows are computed when read: there is no change stream.
		return nil, b.at(notSupported("system relation %s in a materialized view", r.Name), tn, name)
	}
	if r.Kind == catalog.KindSource && !b.inView {
		err := pgerr.New(pgerr.FeatureNotSupported, "cannot read source %q in a query: a source stores no rows", r.Name)
		err.Hint = "Create a materialized view over the source, or a table WITH (connector = ...) to keep its rows."
		return nil, b.at(err, tn, name)
	}
	q := firstNonEmpty(alias, name)
	scan := &planner.Scan{Rel: r, Alias: alias, Cols: relColumns(r, q), Indexes: b.indexesOf(r)}
	s := scopeOf(scan.Cols, q)
	for i := range s.cols {
		s.cols[i].rel, s.cols[i].relCol = r, i
	}
	return &rel{node: scan, scope: s}, nil
}

// relation looks a table or materialized view up in the catalog.
func (b *binder) relation(tn *ast.TableName) (*catalog.Relation, error) {
	name := tn.Name.O
	r, ok := catalog.Lookup(b.cat, b.searchPath(), tn.Schema.O, name)
	if !ok {
		if s := tn.Schema.O; s != "" {
			err := pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", s, name)
			return nil, b.at(err, tn, s)
		}
		err := pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		return nil, b.at(err, tn, name)
	}
	switch r.Kind {
	case catalog.KindIndex:
		return nil, b.at(pgerr.New(WrongObjectType, "%q is an index", name), tn, name)
	case catalog.KindSubscription:
		err := pgerr.New(WrongObjectType, "%q is a subscription", name)
		err.Hint = "Read a subscription with DECLARE ... SUBSCRIPTION CURSOR FOR " + name + " and FETCH."
		return nil, b.at(err, tn, name)
	case catalog.KindSink:
		return nil, b.at(pgerr.New(WrongObjectType, "%q is a sink", name), tn, name)
	}
	return r, nil
}

// relColumns returns the plan columns of a relation, qualified by table.
func relColumns(r *catalog.Relation, table string) []planner.Column {
	cols := make([]planner.Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type, Table: table, Hidden: c.Hidden}
	}
	return cols
}

// tableFuncIndex parses N out of __sdb_tf_N.
func tableFuncIndex(name string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, tableFuncPrefix))
	return n, err == nil && n >= 0
}
