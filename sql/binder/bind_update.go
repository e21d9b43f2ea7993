package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// bindUpdate binds UPDATE t SET c = e, ... [WHERE]: expressions over the
// table's full row (hidden columns included), each assignment-cast to its
// column's type.
func (b *binder) bindUpdate(s *ast.UpdateStmt) (*planner.Update, error) {
	if s.MultipleTable || s.Order != nil || s.Limit != nil {
		return nil, notSupported("this form of UPDATE")
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
	for _, a := range s.List {
		if err := b.bindAssignment(c, u, a, q); err != nil {
			return nil, err
		}
	}
	if s.Where != nil {
		if u.Filter, err = b.bindCond(c.noAggs("WHERE"), s.Where, "WHERE"); err != nil {
			return nil, err
		}
	}
	return u, nil
}

func (b *binder) bindAssignment(c *exprCtx, u *planner.Update, a *ast.Assignment, table string) error {
	if t := a.Column.Table.O; t != "" && t != table {
		err := pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", t, u.Rel.Name)
		return b.at(err, a.Column, t)
	}
	idx, err := b.targetColumn(u.Rel, a.Column)
	if err != nil {
		return err
	}
	for _, prev := range u.Cols {
		if prev == idx {
			err := pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", a.Column.Name.O)
			return b.at(err, a.Column, a.Column.Name.O)
		}
	}
	col := u.Rel.Columns[idx]
	var e expr.Expr = expr.NewConst(nil, col.Type) // DEFAULT: NULL until defaults are kept
	if _, isDefault := a.Expr.(*ast.DefaultExpr); !isDefault {
		if e, err = b.bindExpr(c, a.Expr); err != nil {
			return err
		}
	}
	if e, err = b.assign(e, col, a.Expr); err != nil {
		return err
	}
	u.Cols = append(u.Cols, idx)
	u.Set = append(u.Set, e)
	return nil
}
