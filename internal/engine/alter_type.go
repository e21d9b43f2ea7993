package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
	"github.com/streamdb/streamdb/storage"
)

// ALTER TABLE t ALTER [COLUMN] c [SET DATA] TYPE type [USING expr], as
// PostgreSQL 15 runs it: every row is rewritten, its column c computed
// by the USING expression or else assignment-cast from its old value
// (42804 where there is no such cast), the column's DEFAULT re-cast, and
// the rewritten rows checked against NOT NULL, the CHECK constraints and
// the primary key (a key of the new type may collapse two: 23505).
//
// The rows are rewritten into a new state table, read from one snapshot
// of the old (its columnar blocks merged as every scan merges them) and
// written in batches of a few MiB, so a table of any size streams; the
// new table is recorded as one to purge before its first row, so a crash
// before the commit leaves nothing behind. The commit is the ALTER's one
// catalog write: the relation, now with Storage naming the new table,
// and the old table recorded as one to purge, in one synced store write
// after every rewritten row: a kill -9 leaves the old rows under the old
// type or the new rows under the new one. Open purges what a crash left
// (purgeDropped).
//
// What reads c must not change under it: a view, materialized view or
// sink that reads c is refused (0A000, as PostgreSQL refuses views and
// rules), and so is an index holding c (PostgreSQL would rebuild it:
// drop the index and create it again). A view over other columns reads
// no value that changes, and keeps its state; its job, like the table's,
// is rebuilt at one barrier onto the new layout (as ADD COLUMN does). A
// column of the primary key changes the key's encoding, and the views
// over the table key their state by it: one is refused while anything
// reads the table.
//
// ADD COLUMN ... GENERATED ALWAYS AS (expr) STORED uses the same rewrite:
// the column is computed for every row (relAlter.computed).

// retype is the change of one ALTER ... TYPE: column col takes the value
// of conv, over a row of the table as the statement found it.
type retype struct {
	col  int
	conv expr.Expr
}

// typeCompanions are the actions an ALTER TABLE may run together with
// ALTER ... TYPE: those that change no row or that the rewrite checks.
var typeCompanions = []sql.AlterRelationAction{sql.AlterSetType, sql.AlterSetDefault, sql.AlterDropDefault,
	sql.AlterSetNotNull, sql.AlterDropNotNull, sql.AlterDropColumn}

// checkTypeActions refuses an ALTER TABLE that changes a column's type
// together with an action that reads or adds stored rows of its own.
func checkTypeActions(acts []*sql.AlterRelationStmt) error {
	if !slices.ContainsFunc(acts, func(n *sql.AlterRelationStmt) bool { return n.Action == sql.AlterSetType }) {
		return nil
	}
	for _, n := range acts {
		if !slices.Contains(typeCompanions, n.Action) {
			e := pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ALTER COLUMN ... TYPE with ADD COLUMN or ADD CONSTRAINT in one statement is not supported")
			e.Hint = "Run them as separate ALTER TABLE statements."
			return e
		}
	}
	return nil
}

// setType runs ALTER [COLUMN] c TYPE type [USING expr] on a.next; the
// rows are rewritten by finish (rewriteRows).
func (a *relAlter) setType() error {
	if err := a.checkColumnsChangeable("change the type of"); err != nil {
		return err
	}
	c, err := a.column(a.n.Column)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(a.retypes, func(r retype) bool { return r.col == c }) {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of column %q twice", a.n.Column)
	}
	if err := a.checkTypeUsers(c); err != nil {
		return err
	}
	t, conv, err := binder.ColumnType(a.s.catalog(), a.st, a.r, c, a.n, a.s.instants())
	if err != nil {
		return err
	}
	col := &a.next.Columns[c]
	col.Type, col.Missing = t, nil // every row is rewritten whole
	if err := binder.ColumnTypeDefault(a.s.catalog(), *col); err != nil {
		return err
	}
	a.lockDML()
	a.retypes = append(a.retypes, retype{col: c, conv: conv})
	a.rebuild = true
	return nil
}

// checkTypeUsers refuses to change the type of column c while something
// reads it (see above), or while it is a generated column, is read by
// one, or is the watermark column.
func (a *relAlter) checkTypeUsers(c int) error {
	col := a.r.Columns[c]
	if col.Generated != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter the type of generated column %q", col.Name)
	}
	gen, _, err := binder.RuleUsers(a.s.catalog(), a.r, c)
	if err != nil {
		return err
	}
	if len(gen) > 0 {
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a generated column")
		e.Detail = fmt.Sprintf("Column %q is used by generated column %q.", col.Name, gen[0])
		return e
	}
	if w := a.r.Watermark; w != nil && w.Column == c {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot alter the type of column %q of table %q: it is the table's watermark column", col.Name, a.ownName())
	}
	if slices.Contains(a.r.PK, c) || slices.Contains(a.r.DistKey, c) {
		for _, d := range a.db.dependents(a.r.ID) {
			if a.dropping(d.ID) {
				continue
			}
			e := pgerr.New(pgerr.FeatureNotSupported, "cannot alter the type of primary key column %q of table %q while other objects read the table", col.Name, a.ownName())
			e.Detail = fmt.Sprintf("%s %s keeps the table's rows by their primary key.", kindWord(d.Kind), d.Name)
			e.Hint = "Drop the objects that read the table, alter the column, and create them again."
			return e
		}
	}
	users, err := a.db.columnUsers(a.r, c)
	if err != nil {
		return err
	}
	if !planner.Pruning() {
		// Jobs hold every column they scan (tests turn pruning off).
		users = slices.DeleteFunc(a.db.dependents(a.r.ID), func(d *catalog.Relation) bool { return d.Kind == catalog.KindIndex && !slices.Contains(users, d) })
	}
	users = slices.DeleteFunc(users, func(u *catalog.Relation) bool { return a.dropping(u.ID) })
	if len(users) > 0 {
		return typeUsersError(users[0], col.Name)
	}
	return nil
}

// typeUsersError is the 0A000 for a column u reads: PostgreSQL's words
// for a view (and a materialized view), ours for an index or a sink.
func typeUsersError(u *catalog.Relation, column string) error {
	switch u.Kind {
	case catalog.KindView, catalog.KindMaterializedView:
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by a view or rule")
		e.Detail = fmt.Sprintf("rule _RETURN on %s %s depends on column %q", kindWord(u.Kind), u.Name, column)
		return e
	case catalog.KindIndex:
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by an index")
		e.Detail = fmt.Sprintf("index %s depends on column %q", u.Name, column)
		e.Hint = "Drop the index (or its constraint), alter the column, and create it again."
		return e
	}
	e := pgerr.New(pgerr.FeatureNotSupported, "cannot alter type of a column used by %s %s", kindWord(u.Kind), u.Name)
	e.Detail = fmt.Sprintf("%s %s depends on column %q", kindWord(u.Kind), u.Name, column)
	return e
}

// rewrite is the new state table of an ALTER ... TYPE's rows (scratch),
// until the ALTER commits it in place of old.
type rewrite struct {
	db        *DB
	scratch   uint32
	old       uint32
	committed bool
}

// rewriteBatch is the size of the batches the rewritten rows are
// written in.
const rewriteBatch = 4 << 20

// rewriteRows writes every row of a.r, as a.next has it, into a new
// state table, and points a.next's Storage to it.
func (a *relAlter) rewriteRows(ctx context.Context) (*rewrite, error) {
	db := a.db
	id, err := db.allocID()
	if err != nil {
		return nil, err
	}
	ids, err := json.Marshal([]uint32{id})
	if err != nil {
		return nil, err
	}
	// To purge unless the ALTER commits it (a crash included).
	if err := db.store.PutMeta(dropKey(id), ids); err != nil {
		return nil, err
	}
	rw := &rewrite{db: db, scratch: id, old: a.r.DataID()}
	a.next.Storage = id
	if err := a.copyRows(ctx, planner.TableLayout(a.next)); err != nil {
		rw.abandon()
		return nil, err
	}
	return rw, nil
}

// copyRows writes the rows of a.r, converted, into dst.
func (a *relAlter) copyRows(ctx context.Context, dst *storage.Table) error {
	db := a.db
	rules, err := binder.RowRules(a.s.catalog(), a.next)
	if err != nil {
		return err
	}
	pkChanges := slices.ContainsFunc(a.retypes, func(r retype) bool { return slices.Contains(a.next.PK, r.col) })
	snap := db.store.Snapshot()
	defer snap.Close()
	it := planner.TableLayout(a.r).Scan(snap)
	defer it.Close()
	b := db.store.NewWriteBatch()
	defer func() { _ = b.Close() }()
	row := make([]types.Datum, len(a.next.Columns))
	missing := a.next.MissingValues()
	for n := 0; it.Next(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return pgerr.As(err)
			}
		}
		if err := a.convert(row, it.Row(), missing, rules); err != nil {
			return err
		}
		if pkChanges {
			if err := a.checkKey(dst, b, row); err != nil {
				return err
			}
		}
		if err := dst.Insert(b, row); err != nil {
			return err
		}
		if b.Len() >= rewriteBatch {
			err := db.store.CommitJob([]*storage.WriteBatch{b}, false)
			if b = db.store.NewWriteBatch(); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	// Synced: every row is durable before the commit names the table.
	err = db.store.CommitJob([]*storage.WriteBatch{b}, true)
	b = db.store.NewWriteBatch()
	return err
}

// convert fills row with old, a row of a.r, as a.next has it (the
// columns the statement adds read missing, generated ones computed), and
// checks it against a.next's NOT NULL and CHECK constraints.
func (a *relAlter) convert(row, old, missing []types.Datum, rules *planner.RowRules) error {
	copy(row, old)
	for i := len(old); i < len(row); i++ {
		row[i] = nil
		if i < len(missing) {
			row[i] = missing[i]
		}
	}
	for _, r := range a.retypes {
		v, err := r.conv.Eval(old)
		if err != nil {
			return err
		}
		row[r.col] = v
	}
	for _, r := range a.computed {
		v, err := r.conv.Eval(row)
		if err != nil {
			return err
		}
		row[r.col] = v
	}
	for i, c := range a.next.Columns {
		if c.Dropped {
			row[i] = nil
		}
		if c.NotNull && row[i] == nil {
			return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", c.Name, a.ownName())
		}
	}
	if rules == nil {
		return nil
	}
	for _, chk := range rules.Checks {
		v, err := chk.Expr.Eval(row)
		if err != nil {
			return err
		}
		if ok, isBool := v.(bool); isBool && !ok {
			return pgerr.New(pgerr.CheckViolation, "check constraint %q of relation %q is violated by some row", chk.Name, a.ownName())
		}
	}
	return nil
}

// checkKey refuses row when a row with its primary key is written
// already: the new type made two keys equal (PostgreSQL rebuilds the
// key's index and fails so).
func (a *relAlter) checkKey(dst *storage.Table, b *storage.WriteBatch, row []types.Datum) error {
	pk := make([]types.Datum, len(a.next.PK))
	for i, c := range a.next.PK {
		pk[i] = row[c]
	}
	_, found, err := dst.Get(b, pk)
	if err != nil || !found {
		return err
	}
	names, vals := make([]string, len(pk)), make([]string, len(pk))
	for i, c := range a.next.PK {
		names[i], vals[i] = a.next.Columns[c].Name, types.Format(pk[i], a.next.Columns[c].Type)
	}
	e := pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", a.ownName()+"_pkey")
	e.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", strings.Join(names, ", "), strings.Join(vals, ", "))
	return e
}

// addGenerated adds generated column col (ADD COLUMN ... GENERATED
// ALWAYS AS (expr) STORED) to a.next: the rewrite computes it for every
// stored row and checks its NOT NULL and CHECK constraints there. It is
// the only action of its statement, whose other actions would read the
// stored rows before they have the column.
func (a *relAlter) addGenerated(col catalog.Column) error {
	if col.Default != "" {
		return pgerr.New(pgerr.SyntaxError, "both default and generation expression specified for column %q of table %q", col.Name, a.ownName())
	}
	if a.actions > 1 {
		e := pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD COLUMN ... GENERATED must be the only action of its statement")
		e.Hint = "Run the other actions as separate ALTER TABLE statements."
		return e
	}
	a.next.Columns = append(a.next.Columns, col)
	i := len(a.next.Columns) - 1
	e, err := binder.GeneratedColumn(a.s.catalog(), a.st, a.next, i, a.n.Def.Generated)
	if err != nil {
		return err
	}
	for _, d := range a.n.Def.Checks {
		chk, _, err := binder.NewCheck(a.s.catalog(), a.next, d)
		if err != nil {
			return err
		}
		a.next.Checks = append(slices.Clone(a.next.Checks), chk)
	}
	a.computed = append(a.computed, retype{col: i, conv: e})
	a.rebuild = true
	return nil
}

// commitEdit is what the ALTER's commit also writes: the new table is
// no longer one to purge, the old one is.
func (rw *rewrite) commitEdit() metaEdit {
	ids, _ := json.Marshal([]uint32{rw.old})
	return metaEdit{dels: []string{dropKey(rw.scratch)}, puts: map[string][]byte{dropKey(rw.old): ids}}
}

// abandon purges the new table of an ALTER that did not commit it.
func (rw *rewrite) abandon() {
	if rw.committed {
		return
	}
	rw.committed = true // once
	if err := rw.db.finishDrop(rw.scratch, []uint32{rw.scratch}); err != nil {
		rw.db.opts.Logger.Error("purging the rows of an ALTER TABLE that failed", "table", rw.scratch, "err", err)
	}
}

// purgeOld purges the old table of a committed ALTER.
func (rw *rewrite) purgeOld() error {
	return rw.db.finishDrop(rw.old, []uint32{rw.old})
}
