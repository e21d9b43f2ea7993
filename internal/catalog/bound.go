package catalog

import "github.com/streamdb/streamdb/internal/types"

// A view is bound to the relations it reads, not to their names, as in
// PostgreSQL: renaming a table or one of its columns, adding columns to
// it or dropping columns the view does not read leave the view reading
// what it read. A view's Definition is kept as written and bound again
// whenever its job is built (at every open and rebuild), so it must bind
// to the same relations and columns it bound to at its creation. Each
// ALTER that changes a relation a view reads first records, in the
// view's Bound, the relation as the view knew it (its name and its
// columns' names, by position, all of them) when the view has no record
// of it yet; the view's definition then binds through AsBoundBy, which
// shows that relation under the recorded name with the recorded columns
// only (the current ones at those positions, under their recorded
// names): its SELECT * still expands to the columns it had, and the
// names the text uses still resolve.

// BoundRel is a relation as a view's definition names it.
type BoundRel struct {
	// Name is the relation's catalog name when the view was created.
	Name string `json:"name"`
	// Columns are the names of all its columns (hidden included), in
	// order, then.
	Columns []string `json:"columns"`
}

// BindingOf returns r as a view created now would know it.
func BindingOf(r *Relation) *BoundRel {
	b := &BoundRel{Name: r.Name, Columns: make([]string, len(r.Columns))}
	for i, c := range r.Columns {
		b.Columns[i] = c.Name
	}
	return b
}

// AsBoundBy returns the catalog cat as view v's definition sees it (see
// above); cat itself when v records no binding. It keeps cat's search
// path, time zone, indexes and functions.
func AsBoundBy(cat Reader, v *Relation) Reader {
	if v == nil || len(v.Bound) == 0 {
		return cat
	}
	return boundReader{inner: cat, bound: v.Bound}
}

type boundReader struct {
	inner Reader
	bound map[uint32]*BoundRel
}

// Relation implements Reader: a recorded name finds its relation first.
func (b boundReader) Relation(name string) (*Relation, bool) {
	for id, br := range b.bound {
		if br.Name == name {
			if r, ok := b.inner.RelationByID(id); ok {
				return presentAs(r, br), true
			}
		}
	}
	r, ok := b.inner.Relation(name)
	if ok {
		if br := b.bound[r.ID]; br != nil {
			return presentAs(r, br), true
		}
	}
	return r, ok
}

// RelationByID implements Reader.
func (b boundReader) RelationByID(id uint32) (*Relation, bool) {
	r, ok := b.inner.RelationByID(id)
	if ok {
		if br := b.bound[id]; br != nil {
			return presentAs(r, br), true
		}
	}
	return r, ok
}

// presentAs returns a copy of r under br's name with br's columns: the
// first len(br.Columns) of r's, each under its recorded name unless
// dropped since (a dropped column stays hidden and nameless).
func presentAs(r *Relation, br *BoundRel) *Relation {
	p := *r
	p.Name = br.Name
	n := min(len(br.Columns), len(r.Columns))
	p.Columns = make([]Column, n)
	p.Narrowed = r.Narrowed || n < len(r.Columns)
	for i := range n {
		p.Columns[i] = r.Columns[i]
		if !r.Columns[i].Dropped {
			p.Columns[i].Name = br.Columns[i]
		}
	}
	return &p
}

// SchemaExists implements SchemaReader.
func (b boundReader) SchemaExists(name string) bool {
	if sr, ok := b.inner.(SchemaReader); ok {
		return sr.SchemaExists(name)
	}
	return BuiltinSchema(name)
}

// SearchPath implements SchemaReader.
func (b boundReader) SearchPath() []string { return SearchPathOf(b.inner) }

// TimeZone implements ZoneReader.
func (b boundReader) TimeZone() *types.Zone { return TimeZoneOf(b.inner) }

// IndexesOf implements IndexReader.
func (b boundReader) IndexesOf(id uint32) []*Relation {
	if ir, ok := b.inner.(IndexReader); ok {
		return ir.IndexesOf(id)
	}
	return nil
}

// Function implements Functions.
func (b boundReader) Function(name string, args []types.Type) (*Func, bool) {
	if f, ok := b.inner.(Functions); ok {
		return f.Function(name, args)
	}
	return nil, false
}

// MissingValues returns what each column reads in a row stored without
// it (see Column.Missing); nil when every column reads NULL.
func (r *Relation) MissingValues() []types.Datum {
	var out []types.Datum
	for i, c := range r.Columns {
		if c.Missing == nil {
			continue
		}
		d, err := types.Parse(*c.Missing, c.Type)
		if err != nil {
			continue // checked when the column was added
		}
		if out == nil {
			out = make([]types.Datum, len(r.Columns))
		}
		out[i] = d
	}
	return out
}
