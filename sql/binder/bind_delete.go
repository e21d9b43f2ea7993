package binder

import (
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindDelete binds DELETE FROM t [USING ...] [WHERE] [RETURNING].
func (b *binder) bindDelete(st *sql.DeleteStmt) (*planner.Delete, error) {
	s := st.AST
	if s.IsMultiTable && !st.Using || s.Order != nil || s.Limit != nil {
		return nil, notSupported("this form of DELETE")
	}
	pop, err := b.pushWith(s.With)
	if err != nil {
		return nil, err
	}
	defer pop()
	if st.Using {
		j, err := b.bindJoinedTarget(s.TableRefs, s.Where, "delete from")
		if err != nil {
			return nil, err
		}
		b.dml = "DELETE"
		d := &planner.Delete{Rel: j.rel, Using: j.from.node}
		d.Returning, err = b.bindReturningIn(st.Returning, j.from.scope)
		return d, err
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
		return nil, b.appendOnlyError(r, "delete from", tn)
	}
	d := &planner.Delete{Rel: r, Indexes: b.indexesOf(r)}
	b.dml = "DELETE"
	if s.Where != nil {
		q := firstNonEmpty(alias, r.Name)
		c := &exprCtx{scope: scopeOf(relColumns(r, q), q), clause: "WHERE"}
		if d.Filter, err = b.bindCond(c, s.Where, "WHERE"); err != nil {
			return nil, err
		}
	}
	d.Returning, err = b.returningOver(st.Returning, r, s.TableRefs)
	return d, err
}
