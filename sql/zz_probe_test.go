package sql

import (
	"fmt"
	"testing"
)

func TestZZProbe(t *testing.T) {
	qs := []string{
		"SELECT count(*) AS groups FROM t",
		"SELECT key, value, rank, groups, window, status, position FROM t",
		"CREATE TABLE t (key int, value text, rank int, groups int, status text, position int)",
		"SELECT * FROM (SELECT 1, 2) AS s(p, q)",
		"VALUES (1, 'a'), (2, 'b')",
		"SELECT * FROM (VALUES (1), (2)) AS v(x)",
		"SELECT * FROM (VALUES (1), (2)) v",
		"SELECT (SELECT max(x) FROM t)",
		"SELECT x FROM t WHERE x IN (SELECT y FROM u)",
		"SELECT concat(a, b), a || b FROM t",
		"SELECT 1 AS interval",
		"SELECT 1 AS user",
		"SELECT * FROM user",
		"SELECT x AS rows, y AS row FROM t",
		"SELECT * FROM t AS of",
	}
	for _, q := range qs {
		txt, err := rewritten(t, q)
		_, perr := NewParser().Parse(q)
		fmt.Printf("%-60s => %q err=%v parse=%v\n", q, txt, err, perr)
	}
}
