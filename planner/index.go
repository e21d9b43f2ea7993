package planner

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
)

// An index is a materialized view (see catalog.Index for its layout):
// IndexRelation lays one out over a relation and PlanIndex gives its
// stream plan, a projection of the relation's columns that BuildViewJob
// maintains and backfills like any view's. Batch queries read it through
// index_access.go.

// IndexRelation returns the layout of an index on rel with the given key
// and INCLUDE columns (columns of rel): its columns, primary key,
// distribution and definition; the caller names and numbers it.
func IndexRelation(rel *catalog.Relation, keys []catalog.IndexKey, include []int) *catalog.Relation {
	ix := &catalog.Index{Table: rel.ID, Keys: slices.Clone(keys), Include: slices.Clone(include)}
	add := func(c int) int {
		if i := ix.StoredColumn(c); i >= 0 {
			return i
		}
		ix.Columns = append(ix.Columns, c)
		return len(ix.Columns) - 1
	}
	var pk []int
	for _, k := range keys {
		if i := add(k.Column); !slices.Contains(pk, i) {
			pk = append(pk, i)
		}
	}
	for _, c := range include {
		add(c)
	}
	for _, c := range rel.PK {
		if i := add(c); !slices.Contains(pk, i) {
			pk = append(pk, i)
		}
	}
	cols := make([]catalog.Column, len(ix.Columns))
	for i, c := range ix.Columns {
		tc := rel.Columns[c]
		cols[i] = catalog.Column{Name: tc.Name, Type: tc.Type, NotNull: tc.NotNull, Hidden: tc.Hidden}
	}
	return &catalog.Relation{Kind: catalog.KindIndex, Columns: cols, PK: pk, DistKey: []int{0},
		Deps: []uint32{rel.ID}, Index: ix}
}

// PlanIndex returns the stream plan of index idx over rel: rel's columns
// the index holds, keyed by the index's primary key.
func PlanIndex(rel, idx *catalog.Relation) (*ViewShape, error) {
	ix := idx.Index
	if ix == nil || ix.Table != rel.ID || len(ix.Columns) != len(idx.Columns) {
		return nil, fmt.Errorf("planner: %q is not an index on %q", idx.Name, rel.Name)
	}
	scan := ScanOf(rel)
	p := &Project{Input: scan}
	for i, c := range ix.Columns {
		if c < 0 || c >= len(rel.Columns) || rel.Columns[c].Type != idx.Columns[i].Type {
			return nil, fmt.Errorf("planner: index %q no longer matches the columns of %q", idx.Name, rel.Name)
		}
		col := scan.Cols[c]
		p.Exprs = append(p.Exprs, expr.NewColumn(c, col.Type, col.Name))
		p.Cols = append(p.Cols, Column{Name: col.Name, Type: col.Type, Hidden: col.Hidden})
	}
	return &ViewShape{Plan: p, Columns: slices.Clone(idx.Columns), PK: slices.Clone(idx.PK)}, nil
}
