package binder

import (
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/types"
)

// testCatalog is an in-memory catalog.Reader.
type testCatalog map[string]*catalog.Relation

func (c testCatalog) Relation(name string) (*catalog.Relation, bool) {
	r, ok := c[name]
	return r, ok
}

func (c testCatalog) RelationByID(id uint32) (*catalog.Relation, bool) {
	for _, r := range c {
		if r.ID == id {
			return r, true
		}
	}
	return nil, false
}

// newTestCatalog holds:
//
//	t(a integer primary key, b text, c numeric)
//	u(a integer, d text) with a hidden row id
//	e(x bigint, ts timestamp, v varchar(3))
//	mv: a materialized view (x bigint)
func newTestCatalog() testCatalog {
	col := func(name string, t types.Type) catalog.Column { return catalog.Column{Name: name, Type: t} }
	return testCatalog{
		"t": {ID: 1, Name: "t", Columns: []catalog.Column{
			{Name: "a", Type: types.TInt32, NotNull: true}, col("b", types.TText), col("c", types.TNumeric)}, PK: []int{0}},
		"u": {ID: 2, Name: "u", Columns: []catalog.Column{
			col("a", types.TInt32), col("d", types.TText), {Name: "_row_id", Type: types.TInt64, Hidden: true}},
			PK: []int{2}, RowID: true},
		"e": {ID: 3, Name: "e", Columns: []catalog.Column{
			col("x", types.TInt64), col("ts", types.TTimestamp), col("v", types.Type{ID: types.IDVarchar, Width: 3})}},
		"mv": {ID: 4, Name: "mv", Kind: catalog.KindMaterializedView, Columns: []catalog.Column{col("x", types.TInt64)}},
	}
}
