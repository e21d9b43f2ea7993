package engine

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// The catalog statements RisingWave and PostgreSQL users type to look at
// or annotate a relation: SHOW CREATE, DESCRIBE / SHOW COLUMNS, SHOW
// INDEXES and COMMENT ON, with RisingWave's result columns. TRUNCATE is
// in truncate.go. Names resolve through the session's search_path, as a
// query's do; a missing relation is 42P01 and one of another kind than
// the statement names 42809, as PostgreSQL words them.

// objectKinds maps the kinds a statement names to the catalog's.
var objectKinds = map[sql.ObjectKind]catalog.Kind{
	sql.ObjTable:            catalog.KindTable,
	sql.ObjMaterializedView: catalog.KindMaterializedView,
	sql.ObjView:             catalog.KindView,
	sql.ObjSource:           catalog.KindSource,
	sql.ObjSink:             catalog.KindSink,
	sql.ObjIndex:            catalog.KindIndex,
}

// lookupRelation resolves a relation name the user wrote.
func (s *Session) lookupRelation(name string) (*catalog.Relation, error) {
	c := s.catalog()
	r, ok := catalog.LookupName(c, c.SearchPath(), name)
	if !ok || r.Kind == catalog.KindSubscription || r.Temporary {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	return r, nil
}

// lookupKind resolves a relation that must be of the kind the statement
// names.
func (s *Session) lookupKind(kind sql.ObjectKind, name string) (*catalog.Relation, error) {
	r, err := s.lookupRelation(name)
	if err != nil {
		return nil, err
	}
	if want := objectKinds[kind]; r.Kind != want {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a %s", name, want)
	}
	return r, nil
}

// qualifiedName is a relation's name with its schema, as RisingWave's
// SHOW CREATE names it: public.t.
func qualifiedName(r *catalog.Relation) string {
	schema, name := catalog.SplitName(r.Name)
	return schema + "." + name
}

var showCreateColumns = []Column{{Name: "Name", Type: types.TText}, {Name: "Create Sql", Type: types.TText}}

// showCreate runs SHOW CREATE kind name: the relation's name and the
// statement that creates it.
func (s *Session) showCreate(n *sql.ShowCreateStmt, w ResultWriter) error {
	r, err := s.lookupKind(n.Kind, n.Name)
	if err != nil {
		return err
	}
	if err := w.Columns(showCreateColumns); err != nil {
		return err
	}
	if err := w.Row([]types.Datum{qualifiedName(r), createSQL(r, s.db)}); err != nil {
		return err
	}
	return w.Complete("SHOW 1")
}

// createSQL is the statement that creates r: a view's, sink's or index's
// stored definition, a table's or source's rebuilt from its descriptor.
func createSQL(r *catalog.Relation, rels catalog.Reader) string {
	name := quoteName(r.Name)
	switch r.Kind {
	case catalog.KindMaterializedView:
		q := "CREATE MATERIALIZED VIEW " + name + " AS " + r.Shown()
		if r.EmitOnWindowClose {
			q += " EMIT ON WINDOW CLOSE"
		}
		return q
	case catalog.KindView:
		return "CREATE VIEW " + name + " AS " + r.Shown()
	case catalog.KindIndex:
		return r.Shown()
	case catalog.KindSink:
		q := "CREATE SINK " + name + " AS " + r.Shown()
		if from, ok := strings.CutPrefix(r.Shown(), "SELECT * FROM "); ok && len(r.Deps) == 1 {
			if dep, ok := rels.RelationByID(r.Deps[0]); ok {
				from = quoteName(dep.Name)
			}
			q = "CREATE SINK " + name + " FROM " + from
		}
		return q + connectorClause(r.Connector)
	}
	kw := "CREATE TABLE "
	if r.Kind == catalog.KindSource {
		kw = "CREATE SOURCE "
	}
	q := kw + name + " (" + strings.Join(tableElements(r), ", ") + ")"
	if r.AppendOnly && r.Kind == catalog.KindTable {
		q += " APPEND ONLY"
	}
	if r.OnConflict != "" {
		q += " ON CONFLICT " + r.OnConflict
	}
	return q + connectorClause(r.Connector)
}

// tableElements are the column definitions, primary key and watermark
// of a table or source, as CREATE TABLE takes them.
func tableElements(r *catalog.Relation) []string {
	pk := map[int]bool{}
	for _, c := range r.PK {
		pk[c] = true
	}
	var out []string
	for _, c := range r.Columns {
		if c.Hidden {
			continue
		}
		def := expr.QuoteIdent(c.Name) + " " + c.Type.String()
		if c.NotNull && !(pk[indexOfColumn(r, c.Name)] && !r.RowID) {
			def += " NOT NULL"
		}
		if c.Default != "" {
			def += " DEFAULT " + c.Default
		}
		out = append(out, def)
	}
	if !r.RowID && len(r.PK) > 0 {
		out = append(out, "PRIMARY KEY ("+strings.Join(columnNames(r, r.PK), ", ")+")")
	}
	if wm := r.Watermark; wm != nil {
		out = append(out, "WATERMARK FOR "+expr.QuoteIdent(r.Columns[wm.Column].Name)+" AS "+wm.Expr)
	}
	return out
}

func indexOfColumn(r *catalog.Relation, name string) int {
	for i, c := range r.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// columnNames are the quoted names of r's columns cols.
func columnNames(r *catalog.Relation, cols []int) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = expr.QuoteIdent(r.Columns[c].Name)
	}
	return out
}

// connectorClause renders connector options as WITH (k = 'v', ...)
// FORMAT f ENCODE e (k = 'v', ...), leaving out the options streamdb
// adds itself; "" for none.
func connectorClause(conn map[string]string) string {
	if len(conn) == 0 {
		return ""
	}
	var with, enc []string
	for _, k := range sortedKeys(conn) {
		switch {
		case k == kafka.OptFormat || k == kafka.OptEncode || strings.HasPrefix(k, kafka.ReservedPrefix):
		case strings.HasPrefix(k, kafka.OptEncodePrefix):
			enc = append(enc, strings.TrimPrefix(k, kafka.OptEncodePrefix)+" = "+quoteLiteral(conn[k]))
		default:
			with = append(with, k+" = "+quoteLiteral(conn[k]))
		}
	}
	q := " WITH (" + strings.Join(with, ", ") + ")"
	if f := conn[kafka.OptFormat]; f != "" {
		q += " FORMAT " + strings.ToUpper(f) + " ENCODE " + strings.ToUpper(conn[kafka.OptEncode])
		if len(enc) > 0 {
			q += " (" + strings.Join(enc, ", ") + ")"
		}
	}
	return q
}

var describeColumns = []Column{{Name: "Name", Type: types.TText}, {Name: "Type", Type: types.TText},
	{Name: "Is Hidden", Type: types.TText}, {Name: "Description", Type: types.TText}}

// describe runs DESCRIBE name (RisingWave's): a row per column, then the
// primary key, the distribution key, a row per index and the relation's
// comment ("table description"); SHOW COLUMNS FROM name stops after the
// columns.
func (s *Session) describe(n *sql.DescribeStmt, w ResultWriter) error {
	r, err := s.lookupRelation(n.Name)
	if err != nil {
		return err
	}
	if err := w.Columns(describeColumns); err != nil {
		return err
	}
	rows := describeRows(r, n.ColumnsOnly, s.catalog().IndexesOf(r.ID))
	for _, row := range rows {
		if err := w.Row(row); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(rows)))
}

func describeRows(r *catalog.Relation, columnsOnly bool, indexes []*catalog.Relation) [][]types.Datum {
	var rows [][]types.Datum
	for _, c := range r.Columns {
		rows = append(rows, []types.Datum{c.Name, c.Type.String(), fmt.Sprint(c.Hidden), nullIfEmpty(c.Comment)})
	}
	if columnsOnly {
		return rows
	}
	if len(r.PK) > 0 && r.Kind != catalog.KindView {
		rows = append(rows, []types.Datum{"primary key", strings.Join(columnNames(r, r.PK), ", "), nil, nil})
	}
	if len(r.DistKey) > 0 && r.Kind != catalog.KindView {
		rows = append(rows, []types.Datum{"distribution key", strings.Join(columnNames(r, r.DistKey), ", "), nil, nil})
	}
	for _, ix := range indexes {
		_, name := catalog.SplitName(ix.Name)
		d := "index(" + indexKeys(ix, r) + ")"
		if inc := indexInclude(ix, r); inc != "" {
			d += " include(" + inc + ")"
		}
		d += " distributed by(" + indexDistKey(ix, r) + ")"
		rows = append(rows, []types.Datum{name, d, nil, nil})
	}
	_, name := catalog.SplitName(r.Name)
	return append(rows, []types.Datum{"table description", name, nil, nullIfEmpty(r.Comment)})
}

// nullIfEmpty is s, or NULL when empty.
func nullIfEmpty(s string) types.Datum {
	if s == "" {
		return nil
	}
	return s
}

// indexKeys are an index's key columns as RisingWave lists them: a ASC,
// b DESC.
func indexKeys(ix, on *catalog.Relation) string {
	parts := make([]string, len(ix.Index.Keys))
	for i, k := range ix.Index.Keys {
		dir := " ASC"
		if k.Desc {
			dir = " DESC"
		}
		parts[i] = expr.QuoteIdent(on.Columns[k.Column].Name) + dir
	}
	return strings.Join(parts, ", ")
}

func indexInclude(ix, on *catalog.Relation) string {
	return strings.Join(columnNames(on, ix.Index.Include), ", ")
}

// indexDistKey is the indexed relation's column an index distributes by
// (its first key column; see catalog.Index).
func indexDistKey(ix, on *catalog.Relation) string {
	cols := make([]int, len(ix.DistKey))
	for i, c := range ix.DistKey {
		cols[i] = ix.Index.Columns[c]
	}
	return strings.Join(columnNames(on, cols), ", ")
}

var showIndexesColumns = []Column{{Name: "Name", Type: types.TText}, {Name: "On", Type: types.TText},
	{Name: "Key", Type: types.TText}, {Name: "Include", Type: types.TText}, {Name: "Distributed By", Type: types.TText}}

// showIndexes runs SHOW INDEXES FROM name: the relation's created
// indexes, in creation order.
func (s *Session) showIndexes(n *sql.ShowIndexesStmt, w ResultWriter) error {
	r, err := s.lookupRelation(n.Name)
	if err != nil {
		return err
	}
	if err := w.Columns(showIndexesColumns); err != nil {
		return err
	}
	ixs := s.catalog().IndexesOf(r.ID)
	_, on := catalog.SplitName(r.Name)
	for _, ix := range ixs {
		_, name := catalog.SplitName(ix.Name)
		row := []types.Datum{name, on, indexKeys(ix, r), indexInclude(ix, r), indexDistKey(ix, r)}
		if err := w.Row(row); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(ixs)))
}

// comment runs COMMENT ON: the comment is a field of the relation's (or
// its column's) descriptor, written durably with it, under ddlMu so that
// no other DDL replaces the relation meanwhile from an older copy.
func (s *Session) comment(n *sql.CommentStmt, w ResultWriter) error {
	db := s.db
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	var r *catalog.Relation
	var err error
	if n.IsColumn {
		r, err = s.lookupRelation(n.Name)
	} else {
		r, err = s.lookupKind(n.Kind, n.Name)
	}
	if err != nil {
		return err
	}
	next := *r
	text := n.Text
	if n.Null {
		text = ""
	}
	if n.IsColumn {
		c := indexOfColumn(r, n.Column)
		if c < 0 || r.Columns[c].Hidden {
			_, own := catalog.SplitName(r.Name)
			return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", n.Column, own)
		}
		next.Columns = append([]catalog.Column(nil), r.Columns...)
		next.Columns[c].Comment = text
	} else {
		next.Comment = text
	}
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	return w.Complete("COMMENT")
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
