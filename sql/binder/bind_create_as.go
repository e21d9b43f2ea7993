package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindCreateTableAs binds CREATE TABLE ... AS query and SELECT ... INTO:
// a table without a primary key (a hidden row id keys it) whose columns
// are the query's visible output columns, named by the column list where
// given, typed as the query types them (an unknown-typed literal becomes
// text, as in PostgreSQL).
func (b *binder) bindCreateTableAs(s *sql.CreateTableAsStmt) (*planner.CreateTableAs, error) {
	name, err := b.creationName(s.Name)
	if s.Temporary {
		name, err = b.tempTableName(s.Name)
	}
	if err != nil {
		return nil, err
	}
	q, err := b.bindQuery(s.Query)
	if err != nil {
		return nil, err
	}
	node := visibleNode(q.Plan)
	cols := node.Columns()
	if len(s.Columns) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
	}
	ct := &planner.CreateTable{Name: name, IfNotExists: s.IfNotExists, Temporary: s.Temporary}
	p := &planner.Project{Input: node}
	for i, c := range cols {
		n := c.Name
		if i < len(s.Columns) {
			n = s.Columns[i]
		}
		if err := b.checkNewColumn(ct.Columns, n); err != nil {
			return nil, err
		}
		var e expr.Expr = expr.NewColumn(i, c.Type, c.Name)
		t := c.Type
		if t.ID == types.IDUnknown {
			t = types.TText
			if e, err = expr.Cast(e, t); err != nil {
				return nil, err
			}
		}
		ct.Columns = append(ct.Columns, catalog.Column{Name: n, Type: t})
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, planner.Column{Name: n, Type: t})
	}
	return &planner.CreateTableAs{Table: ct, Query: &planner.Query{Plan: p, Refs: q.Refs},
		NoData: s.NoData, SelectInto: s.SelectInto}, nil
}
