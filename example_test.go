package streamdb_test

import (
	"context"
	"fmt"
	"log"

	"github.com/streamdb/streamdb"
)

// A view stays equal to its query as its table changes.
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
	for _, c := range rows.Columns {
		fmt.Printf("%s %s (%d)\n", c.Name, c.Type, c.OID)
	}
	for rows.Next() {
		fmt.Println(rows.Values()...)
	}
	// Output:
	// customer integer (23)
	// n bigint (20)
	// total numeric (1700)
	// 7 2 10.75
}
