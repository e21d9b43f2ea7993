package binder

import (
	"strings"
	"testing"
)

// TestParamTypesFromCalls checks that function calls, CASE and the
// conditional expressions decide the types of unknown parameters, so a
// number is never described as text.
func TestParamTypesFromCalls(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"SELECT coalesce($1, a) FROM t", "integer"},
		{"SELECT coalesce($1, $2)", "text text"},
		{"SELECT greatest(a, $1), least($2, c) FROM t", "integer numeric"},
		{"SELECT nullif(a, $1) FROM t", "integer"},
		{"SELECT round(c, $1) FROM t", "integer"},
		{"SELECT round($1, 2)", "numeric"},
		{"SELECT substr(b, $1, $2) FROM t", "integer integer"},
		{"SELECT abs($1)", "double precision"},
		{"SELECT CASE WHEN $1 THEN a ELSE $2 END FROM t", "boolean integer"},
		{"SELECT CASE a WHEN $1 THEN 'x' END FROM t", "integer"},
		{"SELECT CASE WHEN a > 0 THEN $1 ELSE $2 END FROM t", "text text"},
		{"SELECT CASE WHEN a > 0 THEN $1 ELSE c END FROM t", "numeric"},
		{"INSERT INTO t (a, c) SELECT $1, $2", "integer numeric"},
		{"SELECT now() + $1, $2 + now()", "interval interval"},
		{"INSERT INTO t (c, a) SELECT $1, a + 1 FROM t", "numeric"},
	} {
		res, err := bindSQL(c.query, Options{})
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		var got []string
		for _, pt := range res.ParamTypes {
			got = append(got, pt.String())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: param types %v, want %s", c.query, got, c.want)
		}
	}
}
