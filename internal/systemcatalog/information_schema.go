package systemcatalog

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// The information_schema relations, from the same catalog view as
// pg_catalog's. Materialized views are listed as views (the standard has
// no materialized views; Postgres leaves them out, which would hide most
// of a streamdb database from tools that browse information_schema).

var (
	infoTables   = newTable(nsInfo, "tables", 13425, "v", infoTableRows, `table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, table_type character_data, self_referencing_column_name sql_identifier, reference_generation character_data, user_defined_type_catalog sql_identifier, user_defined_type_schema sql_identifier, user_defined_type_name sql_identifier, is_insertable_into yes_or_no, is_typed yes_or_no, commit_action character_data`)
	infoColumns  = newTable(nsInfo, "columns", 13295, "v", infoColumnRows, `table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, column_name sql_identifier, ordinal_position cardinal_number, column_default character_data, is_nullable yes_or_no, data_type character_data, character_maximum_length cardinal_number, character_octet_length cardinal_number, numeric_precision cardinal_number, numeric_precision_radix cardinal_number, numeric_scale cardinal_number, datetime_precision cardinal_number, interval_type character_data, interval_precision cardinal_number, character_set_catalog sql_identifier, character_set_schema sql_identifier, character_set_name sql_identifier, collation_catalog sql_identifier, collation_schema sql_identifier, collation_name sql_identifier, domain_catalog sql_identifier, domain_schema sql_identifier, domain_name sql_identifier, udt_catalog sql_identifier, udt_schema sql_identifier, udt_name sql_identifier, scope_catalog sql_identifier, scope_schema sql_identifier, scope_name sql_identifier, maximum_cardinality cardinal_number, dtd_identifier sql_identifier, is_self_referencing yes_or_no, is_identity yes_or_no, identity_generation character_data, identity_start character_data, identity_increment character_data, identity_maximum character_data, identity_minimum character_data, identity_cycle yes_or_no, is_generated character_data, generation_expression character_data, is_updatable yes_or_no`)
	infoSchemata = newTable(nsInfo, "schemata", 13382, "v", infoSchemataRows, `catalog_name sql_identifier, schema_name sql_identifier, schema_owner sql_identifier, default_character_set_catalog sql_identifier, default_character_set_schema sql_identifier, default_character_set_name sql_identifier, sql_path character_data`)
	infoViews    = newTable(nsInfo, "views", 13483, "v", infoViewRows, `table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, view_definition character_data, check_option character_data, is_updatable yes_or_no, is_insertable_into yes_or_no, is_trigger_updatable yes_or_no, is_trigger_deletable yes_or_no, is_trigger_insertable_into yes_or_no`)
)

// infoIdentity returns the columns is_identity .. identity_cycle of
// information_schema.columns for column c.
func (v *view) infoIdentity(c catalog.Column) []types.Datum {
	seq, ok := v.e.RelationByID(c.IdentitySeq)
	if c.Identity == "" || !ok || seq.Sequence == nil {
		return []types.Datum{"NO", nil, nil, nil, nil, nil, "NO"}
	}
	s := seq.Sequence
	gen := "ALWAYS"
	if c.Identity == catalog.IdentityByDefault {
		gen = "BY DEFAULT"
	}
	f := func(n int64) types.Datum { return types.Format(n, types.TInt64) }
	return []types.Datum{"YES", gen, f(s.Start), f(s.Increment), f(s.Max), f(s.Min), yesNo(s.Cycle)}
}

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

func infoTableRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindIndex || r.Kind == catalog.KindSequence {
			continue // not a table, as in Postgres
		}
		ns, name := v.relSchema(r)
		insertable := r.Kind == catalog.KindTable
		rows = append(rows, []types.Datum{v.id.Database, v.nsName(ns), name, infoTableType(r), nil, nil, nil, nil, nil,
			yesNo(insertable), "NO", nil})
	}
	return rows
}

func infoViewRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindView {
			ns, name := v.relSchema(r)
			rows = append(rows, []types.Datum{v.id.Database, v.nsName(ns), name, viewDefinition(r), "NONE", "NO", "NO", "NO", "NO", "NO"})
		}
	}
	return rows
}

func infoColumnRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.rels {
		if r.Kind == catalog.KindIndex {
			continue
		}
		ns, name := v.relSchema(r)
		nums := attnums(r)
		for i, c := range r.Columns {
			if nums[i] == 0 {
				continue
			}
			var def types.Datum
			if c.Default != "" {
				def = c.Default
			}
			row := []types.Datum{v.id.Database, v.nsName(ns), name, c.Name, nums[i], def, yesNo(!c.NotNull)}
			row = append(row, infoColumnType(c.Type)...)
			row = append(row, v.id.Database, "pg_catalog", c.Type.InternalName(), nil, nil, nil, nil,
				types.Format(nums[i], types.TInt64), "NO")
			row = append(row, v.infoIdentity(c)...)
			generated, genExpr := types.Datum("NEVER"), types.Datum(nil)
			if c.Generated != "" {
				generated, genExpr = "ALWAYS", c.Generated
			}
			row = append(row, generated, genExpr, yesNo(r.Kind == catalog.KindTable))
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
	case t.ID == types.IDBpchar:
		dataType = "character"
		if t.Width > 0 {
			charLen, octetLen = int64(t.Width), int64(t.Width*4)
		} else {
			octetLen = int64(1073741824)
		}
	case t.ID == types.IDTime:
		dataType, dtPrec = "time without time zone", int64(types.TimePrecision(t))
	case t.ID == types.IDTimeTZ:
		dataType, dtPrec = "time with time zone", int64(types.TimePrecision(t))
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

func infoSchemataRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, n := range v.namespaces() {
		rows = append(rows, []types.Datum{v.id.Database, n.name, v.id.roleName(n.owner), nil, nil, nil, nil})
	}
	return rows
}
