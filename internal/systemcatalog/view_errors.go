package systemcatalog

import "github.com/streamdb/streamdb/internal/types"

// streamdb_catalog.view_errors counts the data errors of materialized
// views' expressions since the database opened: a row a view's
// expression fails on (a division by zero, a bad cast) gives NULL in the
// view, its write commits, and the error is counted here, per view,
// SQLSTATE and message, with the first and last time and epoch it was
// met. An epoch is NULL for a row read by the view's backfill, which runs
// on barriers of its own. The engine keeps the counts
// (Engine.ViewErrors).
var viewErrors = newTable(nsStreamdb, "view_errors", 16006, "v", viewErrorRows,
	`view text, code text, error text, count bigint, first_epoch bigint, last_epoch bigint, first_at timestamp with time zone, last_at timestamp with time zone`)

func viewErrorRows(v *view) [][]types.Datum {
	var rows [][]types.Datum
	for _, e := range v.e.ViewErrors() {
		rows = append(rows, []types.Datum{e.View, e.Code, e.Message, e.Count, epochDatum(e.FirstEpoch),
			epochDatum(e.LastEpoch), types.Timestamp(e.First.UnixMicro()), types.Timestamp(e.Last.UnixMicro())})
	}
	return rows
}

// epochDatum is an epoch as a bigint, NULL for 0 (none).
func epochDatum(e uint64) types.Datum {
	if e == 0 {
		return nil
	}
	return int64(e)
}
