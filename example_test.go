package streamdb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/streamdb/streamdb"
)

// A materialized view stays equal to its query as its table changes.
func Example() {
	ctx := context.Background()
	db, err := streamdb.Open(":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric)",
		"CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer",
		"INSERT INTO orders VALUES (1, 7, 9.50), (2, 7, 1.25), (3, 8, 4)",
		"DELETE FROM orders WHERE id = 3",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
	rows, err := db.Query(ctx, "SELECT * FROM per_customer ORDER BY customer")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for _, c := range rows.Columns {
		fmt.Printf("%s %s (%d)\n", c.Name, c.Type, c.OID)
	}
	for rows.Next() {
		fmt.Println(rows.Values()...)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// customer integer (23)
	// n bigint (20)
	// total numeric (1700)
	// 7 2 10.75
}

// Open a database in a directory ("" or ":memory:" keeps it in memory).
func ExampleOpen() {
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(context.Background(), "CREATE TABLE t (id int PRIMARY KEY)")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Tag)
	// Output:
	// CREATE TABLE
}

// Exec changes data; Query streams rows, which Scan reads into Go
// variables (a NULL into a sql.Null type).
func ExampleDB_Query() {
	ctx := context.Background()
	db, err := streamdb.Open(":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "CREATE TABLE users (id int PRIMARY KEY, name text, balance numeric)"); err != nil {
		log.Fatal(err)
	}
	res, err := db.Exec(ctx, "INSERT INTO users VALUES ($1, $2, $3), (2, NULL, 0.5)", 1, "ann", "12.50")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("inserted", res.RowsAffected)
	rows, err := db.Query(ctx, "SELECT id, name, balance FROM users WHERE id >= $1 ORDER BY id", 1)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var name sql.NullString
		var balance string
		if err := rows.Scan(&id, &name, &balance); err != nil {
			log.Fatal(err)
		}
		fmt.Println(id, name.String, name.Valid, balance)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rows.Tag)

	// Errors are *streamdb.Error, with the SQLSTATE and the position.
	_, err = db.Query(ctx, "SELECT nme FROM users")
	var e *streamdb.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Position, e.Message)
	}
	// Output:
	// inserted 2
	// 1 ann true 12.50
	// 2  false 0.5
	// SELECT 2
	// 42703 8 column "nme" does not exist
}

// The database/sql driver is registered as "streamdb"; its rows stream
// too.
func Example_databaseSQL() {
	db, err := sql.Open("streamdb", ":memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE kv (k text PRIMARY KEY, v bigint)"); err != nil {
		log.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO kv VALUES ($1, $2), ($3, $4)", "a", 1, "b", 2); err != nil {
		log.Fatal(err)
	}
	var total int64
	if err := db.QueryRowContext(ctx, "SELECT sum(v) FROM kv").Scan(&total); err != nil {
		log.Fatal(err)
	}
	fmt.Println(total)
	// Output:
	// 3
}

// QueryArrow returns a query's rows as Arrow record batches.
func ExampleDB_QueryArrow() {
	ctx := context.Background()
	db, err := streamdb.Open(":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE m (id bigint PRIMARY KEY, temp double precision, at timestamp with time zone)",
		"INSERT INTO m VALUES (1, 20.5, '2024-01-01 00:00:00+00'), (2, NULL, '2024-01-01 00:01:00+00')",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
	rr, err := db.QueryArrow(ctx, "SELECT id, temp, at FROM m ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	for _, f := range rr.Schema().Fields() {
		fmt.Println(f.Name, f.Type)
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		fmt.Println(rec.NumRows(), rec.Column(0), rec.Column(1))
	}
	if err := rr.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// id int64
	// temp float64
	// at timestamp[us, tz=UTC]
	// 2 [1 2] [20.5 (null)]
}

// Append bulk-loads an Arrow record batch as COPY would: columns matched
// by name, the others get their defaults, every view is up to date when
// it returns.
func ExampleDB_Append() {
	ctx := context.Background()
	db, err := streamdb.Open(":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE events (id bigint PRIMARY KEY, kind text, n int DEFAULT 1)",
		"CREATE MATERIALIZED VIEW per_kind AS SELECT kind, sum(n) AS n FROM events GROUP BY kind",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "kind", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"click", "view", "click"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := db.Append(ctx, "events", rec); err != nil {
		log.Fatal(err)
	}
	rows, err := db.Query(ctx, "SELECT kind, n FROM per_kind ORDER BY kind")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			log.Fatal(err)
		}
		fmt.Println(kind, n)
	}
	// Output:
	// click 2
	// view 1
}

// Subscribe streams a view's changes as Arrow record batches: here its
// current rows (Full), then each change as it commits, an update being
// an UpdateDelete/UpdateInsert pair. Each change also carries its epoch,
// with which a consumer resumes (SubscribeOptions.Since) from a
// subscription (CREATE SUBSCRIPTION).
func ExampleDB_Subscribe() {
	ctx := context.Background()
	db, err := streamdb.Open(":memory:", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE orders (id int PRIMARY KEY, customer text, amount int)",
		"INSERT INTO orders VALUES (1, 'ann', 10), (2, 'bob', 5)",
		"CREATE MATERIALIZED VIEW totals AS SELECT customer, sum(amount) AS total FROM orders GROUP BY customer",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sub, err := db.Subscribe(sctx, "totals", &streamdb.SubscribeOptions{Full: true})
	if err != nil {
		log.Fatal(err)
	}
	defer sub.Close()
	if _, err := db.Exec(ctx, "INSERT INTO orders VALUES (3, 'ann', 7)"); err != nil {
		log.Fatal(err)
	}
	for seen := 0; seen < 4 && sub.Next(); {
		rec := sub.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i))
			seen++
		}
	}
	// Unordered output:
	// ann 10 Insert
	// bob 5 Insert
	// ann 10 UpdateDelete
	// ann 17 UpdateInsert
}
