// Package chunk defines the unit of data that flows between executors: an
// Arrow record batch plus one change operation per row.
//
// Ownership: whoever builds a Chunk owns it and hands that ownership to the
// receiver when it sends the chunk on; the last owner calls Release. A
// dispatcher that sends one chunk to several receivers calls Retain once per
// extra receiver.
package chunk

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/types"
)

// Op is the change a row of a chunk carries.
type Op uint8

// The change operations. An update travels as an adjacent UpdateDelete,
// UpdateInsert pair.
const (
	Insert Op = iota
	Delete
	UpdateDelete
	UpdateInsert
)

// IsInsert reports whether the row is added (Insert or UpdateInsert).
func (o Op) IsInsert() bool { return o == Insert || o == UpdateInsert }

// String returns "+", "-", "U-" or "U+".
func (o Op) String() string {
	switch o {
	case Insert:
		return "+"
	case Delete:
		return "-"
	case UpdateDelete:
		return "U-"
	case UpdateInsert:
		return "U+"
	}
	return "?"
}

// Chunk is a batch of rows with their change operations. Ops is nil for a
// chunk of plain rows (batch query results, snapshot reads): every row is
// then an Insert.
type Chunk struct {
	Rec   arrow.RecordBatch
	Ops   []Op
	Types []types.Type
}

// NumRows returns the number of rows in c.
func (c *Chunk) NumRows() int { return int(c.Rec.NumRows()) }

// Op returns the operation of row i.
func (c *Chunk) Op(i int) Op {
	if c.Ops == nil {
		return Insert
	}
	return c.Ops[i]
}

// Row decodes row i into dst (grown as needed) and returns it.
func (c *Chunk) Row(i int, dst []types.Datum) []types.Datum {
	n := int(c.Rec.NumCols())
	if cap(dst) < n {
		dst = make([]types.Datum, n)
	}
	dst = dst[:n]
	for j := 0; j < n; j++ {
		dst[j] = Value(c.Rec.Column(j), c.Types[j], i)
	}
	return dst
}

// RowsInto decodes every row of c into rows (each c's width, in order):
// what Row does for each, a column at a time, so that each column's type
// is looked at once rather than once per value (an executor that decodes
// its whole input, a join, spends much of its decoding there).
func (c *Chunk) RowsInto(rows [][]types.Datum) {
	for j, t := range c.Types {
		col := c.Rec.Column(j)
		nulls := col.NullN() > 0
		switch a := col.(type) {
		case *array.Int64:
			for i, row := range rows {
				if nulls && a.IsNull(i) {
					row[j] = nil
				} else {
					row[j] = a.Value(i)
				}
			}
		case *array.Int32:
			for i, row := range rows {
				if nulls && a.IsNull(i) {
					row[j] = nil
				} else {
					row[j] = int64(a.Value(i))
				}
			}
		default:
			for i, row := range rows {
				row[j] = Value(col, t, i)
			}
		}
	}
}

// Rows decodes every row of c.
func (c *Chunk) Rows() [][]types.Datum {
	out := make([][]types.Datum, c.NumRows())
	for i := range out {
		out[i] = c.Row(i, nil)
	}
	return out
}

// Retain adds a reference to the chunk's Arrow buffers.
func (c *Chunk) Retain() { c.Rec.Retain() }

// Release drops a reference to the chunk's Arrow buffers.
func (c *Chunk) Release() { c.Rec.Release() }
