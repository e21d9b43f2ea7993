package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/planner"
)

// bindDelete binds DELETE FROM t [WHERE].
func (b *binder) bindDelete(s *ast.DeleteStmt) (*planner.Delete, error) {
	if s.IsMultiTable || s.Order != nil || s.Limit != nil {
		return nil, notSupported("this form of DELETE")
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
	return d, nil
}
