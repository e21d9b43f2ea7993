package sql

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestTiDBReservedWords keeps tidbReserved in step with the TiDB parser:
// a word it starts reserving must be classified here, or names spelled
// like it stop parsing.
func TestTiDBReservedWords(t *testing.T) {
	for _, k := range parser.Keywords {
		if w := strings.ToLower(k.Word); k.Reserved && !tidbReserved[w] {
			t.Errorf("TiDB reserves %q, missing from tidbReserved", w)
		}
	}
	for w := range pgNotName {
		if !tidbReserved[w] {
			t.Errorf("pgNotName has %q, which TiDB does not reserve", w)
		}
	}
}

// TestRewriteKeywords pins the quoting of words TiDB reserves and
// Postgres does not, by position.
func TestRewriteKeywords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// After AS, every keyword is a label (Postgres's ColLabel).
		{`select count(*) as groups, 1 as window, 2 as interval, 3 as select from t`,
			`select count( * ) as "groups" , 1 as "window" , 2 as "interval" , 3 as "select" from t`},
		// Unreserved and column-name keywords are names.
		{`select key, value, rank, groups, status, position, interval, rows, row from t`,
			`select "key" , value , "rank" , "groups" , status , position , "interval" , "rows" , "row" from t`},
		// Around '.', any word is a name.
		{`select t.key, groups.x, s.order from groups`, `select t."key" , "groups".x , s."order" from "groups"`},
		// Relation names.
		{`insert into index (key, rank) values (1, 2)`, `insert into "index"( "key" , "rank" ) values( 1 , 2 )`},
		{`update groups set rank = 1 where key = 2`, `update "groups" set "rank" = 1 where "key" = 2`},
		{`delete from rows where interval > 1`, `delete from "rows" where "interval" > 1`},
		// Postgres reserves these: left for TiDB (a syntax error there too).
		{`select window from t`, `select window from t`},
		// Calls stay calls.
		{`select rank() over (partition by key order by x rows between 1 preceding and current row) from t`,
			`select rank( ) over( partition by "key" order by x rows between 1 preceding and current row ) from t`},
		// (mod quoted: TiDB reads mod(a, 2) as a % 2.)
		{`select mod(a, 2), repeat(b, 2), left(c, 1), row(1, 2) from t`,
			`select "mod"( a , 2 ) , repeat( b , 2 ) , left( c , 1 ) , row( 1 , 2 ) from t`},
		// Grammar uses of unreserved keywords.
		{`select a from t order by a offset 5 rows fetch first 1 row only`,
			`select a from t order by a limit 1 offset 5`},
		{`with recursive r as (select 1) select * from r`, `with recursive r as( select 1 ) select * from r`},
		// A MySQL-only statement word is not one in Postgres.
		{`replace into t values (1)`, `"replace" into t values( 1 )`},
	} {
		got, err := rewritten(t, tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestRewriteQueryForms pins VALUES as a query, column aliases of FROM
// items and the concat marker.
func TestRewriteQueryForms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`VALUES (1, 'a'), (2, 'b') ORDER BY 1`, `values row ( 1 , 'a' ) , row ( 2 , 'b' ) order by 1`},
		{`select 1 union all values (2), (3)`, `select 1 union all values row ( 2 ) , row ( 3 )`},
		{`insert into t values (1), (2)`, `insert into t values( 1 ) , ( 2 )`},
		{`insert into t (a) values (1)`, `insert into t( a ) values( 1 )`},
		{`select * from (values (1), (2)) as v(x)`,
			`select * from lateral ( values row ( 1 ) , row ( 2 ) ) as v( __sdb_derived , x )`},
		{`select * from (select 1, 2) s(p, q) join u on p = u.a`,
			`select * from lateral ( select 1 , 2 ) as s( __sdb_derived , p , q ) join u on p = u.a`},
		{`select * from t as x(a, b), (select 1) y`,
			`select * from lateral ( select * from t ) as x( __sdb_derived , a , b ) , ( select 1 ) y`},
		{`select * from s.t x(a) where a > 1`, `select * from lateral ( select * from s.t ) as x( __sdb_derived , a ) where a > 1`},
		{`select * from (select 1) as s`, `select * from( select 1 ) as s`},
		{`select * from generate_series(1, 2) g(x)`, `select * from __sdb_tf_0 as "g"`},
		{`select concat(a, b), a || b, "concat"(c), s.concat(d)`,
			`select __sdb_concat( a , b ) , a || b , __sdb_concat( c ) , s.concat( d )`},
	} {
		got, err := rewritten(t, tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestParseQueryForms checks the rewritten forms parse into the AST the
// binder expects.
func TestParseQueryForms(t *testing.T) {
	st := parseOne(t, `SELECT * FROM (SELECT 1, 2) AS s(p, q)`)
	sel := st.Node.(*SelectStmt).AST.(*ast.SelectStmt)
	ts := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ts.Lateral || ts.AsName.O != "s" || len(ts.ColumnNames) != 3 || ts.ColumnNames[0].O != markerDerived ||
		ts.ColumnNames[1].O != "p" || ts.ColumnNames[2].O != "q" {
		t.Errorf("derived table: lateral=%v alias=%q names=%v", ts.Lateral, ts.AsName.O, ts.ColumnNames)
	}
	st = parseOne(t, `VALUES (1, 'a'), (2, 'b')`)
	sel = st.Node.(*SelectStmt).AST.(*ast.SelectStmt)
	if sel.Kind != ast.SelectStmtKindValues || len(sel.Lists) != 2 || len(sel.Lists[1].Values) != 2 {
		t.Errorf("VALUES: kind %v, %d rows", sel.Kind, len(sel.Lists))
	}
	for _, q := range []string{
		`SELECT count(*) AS groups FROM t`,
		`SELECT key, value, rank, groups, status, position, interval FROM t ORDER BY rank`,
		`SELECT (SELECT max(x) FROM t), x IN (SELECT y FROM u) FROM t WHERE x > (SELECT avg(x) FROM t)`,
	} {
		if _, err := NewParser().Parse(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestSourceOffset maps the parser's offsets back to the user's tokens.
func TestSourceOffset(t *testing.T) {
	q := `select 1; SELECT  a + 1,   "Key", b::int FROM t`
	stmts, err := NewParser().Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	sel := stmts[1].Node.(*SelectStmt).AST.(*ast.SelectStmt)
	for k, want := range []string{"a + 1", `"Key"`, "b::int"} {
		off := sel.Fields.Fields[k].Expr.OriginTextPosition()
		pos, ok := stmts[1].SourceOffset(off)
		if !ok || !strings.HasPrefix(q[pos:], want) {
			t.Errorf("field %d: SourceOffset(%d) = %d %v (%q), want the offset of %q", k, off, pos, ok, q[pos:], want)
		}
	}
	if _, ok := stmts[1].SourceOffset(1 << 20); ok {
		t.Error("offset past the text mapped")
	}
}
