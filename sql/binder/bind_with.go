package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// cteDef is a bound common table expression.
type cteDef struct {
	node planner.Node
	cols []planner.Column
	// rec is set while a recursive CTE binds (bind_recursive.go).
	rec *recursiveRef
}

// pushWith binds the CTEs of a WITH clause, each seeing the ones before
// it, and makes them visible until the returned pop is called.
func (b *binder) pushWith(w *ast.WithClause) (pop func(), err error) {
	if w == nil {
		return func() {}, nil
	}
	frame := map[string]*cteDef{}
	b.ctes = append(b.ctes, frame)
	pop = func() { b.ctes = b.ctes[:len(b.ctes)-1] }
	ctes := w.CTEs
	if w.IsRecursive {
		if ctes, err = b.recursiveOrder(w.CTEs); err != nil {
			pop()
			return nil, err
		}
	}
	for _, c := range ctes {
		bind := b.bindCTE
		if w.IsRecursive && refersTo(c.Query.Query, c.Name.L) {
			bind = func(c *ast.CommonTableExpression) (*cteDef, error) { return b.bindRecursiveCTE(frame, c) }
		}
		def, err := bind(c)
		if err != nil {
			pop()
			return nil, err
		}
		if _, dup := frame[c.Name.O]; dup {
			pop()
			return nil, b.at(pgerr.New("42712", "WITH query name %q specified more than once", c.Name.O), c, c.Name.O)
		}
		frame[c.Name.O] = def
	}
	return pop, nil
}

func (b *binder) bindCTE(c *ast.CommonTableExpression) (*cteDef, error) {
	r, err := b.bindResultSet(c.Query.Query)
	if err != nil {
		return nil, err
	}
	cols, err := renameColumns(visibleCols(r.node), c.ColNameList, c.Name.O)
	if err != nil {
		return nil, err
	}
	return &cteDef{node: r.node, cols: cols}, nil
}

// renameColumns applies a column alias list (fewer names than columns
// rename a prefix).
func renameColumns(cols []planner.Column, names []ast.CIStr, table string) ([]planner.Column, error) {
	if len(names) > len(cols) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", table, len(cols), len(names))
	}
	out := requalify(cols, table)
	for i, n := range names {
		out[i].Name = n.O
	}
	return out, nil
}

// lookupCTE finds a CTE by name, innermost WITH first.
func (b *binder) lookupCTE(name string) (*cteDef, bool) {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if d, ok := b.ctes[i][name]; ok {
			return d, true
		}
	}
	return nil, false
}
