package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The psql meta-commands (\d and friends) run catalog queries against
// pg_catalog; these tests drive the real psql 15 through them and compare
// what it prints with what it prints for PostgreSQL 15 with the same
// schema. The expected texts below were taken from PostgreSQL 15; when a
// PostgreSQL server is installed, TestPsqlMetaPostgres checks them again
// against it.

// psqlMetaSetup is the schema both servers describe.
const psqlMetaSetup = `CREATE TABLE t (id int PRIMARY KEY, name text, amount numeric(10,2));
INSERT INTO t VALUES (1, 'a', 1.50), (2, 'b', NULL), (3, NULL, 2.25);
CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n, sum(amount) AS total FROM t;
`

// psqlMetaCase is one psql invocation: its -c commands and its output.
type psqlMetaCase struct {
	cmds []string
	want string
	// pg is set when PostgreSQL prints the same; streamdb-only cases
	// differ where streamdb differs by design (one database, its
	// streamdb_catalog schema, view definitions kept as written).
	pg bool
}

var psqlMetaCases = []psqlMetaCase{
	{cmds: []string{`\d`}, pg: true, want: `             List of relations
 Schema | Name |       Type        | Owner  
--------+------+-------------------+--------
 public | mv   | materialized view | tester
 public | t    | table             | tester
(2 rows)

`},
	{cmds: []string{`\dt`}, pg: true, want: `       List of relations
 Schema | Name | Type  | Owner  
--------+------+-------+--------
 public | t    | table | tester
(1 row)

`},
	{cmds: []string{`\dv`}, pg: true, want: "Did not find any relations.\n"},
	{cmds: []string{`\dm`}, pg: true, want: `             List of relations
 Schema | Name |       Type        | Owner  
--------+------+-------------------+--------
 public | mv   | materialized view | tester
(1 row)

`},
	{cmds: []string{`\di`}, pg: true, want: `            List of relations
 Schema |  Name  | Type  | Owner  | Table 
--------+--------+-------+--------+-------
 public | t_pkey | index | tester | t
(1 row)

`},
	{cmds: []string{`\dn public`}, pg: true, want: `      List of schemas
  Name  |       Owner       
--------+-------------------
 public | pg_database_owner
(1 row)

`},
	{cmds: []string{`\l dev`}, pg: true, want: `                                       List of databases
 Name | Owner  | Encoding | Collate | Ctype | ICU Locale | Locale Provider | Access privileges 
------+--------+----------+---------+-------+------------+-----------------+-------------------
 dev  | tester | UTF8     | C       | C     |            | libc            | 
(1 row)

`},
	{cmds: []string{`\d t`}, pg: true, want: `                    Table "public.t"
 Column |     Type      | Collation | Nullable | Default 
--------+---------------+-----------+----------+---------
 id     | integer       |           | not null | 
 name   | text          |           |          | 
 amount | numeric(10,2) |           |          | 
Indexes:
    "t_pkey" PRIMARY KEY, btree (id)

`},
	{cmds: []string{`\d mv`}, pg: true, want: `           Materialized view "public.mv"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 n      | bigint  |           |          | 
 total  | numeric |           |          | 

`},
	{cmds: []string{`\d+ t`}, pg: true, want: `                                               Table "public.t"
 Column |     Type      | Collation | Nullable | Default | Storage  | Compression | Stats target | Description 
--------+---------------+-----------+----------+---------+----------+-------------+--------------+-------------
 id     | integer       |           | not null |         | plain    |             |              | 
 name   | text          |           |          |         | extended |             |              | 
 amount | numeric(10,2) |           |          |         | main     |             |              | 
Indexes:
    "t_pkey" PRIMARY KEY, btree (id)
Access method: heap

`},
	{cmds: []string{`\d public.t`, `\d nope`}, pg: true, want: `                    Table "public.t"
 Column |     Type      | Collation | Nullable | Default 
--------+---------------+-----------+----------+---------
 id     | integer       |           | not null | 
 name   | text          |           |          | 
 amount | numeric(10,2) |           |          | 
Indexes:
    "t_pkey" PRIMARY KEY, btree (id)

Did not find any relation named "nope".
`},
	{cmds: []string{`\x`, `\d t`, `\dm`, `SELECT * FROM mv`}, pg: true, want: `Expanded display is on.
                    Table "public.t"
 Column |     Type      | Collation | Nullable | Default 
--------+---------------+-----------+----------+---------
 id     | integer       |           | not null | 
 name   | text          |           |          | 
 amount | numeric(10,2) |           |          | 
Indexes:
    "t_pkey" PRIMARY KEY, btree (id)

List of relations
-[ RECORD 1 ]-------------
Schema | public
Name   | mv
Type   | materialized view
Owner  | tester

-[ RECORD 1 ]
n     | 3
total | 3.75

`},
	{cmds: []string{`\timing on`, `SELECT 1 AS one`, `\timing off`}, pg: true, want: `Timing is on.
 one 
-----
   1
(1 row)

Time: N ms
Timing is off.
`},
	{cmds: []string{`\du tester`}, pg: true, want: `                                   List of roles
 Role name |                         Attributes                         | Member of 
-----------+------------------------------------------------------------+-----------
 tester    | Superuser, Create role, Create DB, Replication, Bypass RLS | {}

`},
	{cmds: []string{`\dT`, `\df`, `\ds`}, pg: true, want: `     List of data types
 Schema | Name | Description 
--------+------+-------------
(0 rows)

                       List of functions
 Schema | Name | Result data type | Argument data types | Type 
--------+------+------------------+---------------------+------
(0 rows)

Did not find any relations.
`},
	// Built-in functions, operators, casts and types (pg_proc,
	// pg_operator, pg_cast, pg_type with pg_description).
	{cmds: []string{`\df abs`, `\df make_date`, `\df concat`}, pg: true, want: `                         List of functions
   Schema   | Name | Result data type | Argument data types | Type 
------------+------+------------------+---------------------+------
 pg_catalog | abs  | bigint           | bigint              | func
 pg_catalog | abs  | double precision | double precision    | func
 pg_catalog | abs  | integer          | integer             | func
 pg_catalog | abs  | numeric          | numeric             | func
 pg_catalog | abs  | real             | real                | func
 pg_catalog | abs  | smallint         | smallint            | func
(6 rows)

                                      List of functions
   Schema   |   Name    | Result data type |           Argument data types            | Type 
------------+-----------+------------------+------------------------------------------+------
 pg_catalog | make_date | date             | year integer, month integer, day integer | func
(1 row)

                          List of functions
   Schema   |  Name  | Result data type | Argument data types | Type 
------------+--------+------------------+---------------------+------
 pg_catalog | concat | text             | VARIADIC "any"      | func
(1 row)

`},
	// Argument types select among the functions of a name (proargtypes[0]:
	// an oidvector subscripts from 0).
	{cmds: []string{`\df lower text`, `\df make_date integer`}, pg: true, want: `                         List of functions
   Schema   | Name  | Result data type | Argument data types | Type 
------------+-------+------------------+---------------------+------
 pg_catalog | lower | text             | text                | func
(1 row)

                                      List of functions
   Schema   |   Name    | Result data type |           Argument data types            | Type 
------------+-----------+------------------+------------------------------------------+------
 pg_catalog | make_date | date             | year integer, month integer, day integer | func
(1 row)

`},
	{cmds: []string{`\da count`}, pg: true, want: `                                                  List of aggregate functions
   Schema   | Name  | Result data type | Argument data types |                           Description                           
------------+-------+------------------+---------------------+-----------------------------------------------------------------
 pg_catalog | count | bigint           | "any"               | number of input rows for which the input expression is not null
 pg_catalog | count | bigint           | *                   | number of input rows
(2 rows)

`},
	// pg_aggregate, its functions (regproc) and types.
	{cmds: []string{`SELECT p.proname, a.aggtranstype::regtype FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid WHERE a.aggfnoid::oid IN (2101, 2104, 2116, 2147, 2335, 2803) ORDER BY 1, 2`,
		`SELECT aggfnoid, aggtransfn, aggcombinefn, aggminvtransfn, aggsortop, agginitval FROM pg_aggregate WHERE aggfnoid::oid IN (2116, 2803) ORDER BY aggfnoid::oid`}, pg: true, want: `  proname  |    aggtranstype    
-----------+--------------------
 array_agg | internal
 avg       | bigint[]
 avg       | double precision[]
 count     | bigint
 count     | bigint
 max       | integer
(6 rows)

     aggfnoid     | aggtransfn | aggcombinefn | aggminvtransfn | aggsortop | agginitval 
------------------+------------+--------------+----------------+-----------+------------
 pg_catalog.max   | int4larger | int4larger   | -              |       521 | 
 pg_catalog.count | int8inc    | int8pl       | int8dec        |         0 | 0
(2 rows)

`},
	{cmds: []string{`\do %`, `\do || text text`, `\do - bigint`}, pg: true, want: `                               List of operators
   Schema   | Name | Left arg type | Right arg type | Result type | Description 
------------+------+---------------+----------------+-------------+-------------
 pg_catalog | %    | bigint        | bigint         | bigint      | modulus
 pg_catalog | %    | integer       | integer        | integer     | modulus
 pg_catalog | %    | numeric       | numeric        | numeric     | modulus
 pg_catalog | %    | smallint      | smallint       | smallint    | modulus
(4 rows)

                               List of operators
   Schema   | Name | Left arg type | Right arg type | Result type | Description 
------------+------+---------------+----------------+-------------+-------------
 pg_catalog | ||   | text          | text           | text        | concatenate
(1 row)

                               List of operators
   Schema   | Name | Left arg type | Right arg type | Result type | Description 
------------+------+---------------+----------------+-------------+-------------
 pg_catalog | -    |               | bigint         | bigint      | negate
(1 row)

`},
	{cmds: []string{`\dC date`, `\dC regtype`}, pg: true, want: `                                      List of casts
         Source type         |         Target type         |  Function   |   Implicit?   
-----------------------------+-----------------------------+-------------+---------------
 date                        | timestamp with time zone    | timestamptz | yes
 date                        | timestamp without time zone | timestamp   | yes
 timestamp with time zone    | date                        | date        | in assignment
 timestamp without time zone | date                        | date        | in assignment
(4 rows)

                         List of casts
 Source type | Target type |      Function      |   Implicit?   
-------------+-------------+--------------------+---------------
 bigint      | regtype     | oid                | yes
 integer     | regtype     | (binary coercible) | yes
 oid         | regtype     | (binary coercible) | yes
 regtype     | bigint      | int8               | in assignment
 regtype     | integer     | (binary coercible) | in assignment
 regtype     | oid         | (binary coercible) | yes
 smallint    | regtype     | int4               | yes
(7 rows)

`},
	{cmds: []string{`\dT integer`, `\sf make_date`}, pg: true, want: `                           List of data types
   Schema   |  Name   |                   Description                   
------------+---------+-------------------------------------------------
 pg_catalog | integer | -2 billion to 2 billion integer, 4-byte storage
(1 row)

CREATE OR REPLACE FUNCTION pg_catalog.make_date(year integer, month integer, day integer)
 RETURNS date
 LANGUAGE internal
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$make_date$function$
`},
	// PostgreSQL has more functions and operators of these names, and
	// its built-in functions are owned by its bootstrap superuser.
	{cmds: []string{`\df lower`, `\do ||`}, want: `                         List of functions
   Schema   | Name  | Result data type | Argument data types | Type 
------------+-------+------------------+---------------------+------
 pg_catalog | lower | text             | text                | func
(1 row)

                                                   List of operators
   Schema   | Name |   Left arg type    |   Right arg type   |    Result type     |             Description             
------------+------+--------------------+--------------------+--------------------+-------------------------------------
 pg_catalog | ||   | anycompatible      | anycompatiblearray | anycompatiblearray | prepend element onto front of array
 pg_catalog | ||   | anycompatiblearray | anycompatible      | anycompatiblearray | append element onto end of array
 pg_catalog | ||   | anycompatiblearray | anycompatiblearray | anycompatiblearray | concatenate
 pg_catalog | ||   | anynonarray        | text               | text               | concatenate
 pg_catalog | ||   | bytea              | bytea              | bytea              | concatenate
 pg_catalog | ||   | jsonb              | jsonb              | jsonb              | concatenate
 pg_catalog | ||   | text               | anynonarray        | text               | concatenate
 pg_catalog | ||   | text               | text               | text               | concatenate
(8 rows)

`},
	{cmds: []string{`\df+ round`}, want: `                                                                                           List of functions
   Schema   | Name  | Result data type | Argument data types | Type | Volatility | Parallel | Owner  | Security | Access privileges | Language |     Source code     |           Description            
------------+-------+------------------+---------------------+------+------------+----------+--------+----------+-------------------+----------+---------------------+----------------------------------
 pg_catalog | round | double precision | double precision    | func | immutable  | safe     | tester | invoker  |                   | internal | dround              | round to nearest integer
 pg_catalog | round | numeric          | numeric             | func | immutable  | safe     | tester | invoker  |                   | sql      | RETURN round($1, 0) | value rounded to 'scale' of zero
 pg_catalog | round | numeric          | numeric, integer    | func | immutable  | safe     | tester | invoker  |                   | internal | numeric_round       | value rounded to 'scale'
(3 rows)

`},
	// streamdb has one database and a streamdb_catalog schema.
	{cmds: []string{`\dn`}, want: `           List of schemas
       Name       |       Owner       
------------------+-------------------
 public           | pg_database_owner
 streamdb_catalog | tester
(2 rows)

`},
	{cmds: []string{`\l`}, want: `                                       List of databases
 Name | Owner  | Encoding | Collate | Ctype | ICU Locale | Locale Provider | Access privileges 
------+--------+----------+---------+-------+------------+-----------------+-------------------
 dev  | tester | UTF8     | C       | C     |            | libc            | 
(1 row)

`},
	// The view's query is kept as written (PostgreSQL prints its own
	// rendering of the parsed query).
	{cmds: []string{`\d+ mv`}, want: `                                     Materialized view "public.mv"
 Column |  Type   | Collation | Nullable | Default | Storage | Compression | Stats target | Description 
--------+---------+-----------+----------+---------+---------+-------------+--------------+-------------
 n      | bigint  |           |          |         | plain   |             |              | 
 total  | numeric |           |          |         | main    |             |              | 
View definition:
 SELECT count(*) AS n, sum(amount) AS total FROM t;
Access method: heap

`},
	{cmds: []string{`\dt+`}, want: `                                 List of relations
 Schema | Name | Type  | Owner  | Persistence | Access method | Size | Description 
--------+------+-------+--------+-------------+---------------+------+-------------
 public | t    | table | tester | permanent   | heap          |      | 
(1 row)

`},
}

var psqlTiming = regexp.MustCompile(`Time: [0-9.]+ ms`)

// psqlCommands runs psql with one -c per command against the server on
// port, as user tester on database dev, and returns what it printed
// (timings masked).
func psqlCommands(t *testing.T, port int, cmds ...string) string {
	t.Helper()
	args := []string{"-X", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "tester", "-d", "dev"}
	for _, c := range cmds {
		args = append(args, "-c", c)
	}
	cmd := exec.Command(psqlPath, args...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PAGER=cat", "PSQL_PAGER=cat")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Logf("psql %q exited: %v", cmds, err)
	}
	return psqlTiming.ReplaceAllString(out.String(), "Time: N ms")
}

func checkPsqlMeta(t *testing.T, port int, cases []psqlMetaCase) {
	t.Helper()
	for _, c := range cases {
		if got := psqlCommands(t, port, c.cmds...); got != c.want {
			t.Errorf("psql %q output differs\n--- got\n%s--- want\n%s", c.cmds, got, c.want)
		}
	}
}

// TestPsqlMeta runs psql's meta-commands against streamdb.
func TestPsqlMeta(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	if out := runPsql(t, port, psqlMetaSetup); out != "CREATE TABLE\nINSERT 0 3\nCREATE MATERIALIZED VIEW\n" {
		t.Fatalf("setup: %s", out)
	}
	checkPsqlMeta(t, port, psqlMetaCases)
}

// TestPsqlMetaSource describes a source, which pg_catalog shows as a
// foreign table of the connector's server.
func TestPsqlMetaSource(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	mustExec(t, db, "CREATE SOURCE s (x int, y text) WITH (connector = 'datagen', fields.x.kind = 'sequence', datagen.rows.per.second = 1)")
	checkPsqlMeta(t, port, []psqlMetaCase{
		{cmds: []string{`\d`}, want: `           List of relations
 Schema | Name |     Type      | Owner  
--------+------+---------------+--------
 public | s    | foreign table | tester
(1 row)

`},
		{cmds: []string{`\d s`}, want: `                    Foreign table "public.s"
 Column |  Type   | Collation | Nullable | Default | FDW options 
--------+---------+-----------+----------+---------+-------------
 x      | integer |           |          |         | 
 y      | text    |           |          |         | 
Server: datagen
FDW options: (connector 'datagen', "datagen.rows.per.second" '1', "fields.x.kind" 'sequence')

`},
	})
}

// TestPsqlMetaPostgres checks the expected outputs that claim to be
// PostgreSQL's against a PostgreSQL 15 server, when one is installed.
func TestPsqlMetaPostgres(t *testing.T) {
	requirePsql(t)
	pg := startPostgres(t)
	pgSetupTester(t, pg)
	if out := runPsql(t, pg.port, psqlMetaSetup); !strings.Contains(out, "SELECT 1") {
		t.Fatalf("setup: %s", out)
	}
	var same []psqlMetaCase
	for _, c := range psqlMetaCases {
		if c.pg {
			same = append(same, c)
		}
	}
	checkPsqlMeta(t, pg.port, same)
}

// pgSetupTester creates the role and database the psql tests connect as.
func pgSetupTester(t *testing.T, pg *pgServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pg.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, s := range []string{
		"CREATE ROLE tester LOGIN SUPERUSER CREATEROLE CREATEDB REPLICATION BYPASSRLS",
		"CREATE DATABASE dev OWNER tester TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'",
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// psqlCompletionQueries are the catalog queries psql 15's tab completion
// sends (captured from a PostgreSQL server's statement log), with the
// rows streamdb answers for the test schema (each row's columns joined
// by |, sorted).
var psqlCompletionQueries = []struct{ query, want string }{
	// SELECT * FROM <tab>
	{`SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE '%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
	UNION ALL
	SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE '%' AND n.nspname NOT LIKE E'pg\\_%'
	LIMIT 1000`, "mv|\nt|\n|information_schema\n|public\n|streamdb_catalog"},
	// \dm m<tab>
	{`SELECT c.relname, NULL::pg_catalog.text FROM pg_catalog.pg_class c WHERE c.relkind IN ('m') AND (c.relname) LIKE 'm%' AND pg_catalog.pg_table_is_visible(c.oid) AND c.relnamespace <> (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog')
	UNION ALL
	SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'm%' AND n.nspname NOT LIKE E'pg\\_%'
	LIMIT 1000`, "mv|"},
	// SELECT id FROM t WHERE <tab>
	{`SELECT a.attname, NULL::pg_catalog.text FROM pg_catalog.pg_attribute a, pg_catalog.pg_class c WHERE c.oid = a.attrelid and a.attnum > 0 and not a.attisdropped AND (a.attname) LIKE '%' AND c.relname = 't' AND pg_catalog.pg_table_is_visible(c.oid)
	LIMIT 1000`, "amount|\nid|\nname|"},
	// SELECT * FROM pg_catalog.pg_cl<tab>
	{`SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE 'pg\_cl%' AND n.nspname = 'pg_catalog'
	LIMIT 1000`, "pg_class|pg_catalog"},
	// SELECT * FROM public.<tab>
	{`SELECT c.relname, n.nspname FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p') AND (c.relname) LIKE '%' AND n.nspname = 'public'
	LIMIT 1000`, "mv|public\nt|public"},
	// \c <tab>
	{`SELECT datname FROM pg_catalog.pg_database  WHERE datname LIKE '%'
	LIMIT 1000`, "dev"},
	// SET search<tab>
	{`SELECT pg_catalog.lower(name) FROM pg_catalog.pg_settings  WHERE context IN ('user', 'superuser')    AND pg_catalog.lower(name) LIKE pg_catalog.lower('search%')
	LIMIT 1000`, "search_path"},
	// ALTER ROLE <tab>
	{` SELECT rolname    FROM pg_catalog.pg_roles   WHERE rolname LIKE 't%'
	LIMIT 1000`, "tester"},
	// \dT int<tab>
	{`SELECT t.typname, NULL::pg_catalog.text FROM pg_catalog.pg_type t WHERE (t.typrelid = 0  OR (SELECT c.relkind = 'c'     FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid)) AND t.typname !~ '^_' AND (t.typname) LIKE 'int%' AND pg_catalog.pg_type_is_visible(t.oid)
	UNION ALL
	SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'int%' AND n.nspname NOT LIKE E'pg\\_%'
	LIMIT 1000`, "int2vector|\nint2|\nint4|\nint8|\ninternal|\ninterval|"},
	// \df <tab>: streamdb has no user-defined functions.
	{`SELECT p.proname, NULL::pg_catalog.text FROM pg_catalog.pg_proc p WHERE p.prokind != 'p' AND (p.proname) LIKE 'x%' AND pg_catalog.pg_function_is_visible(p.oid)
	UNION ALL
	SELECT NULL::pg_catalog.text, n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname LIKE 'x%' AND n.nspname NOT LIKE E'pg\\_%'
	LIMIT 1000`, ""},
}

// TestPsqlCompletionQueries runs the queries psql's tab completion sends,
// over the simple query protocol as psql does.
func TestPsqlCompletionQueries(t *testing.T) {
	db := openMem(t)
	for _, s := range strings.Split(strings.TrimSpace(psqlMetaSetup), "\n") {
		mustExec(t, db, s)
	}
	port := startServer(t, db)
	conn := connectSimple(t, port)
	for _, q := range psqlCompletionQueries {
		rows, err := conn.Query(context.Background(), q.query)
		if err != nil {
			t.Errorf("%s: %v", q.query, err)
			continue
		}
		var got []string
		for rows.Next() {
			var parts []string
			for _, v := range rows.RawValues() {
				parts = append(parts, string(v))
			}
			got = append(got, strings.Join(parts, "|"))
		}
		if err := rows.Err(); err != nil {
			t.Errorf("%s: %v", q.query, err)
			continue
		}
		sort.Strings(got)
		if g := strings.Join(got, "\n"); g != q.want {
			t.Errorf("%s\n got %q\nwant %q", q.query, g, q.want)
		}
	}
}

func connectSimple(t *testing.T, port int) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://tester@127.0.0.1:%d/dev?sslmode=disable", port))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestPsqlTabCompletion types into an interactive psql (on a pseudo
// terminal, through script(1)) and checks that completing a table and a
// column name produces a query that runs.
func TestPsqlTabCompletion(t *testing.T) {
	requirePsql(t)
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("skipping: script(1) is not installed")
	}
	db := openMem(t)
	port := startServer(t, db)
	runPsql(t, port, psqlMetaSetup)
	psql := fmt.Sprintf("%s -X -h 127.0.0.1 -p %d -U tester -d dev", psqlPath, port)
	cmd := exec.Command(script, "-qec", psql, "/dev/null")
	cmd.Env = append(os.Environ(), "PAGER=cat", "TERM=dumb")
	cmd.Stdin = strings.NewReader("SELECT n FROM m\t;\nSELECT id FROM t WHERE am\t> 2;\n\\q\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() { <-ctx.Done(); _ = cmd.Process.Kill() }()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("script: %v", err)
	}
	got := strings.ReplaceAll(string(out), "\r", "")
	for _, want := range []string{"SELECT n FROM mv ;", "\n 3\n(1 row)", "SELECT id FROM t WHERE amount > 2;", "\n  3\n(1 row)"} {
		if !strings.Contains(got, want) {
			t.Errorf("interactive psql output lacks %q:\n%s", want, got)
		}
	}
}

// TestCatalogQueryErrors checks that catalog objects streamdb lacks give
// the SQLSTATE PostgreSQL gives a missing object, not a failure of the
// server.
func TestCatalogQueryErrors(t *testing.T) {
	db := openMem(t)
	port := startServer(t, db)
	conn := connectSimple(t, port)
	for _, c := range []struct{ query, code string }{
		{`SELECT * FROM pg_catalog.pg_stat_activity`, "42P01"},
		{`SELECT * FROM information_schema.routines`, "42P01"},
		{`SELECT pg_catalog.pg_current_wal_lsn()`, "42883"},
		{`SELECT 'nope'::regclass`, "42P01"},
		{`SELECT 'nope'::regtype`, "42704"},
		{`SELECT nope.f()`, "3F000"},
		{`SELECT '{1,{2}}'::int[]`, "22P02"}, // malformed: a scalar beside a sub-array, as in PostgreSQL
		{`SELECT 'x' ~ '('`, "2201B"},
		{`SELECT c.oid + 1 FROM pg_class c`, "42883"},
		{`SELECT (SELECT relname FROM pg_class)`, "21000"},
		{`SELECT 1 = ANY (1)`, "42809"},
		{`CREATE MATERIALIZED VIEW v AS SELECT relname FROM pg_class`, "0A000"},
		{`DELETE FROM pg_catalog.pg_class`, "42809"},
	} {
		_, err := conn.Exec(context.Background(), c.query)
		var pe *pgconn.PgError
		switch {
		case err == nil:
			t.Errorf("%s: no error, want %s", c.query, c.code)
		case !errors.As(err, &pe):
			t.Errorf("%s: %v, want SQLSTATE %s", c.query, err, c.code)
		case pe.Code != c.code:
			t.Errorf("%s: %s %s, want SQLSTATE %s", c.query, pe.Code, pe.Message, c.code)
		}
	}
	// The connection is still good.
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_catalog.pg_namespace").Scan(&n); err != nil || n != 4 {
		t.Errorf("after errors: %d, %v", n, err)
	}
}
