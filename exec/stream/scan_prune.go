package stream

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/storage"
)

// Column pruning (ScanOptions.Read): a StreamScan whose plan reads only
// some of the upstream's columns emits the others as NULL in every
// phase, so the operators above it see one relation throughout: the
// snapshot and the log store skip those columns' bytes when decoding
// (storage.RowDecoder, storage.ColumnIterator), and the chunks it passes
// through once following have them replaced by NULL columns. The
// upstream's primary key and distribution key are always read: the
// scan's position, its log entries' keys and its stream key are made of
// them.

// scanReads returns read (nil: every column) with t's PK and DistKey
// columns added, or nil when that is every column.
func scanReads(read []bool, t *storage.Table) []bool {
	if read == nil {
		return nil
	}
	out := make([]bool, len(t.Types))
	copy(out, read)
	for _, c := range t.PK {
		out[c] = true
	}
	for _, c := range t.DistKey {
		out[c] = true
	}
	for _, r := range out {
		if !r {
			return out
		}
	}
	return nil
}

// logReads returns the columns of a log entry (BackfillTables.Log) to
// decode for a scan reading read (nil: all): the header, then read.
func logReads(read []bool) []bool {
	if read == nil {
		return nil
	}
	out := make([]bool, logHeader, logHeader+len(read))
	for i := range out {
		out[i] = true
	}
	return append(out, read...)
}

// nullUnread returns c with the columns not in read replaced by NULLs,
// releasing c; c itself when read is nil.
func nullUnread(c *chunk.Chunk, read []bool) *chunk.Chunk {
	if read == nil || c == nil {
		return c
	}
	n := int64(c.NumRows())
	cols := make([]arrow.Array, c.Rec.NumCols())
	var made []arrow.Array
	for i := range cols {
		if i < len(read) && !read[i] && c.Rec.Column(i).NullN() < int(n) { // a pruned source's are NULL already
			cols[i] = array.MakeArrayOfNull(chunk.Allocator(), c.Rec.Column(i).DataType(), int(n))
			made = append(made, cols[i])
			continue
		}
		cols[i] = c.Rec.Column(i)
	}
	out := &chunk.Chunk{Rec: array.NewRecordBatch(c.Rec.Schema(), cols, n), Ops: c.Ops, Types: c.Types}
	for _, a := range made {
		a.Release()
	}
	c.Release()
	return out
}

// narrowTo returns c with its first n columns only, releasing c; c itself
// when it has no more. The chunks of a table that gained columns (ALTER
// TABLE ... ADD COLUMN) are wider than the layout the views created
// before it were planned with: those read the columns they had, the
// way a view's definition still binds to them (catalog/bound.go).
func narrowTo(c *chunk.Chunk, n int) *chunk.Chunk {
	if c == nil || int(c.Rec.NumCols()) <= n {
		return c
	}
	md := c.Rec.Schema().Metadata()
	fields := c.Rec.Schema().Fields()[:n]
	out := &chunk.Chunk{Rec: array.NewRecordBatch(arrow.NewSchema(fields, &md), c.Rec.Columns()[:n], c.Rec.NumRows()),
		Ops: c.Ops, Types: c.Types[:min(n, len(c.Types))]}
	c.Release()
	return out
}
