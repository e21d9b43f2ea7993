package binder

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/connector/kafka"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// bindCreateTable resolves column types and the primary key. Whether the
// name is taken is checked when the statement runs, under the catalog's
// lock.
func (b *binder) bindCreateTable(s *sql.CreateTableStmt) (*planner.CreateTable, error) {
	name, err := b.creationName(s.Name)
	if s.Temporary {
		name, err = b.tempTableName(s.Name)
	}
	if err != nil {
		return nil, err
	}
	s, avroConn, err := b.withAvroColumns(s)
	if err != nil {
		return nil, err
	}
	if s, err = withIncludes(s); err != nil {
		return nil, err
	}
	// ct.Connector holds what withAvroColumns stored until bindKafka
	// merges it into the connector options.
	ct := &planner.CreateTable{Name: name, IfNotExists: s.IfNotExists, Connector: avroConn, Temporary: s.Temporary}
	var colPK []int
	for i := range s.Columns {
		d := &s.Columns[i]
		if err := b.checkNewColumn(ct.Columns, d.Name); err != nil {
			return nil, err
		}
		t, serial := serialType(d.TypeName)
		if !serial {
			if t, err = parseTypeName(d.TypeName); err != nil {
				return nil, b.at(err, nil, typeBase(d.TypeName))
			}
		}
		col := catalog.Column{Name: d.Name, Type: t, NotNull: d.NotNull}
		if d.Default != nil {
			if _, err := b.bindDefault(d.Default, col); err != nil {
				return nil, err
			}
			col.Default = d.DefaultText
		}
		if err := b.bindColumnKinds(ct, name, d, &col, serial); err != nil {
			return nil, err
		}
		ct.Columns = append(ct.Columns, col)
		if d.PrimaryKey {
			colPK = append(colPK, i)
		}
	}
	pk, err := b.primaryKey(s, colPK)
	if err != nil {
		return nil, err
	}
	for _, i := range pk {
		ct.Columns[i].NotNull = true
	}
	ct.PK = pk
	if ct.Uniques, err = b.bindUniques(s, name, ct.Columns); err != nil {
		return nil, err
	}
	if err := b.bindGenerated(s, name, ct.Columns); err != nil {
		return nil, err
	}
	if ct.Checks, err = b.bindChecks(s, name, ct.Columns); err != nil {
		return nil, err
	}
	if s, err = appendOnlyOption(s); err != nil {
		return nil, err
	}
	if s.AppendOnly && s.Source {
		return nil, notSupported("APPEND ONLY on a source (a source is append-only already)")
	}
	ct.AppendOnly = s.AppendOnly || s.Source
	if ct.OnConflict, err = tableConflictOption(ct, s); err != nil {
		return nil, err
	}
	if ct.Watermark, err = b.bindWatermark(s, ct.Columns); err != nil {
		return nil, err
	}
	rest, err := b.bindConnector(s, ct)
	if err != nil {
		return nil, err
	}
	if err := checkRulesWithoutDML(ct); err != nil {
		return nil, err
	}
	what, known := "CREATE TABLE", tableWithOptions
	if s.Source {
		what, known = "CREATE SOURCE", sourceWithOptions
	} else if ct.Connector != nil {
		known = connectorTableWithOptions
	}
	if ct.With, err = b.checkWithOptions(what, rest, known); err != nil {
		return nil, err
	}
	return ct, nil
}

// bindConnector sets ct.Connector to the connector options of s.With,
// checked by building the generator they describe, and returns the other
// options.
func (b *binder) bindConnector(s *sql.CreateTableStmt, ct *planner.CreateTable) (rest map[string]string, err error) {
	var conn map[string]string
	for k, v := range s.With {
		if !connector.IsConnectorOption(k) {
			if rest == nil {
				rest = map[string]string{}
			}
			rest[k] = v
			continue
		}
		if conn == nil {
			conn = map[string]string{}
		}
		conn[k] = v
	}
	if s.Source {
		ct.Source = true
		if len(s.PrimaryKey) > 0 || len(ct.PK) > 0 {
			return nil, notSupported("a primary key on a source (a source stores no rows; create a table with the connector instead)")
		}
	}
	if conn == nil {
		if s.Source {
			e := pgerr.New(pgerr.InvalidParameterValue, "a source needs a connector")
			e.Hint = "Give one in WITH, such as WITH (connector = 'datagen')."
			return nil, e
		}
		if s.Format != "" {
			return nil, notSupported("FORMAT ... ENCODE on a table without a connector")
		}
		return rest, nil
	}
	if kafka.IsKafka(conn) {
		return rest, b.bindKafka(s, ct, conn)
	}
	if s.Format != "" && s.Format != "plain" {
		return nil, notSupported("FORMAT %s (the built-in connectors produce rows: FORMAT PLAIN)", upper(s.Format))
	}
	cols := make([]connector.Column, len(ct.Columns))
	for i, c := range ct.Columns {
		cols[i] = connector.Column{Name: c.Name, Type: c.Type}
	}
	if _, err := connector.New(cols, conn, 0); err != nil {
		return nil, err
	}
	ct.Connector = conn
	return rest, nil
}

func (b *binder) checkNewColumn(cols []catalog.Column, name string) error {
	for _, c := range cols {
		if c.Name == name {
			err := pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
			return b.at(err, nil, name)
		}
	}
	return nil
}

// primaryKey returns the key from a column constraint or the table
// constraint; two of them are an error.
func (b *binder) primaryKey(s *sql.CreateTableStmt, colPK []int) ([]int, error) {
	if len(colPK) > 1 || len(colPK) == 1 && len(s.PrimaryKey) > 0 {
		return nil, pgerr.New(InvalidTableDefinition, "multiple primary keys for table %q are not allowed", s.Name)
	}
	if len(colPK) == 1 {
		return colPK, nil
	}
	var pk []int
	for _, name := range s.PrimaryKey {
		idx := -1
		for i, d := range s.Columns {
			if d.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			err := pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", name)
			return nil, b.at(err, nil, name)
		}
		for _, p := range pk {
			if p == idx {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q appears twice in primary key constraint", name)
			}
		}
		pk = append(pk, idx)
	}
	return pk, nil
}

// bindCreateView binds the view's query; its output column names (after
// the optional rename) must be unique, as they become stored columns.
func (b *binder) bindCreateView(s *sql.CreateMaterializedViewStmt) (*planner.CreateView, error) {
	if s.Query == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE MATERIALIZED VIEW needs a query")
	}
	b.inView = true
	q, err := b.bindQuery(s.Query)
	b.inView = false
	if err != nil {
		return nil, err
	}
	cols := visibleCols(q.Plan)
	if len(s.Columns) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE MATERIALIZED VIEW specifies too many column names")
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	copy(names, s.Columns)
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", n)
		}
		seen[n] = true
	}
	with, err := b.checkWithOptions("CREATE MATERIALIZED VIEW", s.With, viewWithOptions)
	if err != nil {
		return nil, err
	}
	name, err := b.creationName(s.Name)
	if err != nil {
		return nil, err
	}
	return &planner.CreateView{
		Name: name, IfNotExists: s.IfNotExists, Definition: s.QueryText, Query: q, ColNames: s.Columns,
		With: with, SearchPath: b.searchPath(), TimeZone: zoneSetting(b.zone), EmitOnWindowClose: s.EmitOnWindowClose,
	}, nil
}

// bindDrop checks that every named relation exists (unless IF EXISTS) and
// is of the kind the statement names.
func (b *binder) bindDrop(s *sql.DropStmt) (*planner.Drop, error) {
	var kind catalog.Kind
	switch s.Kind {
	case sql.ObjTable:
		kind = catalog.KindTable
	case sql.ObjMaterializedView:
		kind = catalog.KindMaterializedView
	case sql.ObjSource:
		kind = catalog.KindSource
	case sql.ObjView:
		kind = catalog.KindView
	case sql.ObjIndex:
		kind = catalog.KindIndex
	case sql.ObjSubscription:
		kind = catalog.KindSubscription
	case sql.ObjSink:
		kind = catalog.KindSink
	case sql.ObjSequence:
		kind = catalog.KindSequence
	default:
		return nil, notSupported("DROP of this kind of object")
	}
	names := make([]string, len(s.Names))
	for i, name := range s.Names {
		if err := b.checkDropTarget(kind, name, s.IfExists); err != nil {
			return nil, err
		}
		names[i] = name
		if r, ok := b.lookupName(name); ok {
			names[i] = r.Name
		}
	}
	return &planner.Drop{Kind: kind, Names: names, IfExists: s.IfExists, Cascade: s.Cascade}, nil
}

func (b *binder) checkDropTarget(kind catalog.Kind, name string, ifExists bool) error {
	r, ok := b.lookupName(name)
	if !ok {
		if ifExists {
			return nil
		}
		code := pgerr.UndefinedTable
		if kind == catalog.KindIndex || kind == catalog.KindSubscription || kind == catalog.KindSink {
			code = pgerr.UndefinedObject // as Postgres's DROP INDEX
		}
		return b.at(pgerr.New(code, "%s %q does not exist", kind, name), nil, name)
	}
	if r.Kind == kind {
		return nil
	}
	err := pgerr.New(WrongObjectType, "%q is not %s", name, withArticle(kind))
	err.Hint = "Use DROP " + upper(r.Kind.String()) + " to remove " + withArticle(r.Kind) + "."
	return b.at(err, nil, name)
}

// withArticle is a kind's name after "a" or "an".
func withArticle(k catalog.Kind) string {
	if k == catalog.KindIndex {
		return "an " + k.String()
	}
	return "a " + k.String()
}

func upper(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'a' && c <= 'z' {
			out[i] = c - 'a' + 'A'
		}
	}
	return string(out)
}

// appendOnlyOption reads RisingWave's older WITH (appendonly = 'true')
// of CREATE TABLE as APPEND ONLY: it returns s without the option.
func appendOnlyOption(s *sql.CreateTableStmt) (*sql.CreateTableStmt, error) {
	v, ok := s.With["appendonly"]
	if !ok || s.Source {
		return s, nil
	}
	on, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid value for option \"appendonly\": %q", v)
	}
	c := *s
	c.With = make(map[string]string, len(s.With))
	for k, v := range s.With {
		if k != "appendonly" {
			c.With[k] = v
		}
	}
	c.AppendOnly = c.AppendOnly || on
	return &c, nil
}
