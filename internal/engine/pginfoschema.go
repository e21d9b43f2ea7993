package engine

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// The information_schema relations, from the same catalog view as
// pg_catalog's. Materialized views are listed as views (the standard has
// no materialized views; Postgres leaves them out, which would hide most
// of a streamdb database from tools that browse information_schema).

func infoTableType(r *catalog.Relation) string {
	switch relKind(r) {
	case "r":
		return "BASE TABLE"
	case "f":
		return "FOREIGN"
	}
	return "VIEW"
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func infoTableRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		ns, name := relSchema(r)
		insertable := r.Kind == catalog.KindTable
		rows = append(rows, []types.Datum{v.id.database, nsName(ns), name, infoTableType(r), nil, nil, nil, nil, nil,
			yesNo(insertable), "NO", nil})
	}
	return rows
}

func infoColumnRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		ns, name := relSchema(r)
		nums := attnums(r)
		for i, c := range r.Columns {
			if nums[i] == 0 {
				continue
			}
			row := []types.Datum{v.id.database, nsName(ns), name, c.Name, nums[i], nil, yesNo(!c.NotNull)}
			row = append(row, infoColumnType(c.Type)...)
			row = append(row, v.id.database, "pg_catalog", c.Type.InternalName(), nil, nil, nil, nil,
				types.Format(nums[i], types.TInt64), "NO", "NO", nil, nil, nil, nil, nil, "NO", "NEVER", nil,
				yesNo(r.Kind == catalog.KindTable))
			rows = append(rows, row)
		}
	}
	return rows
}

// infoColumnType returns the columns data_type .. domain_name of
// information_schema.columns for a column of type t.
func infoColumnType(t types.Type) []types.Datum {
	var charLen, octetLen, prec, radix, scale, dtPrec, ivType, ivPrec types.Datum
	dataType := t.String()
	switch {
	case t.ID == types.IDVarchar:
		dataType = "character varying"
		if t.Width > 0 {
			charLen, octetLen = int64(t.Width), int64(t.Width*4)
		} else {
			octetLen = int64(1073741824)
		}
	case t.ID == types.IDText:
		octetLen = int64(1073741824)
	case t.IsInteger():
		prec, radix, scale = int64(map[types.ID]int{types.IDInt16: 16, types.IDInt32: 32, types.IDInt64: 64}[t.ID]), int64(2), int64(0)
	case t.IsFloat():
		prec, radix = int64(map[types.ID]int{types.IDFloat32: 24, types.IDFloat64: 53}[t.ID]), int64(2)
	case t.ID == types.IDNumeric:
		dataType, radix = "numeric", int64(10)
		if t.Precision > 0 {
			prec, scale = int64(t.Precision), int64(t.Scale)
		}
	case t.ID == types.IDDate:
		dtPrec = int64(0)
	case t.ID == types.IDTimestamp, t.ID == types.IDTimestampTZ, t.ID == types.IDInterval:
		dtPrec = int64(6)
	case t.ID == types.IDArray:
		dataType = "ARRAY"
	}
	collation := []types.Datum{nil, nil, nil}
	return append([]types.Datum{dataType, charLen, octetLen, prec, radix, scale, dtPrec, ivType, ivPrec,
		nil, nil, nil}, append(collation, nil, nil, nil)...)
}

func infoSchemataRows(v *catalogView) [][]types.Datum {
	var rows [][]types.Datum
	for _, n := range namespaces {
		rows = append(rows, []types.Datum{v.id.database, n.name, v.ownerName(n.owner), nil, nil, nil, nil})
	}
	return rows
}
