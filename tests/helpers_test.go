package tests

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/streamdb/streamdb"
)

// openMem opens an in-memory database closed at the end of the test.
func openMem(t testing.TB) *streamdb.DB {
	t.Helper()
	db, err := streamdb.Open(":memory:", &streamdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return db
}

// mustExec runs statements and fails the test on error.
func mustExec(t testing.TB, db *streamdb.DB, sql string, args ...any) streamdb.Result {
	t.Helper()
	r, err := db.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return r
}

// rowQuerier is what runs a query: a DB or a Session.
type rowQuerier interface {
	Query(ctx context.Context, query string, args ...any) (*streamdb.Rows, error)
}

// sortedTextRows runs a query and returns its rows as sorted text lines
// ("NULL" for nulls, values joined by "|").
func sortedTextRows(q rowQuerier, sql string) ([]string, error) {
	rows, err := q.Query(context.Background(), sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		parts := []string{}
		for _, v := range rows.Text() {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, *v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// queryRows is sortedTextRows failing t on an error.
func queryRows(t testing.TB, db *streamdb.DB, sql string) []string {
	t.Helper()
	out, err := sortedTextRows(db, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}
