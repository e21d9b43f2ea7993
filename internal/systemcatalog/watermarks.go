package systemcatalog

import "github.com/streamdb/streamdb/internal/types"

// streamdb_catalog.watermarks lists the tables and sources with a
// WATERMARK FOR: the column and expression, the current watermark (as
// text, in the column's type; NULL before the first row) and how many
// late rows were dropped since the relation was created (a row is late
// when its column is below the watermark of the last barrier, or NULL).
var watermarks = newTable(nsStreamdb, "watermarks", 16007, "v", watermarkRows,
	`name text, kind text, column_name text, expression text, watermark text, late_rows bigint`)

func watermarkRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, r := range v.e.Relations() {
		w := r.Watermark
		if w == nil {
			continue
		}
		col := r.Columns[w.Column]
		var wm, late types.Datum
		if d, n, ok := v.e.Watermark(r.ID); ok {
			late = n
			if d != nil {
				wm = types.Format(d, col.Type)
			}
		}
		rows = append(rows, []types.Datum{r.Name, r.Kind.String(), col.Name, w.Expr, wm, late})
	}
	return rows
}
