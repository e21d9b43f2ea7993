package sql

import "testing"

// TestSyntaxErrorPositions checks that TiDB's errors come back as Postgres
// ones pointing into the user's original text.
func TestSyntaxErrorPositions(t *testing.T) {
	for _, tc := range []struct {
		in, msg string
		pos     int
	}{
		{`select a frm t x`, `syntax error at or near "t"`, 14},
		{`select a from t where`, `syntax error at end of input`, 22},
		{`select 1; select a from t where b = `, `syntax error at end of input`, 36},
		{`select 'é', a::int from t wher x`, `syntax error at or near "x"`, 32},
		{"select a\n  from t\n  where (b", `syntax error at end of input`, 29},
		{`select x::int from`, `syntax error at end of input`, 19},
		{`select cast(a as) from t`, `syntax error at or near ")"`, 17},
		{`select * from generate_series(1, ) g`, `syntax error at or near ")"`, 34},
		{`insert into t values (1,, 2)`, `syntax error at or near ","`, 25},
		{`select 1 +`, `syntax error at end of input`, 11},
		{`selec 1`, `syntax error at or near "selec"`, 1},
	} {
		_, err := NewParser().Parse(tc.in)
		pe := asPgErr(t, err)
		if pe.Code != "42601" || pe.Message != tc.msg || pe.Position != tc.pos {
			t.Errorf("Parse(%q) = %s %q @%d, want %q @%d", tc.in, pe.Code, pe.Message, pe.Position, tc.msg, tc.pos)
		}
	}
}
