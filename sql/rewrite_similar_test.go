package sql

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestRewriteSimilar pins the marker calls of SIMILAR TO: the operands
// grouped by PostgreSQL's precedence (LIKE's level: every operator but
// the comparisons binds more tightly; NOT, AND, OR, IS and comparisons
// more loosely).
func TestRewriteSimilar(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`select a similar to 'x%'`, `select __sdb_similar( a , 'x%' )`},
		{`select a not similar to 'x%', b SIMILAR TO c ESCAPE '#'`,
			`select __sdb_not_similar( a , 'x%' ) , __sdb_similar( b , c , '#' )`},
		{`select a || b similar to c || d, a similar to 'x' || '%' escape '!' || ''`,
			`select __sdb_similar( a || b , c || d ) , __sdb_similar( a , 'x' || '%' , '!' || '' )`},
		{`select a + 1 similar to b * 2, -a similar to b, f(a)::text similar to t.c`,
			`select __sdb_similar( a + 1 , b * 2 ) , __sdb_similar( - a , b ) , __sdb_similar( __sdb_cast( f( a ) , 'text' ) , t.c )`},
		// Comparisons, NOT, AND, OR and IS bind more loosely.
		{`select x = a similar to b, a similar to b = true, not a similar to b and c similar to d or e`,
			`select x = __sdb_similar( a , b ) , __sdb_similar( a , b ) = true , not __sdb_similar( a , b ) and __sdb_similar( c , d ) or e`},
		{`select x between a and b and c similar to d, x not between symmetric a and b or c similar to d`,
			`select x between a and b and __sdb_similar( c , d ) , x not between __sdb_symmetric( a ) and b or __sdb_similar( c , d )`},
		{`select a similar to b is true, a not similar to b isnull, (a similar to b) is not null`,
			`select __sdb_similar( a , b ) is true , __sdb_not_similar( a , b ) isnull , ( __sdb_similar( a , b ) ) is not null`},
		// Operands: calls, CASE, subqueries, parameters, JSON operators.
		{`select case when s similar to '%a' then 1 end, (select s from t) similar to $1 escape $2`,
			`select case when __sdb_similar( s , '%a' ) then 1 end , __sdb_similar( ( select s from t ) , ? , ? )`},
		{`select j ->> 'k' similar to 'a%', lower(s) similar to upper(p) collate "C"`,
			`select __sdb_similar( "__sdb_op"( '->>' , j , 'k' ) , 'a%' ) , __sdb_similar( lower( s ) , upper( p ) )`},
		// Clauses and aliases.
		{`select s similar to 'a' x, s not similar to 'b' as y from t where s similar to '%z' group by 1 having s similar to 'q'`,
			`select __sdb_similar( s , 'a' ) x , __sdb_not_similar( s , 'b' ) as y from t where __sdb_similar( s , '%z' ) group by 1 having __sdb_similar( s , 'q' )`},
		{`select * from t join u on t.a similar to u.p escape '' where t.b similar to 'x'`,
			`select * from t join u on __sdb_similar( t.a , u.p , '' ) where __sdb_similar( t.b , 'x' )`},
		// substring(s SIMILAR p ESCAPE e) and the FROM .. FOR form.
		{`select substring(s similar '%#"a#"%' escape '#'), substring(s || 'x' similar p || '' escape e)`,
			`select substring( s , '%#"a#"%' , '#' ) , substring( s || 'x' , p || '' , e )`},
		{`select substring(s from 'a#"b#"c' for '#'), substring(s similar to 'a')`,
			`select substring( s from 'a#"b#"c' for '#' ) , substring( __sdb_similar( s , 'a' ) )`},
		{`select similar, t.similar from t`, `select similar , t.similar from t`},
	} {
		got, err := rewritten(t, tc.in)
		if err != nil {
			t.Errorf("rewrite(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("rewrite(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestRewriteSimilarErrors: what PostgreSQL's grammar rejects is a
// syntax error at the token it reports.
func TestRewriteSimilarErrors(t *testing.T) {
	for _, tc := range []struct {
		in, msg string
		pos     int
	}{
		{`select similar to 'a'`, `syntax error at or near "to"`, 16},
		{`select 1 where not similar to 'a'`, `syntax error at or near "to"`, 28},
		{`select x between 1 and 'a' similar to 'b'`, `syntax error at or near "similar"`, 28},
		{`select a similar to`, `syntax error at end of input`, 20},
		{`select a similar to from t`, `syntax error at or near "from"`, 21},
		{`select a similar to 'b' escape`, `syntax error at end of input`, 31},
		{`select a similar to b similar to c`, `syntax error at or near "similar"`, 23},
		{`select a like b similar to c`, `syntax error at or near "similar"`, 17},
		{`select a similar to b not like c`, `syntax error at or near "not"`, 23},
		{`select a similar to b ||`, `syntax error at end of input`, 25},
		{`select substring(s similar 'a')`, `syntax error at or near ")"`, 31},
	} {
		_, err := rewritten(t, tc.in)
		pe := asPgErr(t, err)
		if pe.Code != "42601" || pe.Message != tc.msg || pe.Position != tc.pos {
			t.Errorf("rewrite(%q) = %s %q @%d, want 42601 %q @%d", tc.in, pe.Code, pe.Message, pe.Position, tc.msg, tc.pos)
		}
	}
}

// TestSimilarParse: the marker is a call the TiDB parser reads wherever
// expressions stand, and maps back to the SIMILAR keyword.
func TestSimilarParse(t *testing.T) {
	q := `select 1, a || b not similar to 'x%' escape '!' from t`
	st := parseOne(t, q)
	call, ok := st.Node.(*SelectStmt).AST.(*ast.SelectStmt).Fields.Fields[1].Expr.(*ast.FuncCallExpr)
	if !ok || call.FnName.L != NotSimilarFunc || len(call.Args) != 3 {
		t.Fatalf("field 1: %#v", st.Node.(*SelectStmt).AST.(*ast.SelectStmt).Fields.Fields[1].Expr)
	}
	if pos, ok := st.SourceOffset(call.OriginTextPosition()); !ok || q[pos:pos+7] != "similar" {
		t.Errorf("SourceOffset %d %v", pos, ok)
	}
	for _, q := range []string{
		`create materialized view v as select s similar to 'a%' as m, count(*) from t where s not similar to $1 group by 1`,
		`update t set b = s similar to 'x' where s similar to '%y%' escape '\'`,
		`select substring(s similar '%#"x#"%' escape '#') from t`,
	} {
		if _, err := NewParser().Parse(q); err != nil {
			t.Errorf("Parse(%q): %v", q, err)
		}
	}
}
