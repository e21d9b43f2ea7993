package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindUpdate binds UPDATE t SET c = e, ... [FROM ...] [WHERE] [RETURNING]:
// expressions over the table's full row (hidden columns included), each
// assignment-cast to its column's type.
func (b *binder) bindUpdate(st *sql.UpdateStmt) (*planner.Update, error) {
	s := st.AST
	if s.Order != nil || s.Limit != nil || s.MultipleTable && !st.From {
		return nil, notSupported("this form of UPDATE")
	}
	pop, err := b.pushWith(s.With)
	if err != nil {
		return nil, err
	}
	defer pop()
	if st.From {
		return b.bindUpdateFrom(st)
	}
	tn, alias, err := singleTable(s.TableRefs)
	if err != nil {
		return nil, err
	}
	r, err := b.writableRelation(tn)
	if err != nil {
		return nil, err
	}
	if r.AppendOnly {
		return nil, b.appendOnlyError(r, "update", tn)
	}
	q := firstNonEmpty(alias, r.Name)
	c := &exprCtx{scope: scopeOf(relColumns(r, q), q), clause: "UPDATE"}
	u := &planner.Update{Rel: r, Indexes: b.indexesOf(r)}
	b.dml = "UPDATE"
	if err := b.bindSetList(c, u, s.List, q); err != nil {
		return nil, err
	}
	if s.Where != nil {
		if u.Filter, err = b.bindCond(c.noAggs("WHERE"), s.Where, "WHERE"); err != nil {
			return nil, err
		}
	}
	if u.Rules, err = b.rowRules(r); err != nil {
		return nil, err
	}
	u.Returning, err = b.returningOver(st.Returning, r, s.TableRefs)
	return u, err
}

// bindUpdateFrom binds UPDATE t SET ... FROM items WHERE ...: the target
// joined with the FROM items, filtered by WHERE, is Update.From.
func (b *binder) bindUpdateFrom(st *sql.UpdateStmt) (*planner.Update, error) {
	s := st.AST
	j, err := b.bindJoinedTarget(s.TableRefs, s.Where, "update")
	if err != nil {
		return nil, err
	}
	u := &planner.Update{Rel: j.rel, From: j.from.node}
	c := &exprCtx{scope: j.from.scope, clause: "UPDATE"}
	b.dml = "UPDATE"
	if err := b.bindSetList(c, u, s.List, j.name); err != nil {
		return nil, err
	}
	if u.Rules, err = b.rowRules(u.Rel); err != nil {
		return nil, err
	}
	u.Returning, err = b.bindReturningIn(st.Returning, j.from.scope)
	return u, err
}

func (b *binder) bindSetList(c *exprCtx, u *planner.Update, list []*ast.Assignment, table string) error {
	for _, a := range list {
		idx, e, err := b.bindSetItem(c, u.Rel, u.Cols, a, table)
		if err != nil {
			return err
		}
		u.Cols = append(u.Cols, idx)
		u.Set = append(u.Set, e)
	}
	return nil
}
