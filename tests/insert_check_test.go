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

// TestDuplicateKeyShowsRowAsWritten: a unique violation's DETAIL shows the
// key as the failing row spells it, as PostgreSQL does, though keys equal
// in SQL ('30 days' and '1 mon', 1.00 and 1) share one storage key, which
// decodes to one spelling. Checked for INSERT and COPY, against a
// committed row and within the statement.
func TestDuplicateKeyShowsRowAsWritten(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE ti (k interval PRIMARY KEY, v int)")
	mustExec(t, db, "CREATE TABLE tn (k numeric PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO ti VALUES ('1 mon', 1)")
	mustExec(t, db, "INSERT INTO tn VALUES (1, 1)")
	for _, c := range []struct{ q, detail string }{
		{"INSERT INTO ti VALUES ('720 hours', 2)", "Key (k)=(720:00:00) already exists."},
		{"INSERT INTO ti VALUES ('1 day', 2), ('24:00:00', 3)", "Key (k)=(24:00:00) already exists."},
		{"INSERT INTO tn VALUES (1.00, 2)", "Key (k)=(1.00) already exists."},
		{"INSERT INTO tn VALUES (2.5, 2), (2.50, 3)", "Key (k)=(2.50) already exists."},
	} {
		_, err := db.Exec(ctx, c.q)
		if e := pgerr.As(err); err == nil || e.Code != pgerr.UniqueViolation || e.Detail != c.detail {
			t.Errorf("%s: %v (detail %q), want %q", c.q, err, e.Detail, c.detail)
		}
	}
	_, err := db.CopyFrom(ctx, "COPY ti FROM STDIN", strings.NewReader("2 days\t1\n30 days\t2\n"))
	if e := pgerr.As(err); err == nil || e.Detail != "Key (k)=(30 days) already exists." || e.Where != "COPY ti, line 2" {
		t.Errorf("COPY: %v (detail %q, where %q)", err, e.Detail, e.Where)
	}
}
