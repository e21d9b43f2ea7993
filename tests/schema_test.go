package tests

import (
	"context"
	"slices"
	"testing"

	"github.com/streamdb/streamdb"
)

// TestSchemasRestart: schemas, the relations in them, and views that
// were created under a search_path survive a restart and bind to the
// same relations again, whatever the new session's search_path: a view
// over an unqualified name keeps reading the relation its creator's path
// found, not a same-named one in public.
func TestSchemasRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE t (a int)")
	mustExec(t, db, "INSERT INTO t VALUES (1)")
	s := db.NewSession()
	for _, q := range []string{
		"CREATE SCHEMA app",
		"SET search_path = app, public",
		"CREATE TABLE t (a int)",
		"INSERT INTO t VALUES (10), (20)",
		"CREATE MATERIALIZED VIEW total AS SELECT sum(a) AS s FROM t",
		"CREATE VIEW big AS SELECT a FROM t WHERE a > 15",
		"CREATE INDEX ON t (a)",
	} {
		if _, err := s.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = streamdb.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, "INSERT INTO app.t VALUES (5)")
	mustExec(t, db, "INSERT INTO t VALUES (1000)") // public.t: no view reads it
	mustExec(t, db, "FLUSH")
	if got := queryRows(t, db, "SELECT s FROM app.total"); !slices.Equal(got, []string{"35"}) {
		t.Errorf("app.total after restart = %v, want [35]", got)
	}
	if got := queryRows(t, db, "SELECT a FROM app.big"); !slices.Equal(got, []string{"20"}) {
		t.Errorf("app.big after restart = %v, want [20]", got)
	}
	if got := queryRows(t, db, "SELECT nspname FROM pg_namespace WHERE nspname = 'app'"); !slices.Equal(got, []string{"app"}) {
		t.Errorf("pg_namespace after restart = %v", got)
	}
	if got := queryRows(t, db, "SELECT indexname FROM pg_indexes WHERE schemaname = 'app'"); !slices.Equal(got, []string{"t_a_idx"}) {
		t.Errorf("pg_indexes of app after restart = %v, want [t_a_idx]", got)
	}
	if _, err := db.Exec(ctx, "DROP SCHEMA app"); err == nil {
		t.Error("DROP SCHEMA of a schema with tables succeeded without CASCADE")
	}
	mustExec(t, db, "DROP SCHEMA app CASCADE")
	if got := queryRows(t, db, "SELECT a FROM t"); !slices.Equal(got, []string{"1", "1000"}) {
		t.Errorf("public.t after DROP SCHEMA app = %v", got)
	}
}
