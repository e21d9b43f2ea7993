package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/planner"
)

// returningOver binds the RETURNING list of a DML statement over r, the
// single table refs names (qualified by its alias, if any); the statement
// itself was bound first, so refs is known to name one table.
func (b *binder) returningOver(fl *ast.FieldList, r *catalog.Relation, refs *ast.TableRefsClause) (planner.Returning, error) {
	tn, alias, _ := singleTable(refs)
	return b.bindReturning(fl, r, firstNonEmpty(alias, tn.Name.O))
}

// bindReturning binds an INSERT, UPDATE or DELETE's RETURNING list over
// the rows of r (named q in it) the statement leaves or removes: a select
// list without aggregates, window functions or subqueries.
func (b *binder) bindReturning(fl *ast.FieldList, r *catalog.Relation, q string) (planner.Returning, error) {
	return b.bindReturningIn(fl, scopeOf(relColumns(r, q), q))
}
