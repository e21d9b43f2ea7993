package tests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestArraySliceViews: views over slices, subscripts of two-dimensional
// arrays and the functions of an array's shape stay equal to their
// queries while one- and two-dimensional arrays are inserted, updated and
// deleted (a 1-D and a 2-D array of the same elements are different
// group keys).
func TestArraySliceViews(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE arr (id int PRIMARY KEY, a int[], t text[])")
	queries := map[string]string{
		"v_slice": "SELECT id, a[2:3] AS s, a[:1][2:] AS c, a[2][1] AS e, t[2:] AS tail FROM arr",
		"v_shape": "SELECT id, array_dims(a) AS d, array_ndims(a) AS n, array_length(a, 2) AS l2, cardinality(a) AS c FROM arr",
		"v_group": "SELECT a[1:1] AS head, count(*) AS n FROM arr GROUP BY a[1:1]",
		"v_key":   "SELECT a, count(*) AS n FROM arr GROUP BY a",
	}
	for name, q := range queries {
		mustExec(t, db, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", name, q))
	}
	rng := rand.New(rand.NewSource(7))
	for step := 0; step < 300; step++ {
		id := rng.Intn(40)
		switch rng.Intn(4) {
		case 0:
			mustExec(t, db, fmt.Sprintf("DELETE FROM arr WHERE id = %d", id))
		case 1:
			mustExec(t, db, fmt.Sprintf("UPDATE arr SET a = '%s' WHERE id = %d", randArray(rng), id))
		default:
			mustExec(t, db, fmt.Sprintf("DELETE FROM arr WHERE id = %d", id))
			mustExec(t, db, fmt.Sprintf("INSERT INTO arr VALUES (%d, '%s', '%s')", id, randArray(rng), randTextArray(rng)))
		}
		if step%50 != 49 {
			continue
		}
		mustExec(t, db, "FLUSH")
		for name, q := range queries {
			got, want := queryRows(t, db, "SELECT * FROM "+name), queryRows(t, db, q)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: %s\n got %v\nwant %v", step, name, got, want)
			}
		}
	}
	if got := queryRows(t, db, "SELECT count(*) FROM arr WHERE array_ndims(a) = 2"); got[0] == "0" {
		t.Fatalf("no two-dimensional arrays were written")
	}
}

// randArray is the text of an int[]: NULL, empty, one dimension, or two
// (whose elements may equal a one-dimensional one's).
func randArray(rng *rand.Rand) string {
	elem := func() string {
		if rng.Intn(8) == 0 {
			return "NULL"
		}
		return fmt.Sprint(rng.Intn(3))
	}
	row := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = elem()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	switch rng.Intn(5) {
	case 0:
		return "{}"
	case 1, 2:
		return row(1 + rng.Intn(4))
	}
	rows, cols := 1+rng.Intn(3), 1+rng.Intn(2)
	parts := make([]string, rows)
	for i := range parts {
		parts[i] = row(cols)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func randTextArray(rng *rand.Rand) string {
	return []string{"{}", "{a}", "{a,b,c}", `{"x y",NULL}`}[rng.Intn(4)]
}

// TestArrayShapeWire: a two-dimensional array reaches pgx with its shape
// in the binary protocol and in text.
func TestArrayShapeWire(t *testing.T) {
	ctx := context.Background()
	db := openMem(t)
	port := startServer(t, db)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		conn := pgxConnect(t, port, mode)
		var got [][]int32
		if err := conn.QueryRow(ctx, "SELECT ARRAY[[1,2,3],[4,5,6]]").Scan(&got); err != nil {
			t.Fatalf("mode %v: %v", mode, err)
		}
		if fmt.Sprint(got) != "[[1 2 3] [4 5 6]]" {
			t.Errorf("mode %v: read %v", mode, got)
		}
		conn.Close(ctx)
	}
}
