package tests

import (
	"context"
	"testing"
)

func TestExploreDivZero(t *testing.T) {
	db := openMem(t)
	ctx := context.Background()
	mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	mustExec(t, db, "CREATE TABLE u (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO t VALUES (1, 2)")
	mustExec(t, db, "CREATE MATERIALIZED VIEW q AS SELECT id, 10 / v AS r FROM t")
	mustExec(t, db, "CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n FROM u")
	_, err := db.Exec(ctx, "INSERT INTO t VALUES (2, 0)")
	t.Logf("insert poison: %v", err)
	t.Logf("t: %v", queryRows(t, db, "SELECT * FROM t"))
	t.Logf("q: %v", queryRows(t, db, "SELECT * FROM q"))
	_, err = db.Exec(ctx, "INSERT INTO u VALUES (1, 1)")
	t.Logf("insert u: %v", err)
	t.Logf("c: %v", queryRows(t, db, "SELECT * FROM c"))
	_, err = db.Exec(ctx, "INSERT INTO t VALUES (2, 0)")
	t.Logf("insert poison again: %v", err)
	mustExec(t, db, "CREATE TABLE w (id int PRIMARY KEY, v int)")
	mustExec(t, db, "INSERT INTO w VALUES (1, 0)")
	_, err = db.Exec(ctx, "CREATE MATERIALIZED VIEW wq AS SELECT id, 10 / v AS r FROM w")
	t.Logf("create view over poison: %v", err)
	t.Logf("views: %v", queryRows(t, db, "SHOW MATERIALIZED VIEWS"))
	_, err = db.Exec(ctx, "FLUSH")
	t.Logf("flush: %v", err)
}
