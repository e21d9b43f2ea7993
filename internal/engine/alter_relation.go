package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// alterRelation runs the ALTERs that change a relation's definition, as
// PostgreSQL does: ADD COLUMN, DROP COLUMN, RENAME COLUMN, RENAME TO,
// ALTER COLUMN SET/DROP DEFAULT, SET/DROP NOT NULL, DROP EXPRESSION and
// TYPE (alter_type.go, which also adds generated columns).
//
// Each is one durable catalog write (the relation and the views that
// read it, in one store batch): a crash leaves the old definition or the
// new one. The actions only decide the change (next) and check it; the
// relations they drop and the rows they rewrite are dropped and
// rewritten by finish once all of them passed, so one that fails leaves
// everything as it was. Views are bound to what they read, not to names: before a
// relation changes, each view over it that has no record of it yet
// records it as it was (catalog/bound.go), so renames leave views
// working and a view created before an ADD COLUMN keeps its columns
// (its SELECT * too) while new views see the new column. ADD COLUMN
// rewrites no row: the rows stored before it read the column's constant
// DEFAULT (storage/missing.go); it holds the table's DML while the
// table's job and those downstream are rebuilt at one barrier (as
// rescale does), so every row written after it carries the column. DROP
// COLUMN keeps the column's slot, hidden and renamed, as PostgreSQL
// does: rows keep their layout and nothing is rewritten.
func (s *Session) alterRelation(ctx context.Context, st *sql.Statement, n *sql.AlterRelationStmt, w ResultWriter) error {
	if n.Action == sql.AlterAddConstraint && n.Unique != nil {
		return s.addUniqueConstraint(ctx, n, w)
	}
	for _, m := range n.More {
		if m.Action == sql.AlterAddConstraint && m.Unique != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE ... ADD UNIQUE must be the only action of its statement")
		}
	}
	db := s.db
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	want := objectKinds[n.Kind]
	tag := "ALTER " + strings.ToUpper(kindWord(want))
	r, err := s.lookupRelation(n.Name)
	if err != nil {
		if n.IfExists {
			if err := w.Notice("NOTICE", fmt.Sprintf("relation %q does not exist, skipping", n.Name)); err != nil {
				return err
			}
			return w.Complete(tag)
		}
		return err
	}
	if r.Kind != want && !(n.Action == sql.AlterRename && n.Kind == sql.ObjTable && r.Kind != catalog.KindIndex && r.Kind != catalog.KindSink) {
		// ALTER TABLE ... RENAME also renames views and sources, as in
		// PostgreSQL.
		return wrongKind("ALTER", r, want)
	}
	a := &relAlter{db: db, s: s, st: st, r: r, w: w, next: cloneRel(r)}
	defer a.unlock()
	acts := append([]*sql.AlterRelationStmt{n}, n.More...)
	a.actions = len(acts)
	slices.SortStableFunc(acts, func(x, y *sql.AlterRelationStmt) int { return alterPass(x) - alterPass(y) })
	if err := checkTypeActions(acts); err != nil {
		return err
	}
	for _, act := range acts {
		if err := a.apply(ctx, act); err != nil {
			return err
		}
	}
	if err := a.finish(ctx); err != nil {
		return err
	}
	return w.Complete(tag)
}

// finish makes the changes the actions decided, once all of them have
// passed their checks, so that an ALTER one of whose actions fails
// changes nothing (a DROP COLUMN ... CASCADE before it drops no view), as
// in PostgreSQL: it rewrites the rows (ALTER ... TYPE), drops the
// relations the actions drop, and commits next.
func (a *relAlter) finish(ctx context.Context) error {
	var rw *rewrite
	if len(a.retypes) > 0 || len(a.computed) > 0 {
		var err error
		if rw, err = a.rewriteRows(ctx); err != nil {
			return err
		}
		defer rw.abandon()
	}
	if err := a.dropPending(ctx); err != nil {
		return err
	}
	var edit metaEdit
	if rw != nil {
		edit = rw.commitEdit()
	}
	if err := a.db.commitAlter(a.next, edit); err != nil {
		return err
	}
	if rw != nil {
		rw.committed = true
	}
	if err := a.db.followOwnedColumns(a.r, a.next); err != nil {
		return err
	}
	if a.rebuild {
		if err := a.db.rebuildJobs(ctx, a.r.ID, true); err != nil {
			return err
		}
	}
	if rw != nil {
		return rw.purgeOld()
	}
	return nil
}

// pendingDrop is a relation an action drops (DROP COLUMN ... CASCADE,
// DROP CONSTRAINT of a UNIQUE constraint), dropped once every action
// has passed its checks; notice: announce it as a cascade.
type pendingDrop struct {
	rel    *catalog.Relation
	notice bool
}

// dropping reports whether an action of the statement drops relation id.
func (a *relAlter) dropping(id uint32) bool {
	return slices.ContainsFunc(a.drops, func(d pendingDrop) bool { return d.rel.ID == id })
}

// dropPending drops the relations the actions drop.
func (a *relAlter) dropPending(ctx context.Context) error {
	for _, d := range a.drops {
		cur, ok := a.db.RelationByID(d.rel.ID)
		if !ok {
			continue // dropped by the cascade of another
		}
		if d.notice {
			if err := a.w.Notice("NOTICE", fmt.Sprintf("drop cascades to %s %s", kindWord(cur.Kind), cur.Name)); err != nil {
				return err
			}
		}
		if err := a.db.dropRelation(ctx, cur, true, a.w); err != nil {
			return err
		}
	}
	return nil
}

// apply makes the change of one action of the statement in a.next.
func (a *relAlter) apply(ctx context.Context, n *sql.AlterRelationStmt) error {
	a.n = n
	switch n.Action {
	case sql.AlterAddColumn:
		return a.addColumn(ctx)
	case sql.AlterDropColumn:
		return a.dropColumn()
	case sql.AlterSetType:
		return a.setType()
	case sql.AlterRenameColumn:
		return a.renameColumn()
	case sql.AlterRename:
		return a.rename()
	case sql.AlterAddConstraint:
		return a.addCheck(ctx)
	case sql.AlterDropConstraint:
		return a.dropConstraint()
	}
	return a.alterColumn()
}

// alterPass orders the actions of one ALTER TABLE as PostgreSQL runs
// them (its AT_PASS_*): the drops (of columns, defaults and NOT NULL)
// first, then the type changes, then the added columns, then SET NOT
// NULL, then SET DEFAULT, each group in the order written; so ALTER c SET
// DEFAULT 1, ADD c int works.
func alterPass(n *sql.AlterRelationStmt) int {
	switch n.Action {
	case sql.AlterSetType:
		return 1
	case sql.AlterAddColumn:
		return 2
	case sql.AlterSetNotNull:
		return 3
	case sql.AlterSetDefault:
		return 4
	case sql.AlterAddConstraint:
		return 5
	}
	return 0
}

// cloneRel returns a copy of r whose columns may be changed.
func cloneRel(r *catalog.Relation) *catalog.Relation {
	next := *r
	next.Columns = slices.Clone(r.Columns)
	return &next
}

// maxColumns is PostgreSQL's MaxHeapAttributeNumber: a table's columns,
// dropped ones included, hidden ones too here.
const maxColumns = 1600

// relAlter is one ALTER of relation r, run under ddlMu: its actions (one,
// or several of ADD, DROP and ALTER COLUMN in one ALTER TABLE) change
// next, written in one catalog write at the end, as PostgreSQL runs them
// in one transaction.
type relAlter struct {
	db *DB
	s  *Session
	st *sql.Statement
	n  *sql.AlterRelationStmt // the action being applied
	r  *catalog.Relation      // as the statement found it
	w  ResultWriter
	// next is r as the actions so far leave it; rebuild: an action
	// added a column, so the jobs must be rebuilt (addColumn).
	next    *catalog.Relation
	rebuild bool
	// drops are the relations the actions drop (finish drops them);
	// retypes the columns whose type they change (alter_type.go).
	drops   []pendingDrop
	retypes []retype
	// computed are the generated columns the actions add, computed for
	// every row by the rewrite (alter_type.go); actions is how many
	// actions the statement has.
	computed []retype
	actions  int
	// unlockDML, when not nil, releases r's DML lock (lockDML).
	unlockDML func()
}

// ownName is r's name without its schema, as PostgreSQL's messages show.
func (a *relAlter) ownName() string {
	_, own := catalog.SplitName(a.r.Name)
	return own
}

// column finds the (not dropped, not hidden) column name of next, or
// reports 42703.
func (a *relAlter) column(name string) (int, error) {
	for i, c := range a.next.Columns {
		if c.Name == name && !c.Hidden {
			return i, nil
		}
	}
	return -1, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, a.ownName())
}

// taken reports whether r has a column called name (hidden included, as
// a table's row id: PostgreSQL's system columns clash too).
func (a *relAlter) taken(name string) bool {
	for _, c := range a.next.Columns {
		if c.Name == name && !c.Dropped {
			return true
		}
	}
	return false
}

// skip skips the action with a NOTICE (IF [NOT] EXISTS).
func (a *relAlter) skip(msg string) error {
	return a.w.Notice("NOTICE", msg)
}

// checkColumnsChangeable refuses ADD and DROP COLUMN where they cannot
// be done right: on what is not a plain table, and while a view over the
// table is still being created (its backfill reads the table's rows in
// the layout it was planned with).
func (a *relAlter) checkColumnsChangeable(verb string) error {
	r := a.r
	if r.Connector != nil {
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot %s columns of table %q: its rows come from a connector", verb, a.ownName())
		e.Hint = "Drop and create the table again with the columns wanted."
		return e
	}
	for _, d := range a.db.dependents(r.ID) {
		switch {
		case d.Kind == catalog.KindSubscription:
			return pgerr.New(pgerr.FeatureNotSupported, "cannot %s columns of table %q: subscription %q logs all its columns", verb, a.ownName(), d.Name)
		case d.State == catalog.StateCreating:
			e := pgerr.New("55006", "cannot %s columns of table %q while %s %q is being created", verb, a.ownName(), kindWord(d.Kind), d.Name)
			e.Hint = "Wait for its backfill to finish (WAIT), or drop it."
			return e
		}
	}
	return nil
}

// lockDML holds r's DML (statements wait; those bound before the change
// fail: see write.sameRowShape) until the statement ends (unlock).
func (a *relAlter) lockDML() {
	if a.unlockDML != nil {
		return
	}
	a.db.mu.RLock()
	rt := a.db.runtime[a.r.ID]
	a.db.mu.RUnlock()
	a.unlockDML = func() {}
	if rt != nil && rt.table != nil {
		rt.table.Lock()
		a.unlockDML = rt.table.Unlock
	}
}

func (a *relAlter) unlock() {
	if a.unlockDML != nil {
		a.unlockDML()
	}
}

func (a *relAlter) addColumn(ctx context.Context) error {
	if err := a.checkColumnsChangeable("add"); err != nil {
		return err
	}
	def := a.n.Def
	if a.taken(def.Name) {
		if a.n.IfNotExists {
			return a.skip(fmt.Sprintf("column %q of relation %q already exists, skipping", def.Name, a.ownName()))
		}
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", def.Name, a.ownName())
	}
	if len(a.next.Columns) >= maxColumns {
		// Dropped columns count, as in PostgreSQL: they keep their slot.
		return pgerr.New("54011", "tables can have at most %d columns", maxColumns)
	}
	col, missing, err := binder.NewColumn(a.s.catalog(), a.st, def, a.s.instants())
	if err != nil {
		return err
	}
	if missing != nil {
		text := types.Format(missing, col.Type)
		if back, err := types.Parse(text, col.Type); err != nil || types.Format(back, col.Type) != text {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot add column %q: its default of type %s cannot be kept", col.Name, col.Type)
		}
		col.Missing = &text
	}
	a.lockDML()
	if col.Generated != "" {
		return a.addGenerated(col)
	}
	if col.NotNull && missing == nil {
		if empty, err := a.db.tableEmpty(a.r); err != nil {
			return err
		} else if !empty {
			return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", col.Name, a.ownName())
		}
	}
	a.next.Columns = append(a.next.Columns, col)
	a.rebuild = true
	for _, chk := range def.Checks {
		// The stored rows read the column's missing value.
		if err := a.addCheckOver(ctx, a.next, chk); err != nil {
			return err
		}
	}
	return nil
}

func (a *relAlter) dropColumn() error {
	if err := a.checkColumnsChangeable("drop"); err != nil {
		return err
	}
	c, err := a.column(a.n.Column)
	if err != nil {
		if a.n.ColumnIfExists {
			return a.skip(fmt.Sprintf("column %q of relation %q does not exist, skipping", a.n.Column, a.ownName()))
		}
		return err
	}
	r := a.next
	if slices.Contains(r.PK, c) || slices.Contains(r.DistKey, c) {
		e := pgerr.New(pgerr.FeatureNotSupported, "cannot drop column %q of table %q because it is part of its primary key", a.n.Column, a.ownName())
		e.Detail = "A table's rows are stored by their primary key."
		return e
	}
	if r.Watermark != nil && r.Watermark.Column == c {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot drop column %q of table %q: it is the table's watermark column", a.n.Column, a.ownName())
	}
	var users []*catalog.Relation
	if c < len(a.r.Columns) { // not one this statement added
		if users, err = a.db.columnUsers(a.r, c); err != nil {
			return err
		}
	}
	users = slices.DeleteFunc(users, func(u *catalog.Relation) bool { return a.dropping(u.ID) })
	if len(users) > 0 && !a.n.Cascade {
		return a.dependentsError(users)
	}
	if err := a.dropColumnRules(c); err != nil {
		return err
	}
	for _, u := range users {
		if !a.dropping(u.ID) {
			a.drops = append(a.drops, pendingDrop{rel: u, notice: true})
		}
	}
	a.lockDML()
	// Nothing to rebuild: the rows keep their layout, the column's slot
	// now written NULL.
	r.Columns[c] = catalog.Column{Name: catalog.DroppedName(c), Type: r.Columns[c].Type, Hidden: true, Dropped: true}
	return nil
}

// dependentsError is PostgreSQL's 2BP01 for a DROP COLUMN the relations
// users read.
func (a *relAlter) dependentsError(users []*catalog.Relation) error {
	e := pgerr.New(pgerr.DependentObjects, "cannot drop column %s of table %s because other objects depend on it", a.n.Column, a.ownName())
	lines := make([]string, len(users))
	for i, u := range users {
		lines[i] = fmt.Sprintf("%s %s depends on column %s of table %s", kindWord(u.Kind), u.Name, a.n.Column, a.ownName())
	}
	e.Detail = strings.Join(lines, "\n")
	e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
	return e
}

func (a *relAlter) renameColumn() error {
	r := a.r
	switch r.Kind {
	case catalog.KindTable, catalog.KindMaterializedView, catalog.KindView:
	default:
		return pgerr.New(pgerr.WrongObjectType, "cannot rename columns of %s %q", kindWord(r.Kind), a.ownName())
	}
	c, err := a.column(a.n.Column)
	if err != nil {
		return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", a.n.Column) // PostgreSQL's words here
	}
	if r.Connector != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot rename column %q of table %q: its connector reads the columns by name", a.n.Column, a.ownName())
	}
	if r.Watermark != nil && r.Watermark.Column == c {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot rename column %q of table %q: its watermark expression names it", a.n.Column, a.ownName())
	}
	if a.taken(a.n.NewName) {
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", a.n.NewName, a.ownName())
	}
	a.renameInRules(a.n.Column, a.n.NewName)
	a.next.Columns[c].Name = a.n.NewName
	if r.Kind != catalog.KindTable && r.Shown() != "" {
		// A view shows its column's new name as PostgreSQL does (AS new).
		k := 0
		for _, col := range r.Columns[:c] {
			if !col.Hidden {
				k++
			}
		}
		a.next.ShownDefinition = sql.RenameOutputColumn(r.Shown(), k, a.n.NewName)
	}
	return nil
}

func (a *relAlter) rename() error {
	r := a.r
	if r.Kind == catalog.KindSubscription || r.Kind == catalog.KindSystem {
		return wrongKind("ALTER", r, objectKinds[a.n.Kind])
	}
	if r.Kind == catalog.KindSequence && r.Sequence.OwnedBy != 0 {
		// A serial column's DEFAULT names it.
		return pgerr.New(pgerr.FeatureNotSupported, "cannot rename sequence %q: a column owns it", a.ownName())
	}
	schema, _ := catalog.SplitName(r.Name)
	name := catalog.QualifiedName(schema, a.n.NewName)
	if _, ok := a.db.Relation(name); ok {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", a.n.NewName)
	}
	a.next.Name = name
	return nil
}

// alterColumn runs ALTER COLUMN ... SET/DROP DEFAULT, SET/DROP NOT NULL
// and DROP EXPRESSION. They change what DML checks and fills, not the
// rows stored.
func (a *relAlter) alterColumn() error {
	c, err := a.column(a.n.Column)
	if err != nil {
		return err
	}
	r := a.next
	col := &r.Columns[c]
	if err := checkColumnKindAlter(a.n, *col, a.ownName()); err != nil {
		return err
	}
	switch a.n.Action {
	case sql.AlterSetDefault:
		if err := binder.ColumnDefault(a.s.catalog(), a.st, a.n, *col); err != nil {
			return err
		}
		col.Default = a.n.DefaultText
	case sql.AlterDropDefault:
		col.Default = ""
	case sql.AlterDropExpression:
		if col.Generated == "" {
			msg := fmt.Sprintf("column %q of relation %q is not a stored generated column", a.n.Column, a.ownName())
			if a.n.ColumnIfExists {
				return a.skip(msg + ", skipping")
			}
			return pgerr.New(pgerr.ObjectNotInPrereqState, "%s", msg)
		}
		// The stored values stay: the column is an ordinary one now.
		col.Generated = ""
		a.lockDML()
	case sql.AlterDropNotNull:
		if slices.Contains(r.PK, c) {
			return pgerr.New("42P16", "column %q is in a primary key", a.n.Column)
		}
		col.NotNull = false
	case sql.AlterSetNotNull:
		if col.NotNull {
			return nil
		}
		col.NotNull = true
		a.lockDML()
		if len(a.retypes) > 0 {
			return nil // the rewrite checks the rows (alter_type.go)
		}
		// The stored rows as next reads them (a column added by this
		// statement: its missing value).
		if has, err := a.db.hasNull(r, c); err != nil {
			return err
		} else if has {
			return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", a.n.Column, a.ownName())
		}
	}
	return nil
}

// metaEdit is what a commitAlter also deletes and writes in the store's
// metadata, in its one write.
type metaEdit struct {
	dels []string
	puts map[string][]byte
}

// commitAlter durably writes next, the new version of a relation, with
// every relation that reads it recording it as it was (bound.go) unless
// it did already, and edit, in one store write, and publishes them.
func (db *DB) commitAlter(next *catalog.Relation, edit metaEdit) error {
	prev, ok := db.RelationByID(next.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %d does not exist", next.ID)
	}
	renamed := prev.Name != next.Name
	if renamed && next.Kind == catalog.KindIndex {
		next.ShownDefinition = renamedIn(next, prev, next)
	}
	cols := renamedColumns(prev, next)
	changed := []*catalog.Relation{next}
	for _, d := range db.dependents(next.ID) {
		if d.Bound[prev.ID] != nil && !renamed && len(cols) == 0 {
			continue
		}
		nd := *d
		if d.Bound[prev.ID] == nil {
			nd.Bound = maps.Clone(d.Bound)
			if nd.Bound == nil {
				nd.Bound = map[uint32]*catalog.BoundRel{}
			}
			nd.Bound[prev.ID] = catalog.BindingOf(prev)
		}
		if renamed {
			nd.ShownDefinition = renamedIn(d, prev, next)
		}
		if len(cols) > 0 {
			nd.ShownDefinition = db.columnsRenamedIn(d, next, cols)
		}
		changed = append(changed, &nd)
	}
	puts := make(map[string][]byte, len(changed)+len(edit.puts))
	maps.Copy(puts, edit.puts)
	for _, r := range changed {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		puts[relKey(r.ID)] = b
	}
	if err := db.store.UpdateMeta(edit.dels, puts); err != nil {
		return err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if prev.Name != next.Name {
		delete(db.byName, prev.Name)
	}
	for _, r := range changed {
		db.rels[r.ID] = r
		db.byName[r.Name] = r
	}
	return nil
}

// renamedIn returns the definition of d to show once relation prev is
// renamed to next (sql.RenameRelationRefs).
func renamedIn(d, prev, next *catalog.Relation) string {
	if d.Shown() == "" {
		return ""
	}
	_, old := catalog.SplitName(prev.Name)
	_, now := catalog.SplitName(next.Name)
	return sql.RenameRelationRefs(d.Shown(), old, now, d.Kind == catalog.KindIndex)
}

// renamedColumns returns the names, old then new, of the columns of
// relation prev that next (its new version) renames.
func renamedColumns(prev, next *catalog.Relation) [][2]string {
	var out [][2]string
	for i, c := range prev.Columns[:min(len(prev.Columns), len(next.Columns))] {
		n := next.Columns[i]
		if !c.Dropped && !n.Dropped && !c.Hidden && c.Name != n.Name {
			out = append(out, [2]string{c.Name, n.Name})
		}
	}
	return out
}

// columnsRenamedIn returns the definition of d to show once relation r
// renamed the columns cols (sql.RenameQueryColumnRefs): references to
// them unqualified are renamed only where no other relation d reads has
// a column of that name.
func (db *DB) columnsRenamedIn(d, r *catalog.Relation, cols [][2]string) string {
	def := d.Shown()
	if def == "" || d.Kind == catalog.KindIndex {
		return d.ShownDefinition
	}
	_, own := catalog.SplitName(r.Name)
	for _, c := range cols {
		def = sql.RenameQueryColumnRefs(def, own, c[0], c[1], db.otherHasColumn(d, r.ID, c[0]))
	}
	return def
}

// otherHasColumn reports whether a relation d reads, other than id, has
// a column called name.
func (db *DB) otherHasColumn(d *catalog.Relation, id uint32, name string) bool {
	for _, dep := range d.Deps {
		if dep == id {
			continue
		}
		if o, ok := db.RelationByID(dep); ok && visibleColumn(o, name) >= 0 {
			return true
		}
	}
	return false
}

// tableEmpty reports whether table r holds no row (committed).
func (db *DB) tableEmpty(r *catalog.Relation) (bool, error) {
	snap := db.store.Snapshot()
	defer snap.Close()
	it := planner.TableLayout(r).Scan(snap)
	has := it.Next()
	if err := it.Close(); err != nil {
		return false, err
	}
	return !has, nil
}

// hasNull reports whether a committed row of table r has column c NULL.
func (db *DB) hasNull(r *catalog.Relation, c int) (bool, error) {
	snap := db.store.Snapshot()
	defer snap.Close()
	it := planner.TableLayout(r).Scan(snap)
	found := false
	for !found && it.Next() {
		found = it.Row()[c] == nil
	}
	if err := it.Close(); err != nil {
		return false, err
	}
	return found, nil
}

// columnUsers returns the relations that read column c of relation r
// directly: an index holding it, a view, materialized view or sink whose
// plan reads it (planner.ScanReads, over the definition bound as the
// view knows r: a view created before c was added cannot read it).
func (db *DB) columnUsers(r *catalog.Relation, c int) ([]*catalog.Relation, error) {
	var out []*catalog.Relation
	for _, d := range db.dependents(r.ID) {
		uses := false
		switch d.Kind {
		case catalog.KindIndex:
			uses = d.Index != nil && d.Index.Table == r.ID && slices.Contains(d.Index.Columns, c)
		case catalog.KindView, catalog.KindMaterializedView, catalog.KindSink:
			q, err := db.bindStored(d, d.Definition, d.SearchPath, d.TimeZone)
			if err != nil {
				return nil, fmt.Errorf("streamdb: binding %s %q: %w", kindWord(d.Kind), d.Name, err)
			}
			uses = planReads(q.Plan, r.ID, c)
		default:
			uses = true
		}
		if uses {
			out = append(out, d)
		}
	}
	return out, nil
}

// planReads reports whether the plan rooted at n reads column c of
// relation id (a scan of it that reads every column reads c when it has
// it: one of a view created before c was added does not).
func planReads(n planner.Node, id uint32, c int) bool {
	reads := planner.ScanReads(n)
	found := false
	var walk func(planner.Node)
	walk = func(n planner.Node) {
		if s, ok := n.(*planner.Scan); ok && s.Rel.ID == id && c < len(s.Rel.Columns) {
			read, partial := reads[s]
			found = found || !partial || read[c]
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(n)
	return found
}
