package binder

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// bindWatermark checks a CREATE TABLE's or CREATE SOURCE's WATERMARK FOR
// column AS expr and APPEND ONLY, and records them in ct. As in
// RisingWave: the column is of a type with an order (a timestamp, a date,
// a number), expr is over the row's columns, of the column's type, and
// stable (no now(), no random()), and a table with a watermark is APPEND
// ONLY (a source always is: it takes no UPDATE or DELETE).
func (b *binder) bindWatermark(s *sql.CreateTableStmt, cols []catalog.Column) (*catalog.Watermark, error) {
	w := s.Watermark
	if w == nil {
		return nil, nil
	}
	if !s.Source && !s.AppendOnly {
		err := pgerr.New(pgerr.FeatureNotSupported, "a table with a WATERMARK must be APPEND ONLY").WithPosition(w.Pos)
		err.Hint = "Add APPEND ONLY after the column list: an UPDATE or DELETE could not retract rows from windows a watermark has closed."
		return nil, err
	}
	col := -1
	for i, c := range cols {
		if c.Name == w.Column {
			col = i
		}
	}
	if col < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in WATERMARK does not exist", w.Column).WithPosition(w.Pos)
	}
	t := cols[col].Type
	if !watermarkType(t) {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "a WATERMARK column must be of a timestamp, date or numeric type, not %s", t).WithPosition(w.Pos)
	}
	e, err := b.bindWatermarkExpr(cols, col, w.Expr)
	if err != nil {
		return nil, err
	}
	if name := expr.ReadsClock(e); name != "" {
		return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "a WATERMARK expression cannot call %s(): its value must follow from the row alone", name), w.Expr)
	}
	return &catalog.Watermark{Column: col, Expr: w.ExprText}, nil
}

// watermarkType reports whether a column of type t can carry a watermark:
// its values have an order that time (or a sequence) moves along.
func watermarkType(t types.Type) bool {
	switch t.ID {
	case types.IDTimestamp, types.IDTimestampTZ, types.IDDate,
		types.IDInt16, types.IDInt32, types.IDInt64, types.IDNumeric, types.IDFloat32, types.IDFloat64:
		return true
	}
	return false
}

// bindWatermarkExpr binds a watermark expression over a row of cols and
// casts it to the type of column col (a cast that PostgreSQL would apply
// in an assignment).
func (b *binder) bindWatermarkExpr(cols []catalog.Column, col int, n ast.ExprNode) (expr.Expr, error) {
	r := &catalog.Relation{Columns: cols}
	c := &exprCtx{scope: scopeOf(relColumns(r, ""), ""), clause: "WATERMARK expressions"}
	e, err := b.bindExpr(c, n)
	if err != nil {
		return nil, err
	}
	if e.Type().ID == types.IDUnknown || e.Type() == cols[col].Type {
		return b.assignCast(e, cols[col])
	}
	out, err := b.assignCast(e, cols[col])
	if err != nil {
		return nil, b.atNode(pgerr.New(pgerr.DatatypeMismatch, "WATERMARK expression is of type %s, but column %q is of type %s",
			e.Type(), cols[col].Name, cols[col].Type), n)
	}
	return out, nil
}

// WatermarkExpr binds relation r's watermark expression, as its job
// evaluates it on each row.
func WatermarkExpr(cat catalog.Reader, r *catalog.Relation) (expr.Expr, error) {
	if r.Watermark == nil {
		return nil, fmt.Errorf("binder: %s has no watermark", r.Name)
	}
	n, err := sql.ParseExpr(r.Watermark.Expr)
	if err != nil {
		return nil, err
	}
	b := newBinder(cat, &sql.Statement{}, Options{})
	return b.bindWatermarkExpr(r.Columns, r.Watermark.Column, n)
}

// appendOnlyError refuses a change other than INSERT to an append-only
// table (what is "UPDATE" or "DELETE").
func (b *binder) appendOnlyError(r *catalog.Relation, what string, tn *ast.TableName) error {
	err := pgerr.New(pgerr.ObjectNotInPrereqState, "cannot %s table %q because it is append-only", what, r.Name)
	err.Detail = "An APPEND ONLY table takes INSERT and COPY only."
	return b.at(err, tn, tn.Name.O)
}
