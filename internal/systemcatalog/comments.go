package systemcatalog

import (
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// Comments on relations and their columns (COMMENT ON): each is a field
// of the relation's descriptor (catalog.Relation.Comment,
// catalog.Column.Comment), so it is stored, and dropped, with the
// relation. pg_description lists them with classoid pg_class, objsubid 0
// for the relation and the column's attnum for a column, as PostgreSQL
// does; obj_description and col_description read them by OID without
// listing the catalog.

// classClass is pg_class's OID, the classoid of a relation's comment.
const classClass = 1259

// relationDescriptionRows are pg_description's rows of the relations'
// and columns' comments.
func relationDescriptionRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindSystem {
			continue
		}
		oid := relOID(r)
		if r.Comment != "" {
			rows = append(rows, []types.Datum{oid, int64(classClass), int64(0), r.Comment})
		}
		nums := attnums(r)
		for i, c := range r.Columns {
			if c.Comment != "" && nums[i] > 0 {
				rows = append(rows, []types.Datum{oid, int64(classClass), nums[i], c.Comment})
			}
		}
	}
	return rows
}

// objDescription is obj_description(oid[, catalog]): a relation's
// comment (catalog pg_class, or none given), else a built-in object's.
func (c Functions) objDescription(a []types.Datum) (types.Datum, error) {
	if len(a) == 1 || strings.TrimPrefix(a[1].(string), "pg_catalog.") == "pg_class" {
		if r, ok := c.lookup().relByOID(a[0].(int64)); ok && r.Comment != "" {
			return r.Comment, nil
		}
	}
	return objDescription(a)
}

// colDescription is col_description(table oid, attnum): a column's
// comment, NULL when it has none.
func (c Functions) colDescription(a []types.Datum) (types.Datum, error) {
	r, ok := c.lookup().relByOID(a[0].(int64))
	if !ok {
		return nil, nil
	}
	for i, n := range attnums(r) {
		if n == a[1].(int64) && n > 0 && r.Columns[i].Comment != "" {
			return r.Columns[i].Comment, nil
		}
	}
	return nil, nil
}
