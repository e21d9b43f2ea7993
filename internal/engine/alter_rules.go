package engine

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// How ALTER TABLE keeps a table's generated columns, CHECK constraints
// and owned sequences in step with its columns, as PostgreSQL does:
// DROP COLUMN drops the CHECK constraints that read the column and the
// sequence the column owns, and is refused while a generated column
// reads it; RENAME COLUMN renames it in the expressions and in the
// sequence's owner.

// dropColumnRules drops the CHECK constraints of a.next that read column
// c, which is being dropped; it refuses the drop while a generated
// column reads c.
func (a *relAlter) dropColumnRules(c int) error {
	gen, checks, err := binder.RuleUsers(a.s.catalog(), a.next, c)
	if err != nil {
		return err
	}
	if len(gen) > 0 && a.n.Cascade {
		return pgerr.New(pgerr.FeatureNotSupported, "DROP COLUMN ... CASCADE of a column generated column %s reads is not supported: drop column %s first", gen[0], gen[0])
	}
	if len(gen) > 0 {
		e := pgerr.New(pgerr.DependentObjects, "cannot drop column %s of table %s because other objects depend on it", a.n.Column, a.ownName())
		e.Detail = fmt.Sprintf("column %s of table %s depends on column %s of table %s", gen[0], a.ownName(), a.n.Column, a.ownName())
		e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
		return e
	}
	if len(checks) > 0 {
		a.next.Checks = slices.DeleteFunc(slices.Clone(a.next.Checks), func(k catalog.Check) bool { return slices.Contains(checks, k.Name) })
	}
	// Its UNIQUE constraints go with their index (a user of the column,
	// dropped by the CASCADE such a drop needs).
	a.next.Uniques = slices.DeleteFunc(slices.Clone(a.next.Uniques), func(u catalog.Unique) bool { return slices.Contains(u.Columns, c) })
	return nil
}

// renameInRules renames column old to new in the generation expressions
// and CHECK constraints of a.next.
func (a *relAlter) renameInRules(old, new string) {
	for i, c := range a.next.Columns {
		if c.Generated != "" {
			a.next.Columns[i].Generated = sql.RenameColumnRefs(c.Generated, old, new)
		}
	}
	if len(a.next.Checks) > 0 {
		checks := slices.Clone(a.next.Checks)
		for i := range checks {
			checks[i].Expr = sql.RenameColumnRefs(checks[i].Expr, old, new)
		}
		a.next.Checks = checks
	}
}

// followOwnedColumns updates the sequences owned by columns of table r
// that an ALTER (leaving next) dropped or renamed (caller holds ddlMu).
func (db *DB) followOwnedColumns(r, next *catalog.Relation) error {
	for _, s := range db.relationsSorted() {
		if s.Kind != catalog.KindSequence || s.Sequence.OwnedBy != r.ID {
			continue
		}
		i := slices.IndexFunc(r.Columns, func(c catalog.Column) bool { return c.Name == s.Sequence.OwnedColumn })
		if i < 0 || i >= len(next.Columns) {
			continue
		}
		switch col := next.Columns[i]; {
		case col.Dropped:
			if err := db.dropSequence(s); err != nil {
				return err
			}
		case col.Name != s.Sequence.OwnedColumn:
			ns := *s
			seq := *s.Sequence
			seq.OwnedColumn = col.Name
			ns.Sequence = &seq
			if err := db.saveRelation(&ns); err != nil {
				return err
			}
			db.replaceRelation(&ns)
		}
	}
	return nil
}

// checkColumnKindAlter refuses SET DEFAULT on an identity or generated
// column and DROP NOT NULL on an identity column, as PostgreSQL does.
func checkColumnKindAlter(n *sql.AlterRelationStmt, col catalog.Column, table string) error {
	switch {
	case col.Identity != "" && (n.Action == sql.AlterSetDefault || n.Action == sql.AlterDropNotNull):
		return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is an identity column", col.Name, table)
	case col.Generated != "" && n.Action == sql.AlterSetDefault:
		return pgerr.New(pgerr.SyntaxError, "column %q of relation %q is a generated column", col.Name, table)
	}
	return nil
}
