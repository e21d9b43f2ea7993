package binder

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/planner"
)

// joinedTarget is the target of UPDATE ... FROM or DELETE ... USING
// bound with the other items: from's rows are the target's catalog
// columns, then the other items' columns, filtered by WHERE.
type joinedTarget struct {
	rel  *catalog.Relation
	name string // the target's name in the statement: its alias or name
	from *rel
}

// bindJoinedTarget binds refs, whose leftmost item is the target table
// (sql/dml_join.go), and the statement's WHERE over them.
func (b *binder) bindJoinedTarget(refs *ast.TableRefsClause, where ast.ExprNode, verb string) (*joinedTarget, error) {
	ts := leftmostItem(refs.TableRefs)
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, notSupported("this target table")
	}
	r, err := b.writableRelation(tn)
	if err != nil {
		return nil, err
	}
	if r.AppendOnly {
		return nil, b.appendOnlyError(r, verb, tn)
	}
	from, err := b.bindFromClause(refs)
	if err != nil {
		return nil, err
	}
	if from, err = b.bindWhere(from, where); err != nil {
		return nil, err
	}
	return &joinedTarget{rel: r, name: firstNonEmpty(ts.AsName.O, tn.Name.O), from: from}, nil
}

// leftmostItem returns the first FROM item of a join tree.
func leftmostItem(n ast.ResultSetNode) *ast.TableSource {
	for {
		switch x := n.(type) {
		case *ast.Join:
			n = x.Left
		case *ast.TableSource:
			if j, ok := x.Source.(*ast.Join); ok {
				n = j
				continue
			}
			return x
		case *ast.TableName:
			return &ast.TableSource{Source: x}
		default:
			return &ast.TableSource{}
		}
	}
}

// bindReturningIn binds a RETURNING list over the columns of sc.
func (b *binder) bindReturningIn(fl *ast.FieldList, sc *scope) (planner.Returning, error) {
	var ret planner.Returning
	if fl == nil {
		return ret, nil
	}
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
