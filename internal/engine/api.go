package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql/binder"
)

// Result is the outcome of a statement that returns no rows.
type Result struct {
	// Tag is the Postgres command tag, e.g. "INSERT 0 3".
	Tag string
	// RowsAffected counts the rows an INSERT, UPDATE or DELETE changed.
	RowsAffected int64
}

// Rows is the result of a query: held in memory, or, from OpenRows, a
// SELECT's rows streamed from its QueryIter as they are pulled.
type Rows struct {
	Columns []Column
	// Tag is the command tag; for streamed rows it is set once they are
	// read to the end or closed.
	Tag  string
	rows [][]types.Datum
	pos  int
	zone *types.Zone // the session's, which Text prints timestamptz in
	it   *QueryIter  // streamed rows' iterator; nil when in memory
	cur  []types.Datum
	err  error
}

// Next advances to the next row. Streamed rows are pulled without a
// context: use Pull to cancel.
func (r *Rows) Next() bool {
	ok, _ := r.Pull(context.Background())
	return ok
}

// Pull advances to the next row, pulling it from the executor when the
// rows are streamed; it reports false at the end or on an error (also
// kept for Err).
func (r *Rows) Pull(ctx context.Context) (bool, error) {
	if r.it == nil {
		if r.pos >= len(r.rows) {
			return false, nil
		}
		r.pos++
		return true, nil
	}
	if r.err != nil {
		return false, r.err
	}
	row, err := r.it.Next(ctx)
	r.cur = row
	if err != nil || row == nil {
		r.err = err
		r.Tag = r.it.Tag()
		return false, err
	}
	return true, nil
}

// Err returns the error that ended streamed rows, if any.
func (r *Rows) Err() error { return r.err }

// Close releases what streamed rows hold (their snapshot); it is
// idempotent and a no-op for rows in memory.
func (r *Rows) Close() {
	if r.it != nil {
		r.Tag = r.it.Tag()
		r.it.Close()
	}
}

// Len returns the number of rows held in memory (0 for streamed rows).
func (r *Rows) Len() int { return len(r.rows) }

// Row returns the current row's Datums, valid until the next call of
// Next or Pull.
func (r *Rows) Row() []types.Datum { return r.current() }

func (r *Rows) current() []types.Datum {
	if r.it != nil {
		return r.cur
	}
	return r.rows[r.pos-1]
}

// OpenRows runs one statement on the session (with args for $1, $2 ...)
// or, without args, the statements of query, as Query does. A SELECT
// (the only or the last statement) is not run to the end: its rows are
// pulled from the executor as the caller reads them, and the caller must
// Close them. Any other statement's rows are returned in memory.
func (s *Session) OpenRows(ctx context.Context, query string, args ...any) (*Rows, error) {
	it, rows, err := s.OpenQuery(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return rows, nil
	}
	return &Rows{Columns: it.Columns, it: it, zone: s.zone}, nil
}

// GoValue returns d, of type t, as Rows.Values does.
func GoValue(d types.Datum, t types.Type) any { return goValue(d, t) }

// Values returns the current row as Go values: int64, float64, bool,
// string, time.Time, []byte (bytea), or nil; numerics and intervals as
// their text.
func (r *Rows) Values() []any {
	row := r.current()
	out := make([]any, len(row))
	for i, d := range row {
		out[i] = goValue(d, r.Columns[i].Type)
	}
	return out
}

// Text returns the current row rendered as Postgres text ("NULL" for nulls
// is left to the caller: nil entries are nulls).
func (r *Rows) Text() []*string {
	row := r.current()
	out := make([]*string, len(row))
	for i, d := range row {
		if d != nil {
			s := types.FormatIn(d, r.Columns[i].Type, r.zone)
			out[i] = &s
		}
	}
	return out
}

func goValue(d types.Datum, t types.Type) any {
	switch v := d.(type) {
	case string:
		switch t.ID {
		case types.IDBytea:
			return []byte(v)
		case types.IDUUID, types.IDInet, types.IDCidr:
			return types.Format(v, t) // as pgx's database/sql driver returns them
		}
		return v
	case int64:
		if t.ID == types.IDTime || t.ID == types.IDTimeTZ {
			return types.Format(v, t) // as pgx's database/sql driver returns a time
		}
		return v
	case nil, float64, bool:
		return v
	case types.Date:
		return time.Unix(int64(v)*86400, 0).UTC()
	case types.Timestamp:
		return time.UnixMicro(int64(v)).UTC()
	case *apd.Decimal:
		return v.Text('f')
	}
	return types.Format(d, t)
}

// collector is a ResultWriter that keeps the last statement's results.
type collector struct {
	cols    []Column
	rows    [][]types.Datum
	tag     string
	notices []string
}

func (c *collector) Columns(cols []Column) error {
	c.cols, c.rows = cols, nil
	return nil
}

func (c *collector) Row(row []types.Datum) error {
	c.rows = append(c.rows, append([]types.Datum(nil), row...))
	return nil
}

func (c *collector) Complete(tag string) error {
	c.tag = tag
	return nil
}

func (c *collector) Notice(_, msg string) error {
	c.notices = append(c.notices, msg)
	return nil
}

// CopyFromColumns runs query, a COPY ... FROM STDIN statement, on this
// session, with the data of the reader open returns once the COPY knows
// its columns (their names and types, in the order the data gives them).
func (s *Session) CopyFromColumns(ctx context.Context, query string, open func(cols []Column) (io.Reader, error)) (Result, error) {
	c := &copyInFunc{open: open}
	if err := s.Run(ctx, query, c); err != nil {
		return Result{}, err
	}
	if !c.used {
		return Result{}, pgerr.New(pgerr.InvalidParameterValue, "the statement is not a COPY FROM STDIN")
	}
	var n int64
	fmt.Sscanf(c.tag, "COPY %d", &n)
	return Result{Tag: c.tag, RowsAffected: n}, nil
}

// copyInFunc is the ResultWriter of CopyFromColumns.
type copyInFunc struct {
	collector
	open func([]Column) (io.Reader, error)
	used bool
}

func (c *copyInFunc) CopyIn(cols []Column, _ int16) (io.Reader, error) {
	c.used = true
	return c.open(cols)
}

// Exec runs the statements of query (with args for $1, $2 ... when it is
// one statement) on a new session.
func (db *DB) Exec(ctx context.Context, query string, args ...any) (Result, error) {
	return db.NewSession().Exec(ctx, query, args...)
}

// Query runs a query on a new session and returns its rows.
func (db *DB) Query(ctx context.Context, query string, args ...any) (*Rows, error) {
	return db.NewSession().Query(ctx, query, args...)
}

// Exec runs query on this session.
func (s *Session) Exec(ctx context.Context, query string, args ...any) (Result, error) {
	c, err := s.runArgs(ctx, query, args)
	if err != nil {
		return Result{}, err
	}
	return Result{Tag: c.tag, RowsAffected: rowsAffected(c.tag)}, nil
}

// Query runs query on this session and returns the last statement's rows.
func (s *Session) Query(ctx context.Context, query string, args ...any) (*Rows, error) {
	c, err := s.runArgs(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return &Rows{Columns: c.cols, Tag: c.tag, rows: c.rows, zone: s.zone}, nil
}

func (s *Session) runArgs(ctx context.Context, query string, args []any) (*collector, error) {
	c := &collector{}
	if len(args) == 0 {
		return c, s.Run(ctx, query, c)
	}
	vals, typs, err := datumArgs(args)
	if err != nil {
		return nil, err
	}
	s.startStatement()
	s.queryText = query
	stmts, err := s.parser.Parse(query)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	return c, statementError(s.exec(ctx, stmts[0], binder.Options{ParamTypes: typs, ParamValues: vals}, c))
}

// datumArgs converts Go arguments to Datums with their types; strings are
// of unknown type, decided by the statement as a quoted literal would be,
// []byte is bytea and [16]byte a uuid.
func datumArgs(args []any) ([]types.Datum, []types.Type, error) {
	vals := make([]types.Datum, len(args))
	typs := make([]types.Type, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
			vals[i], typs[i] = nil, types.TUnknown
		case int:
			vals[i], typs[i] = int64(v), types.TInt64
		case int32:
			vals[i], typs[i] = int64(v), types.TInt32
		case int64:
			vals[i], typs[i] = v, types.TInt64
		case float64:
			vals[i], typs[i] = v, types.TFloat64
		case float32:
			vals[i], typs[i] = float64(v), types.TFloat32
		case bool:
			vals[i], typs[i] = v, types.TBool
		case string:
			vals[i], typs[i] = v, types.TUnknown
		case []byte:
			vals[i], typs[i] = string(v), types.TBytea // as pgx and lib/pq send it
		case [16]byte:
			vals[i], typs[i] = string(v[:]), types.TUUID // as pgx sends it
		case time.Time:
			vals[i], typs[i] = types.Timestamp(v.UnixMicro()), types.TTimestampTZ
		default:
			return nil, nil, pgerr.New(pgerr.DatatypeMismatch, "unsupported argument type %T for $%d", a, i+1)
		}
	}
	return vals, typs, nil
}

func rowsAffected(tag string) int64 {
	var a, b int64
	if n, _ := fmt.Sscanf(tag, "INSERT %d %d", &a, &b); n == 2 {
		return b
	}
	for _, p := range []string{"UPDATE %d", "DELETE %d", "SELECT %d"} {
		if n, _ := fmt.Sscanf(tag, p, &a); n == 1 {
			return a
		}
	}
	return 0
}
