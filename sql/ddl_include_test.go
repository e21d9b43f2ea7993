package sql

import (
	"reflect"
	"testing"
)

func TestCreateTableInclude(t *testing.T) {
	st := parseOne(t, `CREATE TABLE t (id int, PRIMARY KEY (k)) INCLUDE KEY AS k INCLUDE partition
		INCLUDE offset AS "Off" INCLUDE header 'trace-id' varchar AS tr INCLUDE header 'x' INCLUDE header AS hs
		WITH (connector = 'kafka') FORMAT UPSERT ENCODE JSON`)
	ct := st.Node.(*CreateTableStmt)
	want := []IncludeDef{{Kind: "key", Alias: "k"}, {Kind: "partition"}, {Kind: "offset", Alias: "Off"},
		{Kind: "header", Header: "trace-id", TypeName: "varchar", Alias: "tr"}, {Kind: "header", Header: "x"},
		{Kind: "header", Alias: "hs"}}
	if !reflect.DeepEqual(ct.Includes, want) {
		t.Errorf("includes = %+v", ct.Includes)
	}
	if ct.Format != "upsert" || ct.Encode != "json" || !reflect.DeepEqual(ct.PrimaryKey, []string{"k"}) || ct.With["connector"] != "kafka" {
		t.Errorf("statement = %+v", ct)
	}
	st = parseOne(t, `CREATE TABLE t (id int) APPEND ONLY INCLUDE timestamp AS ts WITH (connector = 'kafka')`)
	if ct := st.Node.(*CreateTableStmt); !ct.AppendOnly || len(ct.Includes) != 1 || ct.Includes[0].Alias != "ts" {
		t.Errorf("APPEND ONLY INCLUDE: %+v", ct)
	}
	for _, q := range []string{
		`CREATE TABLE t (id int) INCLUDE`,
		`CREATE TABLE t (id int) INCLUDE key AS`,
		`CREATE TABLE t (id int) INCLUDE 'key'`,
	} {
		if _, err := NewParser().Parse(q); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}
