package batch

import (
	"context"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// MaxRecursion bounds the iterations of a WITH RECURSIVE query's
// recursive term. PostgreSQL has no bound (a query that never stops
// runs until it is cancelled or times out, as here too); the bound turns
// the common mistake, a recursive term that never runs out of rows, into
// an error rather than a query that holds its session for good.
const MaxRecursion = 1_000_000

// WorkTable is the working table of a recursive query: the rows the last
// iteration produced, which the recursive term reads (WorkTableScan).
type WorkTable struct {
	rows [][]types.Datum
}

// RecursiveUnion evaluates base UNION [ALL] recursive: it yields base's
// rows, then runs the recursive term over them, then over the rows that
// produced, and so on until an iteration produces none. With distinct
// (UNION) a row already yielded is dropped, which also ends a cycle.
type RecursiveUnion struct {
	name     string
	base     Executor
	build    func() (Executor, error) // a fresh executor of the recursive term
	work     *WorkTable
	distinct bool
	types    []types.Type

	cur   Executor // base, then the current iteration's term; nil at the end
	next  [][]types.Datum
	seen  map[string]struct{}
	iters int
	limit int // MaxRecursion; tests lower it
	rb    *rowBuilder
	key   []byte
}

// NewRecursiveUnion returns the executor of the recursive query name;
// build makes an executor of the recursive term, reading work.
func NewRecursiveUnion(name string, base Executor, build func() (Executor, error), work *WorkTable, distinct bool, ts []types.Type) *RecursiveUnion {
	r := &RecursiveUnion{name: name, base: base, build: build, work: work, distinct: distinct, types: ts,
		cur: base, limit: MaxRecursion, rb: newRowBuilder(ts)}
	if distinct {
		r.seen = map[string]struct{}{}
	}
	return r
}

// Types implements Executor.
func (r *RecursiveUnion) Types() []types.Type { return r.types }

// Next implements Executor.
func (r *RecursiveUnion) Next(ctx context.Context) (*chunk.Chunk, error) {
	for r.cur != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := r.cur.Next(ctx)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if err := r.advance(); err != nil {
				return nil, err
			}
			continue
		}
		if out := r.keep(c); out != nil {
			return out, nil
		}
	}
	return nil, nil
}

// keep records the new rows of c for the next iteration and returns
// them (nil when none is new); it releases c.
func (r *RecursiveUnion) keep(c *chunk.Chunk) *chunk.Chunk {
	defer c.Release()
	var row []types.Datum
	for i := 0; i < c.NumRows(); i++ {
		row = c.Row(i, row)
		if r.distinct {
			r.key = r.key[:0]
			for j, t := range r.types {
				r.key = storage.AppendDatumKeyOf(r.key, t, row[j])
			}
			if _, ok := r.seen[string(r.key)]; ok {
				continue
			}
			r.seen[string(r.key)] = struct{}{}
		}
		r.next = append(r.next, cloneRow(row))
		r.rb.append(row)
	}
	return r.rb.build()
}

// advance closes the finished term and starts the next iteration over
// the rows the last one produced, or ends when there are none.
func (r *RecursiveUnion) advance() error {
	err := r.cur.Close()
	r.cur = nil
	if err != nil || len(r.next) == 0 {
		r.work.rows = nil
		return err
	}
	r.iters++
	if r.iters > r.limit {
		e := pgerr.New("54001", "recursive query %q did not finish after %d iterations", r.name, r.limit)
		e.Hint = "Check that the recursive term stops producing rows, or use UNION instead of UNION ALL to end a cycle."
		return e
	}
	r.work.rows, r.next = r.next, nil
	r.cur, err = r.build()
	return err
}

// Close implements Executor.
func (r *RecursiveUnion) Close() error {
	r.rb.release()
	r.work.rows = nil
	if r.cur != nil {
		err := r.cur.Close()
		r.cur = nil
		return err
	}
	return nil
}

// WorkTableScan yields the rows of a recursive query's working table.
type WorkTableScan struct {
	work  *WorkTable
	types []types.Type
	rows  *rowsEmitter
}

// NewWorkTableScan returns a scan of work, whose rows have types ts.
func NewWorkTableScan(work *WorkTable, ts []types.Type) *WorkTableScan {
	return &WorkTableScan{work: work, types: ts}
}

// Types implements Executor.
func (w *WorkTableScan) Types() []types.Type { return w.types }

// Next implements Executor.
func (w *WorkTableScan) Next(ctx context.Context) (*chunk.Chunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.rows == nil {
		w.rows = &rowsEmitter{rows: w.work.rows, rb: newRowBuilder(w.types)}
	}
	return w.rows.next(), nil
}

// Close implements Executor.
func (w *WorkTableScan) Close() error {
	if w.rows != nil {
		w.rows.rb.release()
	}
	return nil
}
