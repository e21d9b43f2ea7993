package systemcatalog

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// table is one system relation: its schema, name, OID and columns, and
// the function that computes its rows.
type table struct {
	ns   int64
	name string
	oid  int64
	// kind is the relkind: "r" (a catalog) or "v" (a view).
	kind string
	// cols are the columns, "name type, ..." with the types as Postgres's
	// format_type prints them.
	cols string
	// rows computes the rows; nil for a catalog that is always empty.
	rows func(v *view) [][]types.Datum

	// Set at init.
	rel      *catalog.Relation
	tableoid bool // has Postgres's system column tableoid
}

func newTable(ns int64, name string, oid int64, kind string, rows func(*view) [][]types.Datum, cols string) *table {
	return &table{ns: ns, name: name, oid: oid, kind: kind, rows: rows, cols: cols}
}

// streamdbTables are the streamdb_catalog relations, in the order of
// their ids (from systemIDBase) and of pg_class.
var streamdbTables = []*table{ddlProgress, rateLimits, sources, actors, recoveries, fragments, viewErrors, watermarks, stateSizes, subscriptions, sourceErrors, sinks}

// postgresTables are the pg_catalog and information_schema relations, in
// the order of their ids (from postgresIDBase) and of pg_class.
var postgresTables = []*table{
	pgClass, pgNamespace, pgAttribute, pgType, pgDatabase, pgIndex, pgConstraint, pgAm,
	pgRoles, pgUser, pgAuthMembers, pgSettings, pgTables, pgMatviews, pgViews, pgIndexes,
	pgCollation, pgTablespace, pgDescription, pgShdescription, pgInherits, pgAttrdef, pgPolicy,
	pgStatisticExt, pgPublication, pgPublicationRel, pgPublicationNamespace, pgTrigger, pgRewrite,
	pgProc, pgExtension, pgSequence, pgEnum, pgRange, pgForeignTable, pgPartitionedTable,
	pgEventTrigger, pgLanguage, pgAggregate, pgOperator, pgOpclass, pgOpfamily, pgAmop, pgAmproc,
	pgConversion, pgDbRoleSetting, pgDefaultACL, pgInitPrivs, pgSeclabel, pgLargeobjectMetadata,
	pgForeignDataWrapper, pgForeignServer, pgUserMappings, pgSubscription, pgTransform,
	pgTSConfig, pgTSDict, pgTSParser, pgTSTemplate, pgPolicies, pgRules, pgSequences, pgStats,
	infoTables, infoColumns, infoSchemata, infoViews,
	pgCast, pgDepend, infoSequences, pgPreparedStatements,
}

// Relation ids: system relations' are far from stored ones.
const (
	systemIDBase   = 0xFFFF0000        // streamdbTables'
	postgresIDBase = systemIDBase + 16 // postgresTables'
)

// The system relations, indexed; built at init.
var (
	tablesByName = map[string]*table{}
	tablesByID   = map[uint32]*table{}
	tablesByOID  = map[int64]*table{}
	// systemRels are the system relations in pg_class's order.
	systemRels []*catalog.Relation
)

func init() {
	for i, t := range streamdbTables {
		t.register(systemIDBase+uint32(i), false)
	}
	for i, t := range postgresTables {
		t.register(postgresIDBase+uint32(i), true)
	}
}

// register builds t's relation and indexes it.
func (t *table) register(id uint32, tableoid bool) {
	t.rel = &catalog.Relation{ID: id, Name: builtinNsName(t.ns) + "." + t.name, Kind: catalog.KindSystem}
	for _, c := range strings.Split(t.cols, ", ") {
		name, typ, _ := strings.Cut(c, " ")
		t.rel.Columns = append(t.rel.Columns, catalog.Column{Name: name, Type: catalogColumnType(typ)})
	}
	if tableoid {
		// The system column every Postgres relation has.
		t.rel.Columns = append(t.rel.Columns, catalog.Column{Name: "tableoid", Type: types.Type{ID: types.IDOid}, Hidden: true})
	}
	t.tableoid = tableoid
	if tablesByName[t.rel.Name] != nil || tablesByOID[t.oid] != nil {
		panic(fmt.Sprintf("streamdb: system relation %s (OID %d) registered twice", t.rel.Name, t.oid))
	}
	tablesByName[t.rel.Name], tablesByID[id], tablesByOID[t.oid] = t, t, t
	systemRels = append(systemRels, t.rel)
}

// catalogColumnType maps the type of a catalog column, as Postgres
// prints it, to the streamdb type that holds it: name, "char", xid and
// pg_node_tree are text; aclitem[] is text[]; int2vector and oidvector
// are vectors (types.VectorOf); the information_schema domains are text and integer.
func catalogColumnType(name string) types.Type {
	switch name {
	case "name", `"char"`, "pg_node_tree", "anyarray", "sql_identifier", "character_data", "yes_or_no":
		return types.TText
	case "xid":
		return types.TInt64
	case "cardinal_number":
		return types.TInt32
	case "int2vector":
		return types.VectorOf(types.IDInt16)
	case "oidvector":
		return types.VectorOf(types.IDOid)
	case "aclitem[]", `"char"[]`:
		return types.ArrayOf(types.IDText)
	}
	if elem, ok := strings.CutSuffix(name, "[]"); ok {
		return types.ArrayOf(catalogColumnType(elem).ID)
	}
	id, ok := types.ExprTypeByName(name)
	if !ok {
		panic(fmt.Sprintf("streamdb: catalog column type %q", name))
	}
	return types.Type{ID: id}
}

// Relation returns the system relation named name: schema-qualified, as
// "pg_catalog.pg_class" or "streamdb_catalog.ddl_progress".
func Relation(name string) (*catalog.Relation, bool) {
	if t, ok := tablesByName[name]; ok {
		return t.rel, true
	}
	return nil, false
}

// Rows computes the rows of the system relation r (one Relation
// returned) from e's current state, for the session id; a pg_catalog or
// information_schema row ends with its tableoid. It fails when the
// engine cannot give the state the rows show (state_sizes reads the
// store).
func Rows(e Engine, id Identity, r *catalog.Relation) ([][]types.Datum, error) {
	t, ok := tablesByID[r.ID]
	if !ok || t.rows == nil {
		return nil, nil
	}
	v := newView(e, id)
	rows := t.rows(v)
	if v.err != nil {
		return nil, v.err
	}
	if t.tableoid {
		for i, row := range rows {
			rows[i] = append(row, t.oid)
		}
	}
	return rows, nil
}
