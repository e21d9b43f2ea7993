package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// ALTER TABLE ... ADD [CONSTRAINT name] {CHECK (expr) | UNIQUE (cols)}
// and DROP CONSTRAINT name, as PostgreSQL has them: an added CHECK is
// checked against every stored row first (23514 when one fails it), an
// added UNIQUE builds its index as CREATE UNIQUE INDEX does (writes wait,
// duplicates fail it); DROP CONSTRAINT drops a CHECK, or a UNIQUE
// constraint and its index.

// addCheck adds the CHECK constraint of a.n to a.next, once every row
// of the table passes it.
func (a *relAlter) addCheck(ctx context.Context) error {
	if len(a.next.Columns) != len(a.r.Columns) {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD CHECK in the statement that adds or drops columns is not supported")
	}
	return a.addCheckOver(ctx, a.r, *a.n.Check)
}

// addCheckOver adds CHECK constraint d to a.next once every stored row,
// read as layout has it (a.r, or a.next for the constraint of a column
// the statement adds: the rows read its missing value), passes it.
func (a *relAlter) addCheckOver(ctx context.Context, layout *catalog.Relation, d sql.CheckDef) error {
	chk, e, err := binder.NewCheck(a.s.catalog(), a.next, d)
	if err != nil {
		return err
	}
	a.lockDML()
	snap := a.db.store.Snapshot()
	defer snap.Close()
	it := planner.TableLayout(layout).Scan(snap)
	defer it.Close()
	for n := 0; it.Next(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return pgerr.As(err)
			}
		}
		v, err := e.Eval(it.Row())
		if err != nil {
			return err
		}
		if ok, isBool := v.(bool); isBool && !ok {
			return pgerr.New(pgerr.CheckViolation, "check constraint %q of relation %q is violated by some row", chk.Name, a.ownName())
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	a.next.Checks = append(slices.Clone(a.next.Checks), chk)
	return nil
}

// dropConstraint drops the CHECK or UNIQUE constraint a.n names.
func (a *relAlter) dropConstraint() error {
	name := a.n.Constraint
	if i := slices.IndexFunc(a.next.Checks, func(c catalog.Check) bool { return c.Name == name }); i >= 0 {
		a.next.Checks = slices.Delete(slices.Clone(a.next.Checks), i, i+1)
		return nil
	}
	i := slices.IndexFunc(a.next.Uniques, func(u catalog.Unique) bool { return ownNameOf(&catalog.Relation{Name: u.Name}) == name && !u.IndexOnly })
	if i >= 0 {
		u := a.next.Uniques[i]
		a.lockDML()
		if idx, ok := a.db.RelationByID(u.Index); ok && !a.dropping(idx.ID) {
			a.drops = append(a.drops, pendingDrop{rel: idx})
		}
		a.next.Uniques = slices.Delete(slices.Clone(a.next.Uniques), i, i+1)
		return nil
	}
	if !a.r.RowID && name == a.ownName()+"_pkey" {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot drop the primary key of table %q: its rows are stored by it", a.ownName())
	}
	if a.n.ColumnIfExists {
		return a.skip(fmt.Sprintf("constraint %q of relation %q does not exist, skipping", name, a.ownName()))
	}
	return pgerr.New(pgerr.UndefinedObject, "constraint %q of relation %q does not exist", name, a.ownName())
}

// addUniqueConstraint runs ALTER TABLE ... ADD [CONSTRAINT name] UNIQUE
// (cols), which must be the statement's only action: the constraint's
// index is built as CREATE UNIQUE INDEX builds one.
func (s *Session) addUniqueConstraint(ctx context.Context, n *sql.AlterRelationStmt, w ResultWriter) error {
	if len(n.More) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD UNIQUE must be the only action of its statement")
	}
	r, err := s.lookupRelation(n.Name)
	if err != nil {
		return err
	}
	if r.Kind != catalog.KindTable || r.Connector != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "UNIQUE constraints are supported on tables without a connector only")
	}
	ci := &planner.CreateIndex{On: r, Unique: true}
	for _, c := range n.Unique.Columns {
		i := visibleColumn(r, c)
		if i < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", c)
		}
		ci.Keys = append(ci.Keys, catalog.IndexKey{Column: i})
	}
	schema, own := catalog.SplitName(r.Name)
	name := n.Unique.Name
	if name == "" {
		base := own + "_" + strings.Join(n.Unique.Columns, "_") + "_key"
		name = base
		for k := 1; s.db.nameTaken(catalog.QualifiedName(schema, name)); k++ {
			name = fmt.Sprintf("%s%d", base, k)
		}
	}
	ci.Name = catalog.QualifiedName(schema, name)
	if err := s.db.buildUniqueIndex(ctx, ci, viewOptions{}, false, w); err != nil {
		return err
	}
	return w.Complete("ALTER TABLE")
}
