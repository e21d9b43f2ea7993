package streamdb

import (
	"github.com/streamdb/streamdb/internal/engine"
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

// Rows is the result of a query, held in memory. Call Next before reading
// each row.
type Rows struct {
	Columns []Column
	// Tag is the Postgres command tag, e.g. "SELECT 3".
	Tag string
	r   *engine.Rows
}

func newRows(r *engine.Rows) *Rows {
	cols := make([]Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = Column{Name: c.Name, Type: c.Type.String(), OID: c.Type.OID()}
	}
	return &Rows{Columns: cols, Tag: r.Tag, r: r}
}

// Next advances to the next row; it reports false after the last.
func (r *Rows) Next() bool { return r.r.Next() }

// Len returns the number of rows.
func (r *Rows) Len() int { return r.r.Len() }

// Values returns the current row as Go values: int64, float64, bool,
// string, time.Time, []byte (bytea), or nil for NULL; numerics, intervals
// and other types as their Postgres text.
func (r *Rows) Values() []any { return r.r.Values() }

// Text returns the current row rendered as Postgres text; nil entries are
// NULLs.
func (r *Rows) Text() []*string { return r.r.Text() }
