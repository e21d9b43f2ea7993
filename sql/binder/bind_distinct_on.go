package binder

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/internal/window"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// SELECT DISTINCT ON (e, ...) keeps the first row, in ORDER BY order, of
// each group of rows equal on the expressions: a row_number() over a
// window partitioned by them, kept where it is 1 (a group Top-1 in a
// view).

// splitDistinctOn takes the DISTINCT ON marker (sql.DistinctOnFunc) out
// of s's select list, returning a copy of s without it and the marker's
// arguments.
func splitDistinctOn(s *ast.SelectStmt) (*ast.SelectStmt, []ast.ExprNode) {
	if s.Fields == nil || len(s.Fields.Fields) == 0 {
		return s, nil
	}
	f, ok := s.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != sql.DistinctOnFunc {
		return s, nil
	}
	c := *s
	fl := *s.Fields
	fl.Fields = s.Fields.Fields[1:]
	c.Fields = &fl
	return &c, f.Args
}

// bindDistinctOn binds DISTINCT ON's expressions as output columns (like
// ORDER BY items) and checks that they lead the ORDER BY, as Postgres
// requires.
func (b *binder) bindDistinctOn(st *selectState) ([]int, error) {
	var cols []int
	var nodes []ast.ExprNode
	for _, n := range st.distinctOn {
		// An integer constant is an output column position, as in
		// ORDER BY; the errors name DISTINCT ON.
		n = outputPosition(n)
		c, ok, err := b.outputColumn(st.items, st.exprs, n, "DISTINCT ON")
		if !ok && err == nil {
			c, err = b.orderColumn(st, n, false)
		}
		if err != nil {
			return nil, err
		}
		if !slices.Contains(cols, c) {
			cols, nodes = append(cols, c), append(nodes, n)
		}
	}
	// PostgreSQL's rule (transformDistinctOnClause): once an ORDER BY item
	// not in DISTINCT ON is passed, no DISTINCT ON expression may follow
	// in the ORDER BY or be missing from it; the error points at that
	// expression.
	mismatch := func(k int) error {
		return b.atNode(pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions"), nodes[k])
	}
	skipped := false
	var sorted, matched []int
	for _, key := range st.keys {
		if slices.Contains(sorted, key.Col) {
			continue // a repeated ORDER BY item
		}
		sorted = append(sorted, key.Col)
		k := slices.Index(cols, key.Col)
		switch {
		case k < 0:
			skipped = true
		case skipped:
			return nil, mismatch(k)
		default:
			matched = append(matched, key.Col)
		}
	}
	for k, c := range cols {
		if skipped && !slices.Contains(matched, c) {
			return nil, mismatch(k)
		}
	}
	return cols, nil
}

// distinctOnOf keeps the first row of each group of cols in the order of
// keys: row_number() over them, kept where it is 1.
func distinctOnOf(n planner.Node, cols []int, keys []planner.SortKey) planner.Node {
	spec := &window.Spec{Partition: slices.Clone(cols),
		Funcs: []window.Func{{Kind: window.RowNumber, Arg: -1, Default: -1, Frame: window.DefaultFrame, Type: types.TInt64}}}
	for _, k := range keys {
		spec.Order = append(spec.Order, window.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	w := planner.NewWindow(n, spec, []string{"row_number"})
	rn := expr.NewColumn(len(n.Columns()), types.TInt64, "row_number")
	cond, _ := expr.Binary("=", rn, expr.NewConst(int64(1), types.TInt64))
	return &planner.Filter{Input: w, Cond: cond}
}
