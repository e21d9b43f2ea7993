package binder

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// WITH RECURSIVE r(cols) AS (base UNION [ALL] recursive) binds base (the
// branches before the last UNION, which must not refer to r), then the
// recursive term with r bound to a planner.WorkTableScan of base's
// columns, then makes r a planner.RecursiveUnion. As in PostgreSQL the
// recursive term refers to r once, and its columns have base's types
// (an untyped literal takes them). A CTE of a WITH RECURSIVE that does
// not refer to itself binds as in a plain WITH. Views refuse the
// RecursiveUnion (0A000, from the planner).

// recursiveRef tracks the references to a recursive CTE as it binds.
type recursiveRef struct {
	name string
	// inBase is set while the non-recursive term binds.
	inBase bool
	refs   int
	// depth is how many enclosing queries (binder.outer) the recursive
	// term has: a reference from deeper is in a subquery expression.
	depth int
}

// use records a reference to the CTE from a query with depth enclosing
// queries.
func (r *recursiveRef) use(depth int) error {
	if r.inBase {
		return pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", r.name)
	}
	if depth > r.depth {
		return pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within a subquery", r.name)
	}
	r.refs++
	if r.refs > 1 {
		return pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear more than once", r.name)
	}
	return nil
}

// refersTo reports whether query q mentions the table name (unqualified).
func refersTo(q ast.Node, name string) bool {
	v := &tableNameFinder{name: name}
	q.Accept(v)
	return v.found
}

type tableNameFinder struct {
	name  string
	found bool
}

func (v *tableNameFinder) Enter(n ast.Node) (ast.Node, bool) {
	if t, ok := n.(*ast.TableName); ok && t.Schema.O == "" && t.Name.L == v.name {
		v.found = true
	}
	return n, v.found
}

func (v *tableNameFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// recursiveForm is the error for a recursive CTE that is not base UNION
// [ALL] recursive.
func recursiveForm(name string) *pgerr.Error {
	return pgerr.New(pgerr.InvalidRecursion,
		"recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", name)
}

// bindRecursiveCTE binds recursive CTE c, which frame (the WITH's) holds
// while it binds.
func (b *binder) bindRecursiveCTE(frame map[string]*cteDef, c *ast.CommonTableExpression) (*cteDef, error) {
	name := c.Name.O
	set, ok := c.Query.Query.(*ast.SetOprStmt)
	if !ok || set.SelectList == nil || len(set.SelectList.Selects) < 2 {
		return nil, b.at(recursiveForm(name), c, name)
	}
	if set.OrderBy != nil {
		return nil, b.at(pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented"), c, name)
	}
	if set.Limit != nil {
		return nil, b.at(pgerr.New(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented"), c, name)
	}
	sels := set.SelectList.Selects
	last := sels[len(sels)-1]
	op := setOprType(last)
	if op != ast.Union && op != ast.UnionAll {
		return nil, b.at(recursiveForm(name), c, name)
	}
	rec := &recursiveRef{name: name, inBase: true, depth: len(b.outer)}
	def := &cteDef{rec: rec}
	frame[c.Name.O] = def
	defer delete(frame, c.Name.O)

	var baseAST ast.Node = sels[0]
	if len(sels) > 2 {
		baseAST = &ast.SetOprStmt{With: set.With, SelectList: &ast.SetOprSelectList{Selects: sels[:len(sels)-1]}}
	}
	base, err := b.bindRecursiveBase(baseAST)
	if err != nil {
		return nil, err
	}
	cols, err := renameColumns(visibleCols(base), c.ColNameList, name)
	if err != nil {
		return nil, err
	}
	work := &planner.WorkTable{Name: name}
	def.node, def.cols = &planner.WorkTableScan{Work: work, Cols: cols}, cols
	rec.inBase = false

	b.setOpBranch = true
	r, err := b.bindResultSet(last)
	b.setOpBranch = false
	if err != nil {
		return nil, err
	}
	if aggregatesWork(r.node, work) {
		return nil, b.at(pgerr.New(pgerr.InvalidRecursion,
			"aggregate functions are not allowed in a recursive query's recursive term"), c, name)
	}
	recursive, err := b.recursiveTerm(name, r.node, cols)
	if err != nil {
		return nil, err
	}
	if rec.refs == 0 {
		// Not recursive after all (the name was a nested query's).
		var u planner.Node = &planner.UnionAll{Ins: []planner.Node{base, recursive}, Cols: base.Columns()}
		if op == ast.Union {
			u = distinctOf(u.(*planner.UnionAll))
		}
		return &cteDef{node: u, cols: cols}, nil
	}
	node := &planner.RecursiveUnion{Base: base, Recursive: recursive, Distinct: op == ast.Union, Work: work, Cols: base.Columns()}
	return &cteDef{node: node, cols: cols}, nil
}

// bindRecursiveBase binds the non-recursive term: its visible columns,
// untyped literals read as text.
func (b *binder) bindRecursiveBase(n ast.Node) (planner.Node, error) {
	b.setOpBranch = true
	r, err := b.bindResultSet(n)
	b.setOpBranch = false
	if err != nil {
		return nil, err
	}
	node := visibleNode(r.node)
	ts := make([]types.Type, 0)
	for _, c := range node.Columns() {
		t := c.Type
		if t.ID == types.IDUnknown {
			t = types.TText
		}
		ts = append(ts, t)
	}
	if node, err = resolveBranch(node, ts); err != nil {
		return nil, err
	}
	return castColumns(node, ts)
}

// recursiveTerm checks that the recursive term's columns match cols (its
// untyped literals take their types) and returns its visible columns.
func (b *binder) recursiveTerm(name string, n planner.Node, cols []planner.Column) (planner.Node, error) {
	vis := visibleCols(n)
	if len(vis) != len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
		if t := vis[i].Type; t.ID != types.IDUnknown && t != c.Type {
			err := pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall",
				name, i+1, noTypmod(c.Type), noTypmod(t))
			err.Hint = "Cast the output of the non-recursive term to the correct type."
			return nil, err
		}
	}
	n, err := resolveBranch(n, ts)
	if err != nil {
		return nil, err
	}
	return castColumns(n, ts)
}

// recursiveOrder orders the CTEs of a WITH RECURSIVE so that each comes
// after the others it refers to, as PostgreSQL lets a WITH RECURSIVE
// item refer to a later one; two that refer to each other are its
// 0A000.
func (b *binder) recursiveOrder(ctes []*ast.CommonTableExpression) ([]*ast.CommonTableExpression, error) {
	deps := make([][]int, len(ctes))
	for i, c := range ctes {
		for j, d := range ctes {
			if i != j && refersTo(c.Query.Query, d.Name.L) {
				deps[i] = append(deps[i], j)
			}
		}
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := make([]int, len(ctes))
	out := make([]*ast.CommonTableExpression, 0, len(ctes))
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			err := pgerr.New(pgerr.FeatureNotSupported, "mutual recursion between WITH items is not implemented")
			return b.at(err, ctes[i], ctes[i].Name.O)
		}
		state[i] = visiting
		for _, j := range deps[i] {
			if err := visit(j); err != nil {
				return err
			}
		}
		state[i] = done
		out = append(out, ctes[i])
		return nil
	}
	for i := range ctes {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// noTypmod names t without its modifiers, as PostgreSQL's message does.
func noTypmod(t types.Type) string {
	s := t.String()
	if i := strings.IndexByte(s, '('); i >= 0 {
		if j := strings.IndexByte(s[i:], ')'); j >= 0 {
			return s[:i] + s[i+j+1:]
		}
	}
	return s
}

// aggregatesWork reports whether an aggregate function of n reads the
// working table w: PostgreSQL refuses one over the recursive reference
// (DISTINCT, an Aggregate without aggregates, it takes).
func aggregatesWork(n planner.Node, w *planner.WorkTable) bool {
	if a, ok := n.(*planner.Aggregate); ok && len(a.Aggs) > 0 && readsWork(a.Input, w) {
		return true
	}
	for _, in := range n.Inputs() {
		if aggregatesWork(in, w) {
			return true
		}
	}
	return false
}

func readsWork(n planner.Node, w *planner.WorkTable) bool {
	if s, ok := n.(*planner.WorkTableScan); ok {
		return s.Work == w
	}
	for _, in := range n.Inputs() {
		if readsWork(in, w) {
			return true
		}
	}
	return false
}
