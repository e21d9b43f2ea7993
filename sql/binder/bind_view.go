package binder

import (
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// Plain views (CREATE VIEW) store their query's text and are expanded,
// like a subquery in FROM, wherever a query names them: in batch queries
// and in materialized views, whose plans then read the view's tables.

// maxViewDepth bounds how deep views may nest (a view replaced by one
// that reads itself would otherwise expand forever).
const maxViewDepth = 32

// bindCreatePlainView binds CREATE [OR REPLACE] VIEW: the query must bind,
// and its output columns (after the optional rename) become the view's.
func (b *binder) bindCreatePlainView(s *sql.CreateViewStmt) (*planner.CreatePlainView, error) {
	if s.Query == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE VIEW needs a query")
	}
	if b.st.NumParams > 0 {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $1")
	}
	q, err := b.bindQuery(s.Query)
	if err != nil {
		return nil, err
	}
	cols := visibleCols(q.Plan)
	if len(s.Columns) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	out := make([]catalog.Column, len(cols))
	seen := map[string]bool{}
	for i, c := range cols {
		name := c.Name
		if i < len(s.Columns) {
			name = s.Columns[i]
		}
		if seen[name] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen[name] = true
		out[i] = catalog.Column{Name: name, Type: c.Type}
	}
	name, err := b.creationName(s.Name)
	if err != nil {
		return nil, err
	}
	return &planner.CreatePlainView{Name: name, OrReplace: s.OrReplace, Definition: s.QueryText,
		Columns: out, Deps: q.Refs, SearchPath: b.searchPath()}, nil
}

// bindViewRef expands a plain view named in FROM: its query, bound on its
// own (it sees no CTE or parameter of the query naming it), under the
// view's column names.
func (b *binder) bindViewRef(r *catalog.Relation, alias string) (*rel, error) {
	if b.viewDepth >= maxViewDepth {
		return nil, pgerr.New("42P17", "infinite recursion detected in rules for relation %q", r.Name)
	}
	stmts, err := sql.NewParser().Parse(r.Definition)
	if err != nil {
		return nil, err
	}
	sel, ok := stmts[0].Node.(*sql.SelectStmt)
	if len(stmts) != 1 || !ok {
		return nil, pgerr.New(pgerr.Internal, "view %q has a definition that is not a query", r.Name)
	}
	vb := &binder{cat: catalog.AsBoundBy(b.cat, r), st: stmts[0], unknownParams: map[*expr.Const]int{}, inView: b.inView, viewDepth: b.viewDepth + 1,
		path: r.SearchPath, zone: b.zone}
	inner, err := vb.bindResultSet(sel.AST)
	if err != nil {
		return nil, err
	}
	b.readsClock = b.readsClock || vb.readsClock
	node := visibleNode(inner.node)
	cols := requalify(node.Columns(), firstNonEmpty(alias, ownName(r)))
	if len(cols) != len(r.Columns) {
		return nil, pgerr.New(pgerr.Internal, "view %q has %d columns, its query %d", r.Name, len(r.Columns), len(cols))
	}
	for i := range cols {
		cols[i].Name = r.Columns[i].Name
	}
	return &rel{node: node, scope: scopeOf(cols, firstNonEmpty(alias, ownName(r)))}, nil
}

// noteRef records a relation the statement names.
func (b *binder) noteRef(r *catalog.Relation) {
	if r.Kind != catalog.KindSystem && !slices.Contains(b.refs, r.ID) {
		b.refs = append(b.refs, r.ID)
	}
}
