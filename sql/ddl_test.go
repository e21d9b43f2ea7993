package sql

import (
	"reflect"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

func TestCreateTable(t *testing.T) {
	st := parseOne(t, `CREATE TABLE IF NOT EXISTS Orders (
		id bigint PRIMARY KEY,
		"Name" varchar(20) NOT NULL,
		price numeric(10, 2) DEFAULT 0 NOT NULL,
		ts timestamp with time zone DEFAULT now(),
		t2 TIMESTAMP WITHOUT TIME ZONE NULL,
		d double precision, f float8, r real, s smallint, i int, n decimal, b bool,
		cv character varying(5), txt text, dt date, iv interval, j int4 DEFAULT '1'::int
	) WITH (connector = 'kafka', Kafka.Topic = 'x', retention = 10, append_only)`)
	ct, ok := st.Node.(*CreateTableStmt)
	if !ok {
		t.Fatalf("node %T", st.Node)
	}
	if ct.Name != "orders" || !ct.IfNotExists || ct.PrimaryKey != nil {
		t.Errorf("header %+v", ct)
	}
	var types []string
	for _, c := range ct.Columns {
		types = append(types, c.TypeName)
	}
	want := []string{"bigint", "varchar(20)", "numeric(10,2)", "timestamp with time zone", "timestamp without time zone",
		"double precision", "float8", "real", "smallint", "int", "decimal", "bool", "character varying(5)", "text",
		"date", "interval", "int4"}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("types\n got %v\nwant %v", types, want)
	}
	if c := ct.Columns[0]; !c.PrimaryKey || c.Name != "id" {
		t.Errorf("id: %+v", c)
	}
	if c := ct.Columns[1]; !c.NotNull || c.Name != "Name" {
		t.Errorf("Name: %+v", c)
	}
	if c := ct.Columns[2]; !c.NotNull || c.Default == nil {
		t.Errorf("price: %+v", c)
	}
	if call, ok := ct.Columns[3].Default.(*ast.FuncCallExpr); !ok || call.FnName.L != "now" {
		t.Errorf("ts default %#v", ct.Columns[3].Default)
	}
	if call, ok := ct.Columns[16].Default.(*ast.FuncCallExpr); !ok || call.FnName.O != markerCast {
		t.Errorf("j default %#v", ct.Columns[16].Default)
	}
	wantWith := map[string]string{"connector": "kafka", "kafka.topic": "x", "retention": "10", "append_only": "true"}
	if !reflect.DeepEqual(ct.With, wantWith) {
		t.Errorf("with %v", ct.With)
	}
}

func TestCreateTableConstraints(t *testing.T) {
	ct := parseOne(t, `create table t (a int, b text, constraint pk primary key (a, b))`).Node.(*CreateTableStmt)
	if !reflect.DeepEqual(ct.PrimaryKey, []string{"a", "b"}) {
		t.Errorf("pk %v", ct.PrimaryKey)
	}
	for q, code := range map[string]string{
		`create table t (a int primary key, b int primary key)`: "42P16",
		`create table t (a int primary key, primary key (a))`:   "42P16",
		`create table t (a int unique)`:                         "0A000",
		`create table t (a int, check (a > 0))`:                 "0A000",
		`create table t (a int not)`:                            "42601",
		`create table t (a int,)`:                               "42601",
		`create table t as select 1`:                            "0A000",
		`create table t (a int) with (x = )`:                    "42601",
		`create table __sdb_t (a int)`:                          "42601",
		`create unique index i on t (a)`:                        "0A000",
	} {
		_, err := NewParser().Parse(q)
		if pe := asPgErr(t, err); pe.Code != code {
			t.Errorf("%s: got %s %s, want %s", q, pe.Code, pe.Message, code)
		}
	}
}

func TestCreateMaterializedView(t *testing.T) {
	q := `create materialized view if not exists MV (a, b) with (backfill_rate_limit = 100) as
	  select x::int, count(*) from generate_series(1, 3) g(x) group by 1`
	st := parseOne(t, q)
	mv := st.Node.(*CreateMaterializedViewStmt)
	if mv.Name != "mv" || !mv.IfNotExists || !reflect.DeepEqual(mv.Columns, []string{"a", "b"}) {
		t.Errorf("mv %+v", mv)
	}
	if mv.QueryText != "select x::int, count(*) from generate_series(1, 3) g(x) group by 1" {
		t.Errorf("query text %q", mv.QueryText)
	}
	if mv.With["backfill_rate_limit"] != "100" || mv.Query == nil || len(st.TableFuncs) != 1 {
		t.Errorf("mv %+v, funcs %v", mv, st.TableFuncs)
	}
	_, err := NewParser().Parse("create materialized view v as insert into t values (1)")
	asPgErr(t, err)
}

func TestDrop(t *testing.T) {
	for q, want := range map[string]DropStmt{
		"drop table t": {Kind: ObjTable, Names: []string{"t"}},
		"DROP MATERIALIZED VIEW IF EXISTS a, S.B CASCADE": {Kind: ObjMaterializedView, Names: []string{"a", "s.b"}, IfExists: true, Cascade: true},
		"drop view v restrict":                            {Kind: ObjView, Names: []string{"v"}},
		"drop source s":                                   {Kind: ObjSource, Names: []string{"s"}},
		"drop index i":                                    {Kind: ObjIndex, Names: []string{"i"}},
		"drop schema if exists s, t cascade":              {Kind: ObjSchema, Names: []string{"s", "t"}, IfExists: true, Cascade: true},
	} {
		got := parseOne(t, q).Node.(*DropStmt)
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s: %+v", q, *got)
		}
	}
	for _, q := range []string{"drop table", "drop table a b", "drop database s", "drop table if exists"} {
		_, err := NewParser().Parse(q)
		asPgErr(t, err)
	}
}

func TestCreateSchema(t *testing.T) {
	for q, want := range map[string]CreateSchemaStmt{
		"create schema s":                          {Name: "s"},
		"CREATE SCHEMA IF NOT EXISTS App":          {Name: "app", IfNotExists: true},
		`create schema "Mixed" authorization root`: {Name: "Mixed"},
	} {
		got := parseOne(t, q).Node.(*CreateSchemaStmt)
		if *got != want {
			t.Errorf("%s: %+v", q, *got)
		}
	}
	for _, q := range []string{"create schema", "create schema authorization root", "create schema s create table t (a int)"} {
		_, err := NewParser().Parse(q)
		asPgErr(t, err)
	}
}

func TestSetShow(t *testing.T) {
	for q, want := range map[string]Node{
		"show tables":                         &ShowStmt{What: "tables"},
		"SHOW MATERIALIZED VIEWS":             &ShowStmt{What: "materialized views"},
		"show jobs":                           &ShowStmt{What: "jobs"},
		"show all":                            &ShowStmt{What: "all"},
		"show Search_Path":                    &ShowStmt{What: "search_path"},
		"show time zone":                      &ShowStmt{What: "timezone"},
		"show transaction isolation level":    &ShowStmt{What: "transaction_isolation"},
		"set x = 1":                           &SetStmt{Name: "x", Value: "1"},
		"SET SESSION DateStyle TO 'ISO, MDY'": &SetStmt{Name: "datestyle", Value: "ISO, MDY"},
		"set local statement_timeout = -5":    &SetStmt{Name: "statement_timeout", Value: "-5", Local: true},
		"set search_path to public, 'a b'":    &SetStmt{Name: "search_path", Value: "public, 'a b'"},
		"set application_name = Foo":          &SetStmt{Name: "application_name", Value: "foo"},
		"set x to default":                    &SetStmt{Name: "x", Default: true},
		"set time zone 'UTC'":                 &SetStmt{Name: "timezone", Value: "UTC"},
		"set time zone local":                 &SetStmt{Name: "timezone", Default: true},
		"set names 'utf8'":                    &SetStmt{Name: "client_encoding", Value: "utf8"},
		"reset all":                           &SetStmt{Name: "all", Default: true},
		"begin":                               &TransactionStmt{Kind: "begin"},
		"BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY": &TransactionStmt{Kind: "begin"},
		"start transaction":                &TransactionStmt{Kind: "begin"},
		"commit work":                      &TransactionStmt{Kind: "commit"},
		"end":                              &TransactionStmt{Kind: "commit"},
		"rollback":                         &TransactionStmt{Kind: "rollback"},
		"abort transaction":                &TransactionStmt{Kind: "rollback"},
		"flush":                            &FlushStmt{},
		"wait":                             &WaitStmt{},
		"cancel jobs 1, 2":                 &CancelJobsStmt{IDs: []int64{1, 2}},
		"alter materialized view mv pause": &AlterStmt{Kind: ObjMaterializedView, Name: "mv", Action: AlterPause},
		"alter table t resume":             &AlterStmt{Kind: ObjTable, Name: "t", Action: AlterResume},
		"alter materialized view mv set parallelism = 4": &AlterStmt{Kind: ObjMaterializedView, Name: "mv", Action: AlterSetParallelism, Value: 4},
		"alter materialized view mv set backfill_rate_limit to default": &AlterStmt{Kind: ObjMaterializedView, Name: "mv",
			Action: AlterSetRateLimit, Param: "backfill_rate_limit", Default: true},
		"alter source s set source_rate_limit = 0": &AlterStmt{Kind: ObjSource, Name: "s", Action: AlterSetRateLimit, Param: "source_rate_limit"},
	} {
		got := parseOne(t, q).Node
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", q, got, want)
		}
	}
	for _, q := range []string{"set", "set x", "set x = ", "show", "show a b", "begin foo", "commit and chain",
		"rollback to savepoint a", "flush x", "set x = 1 2", "alter table t rename to", "cancel jobs", "set transaction read only"} {
		_, err := NewParser().Parse(q)
		asPgErr(t, err)
	}
}

func TestExplain(t *testing.T) {
	q := "EXPLAIN (verbose, format text) select * from generate_series(1, $1)"
	st := parseOne(t, q)
	ex := st.Node.(*ExplainStmt)
	if ex.Stmt.Text != "select * from generate_series(1, $1)" || ex.Stmt.Offset != 31 {
		t.Errorf("inner %q @%d", ex.Stmt.Text, ex.Stmt.Offset)
	}
	if _, ok := ex.Stmt.Node.(*SelectStmt); !ok || len(ex.Stmt.TableFuncs) != 1 || ex.Stmt.NumParams != 1 || st.NumParams != 1 {
		t.Errorf("inner %+v", ex.Stmt)
	}
	if _, ok := parseOne(t, "explain analyze create materialized view v as select 1").Node.(*ExplainStmt).Stmt.Node.(*CreateMaterializedViewStmt); !ok {
		t.Error("explain create mv")
	}
}
