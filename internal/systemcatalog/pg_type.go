package systemcatalog

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// The types: pg_type lists streamdb's types and their arrays (with
// Postgres's OIDs, names and storage), the int2vector and oidvector of
// the catalogs' own columns, and the pseudo-types and system types
// streamdb reads as others (types.CatalogTypes); pg_collation the
// default, C and POSIX collations. streamdb has no enums or ranges.

var (
	pgType      = newTable(nsPgCatalog, "pg_type", 1247, "r", typeRows, `oid oid, typname name, typnamespace oid, typowner oid, typlen smallint, typbyval boolean, typtype "char", typcategory "char", typispreferred boolean, typisdefined boolean, typdelim "char", typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, typanalyze regproc, typalign "char", typstorage "char", typnotnull boolean, typbasetype oid, typtypmod integer, typndims integer, typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl aclitem[]`)
	pgCollation = newTable(nsPgCatalog, "pg_collation", 3456, "r", collationRows, `oid oid, collname name, collnamespace oid, collowner oid, collprovider "char", collisdeterministic boolean, collencoding integer, collcollate text, collctype text, colliculocale text, collversion text`)
	pgEnum      = newTable(nsPgCatalog, "pg_enum", 3501, "r", nil, `oid oid, enumtypid oid, enumsortorder real, enumlabel name`)
	pgRange     = newTable(nsPgCatalog, "pg_range", 3541, "r", nil, `rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical regproc, rngsubdiff regproc`)
)

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
		align := "i" // an array's header is int-aligned; only double alignment goes beyond it
		if typeInfoOf(t.ElemType()).align == "d" {
			align = "d"
		}
		return typeInfo{-1, false, align, "x", "A", false, typeInfoOf(t.ElemType()).collation}
	case t.ID == types.IDJSON, t.ID == types.IDJSONB, t.ID == types.IDBytea:
		return typeInfo{-1, false, "i", "x", "U", false, 0}
	case t.ID == types.IDUUID:
		return typeInfo{16, false, "c", "p", "U", false, 0}
	case t.ID == types.IDTime:
		return typeInfo{8, true, "d", "p", "D", false, 0}
	case t.ID == types.IDTimeTZ:
		return typeInfo{12, false, "d", "p", "D", false, 0}
	case t.ID == types.IDBpchar:
		return typeInfo{-1, false, "i", "x", "S", false, collDefault}
	case t.ID == types.IDInet, t.ID == types.IDCidr:
		return typeInfo{-1, false, "i", "m", "I", t.ID == types.IDInet, 0}
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
	for _, id := range []types.ID{types.IDJSON, types.IDJSONB, types.IDBytea, types.IDUUID, types.IDTime, types.IDTimeTZ, types.IDBpchar, types.IDInet, types.IDCidr} {
		out = append(out, types.Type{ID: id}, types.ArrayOf(id))
	}
	return append(out, types.VectorOf(types.IDInt16), types.VectorOf(types.IDOid))
}

func typeRows(*view) [][]types.Datum {
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
	case ct.Name == "unknown":
		typtype, ti = "p", typeInfo{-2, false, "c", "p", "X", false, 0}
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

// isCatalogType reports whether pg_type lists the type with OID oid.
func isCatalogType(oid int64) bool {
	_, ok := types.TypeByOID(uint32(oid))
	_, other := types.CatalogTypeByOID(uint32(oid))
	return ok || other
}

func collationRows(*view) [][]types.Datum {
	return [][]types.Datum{
		{int64(collDefault), "default", int64(nsPgCatalog), int64(roleSuper), "d", true, int64(-1), nil, nil, nil, nil},
		{int64(950), "C", int64(nsPgCatalog), int64(roleSuper), "c", true, int64(-1), "C", "C", nil, nil},
		{int64(951), "POSIX", int64(nsPgCatalog), int64(roleSuper), "c", true, int64(-1), "POSIX", "POSIX", nil, nil},
	}
}
