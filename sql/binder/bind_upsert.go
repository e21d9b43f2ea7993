package binder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// excludedName is the name of the proposed row in ON CONFLICT DO UPDATE.
const excludedName = "excluded"

// bindOnConflict binds INSERT's ON CONFLICT clause over r (named q in
// it). The arbiter is r's primary key, the only unique constraint a
// table has: a conflict target must name exactly its columns (or its
// constraint, r_pkey). A table without a primary key has no conflicts,
// so ON CONFLICT DO NOTHING is a plain INSERT (nil).
func (b *binder) bindOnConflict(r *catalog.Relation, st *sql.InsertStmt, q string) (*planner.OnConflict, error) {
	oc := st.OnConflict
	if err := b.checkArbiter(r, oc); err != nil {
		return nil, err
	}
	if r.RowID {
		return nil, nil // DO NOTHING without a target (checkArbiter)
	}
	out := &planner.OnConflict{DoNothing: oc.DoNothing}
	if oc.DoNothing {
		return out, nil
	}
	sc := concatScopes(scopeOf(relColumns(r, q), q), scopeOf(relColumns(r, excludedName), excludedName))
	c := &exprCtx{scope: sc, clause: "UPDATE"}
	b.dml = "ON CONFLICT DO UPDATE"
	list := st.AST.OnDuplicate
	if n := len(list); n > 0 && list[n-1].Column.Name.O == sql.ConflictWhereMarker {
		cond := list[n-1].Expr
		if p, ok := cond.(*ast.ParenthesesExpr); ok { // the front end's
			cond = p.Expr
		}
		var err error
		if out.Where, err = b.bindCond(c.noAggs("WHERE"), cond, "WHERE"); err != nil {
			return nil, b.atNode(err, cond)
		}
		list = list[:n-1]
	}
	for _, a := range list {
		idx, e, err := b.bindSetItem(c, r, out.Cols, a, q)
		if err != nil {
			return nil, err
		}
		out.Cols = append(out.Cols, idx)
		out.Set = append(out.Set, e)
	}
	return out, nil
}

// checkArbiter checks ON CONFLICT's target against r's primary key, as
// PostgreSQL infers a unique index from it.
func (b *binder) checkArbiter(r *catalog.Relation, oc *sql.OnConflict) error {
	switch {
	case oc.Constraint != "":
		_, own := catalog.SplitName(r.Name)
		for _, u := range r.Uniques {
			if _, name := catalog.SplitName(u.Name); name == oc.Constraint {
				return uniqueArbiter(r).WithPosition(oc.ConstraintPos)
			}
		}
		if r.RowID || oc.Constraint != own+"_pkey" {
			e := pgerr.New(pgerr.UndefinedObject, "constraint %q for table %q does not exist", oc.Constraint, own)
			return e.WithPosition(oc.ConstraintPos)
		}
	case oc.Columns != nil:
		var cols []int
		for k, name := range oc.Columns {
			idx := slices.IndexFunc(r.Columns, func(c catalog.Column) bool { return c.Name == name && !c.Hidden })
			if idx < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name).WithPosition(oc.ColumnPos[k])
			}
			cols = append(cols, idx)
		}
		for _, u := range r.Uniques {
			if sameSet(cols, u.Columns) {
				return uniqueArbiter(r).WithPosition(oc.ColumnPos[0])
			}
		}
		if r.RowID || !sameSet(cols, r.PK) {
			return pgerr.New(pgerr.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
		}
	case oc.DoNothing && len(r.Uniques) > 0:
		// PostgreSQL skips a row that conflicts on any unique index;
		// only the primary key's conflicts are found before writing.
		return uniqueArbiter(r).WithPosition(oc.Pos)
	case !oc.DoNothing:
		e := pgerr.New(pgerr.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name")
		e.Hint = "For example, ON CONFLICT (column_name)."
		return e.WithPosition(oc.Pos)
	}
	return nil
}

// uniqueArbiter is the error of an ON CONFLICT that would arbitrate on
// a UNIQUE constraint other than the primary key: only primary-key
// conflicts are resolved (a UNIQUE constraint's are checked, 23505, when
// the statement's rows are known).
func uniqueArbiter(r *catalog.Relation) *pgerr.Error {
	e := pgerr.New(pgerr.FeatureNotSupported, "ON CONFLICT on a UNIQUE constraint other than the primary key is not supported")
	if r.RowID {
		e.Detail = fmt.Sprintf("Table %q has no primary key.", r.Name)
	} else {
		e.Hint = "Name the primary key as the conflict target, as in ON CONFLICT (" + pkNames(r) + "); a row that breaks a UNIQUE constraint then fails with 23505."
	}
	return e
}

// pkNames returns r's primary-key column names, comma-separated.
func pkNames(r *catalog.Relation) string {
	names := make([]string, len(r.PK))
	for i, c := range r.PK {
		names[i] = r.Columns[c].Name
	}
	return strings.Join(names, ", ")
}

// sameSet reports whether a and b hold the same column indexes (a may
// repeat one).
func sameSet(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// bindSetItem binds one SET assignment of UPDATE or ON CONFLICT DO
// UPDATE to a column of r (named table in the statement), cast for
// storing; done are the columns assigned before it.
func (b *binder) bindSetItem(c *exprCtx, r *catalog.Relation, done []int, a *ast.Assignment, table string) (int, expr.Expr, error) {
	if t := a.Column.Table.O; t != "" && t != table {
		err := pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", t, r.Name)
		return 0, nil, b.at(err, a.Column, t)
	}
	idx, err := b.targetColumn(r, a.Column)
	if err != nil {
		return 0, nil, err
	}
	if slices.Contains(done, idx) {
		err := pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", a.Column.Name.O)
		return 0, nil, b.at(err, a.Column, a.Column.Name.O)
	}
	col := r.Columns[idx]
	var e expr.Expr
	if _, isDefault := a.Expr.(*ast.DefaultExpr); isDefault {
		if e, err = b.columnDefault(col); err != nil {
			return 0, nil, err
		}
	} else {
		if err := b.checkUpdatable(col, a.Expr); err != nil {
			return 0, nil, err
		}
		if e, err = b.bindExpr(c, a.Expr); err != nil {
			return 0, nil, err
		}
	}
	if e, err = b.assign(e, col, a.Expr); err != nil {
		return 0, nil, err
	}
	return idx, e, nil
}
