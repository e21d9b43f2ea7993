package streamdb

import (
	"context"

	"github.com/streamdb/streamdb/internal/engine"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// Result is the outcome of a statement that returns no rows.
type Result struct {
	// Tag is the Postgres command tag, e.g. "INSERT 0 3".
	Tag string
	// RowsAffected counts the rows an INSERT, UPDATE, DELETE or COPY
	// changed, or a SELECT returned.
	RowsAffected int64
}

// Column describes a result column.
type Column struct {
	Name string
	// Type is the column's PostgreSQL type name, as format_type prints it
	// ("integer", "numeric", "timestamp with time zone").
	Type string
	// OID is the PostgreSQL OID of the column's type.
	OID uint32
}

// Rows is the result of a query. A SELECT's rows stream: each is produced
// by the executor as Next asks for it, over a snapshot of committed
// state, so a large result never has to fit in memory. The rows of other
// statements (SHOW, EXPLAIN, RETURNING) are held in memory.
//
// Call Next before reading each row, then Scan, Values or Text; check
// Err after Next reports false; Close the rows when done (reading them
// to the end closes them, and so does DB.Close). A Rows is used from one
// goroutine at a time.
type Rows struct {
	Columns []Column
	// Tag is the Postgres command tag, e.g. "SELECT 3". For a SELECT it
	// is set once the rows are read to the end or closed.
	Tag string

	ctx    context.Context
	r      *engine.Rows
	peeked bool // the first row was pulled by Query, not yet by Next
	peekOK bool
	onRow  bool // Next reported a row that Scan and Values read
	done   bool
	err    error
}

// openRows wraps r, pulling its first row so that an error raised before
// the first row (most of them) is the query's.
func openRows(ctx context.Context, r *engine.Rows) (*Rows, error) {
	cols := make([]Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = Column{Name: c.Name, Type: c.Type.String(), OID: c.Type.OID()}
	}
	rows := &Rows{Columns: cols, Tag: r.Tag, ctx: ctx, r: r}
	ok, err := r.Pull(ctx)
	if err != nil {
		r.Close()
		return nil, publicError(err)
	}
	rows.peeked, rows.peekOK = true, ok
	if !ok {
		rows.finish()
	}
	return rows, nil
}

// Next advances to the next row; it reports false after the last one or
// on an error (see Err).
func (r *Rows) Next() bool {
	r.onRow = false
	if r.done {
		return false
	}
	if r.peeked {
		r.peeked = false
		r.onRow = r.peekOK
		return r.onRow
	}
	ok, err := r.r.Pull(r.ctx)
	if err != nil {
		r.err = publicError(err)
	}
	if !ok {
		r.finish()
		return false
	}
	r.onRow = true
	return true
}

// finish ends the rows: their snapshot is let go at once.
func (r *Rows) finish() {
	r.done = true
	r.r.Close()
	r.Tag = r.r.Tag
}

// Err returns the error that ended the rows, or nil when they were read
// to the end (or closed).
func (r *Rows) Err() error { return r.err }

// Close ends the rows and releases what they hold. It is idempotent.
func (r *Rows) Close() error {
	if !r.done {
		r.finish()
	}
	r.onRow = false
	return nil
}

// Values returns the current row as Go values: int64, float64, bool,
// string, time.Time, []byte (bytea), or nil for NULL; numerics, intervals
// and other types as their Postgres text.
func (r *Rows) Values() []any {
	if !r.onRow {
		return nil
	}
	return r.r.Values()
}

// Text returns the current row rendered as Postgres text; nil entries are
// NULLs.
func (r *Rows) Text() []*string {
	if !r.onRow {
		return nil
	}
	return r.r.Text()
}

// Scan copies the columns of the current row into dest, one pointer per
// column: see the package documentation for the Go types each SQL type
// scans into. Scanning NULL into a destination that cannot hold it is an
// error, as in database/sql.
func (r *Rows) Scan(dest ...any) error {
	if !r.onRow {
		return &Error{Code: pgerr.InvalidCursorState, Message: "streamdb: Scan called without a row (call Next first)"}
	}
	row := r.r.Row()
	if len(dest) != len(row) {
		return &Error{Code: pgerr.DatatypeMismatch, Message: sprintf("streamdb: Scan expected %d destination arguments, got %d", len(row), len(dest))}
	}
	for i, d := range dest {
		if err := scanValue(d, row[i], r.r.Columns[i].Type); err != nil {
			return scanError(i, r.Columns[i].Name, err)
		}
	}
	return nil
}
