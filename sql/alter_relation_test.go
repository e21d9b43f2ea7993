package sql

import (
	"reflect"
	"testing"
)

func TestParseAlterRelation(t *testing.T) {
	for q, want := range map[string]*AlterRelationStmt{
		"alter table t add column c int": {Kind: ObjTable, Name: "t", Action: AlterAddColumn,
			Def: ColumnDef{Name: "c", TypeName: "int"}},
		"ALTER TABLE IF EXISTS s.t ADD IF NOT EXISTS c text NOT NULL": {Kind: ObjTable, Name: "s.t", IfExists: true,
			Action: AlterAddColumn, IfNotExists: true, Def: ColumnDef{Name: "c", TypeName: "text", NotNull: true}},
		"alter table t drop c":                          {Kind: ObjTable, Name: "t", Action: AlterDropColumn, Column: "c"},
		"alter table t drop column if exists c cascade": {Kind: ObjTable, Name: "t", Action: AlterDropColumn, Column: "c", ColumnIfExists: true, Cascade: true},
		"alter table t drop column c restrict":          {Kind: ObjTable, Name: "t", Action: AlterDropColumn, Column: "c"},
		"alter table t rename column a to b":            {Kind: ObjTable, Name: "t", Action: AlterRenameColumn, Column: "a", NewName: "b"},
		"alter table t rename a to b":                   {Kind: ObjTable, Name: "t", Action: AlterRenameColumn, Column: "a", NewName: "b"},
		"alter table t rename to u":                     {Kind: ObjTable, Name: "t", Action: AlterRename, NewName: "u"},
		`alter table t rename to "U"`:                   {Kind: ObjTable, Name: "t", Action: AlterRename, NewName: "U"},
		"alter materialized view v rename to w":         {Kind: ObjMaterializedView, Name: "v", Action: AlterRename, NewName: "w"},
		"alter view v rename column a to b":             {Kind: ObjView, Name: "v", Action: AlterRenameColumn, Column: "a", NewName: "b"},
		"alter index i rename to j":                     {Kind: ObjIndex, Name: "i", Action: AlterRename, NewName: "j"},
		"alter sink k rename to j":                      {Kind: ObjSink, Name: "k", Action: AlterRename, NewName: "j"},
		"alter source s rename to j":                    {Kind: ObjSource, Name: "s", Action: AlterRename, NewName: "j"},
		"alter table t alter column c drop default":     {Kind: ObjTable, Name: "t", Action: AlterDropDefault, Column: "c"},
		"alter table t alter c set not null":            {Kind: ObjTable, Name: "t", Action: AlterSetNotNull, Column: "c"},
		"alter table t alter column c drop not null":    {Kind: ObjTable, Name: "t", Action: AlterDropNotNull, Column: "c"},
		"alter table t alter column c type bigint":      {Kind: ObjTable, Name: "t", Action: AlterSetType, Column: "c", TypeName: "bigint"},
		"alter table t alter c drop expression if exists": {Kind: ObjTable, Name: "t", Action: AlterDropExpression, Column: "c",
			ColumnIfExists: true},
		"alter table t alter c set data type numeric(10, 2)": {Kind: ObjTable, Name: "t", Action: AlterSetType, Column: "c",
			TypeName: "numeric(10,2)"},
		`alter table t alter c type text collate "C"`: {Kind: ObjTable, Name: "t", Action: AlterSetType, Column: "c", TypeName: "text"},
	} {
		got, ok := parseOne(t, q).Node.(*AlterRelationStmt)
		if !ok {
			t.Errorf("%s: got %T", q, parseOne(t, q).Node)
			continue
		}
		if got.Def.Default != nil {
			t.Errorf("%s: unexpected default", q)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", q, got, want)
		}
	}
	st := parseOne(t, "alter table t alter column c set default 1 + 2").Node.(*AlterRelationStmt)
	if st.Action != AlterSetDefault || st.Default == nil || st.DefaultText != "1 + 2" {
		t.Errorf("SET DEFAULT: got %#v", st)
	}
	st = parseOne(t, "alter table t alter c type int using c::int + 1, alter d type text").Node.(*AlterRelationStmt)
	if st.Action != AlterSetType || st.Using == nil || st.UsingText != "c::int + 1" || len(st.More) != 1 ||
		st.More[0].Action != AlterSetType || st.More[0].TypeName != "text" || st.More[0].Using != nil {
		t.Errorf("TYPE ... USING: got %#v", st)
	}
	st = parseOne(t, "alter table t add c int default 'x' not null").Node.(*AlterRelationStmt)
	if st.Def.Default == nil || st.Def.DefaultText != "'x'" || !st.Def.NotNull {
		t.Errorf("ADD ... DEFAULT: got %#v", st.Def)
	}
	st = parseOne(t, "alter table t add a int, drop column b cascade, alter c set not null").Node.(*AlterRelationStmt)
	if st.Action != AlterAddColumn || len(st.More) != 2 || st.More[0].Action != AlterDropColumn || !st.More[0].Cascade ||
		st.More[1].Action != AlterSetNotNull || st.More[1].Column != "c" || st.More[1].Name != "t" {
		t.Errorf("several actions: got %#v", st)
	}
	st = parseOne(t, "alter table t add constraint c check (a > 0), add unique (a, b), drop constraint if exists x cascade").Node.(*AlterRelationStmt)
	if st.Action != AlterAddConstraint || st.Check == nil || st.Check.Name != "c" || st.Check.Text != "a > 0" || len(st.More) != 2 ||
		st.More[0].Unique == nil || !reflect.DeepEqual(st.More[0].Unique.Columns, []string{"a", "b"}) ||
		st.More[1].Action != AlterDropConstraint || st.More[1].Constraint != "x" || !st.More[1].ColumnIfExists || !st.More[1].Cascade {
		t.Errorf("constraints: got %#v", st)
	}
	for _, q := range []string{"alter table t add", "alter table t add primary key (a)", "alter table t drop constraint",
		"alter table t add foreign key (a) references u", "alter table t add unique nulls not distinct (a)",
		"alter table t alter column c type", "alter table t alter c type int using", "alter table t alter c type text collate \"de_DE\"",
		"alter table t add a int, rename b to c", "alter table t rename b to c, add a int", "alter view v pause",
		"alter index i rename column a to b", "alter table t rename column a", "alter table t drop column"} {
		_, err := NewParser().Parse(q)
		asPgErr(t, err)
	}
}
