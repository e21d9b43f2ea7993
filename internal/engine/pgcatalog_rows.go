package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// catalogView is what the rows of the pg_catalog relations are computed
// from: one consistent list of the relations and the session's identity.
type catalogView struct {
	db   *DB
	rels []*catalog.Relation // stored relations (created), then system ones, by OID
	id   identity
}

// streamdbCatalogNames are the streamdb_catalog relations pg_class lists.
var streamdbCatalogNames = []string{ddlProgressName, rateLimitsName, sourcesName, actorsName, recoveriesName, fragmentsName}

// newCatalogView snapshots the catalog for the session in ctx.
func (db *DB) newCatalogView(ctx context.Context) *catalogView {
	v := &catalogView{db: db, id: identityOf(ctx)}
	for _, r := range db.relationsSorted() {
		if r.State == catalog.StateCreated {
			v.rels = append(v.rels, r)
		}
	}
	for _, name := range streamdbCatalogNames {
		if r, ok := db.systemRelation(name); ok {
			v.rels = append(v.rels, r)
		}
	}
	for _, t := range pgTables {
		v.rels = append(v.rels, t.rel)
	}
	return v
}

// pgRows returns the rows of a pg_catalog or information_schema relation;
// ok is false for other relations.
func (db *DB) pgRows(ctx context.Context, r *catalog.Relation) ([][]types.Datum, bool) {
	t, ok := pgTablesByID[r.ID]
	if !ok {
		return nil, false
	}
	if t.rows == nil {
		return nil, true
	}
	rows := t.rows(db.newCatalogView(ctx))
	for i, row := range rows {
		rows[i] = append(row, t.oid) // tableoid
	}
	return rows, true
}

// relByOID finds a relation by OID.
func (v *catalogView) relByOID(oid int64) (*catalog.Relation, bool) { return v.db.relationByOID(oid) }

// relationByOID finds a relation by OID (relOID's inverse) without
// listing the catalog: pg_table_is_visible and friends run once per row.
func (db *DB) relationByOID(oid int64) (*catalog.Relation, bool) {
	if t, ok := pgTablesByOID[oid]; ok {
		return t.rel, true
	}
	if n := oid - streamdbTableOIDBase; n >= 0 && n < int64(len(streamdbCatalogNames)) {
		return db.systemRelation(streamdbCatalogNames[n])
	}
	id := oid - firstUserOID
	if id <= 0 || id >= constraintOIDBit {
		return nil, false
	}
	r, ok := db.RelationByID(uint32(id))
	if !ok || r.State != catalog.StateCreated {
		return nil, false
	}
	return r, true
}

// pkRelByOID finds the table whose primary key index (indexOIDBit) or
// constraint (constraintOIDBit) has the given OID.
func (v *catalogView) pkRelByOID(oid int64, bit int64) (*catalog.Relation, bool) {
	if oid&bit == 0 {
		return nil, false
	}
	r, ok := v.relByOID(oid &^ bit)
	if !ok || !hasPKIndex(r) {
		return nil, false
	}
	return r, true
}

// attnums numbers the visible columns of r from 1: attnum[i] is column
// i's, 0 for a hidden one.
func attnums(r *catalog.Relation) []int64 {
	out := make([]int64, len(r.Columns))
	n := int64(0)
	for i, c := range r.Columns {
		if !c.Hidden {
			n++
			out[i] = n
		}
	}
	return out
}

func (v *catalogView) ownerName(oid int64) string { return v.id.roleName(oid) }

// roleName names a role: the session's user is the one real role.
func (id identity) roleName(oid int64) string {
	switch oid {
	case roleSuper:
		return id.user
	case roleDBOwner:
		return "pg_database_owner"
	}
	return ""
}

func relKind(r *catalog.Relation) string {
	switch r.Kind {
	case catalog.KindTable:
		return "r"
	case catalog.KindMaterializedView:
		return "m"
	case catalog.KindSystem:
		if t, ok := pgTablesByID[r.ID]; ok {
			return t.kind
		}
		return "v"
	}
	return "f" // rows that come from outside, like a foreign table's
}

func classRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		ns, name := relSchema(r)
		kind := relKind(r)
		am, filenode := int64(0), int64(0)
		if kind == "r" || kind == "m" {
			am, filenode = amHeap, relOID(r)
		}
		replident := "n"
		if kind == "r" || kind == "m" {
			replident = "d"
		}
		rows = append(rows, []types.Datum{relOID(r), name, ns, int64(0), int64(0), int64(roleSuper), am, filenode,
			int64(0), int64(0), float64(-1), int64(0), int64(0), hasPKIndex(r), false, "p", kind,
			int64(len(r.VisibleColumns())), int64(0), false, false, false, false, false, true, replident, false,
			int64(0), int64(0), int64(0), nil, nil, nil})
		if hasPKIndex(r) {
			idx := relOID(r) | indexOIDBit
			rows = append(rows, []types.Datum{idx, pkIndexName(r), ns, int64(0), int64(0), int64(roleSuper), int64(amBtree), idx,
				int64(0), int64(0), float64(-1), int64(0), int64(0), false, false, "p", "i",
				int64(len(r.PK)), int64(0), false, false, false, false, false, true, "n", false,
				int64(0), int64(0), int64(0), nil, nil, nil})
		}
	}
	return rows
}

func namespaceRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, n := range namespaces {
		rows = append(rows, []types.Datum{n.oid, n.name, n.owner, nil})
	}
	return rows
}

func attributeRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		nums := attnums(r)
		for i, c := range r.Columns {
			if nums[i] > 0 {
				rows = append(rows, attributeRow(relOID(r), c, nums[i]))
			}
		}
		if _, ok := pgTablesByID[r.ID]; ok {
			rows = append(rows, attributeRow(relOID(r), catalog.Column{Name: "tableoid", Type: types.Type{ID: types.IDOid}, NotNull: true}, -6))
		}
		if hasPKIndex(r) {
			for k, i := range r.PK {
				rows = append(rows, attributeRow(relOID(r)|indexOIDBit, r.Columns[i], int64(k+1)))
			}
		}
	}
	return rows
}

func attributeRow(rel int64, c catalog.Column, num int64) []types.Datum {
	t := c.Type
	ti := typeInfoOf(t)
	ndims := int64(0)
	if t.ID == types.IDArray {
		ndims = 1
	}
	return []types.Datum{rel, c.Name, int64(t.OID()), int64(-1), ti.len, num, ndims, int64(-1),
		int64(expr.Typmod(t)), ti.byval, ti.align, ti.storage, "", c.NotNull, false, false, "", "",
		false, true, int64(0), ti.collation, nil, nil, nil, nil}
}

// typeInfo is the storage description of a type, as pg_type has it.
type typeInfo struct {
	len       int64
	byval     bool
	align     string
	storage   string
	category  string
	preferred bool
	collation int64
}

func typeInfoOf(t types.Type) typeInfo {
	switch {
	case t.ID == types.IDBool:
		return typeInfo{1, true, "c", "p", "B", true, 0}
	case t.ID == types.IDInt16:
		return typeInfo{2, true, "s", "p", "N", false, 0}
	case t.ID == types.IDInt32, t.ID == types.IDDate, t.ID == types.IDFloat32, t.IsOID():
		ti := typeInfo{4, true, "i", "p", "N", false, 0}
		switch {
		case t.ID == types.IDDate:
			ti.category = "D"
		case t.ID == types.IDOid:
			ti.preferred = true
		}
		return ti
	case t.ID == types.IDInt64, t.ID == types.IDFloat64:
		return typeInfo{8, true, "d", "p", "N", t.ID == types.IDFloat64, 0}
	case t.ID == types.IDTimestamp, t.ID == types.IDTimestampTZ:
		return typeInfo{8, true, "d", "p", "D", t.ID == types.IDTimestampTZ, 0}
	case t.ID == types.IDInterval:
		return typeInfo{16, false, "d", "p", "T", true, 0}
	case t.ID == types.IDNumeric:
		return typeInfo{-1, false, "i", "m", "N", false, 0}
	case t.IsString():
		return typeInfo{-1, false, "i", "x", "S", t.ID == types.IDText, collDefault}
	case t.ID == types.IDArray:
		return typeInfo{-1, false, typeInfoOf(t.ElemType()).align, "x", "A", false, typeInfoOf(t.ElemType()).collation}
	}
	return typeInfo{-1, false, "i", "x", "X", false, 0}
}

// catalogTypes are the types pg_type lists (besides types.CatalogTypes).
func catalogTypes() []types.Type {
	var out []types.Type
	for id := types.IDBool; id <= types.IDRegrole; id++ {
		if id == types.IDArray {
			continue
		}
		out = append(out, types.Type{ID: id})
		out = append(out, types.ArrayOf(id))
	}
	return append(out, types.VectorOf(types.IDInt16), types.VectorOf(types.IDOid))
}

func typeRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, t := range catalogTypes() {
		ti := typeInfoOf(t)
		elem, array := int64(0), int64(types.ArrayOf(t.ID).OID())
		subscript, in, out, recv, send := int64(0), int64(0), int64(0), int64(0), int64(0)
		if t.ID == types.IDArray {
			elem, array, subscript = int64(t.ElemType().OID()), 0, 6179 // array_subscript_handler
			in, out, recv, send = regprocOIDs["array_in"], regprocOIDs["array_out"], regprocOIDs["array_recv"], regprocOIDs["array_send"]
		}
		rows = append(rows, []types.Datum{int64(t.OID()), t.InternalName(), int64(nsPgCatalog), int64(roleSuper),
			ti.len, ti.byval, "b", ti.category, ti.preferred, true, ",", int64(0), subscript, elem, array,
			in, out, recv, send, int64(0), int64(0), int64(0), ti.align, ti.storage, false,
			int64(0), int64(-1), int64(0), ti.collation, nil, nil, nil})
	}
	for _, ct := range types.CatalogTypes() {
		rows = append(rows, catalogTypeRow(ct))
	}
	return rows
}

// catalogTypeRow is the pg_type row of a pseudo-type or of a system type
// streamdb reads as another.
func catalogTypeRow(ct types.CatalogType) []types.Datum {
	typtype, ti := "b", typeInfo{-1, false, "i", "x", string(ct.Category), false, 0}
	switch {
	case ct.Category == 'P' && strings.HasSuffix(ct.Name, "array"), ct.Name == "record":
		typtype, ti.align = "p", "d"
	case ct.Name == "internal": // a pointer
		typtype, ti = "p", typeInfo{8, true, "d", "p", "P", false, 0}
	case ct.Category == 'P':
		typtype, ti = "p", typeInfo{4, true, "i", "p", "P", false, 0}
	case ct.Name == "name":
		ti = typeInfo{64, false, "c", "p", "S", false, 950}
	case ct.Name == "pg_node_tree":
		ti.collation = collDefault
	}
	subscript, in, out, recv, send := int64(0), int64(0), int64(0), int64(0), int64(0)
	if ct.Elem != 0 {
		subscript, ti.collation = 6179, 950
		in, out, recv, send = regprocOIDs["array_in"], regprocOIDs["array_out"], regprocOIDs["array_recv"], regprocOIDs["array_send"]
	}
	return []types.Datum{int64(ct.OID), ct.Name, int64(nsPgCatalog), int64(roleSuper), ti.len, ti.byval, typtype,
		ti.category, false, true, ",", int64(0), subscript, int64(ct.Elem), int64(ct.Array), in, out, recv, send,
		int64(0), int64(0), int64(0), ti.align, ti.storage, false, int64(0), int64(-1), int64(0), ti.collation,
		nil, nil, nil}
}

func databaseRows(v *catalogView) [][]types.Datum {
	return [][]types.Datum{{int64(databaseOID), v.id.database, int64(roleSuper), int64(6), "c", false, true,
		int64(-1), int64(0), int64(0), int64(1663), "C", "C", nil, nil, nil}}
}

func indexRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if !hasPKIndex(r) {
			continue
		}
		nums := attnums(r)
		keys := make([]types.Datum, len(r.PK))
		zeros := make([]types.Datum, len(r.PK))
		for k, i := range r.PK {
			keys[k], zeros[k] = nums[i], int64(0)
		}
		int2s, oids := types.FormatArray(keys, types.TInt16), types.FormatArray(zeros, types.Type{ID: types.IDOid})
		rows = append(rows, []types.Datum{relOID(r) | indexOIDBit, relOID(r), int64(len(keys)), int64(len(keys)),
			true, false, true, false, true, false, true, false, true, true, false,
			int2s, oids, oids, types.FormatArray(zeros, types.TInt16), nil, nil})
	}
	return rows
}

func constraintRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if !hasPKIndex(r) {
			continue
		}
		nums := attnums(r)
		keys := make([]types.Datum, len(r.PK))
		for k, i := range r.PK {
			keys[k] = nums[i]
		}
		rows = append(rows, []types.Datum{relOID(r) | constraintOIDBit, pkIndexName(r), int64(nsPublic), "p",
			false, false, true, relOID(r), int64(0), relOID(r) | indexOIDBit, int64(0), int64(0), " ", " ", " ",
			true, int64(0), true, types.FormatArray(keys, types.TInt16), nil, nil, nil, nil, nil, nil, nil})
	}
	return rows
}

func amRows(*catalogView) [][]types.Datum {
	return [][]types.Datum{{int64(amHeap), "heap", int64(0), "t"}, {int64(amBtree), "btree", int64(0), "i"}}
}

func roleRows(v *catalogView) [][]types.Datum {
	return [][]types.Datum{
		{v.id.user, true, true, true, true, true, true, int64(-1), "********", nil, true, nil, int64(roleSuper)},
		{"pg_database_owner", false, true, false, false, false, false, int64(-1), "********", nil, false, nil, int64(roleDBOwner)},
	}
}

func userRows(v *catalogView) [][]types.Datum {
	return [][]types.Datum{{v.id.user, int64(roleSuper), true, true, true, true, "********", nil, nil}}
}

func settingRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	defaults := defaultVars()
	for _, name := range sortedKeys(v.id.vars) {
		val := v.id.vars[name]
		source := "default"
		if defaults[name] != val {
			source = "session"
		}
		rows = append(rows, []types.Datum{name, val, nil, "Ungrouped", "", nil, "user", "string", source,
			nil, nil, nil, defaults[name], defaults[name], nil, nil, false})
	}
	return rows
}

func tablesViewRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if relKind(r) == "r" {
			ns, name := relSchema(r)
			rows = append(rows, []types.Datum{nsName(ns), name, v.id.user, nil, hasPKIndex(r), false, false, false})
		}
	}
	return rows
}

func matviewRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindMaterializedView {
			rows = append(rows, []types.Datum{"public", r.Name, v.id.user, nil, false, true, viewDefinition(r)})
		}
	}
	return rows
}

func indexesViewRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if hasPKIndex(r) {
			rows = append(rows, []types.Datum{"public", r.Name, pkIndexName(r), nil, indexDef(r)})
		}
	}
	return rows
}

func collationRows(*catalogView) [][]types.Datum {
	return [][]types.Datum{
		{int64(collDefault), "default", int64(nsPgCatalog), int64(roleSuper), "d", true, int64(-1), nil, nil, nil, nil},
		{int64(950), "C", int64(nsPgCatalog), int64(roleSuper), "c", true, int64(-1), "C", "C", nil, nil},
		{int64(951), "POSIX", int64(nsPgCatalog), int64(roleSuper), "c", true, int64(-1), "POSIX", "POSIX", nil, nil},
	}
}

func tablespaceRows(*catalogView) [][]types.Datum {
	return [][]types.Datum{
		{int64(1663), "pg_default", int64(roleSuper), nil, nil},
		{int64(1664), "pg_global", int64(roleSuper), nil, nil},
	}
}

// sortRows orders rows by the text of their first columns.
func sortRows(rows [][]types.Datum, cols ...int) {
	sort.SliceStable(rows, func(i, j int) bool {
		for _, c := range cols {
			a, b := rows[i][c].(string), rows[j][c].(string)
			if a != b {
				return a < b
			}
		}
		return false
	})
}
