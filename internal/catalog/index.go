package catalog

// An index is a materialized view of the indexed relation (a table or a
// materialized view) that the view machinery maintains and backfills: its
// columns are the key columns, then the INCLUDE columns, then the
// relation's primary key columns not among them, each stored once. Its
// primary key is the key columns followed by the relation's primary key
// columns not among them, so its rows are unique and stored in index
// order; its DistKey is the first key column, so rows with one value of
// it share a vnode: an equality on it reads one vnode, anything else
// (a range, an equality on later columns only) each vnode's key range.
//
// Keys are stored ascending with NULLs first whatever the index says:
// DESC and NULLS FIRST/LAST are recorded, shown as written (\d,
// pg_get_indexdef) and reported in pg_index.indoption, but no plan reads
// an index in its order, and a key range serves a predicate the same in
// either direction.

// Index is the definition of an index (Relation.Index).
type Index struct {
	// Table is the id of the indexed relation.
	Table uint32 `json:"table"`
	// Keys are the key columns, as written.
	Keys []IndexKey `json:"keys"`
	// Include holds the indexed relation's columns of INCLUDE (...).
	Include []int `json:"include,omitempty"`
	// Columns maps each column of the index relation to the indexed
	// relation's column it holds.
	Columns []int `json:"columns"`
	// Unique: the index of a UNIQUE constraint (Relation.Uniques of the
	// table), whose key values the table's writes keep unique.
	Unique bool `json:"unique,omitempty"`
}

// Unique is a UNIQUE constraint of a table: no two rows whose Columns
// are all non-NULL have equal Columns. Index is the id of the unique
// index that enforces it (0 until it is created: the table refuses
// writes until then).
type Unique struct {
	Name    string `json:"name"`
	Columns []int  `json:"columns"`
	Index   uint32 `json:"index,omitempty"`
	// IndexOnly: made by CREATE UNIQUE INDEX, not by a constraint (no
	// pg_constraint row; DROP INDEX drops it).
	IndexOnly bool `json:"index_only,omitempty"`
}

// IndexKey is one key column of an index.
type IndexKey struct {
	// Column is the indexed relation's column.
	Column int  `json:"column"`
	Desc   bool `json:"desc,omitempty"`
	// NullsFirst: NULLs sort before the values (the default of DESC).
	NullsFirst bool `json:"nulls_first,omitempty"`
}

// StoredColumn returns the index relation's column holding column c of
// the indexed relation, or -1.
func (x *Index) StoredColumn(c int) int {
	for i, tc := range x.Columns {
		if tc == c {
			return i
		}
	}
	return -1
}

// Covers reports whether the index holds every one of the indexed
// relation's columns cols.
func (x *Index) Covers(cols []int) bool {
	for _, c := range cols {
		if x.StoredColumn(c) < 0 {
			return false
		}
	}
	return true
}

// Readable reports whether r is an index that queries may read: created
// (its backfill done).
func (r *Relation) Readable() bool {
	return r.Kind == KindIndex && r.Index != nil && r.State == StateCreated
}

// IndexReader is a Reader that also lists indexes.
type IndexReader interface {
	// IndexesOf returns the created indexes of relation id, in id order.
	IndexesOf(id uint32) []*Relation
}
