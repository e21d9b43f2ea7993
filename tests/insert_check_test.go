package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestInsertErrorOrder: an INSERT's rows are checked a chunk at a time,
// with the keys looked up in sorted order, but the error reported is the
// one of the first bad row in input order, as PostgreSQL checks row by
// row; and a failed INSERT adds nothing.
func TestInsertErrorOrder(t *testing.T) {
	db := openMem(t)
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)")
	mustExec(t, db, "INSERT INTO t SELECT g * 10, g FROM generate_series(1, 5000) AS g")
	cases := []struct {
		q, code, detail string
	}{
		// An existing key (row 3) before a NULL (row 4).
		{"INSERT INTO t VALUES (1, 1), (2, 2), (30, 3), (4, NULL)", pgerr.UniqueViolation, "(id)=(30)"},
		// A NULL (row 2) before an existing key (row 3).
		{"INSERT INTO t VALUES (1, 1), (2, NULL), (30, 3)", pgerr.NotNullViolation, ""},
		// A repeat within the statement (row 4) after an existing key
		// that sorts later (row 2).
		{"INSERT INTO t VALUES (1, 1), (49990, 2), (3, 3), (1, 4)", pgerr.UniqueViolation, "(id)=(49990)"},
		// The statement's own repeat first.
		{"INSERT INTO t VALUES (7, 1), (7, 2), (50000, 3)", pgerr.UniqueViolation, "(id)=(7)"},
		// Across chunks: row 3000 repeats an existing key, row 2000 does
		// not, the rows between are new.
		{"INSERT INTO t SELECT CASE WHEN g = 3000 THEN 20 ELSE g * 10 + 1 END, g FROM generate_series(1, 4000) AS g", pgerr.UniqueViolation, "(id)=(20)"},
	}
	for _, c := range cases {
		_, err := db.Exec(context.Background(), c.q)
		e := pgerr.As(err)
		if err == nil || e.Code != c.code || !strings.Contains(e.Detail, c.detail) {
			t.Errorf("%s: %v (detail %q), want %s %s", c.q, err, e.Detail, c.code, c.detail)
		}
	}
	if got := queryRows(t, db, "SELECT count(*), sum(v) FROM t"); strings.Join(got, "") != fmt.Sprintf("5000|%d", 5000*5001/2) {
		t.Fatalf("after failed inserts: %v", got)
	}
	mustExec(t, db, "INSERT INTO t SELECT g * 10 + 5, g FROM generate_series(1, 3000) AS g")
	if got := queryRows(t, db, "SELECT count(*) FROM t"); strings.Join(got, "") != "8000" {
		t.Fatalf("after a good insert: %v", got)
	}
}
