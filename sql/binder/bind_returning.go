package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/planner"
)

// bindReturning binds an INSERT, UPDATE or DELETE's RETURNING list over
// the rows of r (named q in it) the statement leaves or removes: a select
// list without aggregates, window functions or subqueries.
// returningOver binds the RETURNING list of a DML statement over r, the
// single table refs names (qualified by its alias, if any); the statement
// itself was bound first, so refs is known to name one table.
func (b *binder) returningOver(fl *ast.FieldList, r *catalog.Relation, refs *ast.TableRefsClause) (planner.Returning, error) {
	tn, alias, _ := singleTable(refs)
	return b.bindReturning(fl, r, firstNonEmpty(alias, tn.Name.O))
}

func (b *binder) bindReturning(fl *ast.FieldList, r *catalog.Relation, q string) (planner.Returning, error) {
	var ret planner.Returning
	if fl == nil {
		return ret, nil
	}
	sc := scopeOf(relColumns(r, q), q)
	items, err := b.expandSelect(fl, sc, false)
	if err != nil {
		return ret, err
	}
	c := &exprCtx{scope: sc, clause: "RETURNING"}
	for _, it := range items {
		e, err := b.bindSelItem(c, it)
		if err != nil {
			return ret, err
		}
		if e, err = resolveUnknown(e); err != nil {
			return ret, err
		}
		ret.Exprs = append(ret.Exprs, e)
		ret.Out = append(ret.Out, planner.Column{Name: it.name, Type: e.Type()})
	}
	return ret, nil
}
