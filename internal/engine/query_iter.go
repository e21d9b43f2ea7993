package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/streamdb/streamdb/exec/batch"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/binder"
	"github.com/streamdb/streamdb/storage"
)

// QueryIter is a SELECT's rows, pulled a chunk at a time from its
// executor over a snapshot of committed state: however large the result,
// it holds one chunk. Cursors (DECLARE ... CURSOR), portals run with a
// row limit and the Go API's streaming Rows read through it.
//
// A QueryIter is used from one goroutine at a time; Close may also be
// called by DB.Close from another (it waits for a Next in progress).
// Close it when done: it holds a Pebble snapshot.
type QueryIter struct {
	// Columns are the result's columns.
	Columns []Column

	db     *DB
	mu     sync.Mutex
	snap   *storage.Snapshot
	ex     batch.Executor
	vis    []int
	regOut func([]types.Datum)
	cur    *chunk.Chunk
	pos    int
	buf    []types.Datum
	row    []types.Datum
	n      int64 // rows returned
	err    error // sticky: the executor failed, or the iterator closed
	closed bool
}

// errIterClosed is the error of a Next after Close.
var errIterClosed = pgerr.New(pgerr.InvalidCursorState, "the query's rows were closed")

// openQuery opens q's executor over a new snapshot.
func (db *DB) openQuery(ctx context.Context, q *planner.Query) (*QueryIter, error) {
	snap := db.store.Snapshot()
	id := identityOf(ctx)
	ex, err := planner.BuildBatch(q.Plan, &snapshotSource{db: db, snap: snap, id: &id})
	if err != nil {
		snap.Close()
		return nil, err
	}
	it := &QueryIter{db: db, snap: snap, ex: ex}
	for i, c := range q.Plan.Columns() {
		if !c.Hidden {
			it.vis = append(it.vis, i)
			it.Columns = append(it.Columns, Column{Name: c.Name, Type: c.Type})
		}
	}
	it.regOut = db.regOutput(ctx, it.Columns)
	it.row = make([]types.Datum, len(it.vis))
	return it, nil
}

// Next returns the next row, or nil at the end. The row is valid until
// the next call: copy it to keep it.
func (it *QueryIter) Next(ctx context.Context) ([]types.Datum, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	for it.err == nil {
		if it.cur != nil && it.pos < it.cur.NumRows() {
			it.buf = it.cur.Row(it.pos, it.buf)
			it.pos++
			for j, k := range it.vis {
				it.row[j] = it.buf[k]
			}
			it.regOut(it.row)
			it.n++
			return it.row, nil
		}
		if it.cur != nil {
			it.cur.Release()
			it.cur = nil
		}
		if it.ex == nil {
			return nil, nil // drained
		}
		c, err := it.ex.Next(ctx)
		switch {
		case err != nil:
			it.err = err
			it.release()
		case c == nil:
			it.release() // the end: let the snapshot go at once
		default:
			it.cur, it.pos = c, 0
		}
	}
	return nil, it.err
}

// Tag is the command tag of the rows returned so far ("SELECT n").
func (it *QueryIter) Tag() string {
	it.mu.Lock()
	defer it.mu.Unlock()
	return fmt.Sprintf("SELECT %d", it.n)
}

// Close releases the executor and the snapshot. It is idempotent.
func (it *QueryIter) Close() {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.closed {
		return
	}
	it.closed = true
	if it.err == nil {
		it.err = errIterClosed
	}
	it.release()
	it.db.iters.forget(it)
}

// release frees what the iterator holds; mu is held.
func (it *QueryIter) release() {
	if it.cur != nil {
		it.cur.Release()
		it.cur = nil
	}
	if it.ex != nil {
		it.ex.Close()
		it.ex = nil
	}
	if it.snap != nil {
		it.snap.Close()
		it.snap = nil
	}
}

// openIters are the DB's open QueryIters: DB.Close closes those a caller
// left open, so that no snapshot outlives the store.
type openIters struct {
	mu     sync.Mutex
	m      map[*QueryIter]struct{}
	closed bool
}

func (o *openIters) add(it *QueryIter) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return errClosing
	}
	if o.m == nil {
		o.m = map[*QueryIter]struct{}{}
	}
	o.m[it] = struct{}{}
	return nil
}

func (o *openIters) forget(it *QueryIter) {
	o.mu.Lock()
	delete(o.m, it)
	o.mu.Unlock()
}

// closeAll closes every open iterator and refuses new ones.
func (o *openIters) closeAll() {
	o.mu.Lock()
	o.closed = true
	its := make([]*QueryIter, 0, len(o.m))
	for it := range o.m {
		its = append(its, it)
	}
	o.mu.Unlock()
	for _, it := range its {
		it.Close()
	}
}

// An iterTaker is a ResultWriter that takes a SELECT's rows as a
// QueryIter to pull, instead of having them written to it; any other
// statement writes to it as usual.
type iterTaker interface {
	ResultWriter
	takeIter(it *QueryIter)
}

// iterCollector takes a SELECT's QueryIter, and collects the results of
// any other statement.
type iterCollector struct {
	collector
	it *QueryIter
}

func (c *iterCollector) takeIter(it *QueryIter) { c.it = it }

// OpenQuery runs one statement on the session, with args for $1, $2 ...
// A SELECT is not run to the end: its rows come from the returned
// QueryIter, pulled as the caller reads them. Any other statement runs
// to completion and its rows (SHOW, RETURNING, EXPLAIN ...) are returned
// in memory, with a nil QueryIter.
func (s *Session) OpenQuery(ctx context.Context, query string, args ...any) (*QueryIter, *Rows, error) {
	c := &iterCollector{}
	vals, typs, err := datumArgs(args)
	if err != nil {
		return nil, nil, err
	}
	s.startStatement()
	stmts, err := s.parser.Parse(query)
	if err != nil {
		return nil, nil, err
	}
	if len(stmts) != 1 {
		if len(args) > 0 {
			return nil, nil, pgerr.New(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
		}
		// Several statements: run all, as Query does, and keep the last
		// one's rows.
		if err := s.Run(ctx, query, &c.collector); err != nil {
			return nil, nil, err
		}
		return nil, &Rows{Columns: c.cols, Tag: c.tag, rows: c.rows, zone: s.zone}, nil
	}
	if err := statementError(s.exec(ctx, stmts[0], binder.Options{ParamTypes: typs, ParamValues: vals}, c)); err != nil {
		return nil, nil, err
	}
	if c.it != nil {
		return c.it, nil, nil
	}
	return nil, &Rows{Columns: c.cols, Tag: c.tag, rows: c.rows, zone: s.zone}, nil
}
