package systemcatalog

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// The relations and what hangs off them: pg_class lists the stored
// relations that are created (tables "r", materialized views "m",
// sources as foreign tables "f", indexes "i", sequences "S"), the system
// relations, and one index ("i") per table with a declared primary key;
// pg_attribute their visible columns (and the system relations'
// tableoid), pg_attrdef their defaults and generation expressions,
// pg_index the indexes, pg_constraint the primary keys and the CHECK and
// UNIQUE constraints (sequences.go). streamdb has no inheritance,
// partitions or extended statistics: those catalogs are empty.

var (
	pgClass      = newTable(nsPgCatalog, "pg_class", 1259, "r", classRows, `oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, relfilenode oid, reltablespace oid, relpages integer, reltuples real, relallvisible integer, reltoastrelid oid, relhasindex boolean, relisshared boolean, relpersistence "char", relkind "char", relnatts smallint, relchecks smallint, relhasrules boolean, relhastriggers boolean, relhassubclass boolean, relrowsecurity boolean, relforcerowsecurity boolean, relispopulated boolean, relreplident "char", relispartition boolean, relrewrite oid, relfrozenxid xid, relminmxid xid, relacl aclitem[], reloptions text[], relpartbound pg_node_tree`)
	pgAttribute  = newTable(nsPgCatalog, "pg_attribute", 1249, "r", attributeRows, `attrelid oid, attname name, atttypid oid, attstattarget integer, attlen smallint, attnum smallint, attndims integer, attcacheoff integer, atttypmod integer, attbyval boolean, attalign "char", attstorage "char", attcompression "char", attnotnull boolean, atthasdef boolean, atthasmissing boolean, attidentity "char", attgenerated "char", attisdropped boolean, attislocal boolean, attinhcount integer, attcollation oid, attacl aclitem[], attoptions text[], attfdwoptions text[], attmissingval anyarray`)
	pgIndex      = newTable(nsPgCatalog, "pg_index", 2610, "r", indexRows, `indexrelid oid, indrelid oid, indnatts smallint, indnkeyatts smallint, indisunique boolean, indnullsnotdistinct boolean, indisprimary boolean, indisexclusion boolean, indimmediate boolean, indisclustered boolean, indisvalid boolean, indcheckxmin boolean, indisready boolean, indislive boolean, indisreplident boolean, indkey int2vector, indcollation oidvector, indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree`)
	pgConstraint = newTable(nsPgCatalog, "pg_constraint", 2606, "r", constraintRows, `oid oid, conname name, connamespace oid, contype "char", condeferrable boolean, condeferred boolean, convalidated boolean, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, confupdtype "char", confdeltype "char", confmatchtype "char", conislocal boolean, coninhcount integer, connoinherit boolean, conkey smallint[], confkey smallint[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols smallint[], conexclop oid[], conbin pg_node_tree`)
	pgAm         = newTable(nsPgCatalog, "pg_am", 2601, "r", amRows, `oid oid, amname name, amhandler regproc, amtype "char"`)

	pgInherits         = newTable(nsPgCatalog, "pg_inherits", 2611, "r", nil, `inhrelid oid, inhparent oid, inhseqno integer, inhdetachpending boolean`)
	pgAttrdef          = newTable(nsPgCatalog, "pg_attrdef", 2604, "r", attrdefRows, `oid oid, adrelid oid, adnum smallint, adbin pg_node_tree`)
	pgStatisticExt     = newTable(nsPgCatalog, "pg_statistic_ext", 3381, "r", nil, `oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget integer, stxkeys int2vector, stxkind "char"[], stxexprs pg_node_tree`)
	pgSequence         = newTable(nsPgCatalog, "pg_sequence", 2224, "r", sequenceRows, `seqrelid oid, seqtypid oid, seqstart bigint, seqincrement bigint, seqmax bigint, seqmin bigint, seqcache bigint, seqcycle boolean`)
	pgPartitionedTable = newTable(nsPgCatalog, "pg_partitioned_table", 3350, "r", nil, `partrelid oid, partstrat "char", partnatts smallint, partdefid oid, partattrs int2vector, partclass oidvector, partcollation oidvector, partexprs pg_node_tree`)
)

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

func relKind(r *catalog.Relation) string {
	switch r.Kind {
	case catalog.KindTable:
		return "r"
	case catalog.KindMaterializedView:
		return "m"
	case catalog.KindView:
		return "v"
	case catalog.KindIndex:
		return "i"
	case catalog.KindSequence:
		return "S"
	case catalog.KindSystem:
		if t, ok := tablesByID[r.ID]; ok {
			return t.kind
		}
		return "v"
	}
	return "f" // rows that come from outside, like a foreign table's
}

func classRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	indexed := v.indexedRelations()
	for _, r := range v.rels {
		if r.Kind == catalog.KindIndex {
			rows = append(rows, v.indexClassRow(r))
			continue
		}
		ns, name := v.relSchema(r)
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
			int64(0), int64(0), float64(-1), int64(0), int64(0), hasPKIndex(r) || indexed[r.ID], false, "p", kind,
			int64(len(r.VisibleColumns())), int64(len(r.Checks)), false, false, false, false, false, true, replident, false,
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

func attributeRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindIndex {
			rows = append(rows, v.indexAttributeRows(r)...)
			continue
		}
		nums := attnums(r)
		for i, c := range r.Columns {
			if nums[i] > 0 {
				rows = append(rows, attributeRow(relOID(r), c, nums[i]))
			}
		}
		if t, ok := tablesByID[r.ID]; ok && t.tableoid {
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

// attrdefRows are the columns' defaults; adbin holds the expression as
// written, which pg_get_expr returns.
func attrdefRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		nums := attnums(r)
		for i, c := range r.Columns {
			if d := columnDefault(c); nums[i] > 0 && d != "" {
				rows = append(rows, []types.Datum{relOID(r)<<8 | nums[i], relOID(r), nums[i], d})
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
		int64(expr.Typmod(t)), ti.byval, ti.align, ti.storage, "", c.NotNull, columnDefault(c) != "", false, c.Identity, attGenerated(c),
		false, true, int64(0), ti.collation, nil, nil, nil, nil}
}

func indexRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindIndex {
			if row := v.indexRow(r); row != nil {
				rows = append(rows, row)
			}
			continue
		}
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

func constraintRows(v *view) [][]types.Datum {
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
		ns, _ := v.relSchema(r)
		rows = append(rows, []types.Datum{relOID(r) | constraintOIDBit, pkIndexName(r), ns, "p",
			false, false, true, relOID(r), int64(0), relOID(r) | indexOIDBit, int64(0), int64(0), " ", " ", " ",
			true, int64(0), true, types.FormatArray(keys, types.TInt16), nil, nil, nil, nil, nil, nil, nil})
	}
	return append(rows, checkConstraintRows(v)...)
}

func amRows(*view) [][]types.Datum {
	return [][]types.Datum{{int64(amHeap), "heap", int64(0), "t"}, {int64(amBtree), "btree", int64(0), "i"}}
}
