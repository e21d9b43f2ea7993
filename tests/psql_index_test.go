package tests

import (
	"strings"
	"testing"
)

// psql's \d and \di describe indexes from pg_class (relkind 'i'),
// pg_index and pg_get_indexdef: the same text as PostgreSQL 15 prints for
// the same schema (TestPsqlMetaIndexesPostgres checks it there).

const psqlIndexSetup = `CREATE TABLE t (id int PRIMARY KEY, a int, b text, c numeric);
INSERT INTO t VALUES (1, 1, 'x', 1.5), (2, 2, 'y', NULL);
CREATE INDEX ON t (a);
CREATE INDEX t_b ON t (b DESC, a) INCLUDE (c);
CREATE INDEX ON t (a NULLS FIRST, b DESC NULLS LAST);
CREATE TABLE u (x int, y text);
CREATE INDEX ON u (y);
CREATE MATERIALIZED VIEW mv AS SELECT a, count(*) AS n FROM t GROUP BY a;
CREATE INDEX ON mv (n);
`

var psqlIndexCases = []psqlMetaCase{
	{cmds: []string{`\d t`}, pg: true, want: `                 Table "public.t"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 id     | integer |           | not null | 
 a      | integer |           |          | 
 b      | text    |           |          | 
 c      | numeric |           |          | 
Indexes:
    "t_pkey" PRIMARY KEY, btree (id)
    "t_a_b_idx" btree (a NULLS FIRST, b DESC NULLS LAST)
    "t_a_idx" btree (a)
    "t_b" btree (b DESC, a) INCLUDE (c)

`},
	{cmds: []string{`\d u`, `\d mv`}, pg: true, want: `                 Table "public.u"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 x      | integer |           |          | 
 y      | text    |           |          | 
Indexes:
    "u_y_idx" btree (y)

           Materialized view "public.mv"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 a      | integer |           |          | 
 n      | bigint  |           |          | 
Indexes:
    "mv_n_idx" btree (n)

`},
	{cmds: []string{`\di`}, pg: true, want: `              List of relations
 Schema |   Name    | Type  | Owner  | Table 
--------+-----------+-------+--------+-------
 public | mv_n_idx  | index | tester | mv
 public | t_a_b_idx | index | tester | t
 public | t_a_idx   | index | tester | t
 public | t_b       | index | tester | t
 public | t_pkey    | index | tester | t
 public | u_y_idx   | index | tester | u
(6 rows)

`},
	{cmds: []string{`\d t_b`, `\d+ t_a_idx`}, pg: true, want: `          Index "public.t_b"
 Column |  Type   | Key? | Definition 
--------+---------+------+------------
 b      | text    | yes  | b
 a      | integer | yes  | a
 c      | numeric | no   | c
btree, for table "public.t"

                    Index "public.t_a_idx"
 Column |  Type   | Key? | Definition | Storage | Stats target 
--------+---------+------+------------+---------+--------------
 a      | integer | yes  | a          | plain   | 
btree, for table "public.t"

`},
	{cmds: []string{`DROP INDEX t_a_idx`, `DROP TABLE u`, `\di`}, pg: true, want: `DROP INDEX
DROP TABLE
              List of relations
 Schema |   Name    | Type  | Owner  | Table 
--------+-----------+-------+--------+-------
 public | mv_n_idx  | index | tester | mv
 public | t_a_b_idx | index | tester | t
 public | t_b       | index | tester | t
 public | t_pkey    | index | tester | t
(4 rows)

`},
}

// TestPsqlMetaIndexes runs psql's \d and \di over indexes on streamdb.
func TestPsqlMetaIndexes(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	if out := runPsql(t, port, psqlIndexSetup); strings.Count(out, "CREATE INDEX") != 5 {
		t.Fatalf("setup: %s", out)
	}
	checkPsqlMeta(t, port, psqlIndexCases)
}

// TestPsqlMetaIndexesPostgres checks the expected outputs against
// PostgreSQL 15, when it is installed.
func TestPsqlMetaIndexesPostgres(t *testing.T) {
	requirePsql(t)
	pg := startPostgres(t)
	pgSetupTester(t, pg)
	if out := runPsql(t, pg.port, psqlIndexSetup); strings.Count(out, "CREATE INDEX") != 5 {
		t.Fatalf("setup: %s", out)
	}
	checkPsqlMeta(t, pg.port, psqlIndexCases)
}
