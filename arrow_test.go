package streamdb_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb"
)

// arrowGo returns row i of col as Rows.Values gives the same value.
func arrowGo(t *testing.T, col arrow.Array, i int) any {
	t.Helper()
	if col.IsNull(i) {
		return nil
	}
	switch c := col.(type) {
	case *array.Boolean:
		return c.Value(i)
	case *array.Int16:
		return int64(c.Value(i))
	case *array.Int32:
		return int64(c.Value(i))
	case *array.Int64:
		return c.Value(i)
	case *array.Float32:
		return float64(c.Value(i))
	case *array.Float64:
		return c.Value(i)
	case *array.Decimal128:
		return c.Value(i).ToString(c.DataType().(*arrow.Decimal128Type).Scale)
	case *array.String:
		return c.Value(i)
	case *array.Binary:
		return append([]byte(nil), c.Value(i)...)
	case *array.Date32:
		return c.Value(i).ToTime()
	case *array.Timestamp:
		return time.UnixMicro(int64(c.Value(i))).UTC()
	case *array.MonthDayNanoInterval:
		return c.Value(i)
	}
	t.Fatalf("unexpected Arrow column %T", col)
	return nil
}

// readArrow reads every batch of a QueryArrow, returning the rows and
// the number of batches.
func readArrow(t *testing.T, rr *streamdb.RecordReader) ([][]any, int) {
	t.Helper()
	defer rr.Release()
	var rows [][]any
	batches := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(rr.Schema()) {
			t.Fatalf("batch schema %v, reader's %v", rec.Schema(), rr.Schema())
		}
		batches++
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for j := range row {
				row[j] = arrowGo(t, rec.Column(j), i)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, batches
}

// queryValues reads a Query's rows with Values.
func queryValues(t *testing.T, db *streamdb.DB, query string) [][]any {
	t.Helper()
	rows, err := db.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		out = append(out, rows.Values())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestQueryArrow: QueryArrow's schema follows the documented mapping and
// its batches hold the same rows as Query, for every type, NULLs
// included; a large result comes in batches of ArrowBatchRows.
func TestQueryArrow(t *testing.T) {
	db, ctx := openAllTypes(t)
	rr, err := db.QueryArrow(ctx, "SELECT * FROM all_types ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"int32", "int16", "int32", "int64", "float32", "float64", "utf8", "decimal(10, 2)", "utf8", "utf8",
		"bool", "date32", "timestamp[us]", "timestamp[us, tz=UTC]", "binary", "month_day_nano_interval", "utf8"}
	for i, f := range rr.Schema().Fields() {
		if f.Type.String() != wantTypes[i] || !f.Nullable {
			t.Errorf("field %s: %s, want %s", f.Name, f.Type, wantTypes[i])
		}
	}
	got, batches := readArrow(t, rr)
	want := queryValues(t, db, "SELECT * FROM all_types ORDER BY id")
	if batches != 1 || len(got) != 2 {
		t.Fatalf("%d batches, %d rows", batches, len(got))
	}
	iv := arrow.MonthDayNanoInterval{Days: 1, Nanoseconds: 2 * int64(time.Hour)}
	if got[0][15] != iv {
		t.Errorf("interval: %v, want %v", got[0][15], iv)
	}
	got[0][15] = want[0][15] // Values gives an interval's text
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("QueryArrow:\n%#v\nQuery:\n%#v", got, want)
	}

	if _, err := db.Exec(ctx, "CREATE TABLE big (id int PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO big SELECT g, 'v' || g FROM generate_series(1, 20000) AS g"); err != nil {
		t.Fatal(err)
	}
	rr, err = db.QueryArrow(ctx, "SELECT id, v FROM big WHERE id % 7 <> 0 ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	got, batches = readArrow(t, rr)
	want = queryValues(t, db, "SELECT id, v FROM big WHERE id % 7 <> 0 ORDER BY id")
	if len(want) != 17143 || batches != (len(want)+streamdb.ArrowBatchRows-1)/streamdb.ArrowBatchRows {
		t.Fatalf("%d rows in %d batches", len(want), batches)
	}
	for i := range want {
		want[i][0] = int64(int32(want[i][0].(int64))) // the same, as Arrow's int32 reads back
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("QueryArrow and Query differ on the large result")
	}

	// An error before the first row is QueryArrow's; Close is idempotent.
	if _, err := db.QueryArrow(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("SELECT 1/0 did not fail")
	}
	rr, err = db.QueryArrow(ctx, "SELECT id FROM big")
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() {
		t.Fatal(rr.Err())
	}
	rr.Close()
	rr.Close()
	if rr.Next() {
		t.Fatal("Next after Close")
	}
}
