package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// NewColumn binds the column def of ALTER TABLE ... ADD COLUMN, of st:
// its type and DEFAULT, which must not be volatile: it is evaluated here,
// once (now() and the like at the statement's instants at, as PostgreSQL
// does), and is what the rows already stored read for the column (see
// storage/missing.go). It returns the column and that value (nil for
// NULL).
func NewColumn(cat catalog.Reader, st *sql.Statement, def sql.ColumnDef, at *expr.Instants) (catalog.Column, types.Datum, error) {
	b := newBinder(cat, st, Options{})
	if def.PrimaryKey {
		return catalog.Column{}, nil, notSupported("adding a primary key column")
	}
	t, err := parseTypeName(def.TypeName)
	if err != nil {
		return catalog.Column{}, nil, b.at(err, nil, typeBase(def.TypeName))
	}
	col := catalog.Column{Name: def.Name, Type: t, NotNull: def.NotNull}
	if def.Default == nil {
		return col, nil, nil
	}
	e, err := b.bindDefault(def.Default, col)
	if err != nil {
		return col, nil, err
	}
	if expr.IsVolatile(e) || expr.ReadsWallClock(e) {
		err := pgerr.New(pgerr.FeatureNotSupported, "cannot add column %q with a volatile DEFAULT", def.Name)
		err.Detail = "The rows already stored would each need their own value."
		err.Hint = "Add the column without a default (or with a constant one), then UPDATE the rows."
		return col, nil, err
	}
	if !b.readsClock {
		at = nil
	}
	v, err := finishExpr(e, b.zone, at).Eval(nil)
	if err != nil {
		return col, nil, err
	}
	col.Default = def.DefaultText
	return col, v, nil
}

// ColumnDefault checks the expression of ALTER TABLE ... ALTER COLUMN
// ... SET DEFAULT, of st, for column col.
func ColumnDefault(cat catalog.Reader, st *sql.Statement, n *sql.AlterRelationStmt, col catalog.Column) error {
	b := newBinder(cat, st, Options{})
	_, err := b.bindDefault(n.Default, col)
	return err
}
