package sql

import (
	"strings"
	"testing"
)

func TestDMLFormsParse(t *testing.T) {
	p := NewParser()
	for _, q := range []string{
		"INSERT INTO t VALUES (1,'b') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v",
		"INSERT INTO t AS x VALUES (1,'b') ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v || x.v WHERE x.v <> 'q' RETURNING *",
		"INSERT INTO t VALUES (1,'b') ON CONFLICT DO NOTHING",
		"INSERT INTO t SELECT * FROM u ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING",
		"UPDATE t SET v = u.w FROM u WHERE t.id = u.id",
		"UPDATE t AS x SET v = u.w FROM u JOIN w ON u.a = w.a, (SELECT 1 AS z) s WHERE x.id = u.id RETURNING x.*, u.w",
		"UPDATE t SET v = a IS DISTINCT FROM b",
		"UPDATE t SET (a, v) = (1, 'x'), w = 2",
		"UPDATE t SET (v) = ROW(u.x), x = u.w FROM u WHERE t.id = u.id",
		"INSERT INTO t VALUES (1,'b') ON CONFLICT (id) DO UPDATE SET (v, w) = (EXCLUDED.v, EXCLUDED.w) WHERE t.w > 0",
		"WITH s AS (SELECT 1) INSERT INTO t VALUES (1, 'a'), (2, DEFAULT) ON CONFLICT (id) DO NOTHING",
		"DELETE FROM t USING u WHERE t.id = u.id",
		"DELETE FROM t AS x USING u, v WHERE x.id = u.id RETURNING *",
		"CREATE TABLE c AS SELECT * FROM u",
		"CREATE TABLE IF NOT EXISTS c (a, b) AS SELECT 1, 2 WITH NO DATA",
		"SELECT * INTO d FROM u",
		"SELECT a, b INTO TABLE d FROM u WHERE a > 1",
	} {
		st, err := p.Parse(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		switch n := st[0].Node.(type) {
		case *InsertStmt:
			if n.OnConflict == nil {
				t.Errorf("%s: no ON CONFLICT", q)
			}
		case *UpdateStmt:
			if n.From != strings.Contains(q, "u.w FROM") {
				t.Errorf("%s: From %v", q, n.From)
			}
		case *DeleteStmt:
			if !n.Using {
				t.Errorf("%s: no USING", q)
			}
		case *CreateTableAsStmt:
		default:
			t.Errorf("%s: %T", q, n)
		}
	}
}

// TestDMLFormsBadInput: cut-off and malformed forms are positioned
// syntax errors (or 0A000), never a panic.
func TestDMLFormsBadInput(t *testing.T) {
	for _, q := range []string{
		"INSERT INTO t VALUES (1) ON CONFLICT (",
		"INSERT INTO t VALUES (1) ON CONFLICT (a",
		"INSERT INTO t VALUES (1) ON CONFLICT ON",
		"INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT",
		"INSERT INTO t VALUES (1) ON CONFLICT DO",
		"INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE",
		"INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET",
		"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING extra",
		"INSERT INTO t VALUES (1) ON CONFLICT (a) WHERE",
		"INSERT INTO t AS",
		"INSERT INTO t AS 1 VALUES (1)",
		"UPDATE t SET a = 1 FROM",
		"UPDATE t SET a = 1 FROM WHERE a = 1",
		"DELETE FROM t USING",
		"DELETE FROM t USING WHERE a",
		"CREATE TABLE c AS",
		"CREATE TABLE c () AS SELECT 1",
		"CREATE TABLE c AS WITH NO DATA",
		"SELECT 1 INTO",
		"SELECT 1 INTO TABLE",
		"WITH s AS (SELECT 1) INSERT",
		"WITH s AS (SELECT 1) INSERT INTO",
		"WITH s AS (SELECT 1) INSERT INTO t (a",
		"WITH s AS (SELECT 1) UPDATE",
		"WITH s AS (SELECT 1) DELETE FROM t USING",
		"WITH d AS (DELETE FROM t RETURNING *) INSERT INTO a SELECT * FROM d",
		"WITH RECURSIVE x AS (SELECT 1), d (a) AS MATERIALIZED (UPDATE t SET a = 1 RETURNING a) SELECT * FROM d",
		"WITH d AS NOT MATERIALIZED (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM d",
		"WITH s AS (SELECT 1) INSERT INTO t VALUES (1",
		"WITH s AS (SELECT 1) INSERT INTO t DEFAULT VALUES",
		"UPDATE t SET (a, b",
		"UPDATE t SET (a, b) =",
		"UPDATE t SET (a, b) (1, 2)",
		"UPDATE t SET (a, b) = (1, 2",
		"UPDATE t SET (a, b) = (1)",
		"UPDATE t SET (a) = (1)",
		"UPDATE t SET (a, b) = (1, 2, 3)",
		"UPDATE t SET (a, b) = ROW(1)",
		"UPDATE t SET (a, b) = c",
		"UPDATE t SET (a, b) = (1, )",
		"UPDATE t SET (a + 1, b) = (1, 2)",
		"UPDATE t SET (a, b) = (SELECT 1, 2)",
		"INSERT INTO t VALUES (1) ON CONFLICT (a) DO UPDATE SET (a, b) = (1)",
		"PREPARE",
		"PREPARE p",
		"PREPARE p AS",
		"PREPARE p (int AS SELECT 1",
		"PREPARE p AS CREATE TABLE x (a int)",
		"EXECUTE",
		"EXECUTE p (",
		"EXECUTE p ()",
		"EXECUTE p (1) x",
		"DEALLOCATE",
		"DEALLOCATE p q",
		"REFRESH MATERIALIZED",
		"REFRESH MATERIALIZED VIEW v WITH",
	} {
		_, err := NewParser().Parse(q)
		pe := asPgErr(t, err)
		if pe.Code != "42601" && pe.Code != "0A000" {
			t.Errorf("%s: %s %s", q, pe.Code, pe.Message)
		}
		if pe.Position == 0 {
			t.Errorf("%s: %s without a position", q, pe.Message)
		}
	}
}
