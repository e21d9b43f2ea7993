package binder

import (
	"testing"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// TestStatementTime: with instants, no call of now() or
// statement_timestamp() is left in a batch statement, wherever it is (a
// column's DEFAULT and a plain view's query included); a materialized
// view's definition keeps its now().
func TestStatementTime(t *testing.T) {
	at := &expr.Instants{Transaction: 1_000_000, Statement: 2_000_000}
	cat := newTestCatalog()
	tstz := types.TTimestampTZ
	cat["d"] = &catalog.Relation{ID: 10, Name: "d", Columns: []catalog.Column{
		{Name: "id", Type: types.TInt32}, {Name: "ts", Type: tstz, Default: "now()"}}, PK: []int{0}}
	cat["pv"] = &catalog.Relation{ID: 11, Name: "pv", Kind: catalog.KindView, Definition: "SELECT now() AS n",
		Columns: []catalog.Column{{Name: "n", Type: tstz}}}
	for _, q := range []string{
		"SELECT a, now(), statement_timestamp() FROM t WHERE now() > '2000-01-01'",
		"SELECT (SELECT max(x) FROM e WHERE e.ts < localtimestamp AND e.x = t.a) FROM t",
		"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND current_date > '2000-01-01')",
		"WITH w AS (SELECT now() AS n) SELECT n, transaction_timestamp() FROM w",
		"SELECT sum(a) FILTER (WHERE now() > '2000-01-01'), row_number() OVER (ORDER BY current_timestamp) FROM t GROUP BY a",
		"SELECT * FROM generate_series(now(), now() + interval '1 hour', interval '1 minute')",
		"INSERT INTO e VALUES (1, localtimestamp, 'a'), (2, now()::timestamp, 'b')",
		"INSERT INTO e SELECT a, localtimestamp, 'c' FROM t RETURNING x, now()",
		"UPDATE e SET ts = localtimestamp WHERE ts < localtimestamp RETURNING statement_timestamp()",
		"DELETE FROM e WHERE ts < localtimestamp - interval '1 day'",
		"INSERT INTO d (id) VALUES (1), (2)",
		"INSERT INTO d VALUES (1, DEFAULT)",
		"SELECT n FROM pv",
	} {
		stmts, err := sql.NewParser().Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Bind(cat, stmts[0], Options{Time: at})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rewriteExprs(res.Stmt, func(e expr.Expr) expr.Expr {
			if name := expr.ReadsTime(e); name != "" {
				t.Errorf("%s: %s() is left in %s", q, name, e)
			}
			return e
		})
	}
	res, err := bindSQL("CREATE MATERIALIZED VIEW v AS SELECT x FROM e WHERE ts > now() - interval '1 hour'", Options{Time: at})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	rewriteExprs(res.Stmt.(*planner.CreateView).Query, func(e expr.Expr) expr.Expr {
		found = found || expr.ReadsNow(e)
		return e
	})
	if !found {
		t.Errorf("the view's now() was fixed")
	}
}
