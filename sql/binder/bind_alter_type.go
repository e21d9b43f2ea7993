package binder

import (
	"fmt"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// ColumnType binds ALTER TABLE ... ALTER [COLUMN] c [SET DATA] TYPE type
// [USING expr] (n, of st) for column col of table r, whose columns are
// as the statement found them: it returns the new type and the
// expression, over a row of r, of the column's new value. As in
// PostgreSQL, that is the USING expression, or else the column itself,
// assignment-cast to the new type; where there is no such cast it is
// 42804 with PostgreSQL's hint. The expression is finished with the
// statement's time zone and instants at (a USING now() is the ALTER's
// time).
func ColumnType(cat catalog.Reader, st *sql.Statement, r *catalog.Relation, col int, n *sql.AlterRelationStmt, at *expr.Instants) (types.Type, expr.Expr, error) {
	b := newBinder(cat, st, Options{})
	if _, serial := serialType(n.TypeName); serial {
		return types.Type{}, nil, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", n.TypeName)
	}
	t, err := parseTypeName(n.TypeName)
	if err != nil {
		return t, nil, b.at(err, nil, typeBase(n.TypeName))
	}
	c := r.Columns[col]
	if c.Identity != "" && t.ID != types.IDInt16 && t.ID != types.IDInt32 && t.ID != types.IDInt64 {
		return t, nil, pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	var e expr.Expr = expr.NewColumn(col, c.Type, c.Name)
	if n.Using != nil {
		if hasSubquery(n.Using) {
			return t, nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in transform expression"), n.Using)
		}
		ctx := tableScope(r.Name, r.Columns)
		ctx.clause = "transform expressions"
		if e, err = b.bindExpr(ctx, n.Using); err != nil {
			return t, nil, err
		}
	}
	out, err := b.assignCast(e, catalog.Column{Name: c.Name, Type: t})
	if err != nil {
		return t, nil, retypeError(err, c.Name, t, n.Using != nil)
	}
	if !b.readsClock {
		at = nil
	}
	return t, finishExpr(out, b.zone, at), nil
}

// retypeError is PostgreSQL's 42804 for a column whose values have no
// assignment cast to type t.
func retypeError(err error, name string, t types.Type, using bool) error {
	pe := pgerr.As(err)
	if pe == nil || pe.Code != pgerr.DatatypeMismatch && pe.Code != "42846" {
		return err
	}
	if using {
		e := pgerr.New(pgerr.DatatypeMismatch, "result of USING clause for column %q cannot be cast automatically to type %s", name, t)
		e.Hint = "You might need to add an explicit cast."
		return e
	}
	e := pgerr.New(pgerr.DatatypeMismatch, "column %q cannot be cast automatically to type %s", name, t)
	e.Hint = fmt.Sprintf("You might need to specify \"USING %s::%s\".", expr.QuoteIdent(name), t)
	return e
}

// ColumnTypeDefault checks that the DEFAULT of col, whose type ALTER
// ... TYPE changes, casts to its new type (col.Type) in assignment, as
// PostgreSQL re-casts it (42804 otherwise).
func ColumnTypeDefault(cat catalog.Reader, col catalog.Column) error {
	if col.Default == "" || col.Identity != "" || col.Generated != "" {
		return nil
	}
	b := newBinder(cat, &sql.Statement{}, Options{})
	n, err := sql.ParseExpr(col.Default)
	if err != nil {
		return err
	}
	if _, err := b.bindDefault(n, col); err != nil {
		if pe := pgerr.As(err); pe != nil && pe.Code == pgerr.DatatypeMismatch {
			return pgerr.New(pgerr.DatatypeMismatch, "default for column %q cannot be cast automatically to type %s", col.Name, col.Type)
		}
		return err
	}
	return nil
}
