package sql

import (
	"reflect"
	"testing"
)

func TestCatalogStatements(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want Node
	}{
		{`SHOW CREATE MATERIALIZED VIEW s1."V"`, &ShowCreateStmt{Kind: ObjMaterializedView, Name: "s1.V"}},
		{`show create table t`, &ShowCreateStmt{Kind: ObjTable, Name: "t"}},
		{`SHOW CREATE VIEW v`, &ShowCreateStmt{Kind: ObjView, Name: "v"}},
		{`SHOW CREATE SOURCE s`, &ShowCreateStmt{Kind: ObjSource, Name: "s"}},
		{`SHOW CREATE SINK k`, &ShowCreateStmt{Kind: ObjSink, Name: "k"}},
		{`SHOW CREATE INDEX i`, &ShowCreateStmt{Kind: ObjIndex, Name: "i"}},
		{`DESCRIBE T`, &DescribeStmt{Name: "t"}},
		{`desc public.t`, &DescribeStmt{Name: "public.t"}},
		{`SHOW COLUMNS FROM t`, &DescribeStmt{Name: "t", ColumnsOnly: true}},
		{`SHOW INDEXES FROM t`, &ShowIndexesStmt{Name: "t"}},
		{`COMMENT ON TABLE t IS 'it''s'`, &CommentStmt{Kind: ObjTable, Name: "t", Text: "it's"}},
		{`COMMENT ON MATERIALIZED VIEW s.v IS NULL`, &CommentStmt{Kind: ObjMaterializedView, Name: "s.v", Null: true}},
		{`COMMENT ON COLUMN s.t."C" IS ''`, &CommentStmt{IsColumn: true, Name: "s.t", Column: "C", Null: true}},
		{`COMMENT ON COLUMN t.c IS E'a\nb'`, &CommentStmt{IsColumn: true, Name: "t", Column: "c", Text: "a\nb"}},
		{`TRUNCATE t`, &TruncateStmt{Names: []string{"t"}}},
		{`TRUNCATE TABLE ONLY t, s.u * RESTART IDENTITY CASCADE`, &TruncateStmt{Names: []string{"t", "s.u"}, RestartIdentity: true}},
		{`SHOW create`, &ShowStmt{What: "create"}},
	} {
		if got := parseOne(t, tc.q).Node; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.q, got, tc.want)
		}
	}
}

func TestCatalogStatementErrors(t *testing.T) {
	for _, q := range []string{
		`SHOW CREATE FUNCTION f`, `SHOW CREATE TABLE`, `SHOW CREATE TABLE t x`, `DESCRIBE`,
		`COMMENT ON TABLE t`, `COMMENT ON TABLE t IS 1`, `COMMENT ON COLUMN c IS 'x'`,
		`COMMENT ON FUNCTION f IS 'x'`, `TRUNCATE`, `TRUNCATE t,`, `SHOW INDEXES FROM`,
	} {
		if _, err := NewParser().Parse(q); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}
