package tests

import (
	"strings"
	"testing"
)

// TestUpdateFromChoice pins the documented choice where PostgreSQL's is
// unspecified: a target row that several FROM rows match is updated
// once, with the match giving the least result row (the new target row,
// then the FROM items' columns; NULL last), whatever the order the rows
// were written in; DELETE ... USING's RETURNING takes the least joined
// row the same way.
func TestUpdateFromChoice(t *testing.T) {
	for _, order := range []string{"('z'), ('b'), (NULL), ('m')", "(NULL), ('m'), ('b'), ('z')"} {
		db := openMem(t)
		mustExec(t, db, "CREATE TABLE t (id int PRIMARY KEY, v text)")
		mustExec(t, db, "CREATE TABLE u (w text)")
		mustExec(t, db, "INSERT INTO t VALUES (1, 'a'), (2, 'a')")
		mustExec(t, db, "INSERT INTO u VALUES "+order)
		got := queryRows(t, db, "UPDATE t SET v = u.w FROM u WHERE t.id = 1 RETURNING t.id, t.v, u.w")
		if strings.Join(got, ",") != "1|b|b" {
			t.Errorf("rows %s: UPDATE ... FROM returned %v, want [1|b|b]", order, got)
		}
		if got := queryRows(t, db, "SELECT * FROM t"); strings.Join(got, ",") != "1|b,2|a" {
			t.Errorf("rows %s: t = %v", order, got)
		}
		// Equal new rows: the FROM columns decide (RETURNING shows them).
		got = queryRows(t, db, "UPDATE t SET v = 'same' FROM u WHERE t.id = 2 RETURNING t.v, u.w")
		if strings.Join(got, ",") != "same|b" {
			t.Errorf("rows %s: UPDATE ... FROM returned %v, want [same|b]", order, got)
		}
		got = queryRows(t, db, "DELETE FROM t USING u WHERE t.id = 1 RETURNING t.id, u.w")
		if strings.Join(got, ",") != "1|b" {
			t.Errorf("rows %s: DELETE ... USING returned %v, want [1|b]", order, got)
		}
	}
}
