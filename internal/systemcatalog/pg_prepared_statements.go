package systemcatalog

import "github.com/streamdb/streamdb/internal/types"

// pg_prepared_statements: the session's prepared statements (PREPARE),
// from its Identity.
var pgPreparedStatements = newTable(nsPgCatalog, "pg_prepared_statements", 12095, "v", preparedStatementRows,
	`name text, statement text, prepare_time timestamptz, parameter_types regtype[], from_sql boolean, generic_plans bigint, custom_plans bigint`)

func preparedStatementRows(v *view) [][]types.Datum {
	if v.id.Prepared == nil {
		return nil
	}
	var rows [][]types.Datum
	for _, p := range v.id.Prepared() {
		// The types by name, as regtype prints them (typmods dropped),
		// so that the array reads as PostgreSQL's, cast to text too.
		names := make([]types.Datum, len(p.ParamTypes))
		for i, t := range p.ParamTypes {
			names[i] = types.Type{ID: t.ID, Elem: t.Elem}.String()
		}
		rows = append(rows, []types.Datum{p.Name, p.Statement, p.PrepareTime,
			types.FormatArray(names, types.TText), p.FromSQL, p.GenericPlans, p.CustomPlans})
	}
	return rows
}
