package systemcatalog

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// The system views over the relations, as Postgres defines them on its
// catalogs: pg_tables (tables, system catalogs included), pg_matviews,
// pg_indexes (the primary keys' indexes and the others), pg_views (the plain views
// users made). streamdb has no policies, rules, sequences or statistics.

var (
	pgTables    = newTable(nsPgCatalog, "pg_tables", 12033, "v", tablesViewRows, `schemaname name, tablename name, tableowner name, tablespace name, hasindexes boolean, hasrules boolean, hastriggers boolean, rowsecurity boolean`)
	pgMatviews  = newTable(nsPgCatalog, "pg_matviews", 12038, "v", matviewRows, `schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes boolean, ispopulated boolean, definition text`)
	pgViews     = newTable(nsPgCatalog, "pg_views", 12028, "v", plainViewRows, `schemaname name, viewname name, viewowner name, definition text`)
	pgIndexes   = newTable(nsPgCatalog, "pg_indexes", 12043, "v", indexesViewRows, `schemaname name, tablename name, indexname name, tablespace name, indexdef text`)
	pgPolicies  = newTable(nsPgCatalog, "pg_policies", 12018, "v", nil, `schemaname name, tablename name, policyname name, permissive text, roles name[], cmd text, qual text, with_check text`)
	pgRules     = newTable(nsPgCatalog, "pg_rules", 12023, "v", nil, `schemaname name, tablename name, rulename name, definition text`)
	pgSequences = newTable(nsPgCatalog, "pg_sequences", 12048, "v", sequencesViewRows, `schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value bigint, min_value bigint, max_value bigint, increment_by bigint, cycle boolean, cache_size bigint, last_value bigint`)
	pgStats     = newTable(nsPgCatalog, "pg_stats", 12053, "v", nil, `schemaname name, tablename name, attname name, inherited boolean, null_frac real, avg_width integer, n_distinct real, most_common_vals anyarray, most_common_freqs real[], histogram_bounds anyarray, correlation real, most_common_elems anyarray, most_common_elem_freqs real[], elem_count_histogram real[]`)
)

func tablesViewRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	indexed := v.indexedRelations()
	for _, r := range v.rels {
		if relKind(r) == "r" {
			ns, name := v.relSchema(r)
			rows = append(rows, []types.Datum{v.nsName(ns), name, v.id.User, nil, hasPKIndex(r) || indexed[r.ID], false, false, false})
		}
	}
	return rows
}

func matviewRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	indexed := v.indexedRelations()
	for _, r := range v.rels {
		if r.Kind == catalog.KindMaterializedView {
			ns, name := v.relSchema(r)
			rows = append(rows, []types.Datum{v.nsName(ns), name, v.id.User, nil, indexed[r.ID], true, viewDefinition(r)})
		}
	}
	return rows
}

func plainViewRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindView {
			ns, name := v.relSchema(r)
			rows = append(rows, []types.Datum{v.nsName(ns), name, v.id.User, viewDefinition(r)})
		}
	}
	return rows
}

func indexesViewRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if hasPKIndex(r) {
			ns, name := v.relSchema(r)
			rows = append(rows, []types.Datum{v.nsName(ns), name, pkIndexName(r), nil, indexDef(r)})
		}
		if on, ok := v.indexOn(r); ok && r.Kind == catalog.KindIndex {
			ns, name := v.relSchema(on)
			_, idxName := catalog.SplitName(r.Name)
			rows = append(rows, []types.Datum{v.nsName(ns), name, idxName, nil, IndexDef(r, on)})
		}
	}
	return rows
}

// viewDefinition renders a view's query as pg_get_viewdef does: on a new
// line-less form with a leading space and a closing semicolon (streamdb
// keeps the query as written).
func viewDefinition(r *catalog.Relation) string {
	return " " + strings.TrimSpace(r.Shown()) + ";"
}

// indexDef is the CREATE INDEX statement of a table's primary key index.
func indexDef(r *catalog.Relation) string {
	return fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s USING btree (%s)",
		expr.QuoteIdent(pkIndexName(r)), quoteQualified(r), pkColumns(r))
}

func pkColumns(r *catalog.Relation) string {
	names := make([]string, len(r.PK))
	for k, i := range r.PK {
		names[k] = expr.QuoteIdent(r.Columns[i].Name)
	}
	return strings.Join(names, ", ")
}
