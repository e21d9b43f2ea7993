package binder

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"

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
	if err := checkAddedColumnKind(def); err != nil {
		return catalog.Column{}, nil, err
	}
	t, err := parseTypeName(def.TypeName)
	if err != nil {
		return catalog.Column{}, nil, b.at(err, nil, typeBase(def.TypeName))
	}
	col := catalog.Column{Name: def.Name, Type: t, NotNull: def.NotNull}
	if def.Generated != nil {
		col.Generated = def.GeneratedText // bound by GeneratedColumn
		if def.Default != nil {
			col.Default = def.DefaultText // refused by the caller, which knows the table's name
		}
		return col, nil, nil
	}
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

// GeneratedColumn binds the generation expression of column i of r (the
// table as ALTER TABLE ... ADD COLUMN leaves it), over a row of r.
func GeneratedColumn(cat catalog.Reader, st *sql.Statement, r *catalog.Relation, i int, n ast.ExprNode) (expr.Expr, error) {
	b := newBinder(cat, st, Options{})
	if hasSubquery(n) {
		return nil, b.atNode(pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in column generation expression"), n)
	}
	e, err := b.generationExpr(r.Name, r.Columns, i, n)
	if err != nil {
		return nil, err
	}
	return finishExpr(e, b.zone, nil), nil
}

// ColumnDefault checks the expression of ALTER TABLE ... ALTER COLUMN
// ... SET DEFAULT, of st, for column col.
func ColumnDefault(cat catalog.Reader, st *sql.Statement, n *sql.AlterRelationStmt, col catalog.Column) error {
	b := newBinder(cat, st, Options{})
	_, err := b.bindDefault(n.Default, col)
	return err
}

// checkAddedColumnKind refuses ADD COLUMN of a serial or identity
// column, or with a UNIQUE constraint: each would have to be numbered or
// indexed over the rows already stored. (A generated column is computed
// for them and its CHECK constraints checked over them: see
// relAlter.addColumn.)
func checkAddedColumnKind(def sql.ColumnDef) error {
	what := ""
	switch _, serial := serialType(def.TypeName); {
	case serial:
		what = "a serial column"
	case def.Identity != "":
		what = "an identity column"
	case def.Unique:
		return uniqueNotSupported()
	default:
		return nil
	}
	e := pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN of %s is not supported", what)
	e.Detail = "The rows already stored would need their values computed or checked, and ALTER TABLE does not rewrite them."
	e.Hint = "Create a new table with the column and copy the rows into it."
	return e
}

// RuleUsers returns the names of the generated columns and of the CHECK
// constraints of table r whose expressions read column col.
func RuleUsers(cat catalog.Reader, r *catalog.Relation, col int) (generated, checks []string, err error) {
	b := newBinder(cat, &sql.Statement{}, Options{})
	reads := func(text string) (bool, error) {
		n, err := sql.ParseExpr(text)
		if err != nil {
			return false, err
		}
		e, err := b.bindExpr(tableScope(r.Name, r.Columns), n)
		if err != nil {
			return false, err
		}
		return slices.Contains(expr.Columns(e), col), nil
	}
	for i, c := range r.Columns {
		if c.Generated == "" || c.Dropped || i == col {
			continue
		}
		ok, err := reads(c.Generated)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			generated = append(generated, c.Name)
		}
	}
	for _, chk := range r.Checks {
		ok, err := reads(chk.Expr)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			checks = append(checks, chk.Name)
		}
	}
	return generated, checks, nil
}
